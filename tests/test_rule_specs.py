"""The rule registry (``sklearn_pa/_core/rules.py``) and the kernels' refusal
of a rule they have no branch for."""

import numpy as np
import pytest
from sklearn.datasets import make_classification, make_regression
from test_sequence import make_tagging_data

from sklearn_pa import (
    AROWClassifier,
    AROWRegressor,
    ConfidenceWeightedClassifier,
    ExponentiatedGradientRegressor,
    KernelPassiveAggressiveClassifier,
    KernelPassiveAggressiveRegressor,
    OnlineBayesPointClassifier,
    PassiveAggressiveClassifier,
    PassiveAggressiveOneClass,
    PassiveAggressiveRegressor,
    PerceptronClassifier,
    ROMMAClassifier,
    StructuredPassiveAggressive,
    StructuredPerceptron,
)
from sklearn_pa._compiled import (
    _bayes_point,
    _first_order,
    _kernel_pa,
    _multiplicative,
    _scaled,
    _second_order,
    _sequence,
    _uniclass,
)
from sklearn_pa._compiled._rules import (
    Rule,
    SecondOrderRule,
    SequenceLoss,
    SequenceUpdate,
    Slack,
)
from sklearn_pa._core.rules import KERNELS, RULE_SPECS, kernel_values, spec

ENUMS = (Rule, Slack, SecondOrderRule, SequenceUpdate, SequenceLoss)
UNKNOWN = 99  # a member of no enum


def test_every_enum_member_has_exactly_one_entry_and_back():
    members = [(type(m), int(m)) for enum in ENUMS for m in enum]
    entries = [(type(s.member), int(s.member)) for s in RULE_SPECS]
    assert sorted(entries, key=str) == sorted(members, key=str)
    assert len(set(entries)) == len(entries)
    assert UNKNOWN not in {int(m) for enum in ENUMS for m in enum}


def test_every_entry_names_kernels_that_read_its_parameter():
    for s in RULE_SPECS:
        assert s.kernels, s
        for kernel in s.kernels:
            assert s.key in KERNELS[kernel], (s, kernel)
        # the second-order members split into constraint rules and steps
        if isinstance(s.member, SecondOrderRule):
            assert s.key == ("step" if s.member.name.startswith("STEP_") else "rule")


def test_spec_reads_an_int_as_a_rule():
    assert spec(int(Rule.OVR)) is spec(Rule.OVR)
    assert spec(Rule.OVR).one_vs_rest and not spec(Rule.MAX_LOSS).one_vs_rest
    assert spec(Slack.HINGE).key == "slack"
    assert kernel_values("bayes_point", "rule") == {
        int(r)
        for r in (Rule.BINARY, Rule.OVR, Rule.MAX_LOSS, Rule.PREDICTION, Rule.SUPPORT)
    }


# ------------------------------------------------- the refusal at entry


def _one_call(monkeypatch, module, name, fit):
    """The arguments of the first call of ``module.name`` made by ``fit()``,
    and the unpatched function."""
    original = getattr(module, name)
    calls = []

    def spy(*args, **kwargs):
        calls.append((args, kwargs))
        return original(*args, **kwargs)

    monkeypatch.setattr(module, name, spy)
    fit()
    monkeypatch.undo()
    assert calls, f"{name} was not called"
    return original, calls[0]


def _classification(n_classes=3):
    return make_classification(
        n_samples=30,
        n_features=5,
        n_informative=3,
        n_classes=n_classes,
        random_state=0,
    )


def _regression():
    X, y = make_regression(n_samples=30, n_features=5, random_state=0)
    return X, y / np.abs(y).max()


