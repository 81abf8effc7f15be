"""The shipped experiment files (TOML) reproducing the seed papers."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from pybai.exceptions import ConfigError

__all__ = ["experiment_names", "experiment_path"]


def experiment_names() -> list[str]:
    """Names of the shipped experiments (file stems)."""
    folder = resources.files(__name__)
    return sorted(p.name[:-5] for p in folder.iterdir() if p.name.endswith(".toml"))


def experiment_path(name: str) -> Path:
    """Path of the shipped experiment ``name``."""
    path = Path(str(resources.files(__name__) / f"{name}.toml"))
    if not path.is_file():
        raise ConfigError(f"experiment: unknown name \"{name}\"; expected one of {', '.join(experiment_names())}.")
    return path
