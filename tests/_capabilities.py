"""Which public estimators take part in which property test, found by
discovery (:func:`sklearn_pa.utils.all_estimators`).

A property test (fast path equals full path, atomicity, float32, O(rows)
per call, mixing, class growth, ...) runs over :func:`estimators_for` its
property: every public estimator, a new one included, unless
:data:`OUTSIDE` states why it cannot take part; :data:`KNOWN_FAILURES`
lists those that should and do not yet (run as strict expected failures,
so that a fix is noticed).
"""

import inspect

import pytest
from sklearn.base import is_classifier, is_regressor

from sklearn_pa.utils import all_estimators

#: property -> {estimator name: why it is outside the test}
OUTSIDE = {
    "weighted partial_fit": {
        "StructuredPassiveAggressive": "partial_fit takes no sample_weight",
        "StructuredPerceptron": "partial_fit takes no sample_weight",
    },
    "float32": {
        "KernelPassiveAggressiveClassifier": "dual model (tests/test_kernel_pa.py)",
        "KernelPassiveAggressiveRegressor": "dual model (tests/test_kernel_pa.py)",
        "OnlineBayesPointClassifier": "copies of a base learner (own tests)",
        "PassiveAggressiveOneClass": "a centre, no labels (own tests)",
        "StructuredPassiveAggressive": "sequences of feature dicts, no float input",
        "StructuredPerceptron": "sequences of feature dicts, no float input",
    },
    "warning after the pass": {
        "ExponentiatedGradientRegressor": "a huge entry does not overflow its "
        "scores (no skipped-row warning to raise)",
    },
    "class growth": {
        "KernelPassiveAggressiveClassifier": "dual model: no coef_ nor average "
        "for the tests to compare (its growth: tests/test_kernel_pa.py)",
        "OnlineBayesPointClassifier": "no new_classes parameter (its copies "
        "take the classes of the first call)",
        "ROMMAClassifier": "no average parameter, which the tests set",
        "ALMAClassifier": "no average parameter, which the tests set",
    },
    "class growth from one class": {
        name: "its step depends on t_: a model grown at row 10 continues the "
        "schedule, where the test's reference restarts it at t_ = 1"
        for name in ("IELLIPClassifier", "OnlineGradientDescentClassifier")
    },
    "mixing": {
        name: "a kernel model is a set of support vectors, not a weight "
        "vector: no parameter mixing"
        for name in (
            "KernelPassiveAggressiveClassifier",
            "KernelPassiveAggressiveRegressor",
        )
    }
    | {
        name: "sequences of sentences, not rows of a matrix: no parameter mixing"
        for name in ("StructuredPassiveAggressive", "StructuredPerceptron")
    },
    "interrupts": {
        name: "sequences of sentences, not rows of a matrix: interrupted in "
        "tests/test_atomic_calls.py::test_reads_in_threads_never_undo_nor_lose_a_call "
        "and tests/test_sequence_per_call.py"
        for name in ("StructuredPassiveAggressive", "StructuredPerceptron")
    },
    "write log": {
        "IELLIPClassifier": "may divide its whole covariance by 1 - c_t in "
        "its first rounds (about 30 with the defaults): a call then keeps "
        "the whole covariance; later calls log their writes",
        **{
            name: "the scaled kernel keeps its weights as a scale times a "
            "vector and may rewrite the whole model: its journal keeps them"
            for name in ("ALMAClassifier", "ROMMAClassifier")
        },
        **{
            name: "split weights renormalised by a multiplicative step (their "
            "own kernel): the journal keeps them"
            for name in (
                "ErrorProportionalRegressor",
                "ExponentiatedGradientRegressor",
            )
        },
        "KernelPassiveAggressiveClassifier": "a support set built anew by "
        "each call: nothing written in place to log",
        "KernelPassiveAggressiveRegressor": "a support set built anew by "
        "each call: nothing written in place to log",
        "OnlineBayesPointClassifier": "copies of a base learner run by their "
        "own kernel, journaled as rows",
        "PassiveAggressiveOneClass": "a centre kept as a scale times a "
        "vector, journaled by its own adapter",
        "StructuredPassiveAggressive": "sequences: the taggers' own kernel",
        "StructuredPerceptron": "sequences: the taggers' own kernel",
    },
    "one batch check": {
        name: "sequences of sentences, not rows of a matrix: the taggers' "
        "batch check (tests/test_sequence_per_call.py)"
        for name in ("StructuredPassiveAggressive", "StructuredPerceptron")
    },
    "lean stream": {
        "KernelPassiveAggressiveClassifier": "dual model (own per-call tests)",
        "KernelPassiveAggressiveRegressor": "dual model (own per-call tests)",
        "OnlineBayesPointClassifier": "copies of a base learner (own per-call tests)",
        "PassiveAggressiveOneClass": "a centre, no labels (own per-call tests)",
        "StructuredPassiveAggressive": "sequences (tests/test_sequence_per_call.py)",
        "StructuredPerceptron": "sequences (tests/test_sequence_per_call.py)",
    },
}

