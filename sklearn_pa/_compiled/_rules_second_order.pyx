# cython: language_level=3
"""Python access to the enum and the parameter struct of ``_rules_second_order.pxd``."""

from ._rules_second_order cimport SecondOrderParams, second_order_params


def check_second_order_params(dict params):
    """The parameter dict the second-order kernel accepts, as it reads it
    (a missing or unknown key raises ValueError)."""
    cdef SecondOrderParams p = second_order_params(params)
    return p
