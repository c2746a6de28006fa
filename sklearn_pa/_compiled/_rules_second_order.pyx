# cython: language_level=3
"""Python access to the enum and the parameter struct of ``_rules_second_order.pxd``."""

from ._rules_second_order cimport (
    SecondOrderParams, second_order_param_names, second_order_params,
)

#: The kernel parameters of the second-order rules, the fields of
#: ``SecondOrderParams`` in their order.
SECOND_ORDER_PARAMS = second_order_param_names()


def check_second_order_params(dict params):
    """The parameter dict the second-order kernel accepts, as it reads it
    (a missing or unknown key raises ValueError)."""
    cdef SecondOrderParams p = second_order_params(params, SECOND_ORDER_PARAMS)
    return p
