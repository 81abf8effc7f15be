"""pybai: best-arm identification."""
__version__ = "0.1.0"
