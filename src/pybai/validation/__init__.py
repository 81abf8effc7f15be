"""Delta-correctness validation suite (``pybai validate``): random instances, binomial tests.

* :mod:`pybai.validation.generators`: the documented instance generators and their registry.
* :mod:`pybai.validation.suite`: the checks, the table, the verdicts.
"""

from pybai.validation.generators import FAMILIES, Instance, InstanceFamily, register_family
from pybai.validation.suite import FULL, QUICK, Row, Settings, failed, format_table, run_suite

__all__ = ["FAMILIES", "Instance", "InstanceFamily", "register_family", "FULL", "QUICK", "Row", "Settings",
           "failed", "format_table", "run_suite"]
