"""Everything the package knows about each update rule, in one place.

The compiled kernels name their rules by the members of the enums of
``_compiled/_rules_*.pxd`` (:class:`Rule`, :class:`Slack`,
:class:`SecondOrderRule`, :class:`SequenceUpdate`, :class:`SequenceLoss`).
Every member has exactly one :class:`RuleSpec` here
(``tests/test_rule_specs.py`` checks it both ways), and every site of the
package that treats rules differently reads the spec instead of listing
members:

- a kernel's Python entry refuses a value that is not listed for it
  (:func:`check_kernel_rule`), since its ``nogil`` step cannot raise: a rule
  a kernel does not know never falls through to another rule's branch;
- the first-order kernel's entry checks (``_first_order.pyx``:
  ``_check_epoch``) read what a row carries (``y``) and whether the rule
  reads the class margins (``margins``); the second-order kernel's entry
  (``_second_order.pyx``) and ``_BaseSecondOrder._run`` read ``y`` (a
  regression rule's rows carry targets);
- the class weights of the target strategies
  (``_targets.MulticlassTargets.kernel_weights``) and the epoch adapter
  (``_linear_epochs``) read ``one_vs_rest``;
- the Bayes point machine accepts the rules whose ``kernels`` name
  ``"bayes_point"`` (``_bayes_point_epochs.check_rule``);
- the tests' kernel calls (``tests/kernel_calls.py``) read
  ``learning_rate``.

A new rule adds its enum member (in the ``.pxd`` of its family), one entry
below, its branch in each switch of its kernel, and its estimator.
"""

from dataclasses import dataclass
from enum import Enum, IntEnum

from .._compiled._rules import (
    Rule,
    SecondOrderRule,
    SequenceLoss,
    SequenceUpdate,
    Slack,
)

__all__ = [
    "RULE_SPECS",
    "RuleSpec",
    "check_kernel_rule",
    "check_linear_rule",
    "kernel_values",
    "linear_params",
    "scaled_params",
    "second_order_kernel_params",
    "spec",
]

#: The kernels (compiled families) and the parameter each reads a rule from.
KERNELS = {
    "first_order": ("rule", "slack"),  # _first_order.pyx
    "multiplicative": ("rule",),  # _multiplicative.pyx
    "bayes_point": ("rule", "slack"),  # _bayes_point.pyx
    "kernel_pa": ("rule", "slack"),  # _kernel_pa.pyx
    "uniclass": ("slack",),  # _uniclass.pyx
    "scaled": ("rule",),  # _scaled.pyx: ROMMA and ALMA
    "second_order": ("rule", "step"),  # _second_order.pyx
    "sequence_perceptron": ("update",),  # _sequence.pyx: perceptron_epoch
    "sequence_pa": ("loss",),  # _sequence.pyx: pa_epoch
}


@dataclass(frozen=True)
class RuleSpec:
    """What the package knows of one enum member.

    Attributes
    ----------
    member : IntEnum
        The enum member, the value the kernels read.
    kernels : tuple of str
        The kernels (keys of :data:`KERNELS`) that run it; any other kernel
        refuses it at entry.
    key : str
        The kernel parameter whose value it is: ``"rule"`` (a ``Rule`` or a
        second-order constraint rule ``SO_*``), ``"step"`` (a second-order
        step ``STEP_*``), ``"slack"``, ``"update"`` or ``"loss"``.
    y : {"labels", "values", "label_sets", None}
        What a row carries: a class label (``labels``), a real target
        (``values``, a regression rule) or a set of relevant labels
        (``label_sets``); None for a parameter that is not a rule.
    one_vs_rest : bool
        One binary problem per weight column: each column has its own loss
        and its own class weights (``weight_neg`` one).
    margins : bool
        The rule reads the matrix of required margins between classes.
    slack : bool
        The rule reads ``slack`` (PA-I / PA-II), which the kernel then checks.
    learning_rate : bool
        The rule reads ``learning_rate`` (the gradient rules).
    averaging : bool
        The kernel that runs it can average the weights (``U``, ``bu``).
    """

    member: IntEnum
    kernels: tuple
    key: str = "rule"
    y: str | None = "labels"
    one_vs_rest: bool = False
    margins: bool = False
    slack: bool = True
    learning_rate: bool = False
    averaging: bool = True


_LINEAR = ("first_order", "bayes_point")
_PA_SLACK = ("first_order", "bayes_point", "kernel_pa", "uniclass")

