"""The constraints the rule registry declares (``sklearn_pa/_core/rules.py``:
what a row carries, the multiclass mode, the covariance layout) and the one
check that refuses what they rule out, tested over the registry: every
combination of a second-order constraint rule, step and covariance layout is
run or refused, by the kernel's entry and by the estimators, as the
declarations say."""

import dataclasses
import itertools

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from kernel_calls import row_view
from sklearn.base import RegressorMixin
from sklearn.datasets import make_classification, make_regression

from sklearn_pa._compiled import _second_order
from sklearn_pa._compiled._rules import (
    SECOND_ORDER_PARAMS,
    SecondOrderRule,
    check_second_order_params,
)
from sklearn_pa._core import rules as _rule_specs
from sklearn_pa._core.rules import (
    COVARIANCE_LAYOUTS,
    MULTICLASS_MODES,
    RULE_SPECS,
    check_combination,
    second_order_kernel_params,
    second_order_rules,
    spec,
)
from sklearn_pa.second_order._base import _GaussianWeightsMixin
from sklearn_pa.utils.discovery import all_estimators

pytestmark = pytest.mark.filterwarnings(
    "ignore::sklearn_pa.exceptions.NoisyLabelsWarning"
)

SECOND_ORDER = [s for s in RULE_SPECS if "second_order" in s.kernels]
RULES = [s for s in SECOND_ORDER if s.key == "rule"]
STEPS = [s for s in SECOND_ORDER if s.key == "step"]
ESTIMATORS = sorted(
    (cls for _, cls in all_estimators() if issubclass(cls, _GaussianWeightsMixin)),
    key=lambda cls: cls.__name__,
)


def _declared_supported(rule, step, covariance):
    """Whether the declarations of ``rule`` and ``step`` agree (read here
    field by field, independently of :func:`check_combination`)."""
    return (
        rule.y == step.y
        and (not rule.multiclass or rule.multiclass[0] in step.multiclass)
        and covariance in rule.covariances
        and covariance in step.covariances
    )


COMBINATIONS = [
    (rule, step, covariance, _declared_supported(rule, step, covariance))
    for rule, step, covariance in itertools.product(RULES, STEPS, COVARIANCE_LAYOUTS)
]


def _id(combination):
    rule, step, covariance, supported = combination
    return f"{rule.member.name}-{step.member.name}-{covariance}-" + (
        "runs" if supported else "refused"
    )


# --------------------------------------------------------- the declarations


def test_every_second_order_member_declares_its_constraints():
    for s in SECOND_ORDER:
        assert s.y in ("labels", "values"), s
        assert s.covariances and set(s.covariances) <= set(COVARIANCE_LAYOUTS), s
        assert set(s.multiclass) <= set(MULTICLASS_MODES), s
        if s.key == "rule":
            # a constraint rule is one mode (none for the regression rule)
            assert len(s.multiclass) == (0 if s.y == "values" else 1), s
            assert s.blocks in ("one", "per_class") and s.columns in (
                "one",
                "per_class",
            ), s
        else:
            assert s.blocks is None and s.columns is None, s
    # every mode is some rule's, and every step runs under some rule
    assert {m for s in RULES for m in s.multiclass} == set(MULTICLASS_MODES)
    for step in STEPS:
        assert second_order_rules(step.member), step


def test_the_combinations_cover_both_outcomes():
    outcomes = [supported for *_, supported in COMBINATIONS]
    assert any(outcomes) and not all(outcomes)


# ------------------------------------------------------- the kernel's entry


def _kernel_call(rule, step, covariance, **overrides):
    """One second-order kernel pass over a few dense rows, shaped as the
    rule's declaration says (weight columns, covariance blocks, labels or
    targets); returns the call's result and the arrays it updates."""
    rng = np.random.RandomState(0)
    n, d = 8, 3
    K = 1 if rule.columns == "one" else 3
    G = 1 if rule.blocks == "one" else K
    X = rng.randn(n, d)
    if rule.y == "values":
        labels, targets, class_weight = np.zeros(0, np.int32), rng.randn(n), np.ones(0)
    else:
        n_classes = 2 if rule.columns == "one" else K
        labels = (np.arange(n) % n_classes).astype(np.int32)
        targets, class_weight = None, np.ones(n_classes)
    if covariance == "full":
        S_diag = np.zeros((0, 1))
        S_full = np.tile(np.eye(d + 1), (G, 1, 1))
    else:
        S_diag, S_full = np.ones((d + 1, G)), np.zeros((0, 1, 1))
    W, b = np.zeros((d, K)), np.zeros(K)
    params = second_order_kernel_params(
        rule.member, step.member, phi=1.0, param=1.0, shrinkage=0.5, delta=1.0
    )
    kwargs = dict(
        params=params,
        labels=labels,
        sample_weight=np.ones(n),
        class_weight=class_weight,
        W=W,
        b=b,
        S_diag=S_diag,
        S_full=S_full,
        U=np.zeros((0, K)),
        bu=np.zeros(0),
        intercept=1.0,
        t0=0,
        average_start=0,
        loss_out=np.zeros(1),
        targets=targets,
    )
    kwargs.update(overrides)
    rows = row_view(
        X.ravel(), np.arange(d, dtype=np.int32), np.zeros(1, np.int32), True, d
    )
    result = _second_order.epoch(rows, np.arange(n, dtype=np.int64), **kwargs)
    return result, (W, b, S_diag, S_full)


