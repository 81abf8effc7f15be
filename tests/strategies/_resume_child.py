"""Run in a fresh process by the round-trip check: restore saved states and finish the runs."""

import json
import sys


def main(saved_path, out_path):
    from pybai.testing.strategies import resume_saved

    saved = json.loads(open(saved_path, encoding="utf-8").read())
    out = {key: resume_saved(item) for key, item in saved.items()}
    open(out_path, "w", encoding="utf-8").write(json.dumps(out))


if __name__ == "__main__":
    main(*sys.argv[1:3])
