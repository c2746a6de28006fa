"""Progressive validation of the second-order family, kernel PA and the
online Bayes point machine: one compiled pass records each row's score
before its update, exactly as the predict-then-learn loop would see it."""

import inspect
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.base import clone, is_classifier
from sklearn.datasets import make_classification
from test_model_selection import _binary, _loop, _multiclass, _regression

from sklearn_pa import (
    AROWClassifier,
    ConfidenceWeightedClassifier,
    KernelPassiveAggressiveClassifier,
    KernelPassiveAggressiveRegressor,
    OnlineBayesPointClassifier,
    PassiveAggressiveClassifier,
    SCWClassifier,
)
from sklearn_pa.model_selection import progressive_val_predict, progressive_val_score
from sklearn_pa.utils.discovery import all_estimators


def _semi_supervised(n=120):
    X, y = _binary(n)
    y = y.copy()
    y[::3] = -1  # unlabeled rows
    return X, y


def _pa(**kwargs):
    return PassiveAggressiveClassifier(intercept_scaling=1.0, **kwargs)


# intercept_scaling and gamma are fixed: "auto" / "scale" read the first
# batch, which the per-sample loop makes a single row
CASES = {
    "CW-bin": (ConfidenceWeightedClassifier(intercept_scaling=1.0), _binary),
    "CW-support": (ConfidenceWeightedClassifier(intercept_scaling=1.0), _multiclass),
    "CW-single": (
        ConfidenceWeightedClassifier(multiclass="single", intercept_scaling=1.0),
        _multiclass,
    ),
    "CW-sequential": (
        ConfidenceWeightedClassifier(multiclass="sequential", intercept_scaling=1.0),
        _multiclass,
    ),
    "CW-full-sequential": (
        ConfidenceWeightedClassifier(
            multiclass="sequential", covariance="full", intercept_scaling=1.0
        ),
        _multiclass,
    ),
    "AROW-bin": (AROWClassifier(intercept_scaling=1.0), _binary),
    "AROW-multi": (AROWClassifier(intercept_scaling=1.0), _multiclass),
    "AROW-avg-bin": (AROWClassifier(average=True, intercept_scaling=1.0), _binary),
    "AROW-avg-multi": (
        AROWClassifier(average=5, intercept_scaling=1.0),
        _multiclass,
    ),
    "AROW-full-avg": (
        AROWClassifier(covariance="full", average=True, intercept_scaling=1.0),
        _multiclass,
    ),
    "AROW-no-intercept": (AROWClassifier(fit_intercept=False), _binary),
    "SCW1-full-bin": (
        SCWClassifier(covariance="full", intercept_scaling=1.0),
        _binary,
    ),
    "SCW2-multi-avg": (
        SCWClassifier(variant=2, average=True, intercept_scaling=1.0),
        _multiclass,
    ),
    "KPA-bin": (KernelPassiveAggressiveClassifier(gamma=0.1), _binary),
    "KPA-multi-budget": (
        KernelPassiveAggressiveClassifier(gamma=0.1, budget=25),
        _multiclass,
    ),
    "KPA-poly-oldest": (
        KernelPassiveAggressiveClassifier(
            kernel="poly", degree=2, gamma=0.1, budget=30, budget_policy="oldest"
        ),
        _multiclass,
    ),
    "KPA-reg-budget": (
        KernelPassiveAggressiveRegressor(gamma=0.1, budget=40),
        _regression,
    ),
    "OBPM-bin": (OnlineBayesPointClassifier(_pa(), random_state=0), _binary),
    "OBPM-multi": (OnlineBayesPointClassifier(_pa(), random_state=0), _multiclass),
    "OBPM-ovr-uniform": (
        OnlineBayesPointClassifier(
            _pa(multiclass="ovr"),
            weighting="uniform",
            update_probability=0.5,
            random_state=1,
        ),
        _multiclass,
    ),
    "OBPM-unlabeled": (
        OnlineBayesPointClassifier(_pa(), unlabeled_step=0.5, random_state=0),
        _semi_supervised,
    ),
}


