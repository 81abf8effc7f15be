"""The version of pybai: the one place it is written (``pyproject.toml`` reads it from here).

A leaf module: every module of the package that records or prints the version imports it from
here, never from ``pybai`` (whose ``__init__`` imports them).
"""

__version__ = "0.1.0"