RULE_SPECS = (
    # --- first-order rules (Rule, _rules_linear.pxd; _pa_rules.pxd) ---------
    RuleSpec(Rule.BINARY, (*_LINEAR, "kernel_pa")),
    RuleSpec(Rule.OVR, _LINEAR, one_vs_rest=True),
    RuleSpec(Rule.MAX_LOSS, (*_LINEAR, "kernel_pa"), margins=True),
    RuleSpec(Rule.PREDICTION, _LINEAR, margins=True),
    RuleSpec(Rule.SUPPORT, _LINEAR, margins=True),
    RuleSpec(Rule.REGRESSION, ("first_order", "kernel_pa"), y="values"),
    RuleSpec(Rule.MULTILABEL, ("first_order",), y="label_sets"),
    RuleSpec(Rule.MULTILABEL_RANKING, ("first_order",), y="label_sets"),
    RuleSpec(Rule.MIRA, ("first_order",), slack=False),
    RuleSpec(
        Rule.GRADIENT, ("first_order",), y="values", slack=False, learning_rate=True
    ),
    RuleSpec(
        Rule.NORMALIZED_GRADIENT,
        ("first_order",),
        y="values",
        slack=False,
        learning_rate=True,
    ),
    RuleSpec(
        Rule.EXPONENTIATED,
        ("multiplicative",),
        y="values",
        slack=False,
        learning_rate=True,
        averaging=False,
    ),
    RuleSpec(
        Rule.ERROR_PROPORTIONAL_MULT,
        ("multiplicative",),
        y="values",
        slack=False,
        learning_rate=True,
        averaging=False,
    ),
    # --- classical margin learners (Rule; _margin_rules.pxd) ----------------
    RuleSpec(Rule.PERCEPTRON_MAX, ("first_order",), slack=False),
    RuleSpec(Rule.PERCEPTRON_UNIFORM, ("first_order",), slack=False),
    RuleSpec(Rule.PERCEPTRON_SCORE, ("first_order",), slack=False),
    RuleSpec(Rule.OGD, ("first_order",), slack=False, learning_rate=True),
    # the rules that rescale the whole model: their own kernel, no averaging
    RuleSpec(Rule.ROMMA, ("scaled",), slack=False, averaging=False),
    RuleSpec(Rule.AGGRESSIVE_ROMMA, ("scaled",), slack=False, averaging=False),
    RuleSpec(Rule.ALMA, ("scaled",), slack=False, averaging=False),
    # --- the slack of the PA rules (Slack, _rules_linear.pxd; _steps.pxd) ----
    RuleSpec(Slack.HINGE, _PA_SLACK, key="slack", y=None),
    RuleSpec(Slack.SQUARED_HINGE, _PA_SLACK, key="slack", y=None),
    # --- second order (SecondOrderRule, _rules_second_order.pxd) -------------
    # constraint rules: the switch of _second_order.pyx (_epoch)
    RuleSpec(SecondOrderRule.SO_BINARY, ("second_order",)),
    RuleSpec(SecondOrderRule.SO_SINGLE, ("second_order",)),
    RuleSpec(SecondOrderRule.SO_SEQUENTIAL, ("second_order",)),
    RuleSpec(SecondOrderRule.SO_SUPPORT, ("second_order",)),
    RuleSpec(SecondOrderRule.SO_REGRESSION, ("second_order",), y="values"),
    # steps: the switches of _cw_rules.pxd (cw_pair_step, cw_loss)
    RuleSpec(SecondOrderRule.STEP_CW, ("second_order",), key="step", y=None),
    RuleSpec(SecondOrderRule.STEP_AROW, ("second_order",), key="step", y=None),
    RuleSpec(SecondOrderRule.STEP_SCW1, ("second_order",), key="step", y=None),
    RuleSpec(SecondOrderRule.STEP_SCW2, ("second_order",), key="step", y=None),
    # regression steps: the switch of _cw_regression_rules.pxd (regression_step)
    RuleSpec(
        SecondOrderRule.STEP_AROW_REGRESSION, ("second_order",), key="step", y=None
    ),
    RuleSpec(SecondOrderRule.STEP_CW_REGRESSION, ("second_order",), key="step", y=None),
    RuleSpec(
        SecondOrderRule.STEP_NHERD_REGRESSION, ("second_order",), key="step", y=None
    ),
    # peer-library steps (SO_BINARY, SO_SINGLE, SO_SEQUENTIAL; not SO_SUPPORT,
    # which the kernel's entry refuses): the switches of _peer_rules.pxd
    # (peer_pair_step, peer_loss)
    RuleSpec(SecondOrderRule.STEP_SOP, ("second_order",), key="step", y=None),
    RuleSpec(SecondOrderRule.STEP_IELLIP, ("second_order",), key="step", y=None),
    RuleSpec(SecondOrderRule.STEP_NHERD, ("second_order",), key="step", y=None),
    RuleSpec(SecondOrderRule.STEP_NAROW, ("second_order",), key="step", y=None),
    RuleSpec(SecondOrderRule.STEP_NHERD_EXACT, ("second_order",), key="step", y=None),
    RuleSpec(SecondOrderRule.STEP_NHERD_DROP, ("second_order",), key="step", y=None),
    # --- sequences (SequenceUpdate, SequenceLoss, _rules_sequence.pxd) -------
    RuleSpec(
        SequenceUpdate.UPDATE_STANDARD, ("sequence_perceptron",), key="update", y=None
    ),
    RuleSpec(
        SequenceUpdate.UPDATE_EARLY, ("sequence_perceptron",), key="update", y=None
    ),
    RuleSpec(
        SequenceUpdate.UPDATE_MAX_VIOLATION,
        ("sequence_perceptron",),
        key="update",
        y=None,
    ),
    RuleSpec(SequenceLoss.LOSS_HINGE, ("sequence_pa",), key="loss", y=None),
    RuleSpec(SequenceLoss.LOSS_SQUARED_HINGE, ("sequence_pa",), key="loss", y=None),
)