@pytest.mark.parametrize("combination", COMBINATIONS, ids=_id)
def test_the_kernel_runs_or_refuses_each_combination(combination):
    rule, step, covariance, supported = combination
    if supported:
        (mistakes, updates, skipped, overflow), arrays = _kernel_call(
            rule, step, covariance
        )
        assert skipped == 0 and not overflow
        assert all(np.all(np.isfinite(a)) for a in arrays)
        return
    with pytest.raises(ValueError) as info:
        _kernel_call(rule, step, covariance)
    message = str(info.value)
    # the generic refusal: the kernel, the step and the rule it has no
    # branch for, the declaration that rules it out and where it is
    assert message.startswith(
        f"the second_order kernel has no step {int(step.member)} "
        f"({step.member.name}) for the rule {int(rule.member)}"
    ), message
    assert "sklearn_pa/_core/rules.py" in message
    assert "Set " in message or "Run it on rows" in message


@pytest.mark.parametrize("combination", COMBINATIONS, ids=_id)
def test_the_one_check_agrees_with_the_declarations(combination):
    rule, step, covariance, supported = combination
    values = {"rule": rule.member, "step": step.member}
    if supported:
        assert check_combination(
            "second_order", values, covariance=covariance, owner="Est"
        ) == (rule, step)
        return
    with pytest.raises(
        ValueError, match=r"^Est cannot run (y|multiclass|covariance)="
    ) as info:
        check_combination("second_order", values, covariance=covariance, owner="Est")
    # the refusal names the constraint and the values the step accepts
    field = str(info.value).split()[3].split("=")[0]
    accepted = {
        "multiclass": sorted(step.multiclass),
        "covariance": sorted(step.covariances),
    }.get(field, [step.y])
    assert f"in {accepted}" in str(info.value)


@given(
    rule=st.sampled_from(RULES),
    step=st.sampled_from(STEPS),
    covariance=st.sampled_from(COVARIANCE_LAYOUTS),
    owner=st.sampled_from([None, "Est"]),
)
def test_the_check_is_the_same_every_time(rule, step, covariance, owner):
    """The check caches its answers: a refusal is never cached, an answer is
    the same whatever was asked before."""
    values = {"rule": int(rule.member), "step": step.member}
    for _ in range(2):
        try:
            got = check_combination(
                "second_order", values, covariance=covariance, owner=owner
            )
        except ValueError:
            got = None
        assert (got is not None) == _declared_supported(rule, step, covariance)


# ------------------------------------------------- a layout a step declines


@pytest.fixture
def diagonal_only(monkeypatch):
    """Every step declares the diagonal layout only (the registry as a step
    with no full form would state it)."""
    by_value = dict(_rule_specs._BY_VALUE)
    for key, s in by_value.items():
        if s.key == "step" and key[0] == "second_order":
            by_value[key] = dataclasses.replace(s, covariances=("diagonal",))
    monkeypatch.setattr(_rule_specs, "_BY_VALUE", by_value)
    monkeypatch.setattr(_rule_specs, "_COMBINATIONS", {})


@pytest.mark.parametrize("step", STEPS, ids=lambda s: s.member.name)
def test_a_declined_layout_is_refused_by_the_kernel(diagonal_only, step):
    rule = next(
        r for r in RULES if _declared_supported(r, step, "diagonal")
    )  # a rule the step runs with
    _kernel_call(rule, step, "diagonal")
    with pytest.raises(
        ValueError, match=r"declares covariance .* in \['diagonal'\], not 'full'"
    ):
        _kernel_call(rule, step, "full")


# --------------------------------------------------------- the estimators


def _data(estimator, n_classes):
    if issubclass(estimator, RegressorMixin):
        X, y = make_regression(n_samples=24, n_features=4, random_state=0)
        return X, y / np.abs(y).max()
    return make_classification(
        n_samples=24,
        n_features=4,
        n_informative=3,
        n_redundant=0,
        n_classes=n_classes,
        random_state=0,
    )