def _arrays(est):
    """Every learned array and scalar of a fitted estimator, by name (the
    calibration margins of the second-order family included)."""
    out = {}
    for name, value in vars(est).items():
        if isinstance(value, np.ndarray):
            out[name] = value
        elif isinstance(value, tuple) and all(isinstance(v, np.ndarray) for v in value):
            for j, v in enumerate(value):
                out[f"{name}[{j}]"] = v
        elif isinstance(value, (float, int)) and not isinstance(value, bool):
            out[name] = value
    return out


def _assert_same_model(a, b):
    arrays_a, arrays_b = _arrays(a), _arrays(b)
    assert arrays_a.keys() == arrays_b.keys()
    for name, value in arrays_a.items():
        other = arrays_b[name]
        if np.asarray(value).dtype.kind == "f":
            assert_allclose(value, other, rtol=1e-12, atol=1e-12, err_msg=name)
        else:
            assert_array_equal(value, other, err_msg=name)


def _method(est):
    return "decision_function" if is_classifier(est) else "predict"


@pytest.mark.parametrize("name", list(CASES))
@pytest.mark.parametrize("sparse", [False, True])
def test_compiled_scores_are_the_predict_then_learn_loop(name, sparse):
    estimator, data = CASES[name]
    estimator = clone(estimator).set_params(shuffle=False)
    X, y = data(60)
    Xs = sp.csr_matrix(X) if sparse else X
    expected, _ = _loop(estimator, Xs, y, _method(estimator), np.unique(y[y != -1]))
    # (-1 marks the Bayes point machine's unlabeled rows, not a class)
    classes = np.unique(y[y != -1]) if is_classifier(estimator) else None
    scores, predicted = progressive_val_predict(
        estimator, Xs, y, classes=classes, method="decision_function"
    )
    assert predicted.all()
    assert_allclose(scores, expected, rtol=1e-10, atol=1e-10)
    # the predictions are those scores mapped as predict maps them
    if is_classifier(estimator):
        labels, _ = progressive_val_predict(estimator, Xs, y, classes=classes)
        if expected.ndim == 1:
            assert_array_equal(labels, classes[(expected > 0).astype(int)])
        else:
            assert_array_equal(labels, classes[np.argmax(expected, axis=1)])


@pytest.mark.parametrize("name", list(CASES))
@pytest.mark.parametrize("sparse", [False, True])
def test_compiled_pass_leaves_the_model_of_partial_fit(name, sparse):
    """Same state as partial_fit on the batch (without shuffling), over two
    batches: weights, covariance, averages, calibration margins, support
    vectors, copies and their mistake counts, sample counter."""
    estimator, data = CASES[name]
    estimator = clone(estimator).set_params(shuffle=False)
    X, y = data(80)
    Xs = sp.csr_matrix(X) if sparse else X
    kwargs = {"classes": np.unique(y[y != -1])} if is_classifier(estimator) else {}
    compiled, reference = clone(estimator), clone(estimator)
    for part in (slice(0, 50), slice(50, 80)):
        scores = compiled.__sklearn_pa_prequential__(Xs[part], y[part], **kwargs)
        reference.partial_fit(Xs[part], y[part], **kwargs)
        assert scores.shape[0] == part.stop - part.start
    _assert_same_model(compiled, reference)
    X_test, _ = data(30)
    method = _method(estimator)
    assert_allclose(
        getattr(compiled, method)(X_test),
        getattr(reference, method)(X_test),
        rtol=1e-12,
        atol=1e-12,
    )


