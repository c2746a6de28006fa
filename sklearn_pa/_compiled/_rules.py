"""The rule enums of every kernel family, for Python.

Each family declares its own in a ``.pxd`` (``_rules_linear.pxd``,
``_rules_second_order.pxd``, ``_rules_sequence.pxd``), so that editing one
rebuilds only the kernels of that family; this module gathers them.  What the
package knows of each rule is in :mod:`sklearn_pa._core.rules`.
"""

from ._rules_linear import Rule, Slack, check_rule_params
from ._rules_second_order import (
    SECOND_ORDER_PARAMS,
    SecondOrderRule,
    check_second_order_params,
)
from ._rules_sequence import SequenceLoss, SequenceUpdate

__all__ = [
    "SECOND_ORDER_PARAMS",
    "Rule",
    "SecondOrderRule",
    "SequenceLoss",
    "SequenceUpdate",
    "Slack",
    "check_rule_params",
    "check_second_order_params",
]