#: property -> {estimator name: the defect, known and not yet fixed}
KNOWN_FAILURES = {
    "mixing round trip": {
        name: "the decision values of a model set from its state differ in "
        "the last bits (up to 3e-15) from those of the model it was taken "
        "from: its weights are kept as a scale times a vector"
        for name in ("ALMAClassifier", "ROMMAClassifier")
    },
    "per-call O(rows)": {
        "ExponentiatedGradientRegressor": "a one-row partial_fit allocates in "
        "O(model) (the split weights' exponentiated update renormalises every "
        "weight)",
    },
    "stream plan": {
        name: "a later call builds a new epoch adapter: the stream plan does "
        "not cover the split-weight learners (_SplitWeightsMixin)"
        for name in ("ErrorProportionalRegressor", "ExponentiatedGradientRegressor")
    },
}


def estimators_for(prop, type_filter="all"):
    """``pytest.param(name, Estimator)`` for every public estimator of
    ``type_filter`` in the test of ``prop`` (marked as a strict expected
    failure where :data:`KNOWN_FAILURES` says so)."""
    outside = OUTSIDE.get(prop, {})
    known = KNOWN_FAILURES.get(prop, {})
    params = []
    for name, Estimator in all_estimators(type_filter=type_filter):
        if name in outside:
            continue
        marks = (
            [pytest.mark.xfail(strict=True, reason=known[name])]
            if name in known
            else []
        )
        params.append(pytest.param(name, Estimator, id=name, marks=marks))
    return params


def learns(est, X, y, first=False, **kwargs):
    """``partial_fit`` of ``est`` on ``X``, ``y`` (none for a one-class
    learner; ``y`` as numbers for a regressor); ``first``: with the classes
    of ``y``."""
    params = inspect.signature(est.partial_fit).parameters
    if "y" not in params:
        return est.partial_fit(X, **kwargs)
    if is_regressor(est):
        return est.partial_fit(X, y.astype(float), **kwargs)
    if first and is_classifier(est) and "classes" in params:
        kwargs.setdefault("classes", sorted(set(y.tolist())))
    return est.partial_fit(X, y, **kwargs)


def _default_factory(Estimator):
    def make():
        est = Estimator()
        if "random_state" in est.get_params():
            est.set_params(random_state=0)
        return est

    return make


def discovered(prop, listed, type_filter="all"):
    """``(name, factory)`` of every public estimator of ``type_filter``
    that the hand-written configurations ``listed`` (factories) of a test
    of ``prop`` do not build and :data:`OUTSIDE` does not put outside it
    (nor :data:`KNOWN_FAILURES`): added to the test with its defaults, so
    that a new estimator is in it without an edit."""
    covered = {type(make()) for make in listed}
    left_out = {**OUTSIDE.get(prop, {}), **KNOWN_FAILURES.get(prop, {})}
    return [
        (name, _default_factory(Estimator))
        for name, Estimator in all_estimators(type_filter=type_filter)
        if Estimator not in covered and name not in left_out
    ]


def marked(prop, families):
    """The entries (tuples whose first item is the estimator's name) of a
    test of ``prop`` as ``pytest.param``, those :data:`KNOWN_FAILURES`
    names for ``prop`` marked as strict expected failures."""
    known = KNOWN_FAILURES.get(prop, {})
    return [
        pytest.param(
            *family,
            id=family[0],
            marks=[pytest.mark.xfail(strict=True, reason=known[family[0]])]
            if family[0] in known
            else [],
        )
        for family in families
    ]