def _layouts(estimator):
    """The covariance layouts the estimator's step declares."""
    X, y = _data(estimator, 2)
    model = estimator(max_iter=1, tol=None).fit(X, y)
    step = spec(model._kernel_params()["step"], SecondOrderRule)
    return [c for c in COVARIANCE_LAYOUTS if c in step.covariances]


def _options(estimator):
    """Each value of the parameters that choose the rule or the layout (the
    layouts its step declares)."""
    grid = {"covariance": _layouts(estimator)}
    if "multiclass" in estimator().get_params():
        grid["multiclass"] = sorted(
            m for m in second_order_rules(SecondOrderRule.STEP_CW) if m != "binary"
        )
    return [dict(zip(grid, values)) for values in itertools.product(*grid.values())]


ESTIMATOR_CASES = [
    (estimator, options, n_classes)
    for estimator in ESTIMATORS
    for options in _options(estimator)
    for n_classes in ((1,) if issubclass(estimator, RegressorMixin) else (2, 3))
]


@pytest.mark.parametrize(
    "estimator, options, n_classes",
    ESTIMATOR_CASES,
    ids=lambda v: getattr(v, "__name__", str(v)),
)
def test_every_declared_combination_of_an_estimator_fits(estimator, options, n_classes):
    X, y = _data(estimator, n_classes)
    model = estimator(max_iter=2, tol=None, random_state=0, **options).fit(X, y)
    params = model._kernel_params()
    rule_spec, step_spec = check_combination(
        "second_order",
        {"rule": params["rule"], "step": params["step"]},
        covariance=options["covariance"],
    )
    assert np.all(np.isfinite(model.coef_))
    assert model.covariance_.shape[0] == (
        1 if rule_spec.blocks == "one" else len(model.classes_)
    )


def _refused_rules(estimator):
    """The constraint rules the estimator's step declares no form for."""
    X, y = _data(estimator, 3)
    model = estimator(max_iter=1, tol=None).fit(X, y)
    step = spec(model._kernel_params()["step"], SecondOrderRule)
    return [rule for rule in RULES if not _declared_supported(rule, step, "diagonal")]


@pytest.mark.parametrize("estimator", ESTIMATORS, ids=lambda e: e.__name__)
def test_an_estimator_refuses_an_undeclared_combination_before_the_kernel(
    monkeypatch, estimator
):
    X, y = _data(estimator, 3)
    refused = _refused_rules(estimator)
    assert refused
    calls = []
    monkeypatch.setattr(_second_order, "epoch", lambda *a, **k: calls.append(a))
    for rule in refused:
        model = estimator(max_iter=1, tol=None)
        kernel_params = model._kernel_params

        def forced(kernel_params=kernel_params, rule=rule):
            return {**kernel_params(), "rule": int(rule.member)}

        monkeypatch.setattr(model, "_kernel_params", forced, raising=False)
        with pytest.raises(
            ValueError,
            match=rf"^{estimator.__name__} cannot run (y|multiclass)=.*"
            r"sklearn_pa/_core/rules\.py",
        ):
            model.fit(X, y)
    assert not calls


@pytest.mark.parametrize("estimator", ESTIMATORS, ids=lambda e: e.__name__)
def test_an_estimator_refuses_a_declined_layout_before_the_kernel(
    monkeypatch, diagonal_only, estimator
):
    X, y = _data(estimator, 3)
    estimator(covariance="diagonal", max_iter=1, tol=None).fit(X, y)
    calls = []
    monkeypatch.setattr(_second_order, "epoch", lambda *a, **k: calls.append(a))
    with pytest.raises(
        ValueError,
        match=rf"^{estimator.__name__} cannot run covariance='full'.*"
        r"Set covariance to one of \['diagonal'\]",
    ):
        estimator(covariance="full", max_iter=1, tol=None).fit(X, y)
    assert not calls


# ------------------------------------------------- the parameters' fields


def test_the_kernel_parameters_are_the_fields_of_the_struct():
    params = second_order_kernel_params(
        SecondOrderRule.SO_BINARY, SecondOrderRule.STEP_AROW, param=2.0
    )
    assert tuple(params) == SECOND_ORDER_PARAMS
    assert check_second_order_params(params) == params
    assert params["param"] == 2.0 and params["phi"] == 0.0
    with pytest.raises(TypeError, match="reads no parameter \\['gamma'\\]"):
        second_order_kernel_params(
            SecondOrderRule.SO_BINARY, SecondOrderRule.STEP_AROW, gamma=1.0
        )
