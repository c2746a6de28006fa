# cython: language_level=3
"""Python access to the enums and the parameter struct of ``_rules_linear.pxd``."""

from ._rules_linear cimport RuleParams, rule_params


def check_rule_params(dict params):
    """The parameter dict a linear kernel accepts, as the kernel reads it
    (a missing or unknown key raises ValueError)."""
    cdef RuleParams p = rule_params(params)
    return p