_BY_MEMBER = {(type(s.member), int(s.member)): s for s in RULE_SPECS}


def spec(member, enum=Rule):
    """The :class:`RuleSpec` of ``member``: an enum member, or an int read
    as a member of ``enum`` (a ``Rule`` by default)."""
    # (a cpdef enum is an IntEnum from Cython 3.1, an IntFlag before)
    if isinstance(member, Enum):
        enum = type(member)
    return _BY_MEMBER[enum, int(member)]


def kernel_values(kernel, key):
    """The values of parameter ``key`` that ``kernel`` runs (a frozenset of
    ints): what its entry accepts."""
    if key not in KERNELS[kernel]:
        raise KeyError(f"the {kernel} kernel reads no {key!r}")
    return frozenset(
        int(s.member) for s in RULE_SPECS if kernel in s.kernels and s.key == key
    )


_ACCEPTED = {
    (kernel, key): kernel_values(kernel, key)
    for kernel in KERNELS
    for key in KERNELS[kernel]
}


def check_kernel_rule(kernel, key, value):
    """Raise ValueError unless ``kernel`` runs the value ``value`` of its
    parameter ``key``: the refusal at a kernel's entry of a rule it has no
    branch for (its ``nogil`` step cannot raise)."""
    accepted = _ACCEPTED[kernel, key]
    if value not in accepted:
        raise ValueError(
            f"the {kernel} kernel has no {key} {value!r}; it runs "
            f"{key} in {sorted(accepted)} (sklearn_pa/_core/rules.py)"
        )


def check_linear_rule(kernel, rule, slack):
    """The :class:`RuleSpec` of the ``Rule`` ``rule`` run by the linear
    kernel ``kernel``; ValueError unless the kernel runs it and, when the
    rule reads one, its ``slack`` is a ``Slack``."""
    check_kernel_rule(kernel, "rule", rule)
    rule_spec = _BY_MEMBER[Rule, rule]
    if rule_spec.slack:
        check_kernel_rule(kernel, "slack", slack)
    return rule_spec


def linear_params(
    rule,
    *,
    slack=Slack.HINGE,
    C=0.0,
    epsilon=0.0,
    margin=0.0,
    learning_rate=0.0,
    total_weight=0.0,
):
    """The parameter dict of a linear kernel (``RuleParams`` of
    ``_compiled/_rules_linear.pxd``, every key) for ``rule``: what an
    estimator's ``_kernel_params()`` returns, naming only what its rule
    reads."""
    return {
        "rule": int(rule),
        "slack": int(slack),
        "C": float(C),
        "epsilon": float(epsilon),
        "margin": float(margin),
        "learning_rate": float(learning_rate),
        "total_weight": float(total_weight),
    }


def second_order_kernel_params(
    rule, step, *, phi=0.0, param=0.0, epsilon=0.0, shrinkage=0.0
):
    """The parameter dict of the second-order kernel (``SecondOrderParams``
    of ``_compiled/_rules_second_order.pxd``, every key): the constraint rule
    ``rule`` (``SO_*``), the step ``step`` (``STEP_*``), ``phi`` (Phi^-1(eta)
    of CW and SCW, CW regression's phi), ``param`` (r of AROW, C of SCW and
    NHERD, a of SOP, b of IELLIP and NAROW), ``epsilon`` (the insensitive
    width of the regression steps) and ``shrinkage`` (IELLIP's c)."""
    return {
        "rule": int(rule),
        "step": int(step),
        "phi": float(phi),
        "param": float(param),
        "epsilon": float(epsilon),
        "shrinkage": float(shrinkage),
    }


def scaled_params(rule, *, alpha=0.0, B=0.0, C=0.0, normalize=False):
    """The parameter dict of the scaled kernel (``ScaledParams`` of
    ``_compiled/_margin_rules.pxd``, every key) for ``rule`` (ROMMA,
    aggressive ROMMA or ALMA): what their ``_kernel_params()`` returns; ROMMA
    reads none but ``rule``."""
    return {
        "rule": int(rule),
        "alpha": float(alpha),
        "B": float(B),
        "C": float(C),
        "normalize": int(bool(normalize)),
    }