def _fits():
    X, y = _classification()
    Xr, yr = _regression()
    Xs, ys = make_tagging_data(n_seq=6)
    return {
        "first_order": (
            _first_order,
            "epoch",
            lambda: PassiveAggressiveClassifier(max_iter=1).fit(X, y),
            "params",
        ),
        "first_order regression": (
            _first_order,
            "epoch",
            lambda: PassiveAggressiveRegressor(max_iter=1).fit(Xr, yr),
            "params",
        ),
        "first_order perceptron": (
            _first_order,
            "epoch",
            lambda: PerceptronClassifier(max_iter=1).fit(X, y),
            "params",
        ),
        "scaled": (
            _scaled,
            "epoch",
            lambda: ROMMAClassifier(max_iter=1).fit(X, y),
            "params",
        ),
        "multiplicative": (
            _multiplicative,
            "epoch",
            lambda: ExponentiatedGradientRegressor(max_iter=1).fit(Xr, yr),
            "params",
        ),
        "bayes_point": (
            _bayes_point,
            "epoch",
            lambda: OnlineBayesPointClassifier(n_estimators=2, max_iter=1).fit(X, y),
            "params",
        ),
        "kernel_pa": (
            _kernel_pa,
            "block",
            lambda: KernelPassiveAggressiveClassifier(max_iter=1).fit(X, y),
            "params",
        ),
        "kernel_pa regression": (
            _kernel_pa,
            "block",
            lambda: KernelPassiveAggressiveRegressor(max_iter=1).fit(Xr, yr),
            "params",
        ),
        "second_order": (
            _second_order,
            "epoch",
            lambda: AROWClassifier(max_iter=1).fit(X, y),
            "params",
        ),
        "second_order support": (
            _second_order,
            "epoch",
            lambda: ConfidenceWeightedClassifier(max_iter=1).fit(X, y),
            "params",
        ),
        "second_order regression": (
            _second_order,
            "epoch",
            lambda: AROWRegressor(max_iter=1).fit(Xr, yr),
            "params",
        ),
        "uniclass": (
            _uniclass,
            "epoch",
            lambda: PassiveAggressiveOneClass(max_iter=1).fit(X),
            "params",
        ),
        "sequence_perceptron": (
            _sequence,
            "perceptron_epoch",
            lambda: StructuredPerceptron(max_iter=1).fit(Xs, ys),
            None,
        ),
        "sequence_pa": (
            _sequence,
            "pa_epoch",
            lambda: StructuredPassiveAggressive(max_iter=1).fit(Xs, ys),
            None,
        ),
    }


# (family, the parameter changed, its value): each kernel refuses a value
# with no entry for it in the registry, before anything moves
REFUSED = [
    ("first_order", "rule", UNKNOWN),
    ("first_order", "rule", int(Rule.EXPONENTIATED)),  # another kernel's rule
    ("first_order", "slack", UNKNOWN),
    ("first_order regression", "rule", UNKNOWN),
    ("first_order regression", "slack", 0),
    ("first_order perceptron", "rule", UNKNOWN),
    ("first_order perceptron", "rule", int(Rule.ROMMA)),  # the scaled kernel's
    ("scaled", "rule", UNKNOWN),
    ("scaled", "rule", int(Rule.PERCEPTRON_MAX)),
    ("scaled", "rule", int(Rule.MAX_LOSS)),
    ("multiplicative", "rule", UNKNOWN),
    ("multiplicative", "rule", int(Rule.GRADIENT)),
    ("bayes_point", "rule", UNKNOWN),
    ("bayes_point", "rule", int(Rule.MIRA)),
    ("bayes_point", "slack", UNKNOWN),
    ("kernel_pa", "rule", UNKNOWN),
    ("kernel_pa", "rule", int(Rule.SUPPORT)),
    ("kernel_pa", "slack", UNKNOWN),
    ("kernel_pa regression", "rule", UNKNOWN),
    ("second_order", "rule", UNKNOWN),
    ("second_order", "rule", int(SecondOrderRule.STEP_AROW)),
    ("second_order", "step", UNKNOWN),
    ("second_order", "step", int(SecondOrderRule.SO_SINGLE)),
    # a regression step under a classification rule, and the other way round
    ("second_order", "step", int(SecondOrderRule.STEP_AROW_REGRESSION)),
    # a peer step (_peer_rules.pxd) has no support-class form, nor a
    # regression one
    ("second_order support", "step", int(SecondOrderRule.STEP_SOP)),
    ("second_order support", "step", int(SecondOrderRule.STEP_NHERD_DROP)),
    ("second_order regression", "step", int(SecondOrderRule.STEP_NAROW)),
    ("second_order regression", "rule", UNKNOWN),
    ("second_order regression", "rule", int(SecondOrderRule.STEP_CW_REGRESSION)),
    ("second_order regression", "step", UNKNOWN),
    ("second_order regression", "step", int(SecondOrderRule.STEP_AROW)),
    ("uniclass", "slack", UNKNOWN),
    ("sequence_perceptron", "update", UNKNOWN),
    ("sequence_pa", "loss", UNKNOWN),
]


@pytest.mark.parametrize("family, key, value", REFUSED, ids=str)
def test_a_kernel_refuses_a_rule_it_has_no_branch_for(monkeypatch, family, key, value):
    module, name, fit, params_key = _fits()[family]
    kernel, (args, kwargs) = _one_call(monkeypatch, module, name, fit)
    if params_key is None:
        kwargs = {**kwargs, key: value}
    else:
        kwargs = {**kwargs, params_key: {**kwargs[params_key], key: value}}
    kernel_name = family.split()[0]
    with pytest.raises(
        ValueError, match=f"the {kernel_name} kernel has no {key} {value}"
    ):
        kernel(*args, **kwargs)
