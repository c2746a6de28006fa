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
    "weighted partial_fit": {
        name: "an all-zero sample_weight batch is refused (full path) or "
        "advances t_ (lean path): the no-op lives in the linear family's "
        "_partial_fit and the stream plan only"
        for name in (
            "KernelPassiveAggressiveClassifier",
            "KernelPassiveAggressiveRegressor",
            "OnlineBayesPointClassifier",
            "PassiveAggressiveOneClass",
        )
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
