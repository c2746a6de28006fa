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
  reads the class margins (``margins``);
- a combination of values (the second-order kernel's constraint rule and
  step) runs only where what each declares agrees: what a row carries
  (``y``: labels or real-valued targets), the multiclass mode
  (``multiclass``: binary, k = 1, k = inf, support) and the covariance
  layout (``covariances``); :func:`check_combination` is the one check,
  called by the second-order estimators before any compiled call
  (``_second_order_epochs.batch_arrays``) and by the kernel's entry
  (``_second_order.pyx``), which also reads the covariance blocks and the
  weight columns of the rule (``blocks``, ``columns``) from the spec, as
  the estimators do (``_GaussianWeightsMixin._n_groups``, CW's
  ``multiclass`` options: :func:`second_order_rules`);
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
    SECOND_ORDER_PARAMS,
    Rule,
    SecondOrderRule,
    SequenceLoss,
    SequenceUpdate,
    Slack,
)

__all__ = [
    "RULE_SPECS",
    "RuleSpec",
    "check_combination",
    "check_kernel_rule",
    "check_linear_rule",
    "second_order_rules",
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
        (``label_sets``); for a second-order step, what it reads; None for
        a parameter that does not depend on it.
    multiclass : tuple of str
        The multiclass modes (:data:`MULTICLASS_MODES`): of a second-order
        constraint rule, the one it is; of a step, those it has a form
        for.  Empty where there is none (a regression rule or step, a
        kernel that states no mode).
    covariances : tuple of str
        The covariance layouts (:data:`COVARIANCE_LAYOUTS`) it runs with;
        empty for a kernel that keeps no covariance.
    blocks : {"one", "per_class", None}
        A second-order constraint rule's covariance blocks: one shared block
        or one per class.
    columns : {"one", "per_class", None}
        A second-order constraint rule's weight columns: one (binary, with
        labels 0 / 1, or a regression) or one per class.
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
    multiclass: tuple = ()
    covariances: tuple = ()
    blocks: str | None = None
    columns: str | None = None


#: The multiclass modes a second-order rule declares.
MULTICLASS_MODES = {
    "binary": "two classes: one weight column, labels +1 / -1",
    "single": "the constraint of the top-scoring wrong class (k = 1)",
    "sequential": "every wrong class in turn, one at a time (k = inf)",
    "support": "all K - 1 constraints at once (matrix-Gaussian, SCCW)",
}

#: The covariance layouts of the second-order kernel (``covariance``).
COVARIANCE_LAYOUTS = ("diagonal", "full")

#: What :func:`check_combination` compares, in its order: the field of
#: :class:`RuleSpec` and what it names.
CONSTRAINTS = {
    "y": "is what a row carries",
    "multiclass": "is the multiclass mode",
    "covariance": "is the covariance layout",
}


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
    *(
        RuleSpec(
            member,
            ("second_order",),
            y=y,
            multiclass=modes,
            covariances=COVARIANCE_LAYOUTS,
            blocks=blocks,
            columns=columns,
        )
        for member, y, modes, blocks, columns in (
            (SecondOrderRule.SO_BINARY, "labels", ("binary",), "one", "one"),
            (
                SecondOrderRule.SO_SINGLE,
                "labels",
                ("single",),
                "per_class",
                "per_class",
            ),
            (
                SecondOrderRule.SO_SEQUENTIAL,
                "labels",
                ("sequential",),
                "per_class",
                "per_class",
            ),
            (SecondOrderRule.SO_SUPPORT, "labels", ("support",), "one", "per_class"),
            (SecondOrderRule.SO_REGRESSION, "values", (), "one", "one"),
        )
    ),
    # steps: the switches of _cw_rules.pxd (cw_pair_step, cw_loss), of
    # _cw_regression_rules.pxd (regression_step) and of _peer_rules.pxd
    # (peer_pair_step, peer_loss); the peer-library steps have no
    # support-class form
    *(
        RuleSpec(
            member,
            ("second_order",),
            key="step",
            y=y,
            multiclass=modes,
            covariances=COVARIANCE_LAYOUTS,
        )
        for y, modes, members in (
            (
                "labels",
                tuple(MULTICLASS_MODES),
                ("STEP_CW", "STEP_AROW", "STEP_SCW1", "STEP_SCW2"),
            ),
            (
                "values",
                (),
                ("STEP_AROW_REGRESSION", "STEP_CW_REGRESSION", "STEP_NHERD_REGRESSION"),
            ),
            (
                "labels",
                ("binary", "single", "sequential"),
                (
                    "STEP_SOP",
                    "STEP_IELLIP",
                    "STEP_NHERD",
                    "STEP_NAROW",
                    "STEP_NHERD_EXACT",
                    "STEP_NHERD_DROP",
                ),
            ),
        )
        for member in map(SecondOrderRule.__getitem__, members)
    ),
    # AdaGrad (_peer_rules.pxd): its diagonal is the preconditioner
    # delta / (delta + sqrt(G)), of which there is no full form; SOL's
    # multiclass rule is the top-scoring wrong class only
    RuleSpec(
        SecondOrderRule.STEP_ADAGRAD,
        ("second_order",),
        key="step",
        multiclass=("binary", "single"),
        covariances=("diagonal",),
    ),
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


_BY_VALUE = {
    (kernel, s.key, int(s.member)): s for s in RULE_SPECS for kernel in s.kernels
}
_COMBINATIONS = {}


def _declared(rule_spec, field):
    """What ``rule_spec`` declares of the constraint ``field`` (a set; empty:
    nothing declared)."""
    if field == "covariance":
        return set(rule_spec.covariances)
    value = getattr(rule_spec, field)
    if isinstance(value, tuple):
        return set(value)
    return set() if value is None else {value}