@pytest.mark.parametrize("name", list(CASES))
def test_compiled_pass_is_atomic_on_bad_input(name):
    estimator, data = CASES[name]
    X, y = data(40)
    kwargs = {"classes": np.unique(y[y != -1])} if is_classifier(estimator) else {}
    est = clone(estimator).partial_fit(X[:20], y[:20], **kwargs)
    before = {k: np.copy(v) for k, v in _arrays(est).items()}
    bad = X[20:].copy()
    bad[-1, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        est.__sklearn_pa_prequential__(bad, y[20:], **kwargs)
    after = _arrays(est)
    assert before.keys() == after.keys()
    for key, value in before.items():
        assert_array_equal(after[key], value, err_msg=key)


# the probability model of each covariance layout and multiclass rule
PROBA_CASES = ["CW-bin", "CW-support", "CW-full-sequential", "AROW-avg-multi"]


@pytest.mark.parametrize("name", PROBA_CASES)
@pytest.mark.parametrize("sparse", [False, True])
def test_predict_proba_on_the_compiled_path(name, sparse):
    """The compiled path records the margin and the variance of each row
    before its update.  In batches of one sample its probabilities are those
    of the predict / partial_fit loop; in larger batches the calibration is
    refitted at intervals on the same pre-update margins rather than after
    every sample: the same decision values, the probabilities of the model
    before the batch on each batch's first row, and close elsewhere."""
    estimator, data = CASES[name]
    estimator = clone(estimator).set_params(shuffle=False)
    X, y = data(100)
    Xs = sp.csr_matrix(X) if sparse else X
    classes = np.unique(y)
    loop = clone(estimator).partial_fit(Xs[:1], y[:1], classes=classes)
    expected = []
    for i in range(1, 100):
        expected.append(loop.predict_proba(Xs[i : i + 1])[0])
        loop.partial_fit(Xs[i : i + 1], y[i : i + 1])
    expected = np.asarray(expected)
    one, predicted = progressive_val_predict(
        estimator, Xs, y, method="predict_proba", batch_size=1
    )
    assert predicted.all()
    assert_allclose(one[1:], expected, rtol=1e-10, atol=1e-12)

    rows = np.arange(1, 100)
    idx = np.searchsorted(classes, y)[rows]
    loss_loop = -np.mean(np.log(np.clip(expected[rows - 1, idx], 1e-15, 1)))
    for batch_size in (None, 40):
        proba, predicted, fitted = progressive_val_predict(
            estimator,
            Xs,
            y,
            method="predict_proba",
            batch_size=batch_size,
            return_estimator=True,
        )
        assert predicted.all()
        assert proba.shape == (100, classes.shape[0])
        assert np.all((proba >= 0) & (proba <= 1))
        assert_allclose(proba.sum(axis=1), 1.0, rtol=1e-12)
        scores, _ = progressive_val_predict(
            estimator, Xs, y, method="decision_function", batch_size=batch_size
        )
        top = (scores > 0).astype(int) if scores.ndim == 1 else scores.argmax(1)
        assert_array_equal(proba.argmax(axis=1), top)
        loss = -np.mean(np.log(np.clip(proba[rows, idx], 1e-15, 1)))
        # whole pass: refitted on the rows' own margins; batches: each batch
        # starts from margins of the model before it, held out as a batch
        assert (
            abs(loss - loss_loop) < (0.15 if batch_size is None else 0.35) * loss_loop
        )
        if batch_size is None:
            assert np.mean(np.abs(proba[rows] - expected)) < 0.05
        # the model is that of partial_fit on the first row, then on the
        # batches (the first one less its first row), calibration included,
        # and its first row of a batch is what that model predicts
        ref = clone(estimator).partial_fit(Xs[:1], y[:1], classes=classes)
        for start in range(0, 100, batch_size or 100):
            if start:
                assert_allclose(
                    proba[start], ref.predict_proba(Xs[start : start + 1])[0]
                )
            part = slice(max(start, 1), start + (batch_size or 100))
            ref.partial_fit(Xs[part], y[part], classes=classes)
        _assert_same_model(fitted, ref)


def test_proba_scorer_takes_the_compiled_path():
    X, y = _binary(1200)
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        score = progressive_val_score(
            AROWClassifier(), X, y, scoring="neg_log_loss", batch_size=None
        )
    assert np.isfinite(score) and score < 0


def _learners_with_partial_fit():
    """Every public estimator whose partial_fit learns from (X, y)."""
    found = []
    for _name, cls in all_estimators():
        if not hasattr(cls, "partial_fit"):
            continue
        y_param = inspect.signature(cls.partial_fit).parameters.get("y")
        if y_param is None or y_param.default is not inspect.Parameter.empty:
            continue  # y optional: unsupervised (PassiveAggressiveOneClass)
        found.append(cls)
    return found


@pytest.mark.parametrize("cls", _learners_with_partial_fit(), ids=lambda c: c.__name__)
def test_no_public_learner_takes_the_per_sample_loop(cls):
    est = cls()
    if is_classifier(est):
        X, y = make_classification(
            2000, 10, n_informative=5, n_classes=3, random_state=0
        )
    else:
        X, y = _regression(2000)
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        progressive_val_score(est, X, y)
