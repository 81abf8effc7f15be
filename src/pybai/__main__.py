"""``python -m pybai``: the ``pybai`` command (:func:`pybai.cli.main`), with its exit status."""

import sys

from pybai.cli import main

if __name__ == "__main__":
    sys.exit(main())