def check_combination(kernel, values, *, covariance=None, owner=None):
    """The :class:`RuleSpec` of each value of ``values``; ValueError unless
    ``kernel`` runs every value and what they declare agrees.

    The one check of a combination of rule values: the constraints of
    :data:`CONSTRAINTS` (what a row carries, the multiclass mode, the
    covariance layout) that two or more of the values declare, with the
    layout ``covariance`` where one is given, must have a value in common.

    Parameters
    ----------
    kernel : str
        A key of :data:`KERNELS`.
    values : dict
        The value (an int or an enum member) of each parameter the kernel
        reads a rule from, e.g. ``{"rule": SO_SINGLE, "step": STEP_AROW}``.
    covariance : str or None, default=None
        The covariance layout the call runs with (``"diagonal"``,
        ``"full"``), or None when there is none.
    owner : str or None, default=None
        The estimator whose parameters gave the values: the refusal then
        names its parameter; None at a kernel's entry, whose refusal names
        the kernel and the value it has no branch for.

    Returns
    -------
    specs : tuple of RuleSpec
        The spec of each value, in the order of ``values``.

    Raises
    ------
    ValueError
        When the kernel does not run a value, or the values declare no
        common value of a constraint.
    """
    # (an enum member is equal to its int, and hashes as it)
    key = (kernel, covariance, owner, *values.items())
    specs = _COMBINATIONS.get(key)
    if specs is not None:
        return specs
    for name, value in values.items():
        check_kernel_rule(kernel, name, int(value))
    specs = tuple(_BY_VALUE[kernel, name, int(v)] for name, v in values.items())
    for field in CONSTRAINTS:
        declared = [(s, _declared(s, field)) for s in specs if _declared(s, field)]
        if field == "covariance" and covariance is not None and declared:
            declared.insert(0, (None, {covariance}))
        if len(declared) < 2 or set.intersection(*(d for _, d in declared)):
            continue
        (first, given), (last, _) = declared[0], declared[-1]
        accepted = sorted(set.intersection(*(d for _, d in declared[1:])))
        value = next(iter(given)) if len(given) == 1 else sorted(given)
        names = " and ".join(s.member.name for s, _ in declared[1:])
        if owner is None:
            other = first if first is not None else specs[0]
            head = (
                f"the {kernel} kernel has no {last.key} {int(last.member)} "
                f"({last.member.name}) for the {other.key} {int(other.member)} "
                f"({other.member.name})"
            )
        else:
            head = f"{owner} cannot run {field}={value!r}"
        action = (
            f"Set {field} to one of {accepted}."
            if field != "y"
            else f"Run it on rows whose y is one of {accepted}."
        )
        raise ValueError(
            f"{head}: {names} declares {field} (which {CONSTRAINTS[field]}) "
            f"in {accepted}, not {value!r} (sklearn_pa/_core/rules.py). {action}"
        )
    _COMBINATIONS[key] = specs
    return specs


def second_order_rules(step):
    """The second-order constraint rules that run the step ``step``: a dict
    of each rule's multiclass mode (``None`` for the regression rule) to the
    rule, as the registry declares them (:func:`check_combination`)."""
    rules = {}
    for s in RULE_SPECS:
        if "second_order" not in s.kernels or s.key != "rule":
            continue
        try:
            check_combination("second_order", {"rule": s.member, "step": step})
        except ValueError:
            continue
        rules[s.multiclass[0] if s.multiclass else None] = s.member
    return rules


def check_linear_rule(kernel, rule, slack):
    """The :class:`RuleSpec` of the ``Rule`` ``rule`` run by the linear
    kernel ``kernel``; ValueError unless the kernel runs it and, when the
    rule reads one, its ``slack`` is a ``Slack``."""
    key = (kernel, rule, slack)
    rule_spec = _LINEAR_RULES_CHECKED.get(key)
    if rule_spec is not None:  # (a kernel's every call states its rule)
        return rule_spec
    check_kernel_rule(kernel, "rule", rule)
    rule_spec = _BY_MEMBER[Rule, rule]
    if rule_spec.slack:
        check_kernel_rule(kernel, "slack", slack)
    _LINEAR_RULES_CHECKED[key] = rule_spec
    return rule_spec


#: (kernel, rule, slack) -> the RuleSpec :func:`check_linear_rule` accepted
_LINEAR_RULES_CHECKED = {}


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


def second_order_kernel_params(rule, step, **values):
    """The parameter dict of the second-order kernel (``SecondOrderParams``
    of ``_compiled/_rules_second_order.pxd``, every field).

    Parameters
    ----------
    rule : SecondOrderRule
        The constraint rule (``SO_*``).
    step : SecondOrderRule
        The step (``STEP_*``).
    **values : float
        The other fields of ``SecondOrderParams`` that the step reads, by
        name (the struct's comments say which step reads which: ``phi``,
        ``param``, ``epsilon``, ``shrinkage``, ...); 0 for those not given.

    Returns
    -------
    params : dict
        Every field of ``SecondOrderParams`` (:data:`SECOND_ORDER_PARAMS`).
    """
    unknown = sorted(set(values).difference(SECOND_ORDER_PARAMS))
    if unknown:
        raise TypeError(
            f"the second-order kernel reads no parameter {unknown}; it reads "
            f"{list(SECOND_ORDER_PARAMS)} (SecondOrderParams in "
            "_compiled/_rules_second_order.pxd)"
        )
    params = dict.fromkeys(SECOND_ORDER_PARAMS, 0.0)
    params.update((name, float(value)) for name, value in values.items())
    params["rule"], params["step"] = int(rule), int(step)
    return params


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
