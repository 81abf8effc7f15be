"""Throwaway environment for the peer package ``best-arm`` (stdlib only).

pybai never depends on ``best-arm``.  For side-by-side benchmarks the peer is
installed into its own virtual environment, outside the repository (by
default ``<system temp dir>/pybai-peer-best-arm``), and driven through
``benchmarks/_peer_best_arm.py`` in a subprocess that prints one JSON
document.

    from peer_env import ensure_peer_python, run_peer
    py = ensure_peer_python()          # creates + pip-installs on first use
    doc = run_peer(runs=5, seed=0, delta=0.1, means=(0.3, 0.21, 0.2, 0.19, 0.18))
    doc["summary"]["mean_samples"], doc["runs"][0]["wall_seconds"]

The location can be overridden with the ``PYBAI_PEER_VENV`` environment
variable (or the ``path`` argument).
"""
from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys
import tempfile
import venv
from typing import Iterable, Optional, Sequence

__all__ = [
    "PEER_REQUIREMENT",
    "PEER_VERSION",
    "PEER_SCRIPT",
    "default_peer_dir",
    "ensure_peer_python",
    "run_peer",
]

PEER_VERSION = "0.1.1"
PEER_REQUIREMENT = f"best-arm=={PEER_VERSION}"
PEER_SCRIPT = pathlib.Path(__file__).resolve().with_name("_peer_best_arm.py")


def default_peer_dir() -> pathlib.Path:
    env = os.environ.get("PYBAI_PEER_VENV")
    if env:
        return pathlib.Path(env).expanduser()
    return pathlib.Path(tempfile.gettempdir()) / "pybai-peer-best-arm"


def _venv_python(root: pathlib.Path) -> pathlib.Path:
    if os.name == "nt":
        return root / "Scripts" / "python.exe"
    return root / "bin" / "python"


def _peer_version(python: pathlib.Path) -> Optional[str]:
    """Version of best_arm importable by ``python``, or None."""
    try:
        out = subprocess.run(
            [str(python), "-c", "import best_arm, sys; sys.stdout.write(best_arm.__version__)"],
            capture_output=True, text=True, timeout=120,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return out.stdout.strip() if out.returncode == 0 else None


def ensure_peer_python(path=None, *, requirement: str = PEER_REQUIREMENT,
                       quiet: bool = True) -> pathlib.Path:
    """Return the python of a venv holding ``best-arm``, creating it if needed.

    ``path`` is the venv directory (default: :func:`default_peer_dir`).  The
    venv is created with the running interpreter's ``venv`` module and
    ``best-arm`` is installed with pip; an existing venv whose ``best_arm``
    already has the pinned version is reused untouched.
    """
    root = pathlib.Path(path).expanduser() if path is not None else default_peer_dir()
    python = _venv_python(root)
    wanted = requirement.partition("==")[2] or None

    have = _peer_version(python) if python.exists() else None
    if have is not None and (wanted is None or have == wanted):
        return python

    if not python.exists():
        # clear=True also repairs a half-created directory.
        venv.EnvBuilder(with_pip=True, clear=root.exists()).create(str(root))
    cmd = [str(python), "-m", "pip", "install", "--disable-pip-version-check"]
    if quiet:
        cmd.append("-q")
    cmd.append(requirement)
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(
            f"installing {requirement!r} into {root} failed "
            f"(exit {proc.returncode}):\n{proc.stdout[-4000:]}\n{proc.stderr[-4000:]}"
        )
    have = _peer_version(python)
    if have is None:
        raise RuntimeError(f"best_arm is not importable from {python} after installation")
    if wanted is not None and have != wanted:
        raise RuntimeError(f"peer venv {root} has best_arm {have}, expected {wanted}")
    return python


def run_peer(runs: int, seed: int, delta: float, means: Iterable[float], *,
             python=None, tracker: str = "d_tracking", threshold: str = "practice",
             timeout: Optional[float] = None) -> dict:
    """Run best-arm's Track-and-Stop ``runs`` times and return the parsed JSON.

    Defaults: D-tracking and the Chernoff/GLR stopping rule with threshold
    ln((ln t + 1)/delta) (best_arm's ``mode="practice"``).  ``python`` defaults
    to :func:`ensure_peer_python`.  The returned dict has keys ``version``,
    ``config``, ``components``, ``runs`` (per run: ``samples``,
    ``recommended``, ``correct``, ``counts``, ``wall_seconds``,
    ``cpu_seconds``, ``seed``) and ``summary``.
    """
    means_list: Sequence[float] = [float(m) for m in means]
    py = pathlib.Path(python) if python is not None else ensure_peer_python()
    cmd = [
        str(py), str(PEER_SCRIPT),
        "--runs", str(int(runs)),
        "--seed", str(int(seed)),
        "--delta", repr(float(delta)),
        "--means", ",".join(repr(m) for m in means_list),
        "--tracker", tracker,
        "--threshold", threshold,
    ]
    # Run from the temp dir so nothing the peer might write lands in the repo.
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                          cwd=tempfile.gettempdir())
    if proc.returncode != 0:
        raise RuntimeError(
            f"peer run failed (exit {proc.returncode}): {' '.join(cmd)}\n{proc.stderr[-4000:]}"
        )
    return json.loads(proc.stdout)


if __name__ == "__main__":  # pragma: no cover - manual helper
    import argparse

    ap = argparse.ArgumentParser(description="Run the best-arm peer benchmark.")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--delta", type=float, default=0.1)
    ap.add_argument("--means", default="0.3,0.21,0.2,0.19,0.18")
    ap.add_argument("--venv", default=None, help="venv directory (default: %s)" % default_peer_dir())
    a = ap.parse_args()
    py = ensure_peer_python(a.venv)
    doc = run_peer(a.runs, a.seed, a.delta, [float(x) for x in a.means.split(",")], python=py)
    json.dump(doc, sys.stdout, indent=2)
    sys.stdout.write("\n")
