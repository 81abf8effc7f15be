"""``python -m pybai.cli``."""

import sys

from pybai.cli import main

sys.exit(main())
