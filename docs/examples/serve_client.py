"""A client of `pybai serve` in any Python, standard library only (docs/sessions.md, "Sessions as a service")."""
import json
import urllib.error
import urllib.request


class SessionClient:
    def __init__(self, server, session, token=None):
        self.url = f"{server}/sessions/{urllib.request.quote(session, safe='')}"
        self.headers = {"Content-Type": "application/json"} | ({"Authorization": f"Bearer {token}"} if token else {})

    def call(self, verb, body=None):  # GET without a body, POST with one; an error raises its one line
        request = urllib.request.Request(f"{self.url}/{verb}", headers=self.headers,
                                         data=None if body is None else json.dumps(body).encode())
        try:
            with urllib.request.urlopen(request, timeout=60) as response:
                return json.load(response)
        except urllib.error.HTTPError as error:
            raise RuntimeError(f"HTTP {error.code}: {json.load(error)['error']}") from None

    def ask(self):
        return self.call("ask", {})  # {"request": 7, "sources": [2], ...}

    def tell(self, request, sources, rewards):
        return self.call("tell", {"request": request, "sources": sources, "rewards": rewards})

    def status(self):
        return self.call("status")
