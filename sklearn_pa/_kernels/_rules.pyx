# cython: language_level=3
"""Python access to the step-rule enums declared in ``_rules.pxd``."""

from ._rules cimport (
    RuleParams, SecondOrderParams, rule_params, second_order_params,
)


def check_rule_params(dict params):
    """The parameter dict a linear kernel accepts, as the kernel reads it
    (a missing or unknown key raises ValueError)."""
    cdef RuleParams p = rule_params(params)
    return p


def check_second_order_params(dict params):
    """The parameter dict the second-order kernel accepts, as it reads it
    (a missing or unknown key raises ValueError)."""
    cdef SecondOrderParams p = second_order_params(params)
    return p
