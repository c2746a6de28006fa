"""predict_proba: calibrated Gaussian margins for the CW family, judged by
held-out log-loss on digits; a clear error where there is no probability
model."""

import warnings

import numpy as np
import pytest
from numpy.testing import assert_allclose
from scipy.special import ndtr
from sklearn.calibration import CalibratedClassifierCV
from sklearn.datasets import load_digits
from sklearn.metrics import log_loss
from sklearn.model_selection import train_test_split

from sklearn_pa import (
    AROWClassifier,
    ConfidenceWeightedClassifier,
    KernelPassiveAggressiveClassifier,
    MIRAClassifier,
    OnlineBayesPointClassifier,
    PassiveAggressiveClassifier,
    SCWClassifier,
)

SECOND_ORDER = [ConfidenceWeightedClassifier, AROWClassifier, SCWClassifier]


def _digits(task):
    X, y = load_digits(return_X_y=True)
    y = y % 2 if task == "odd-even" else y
    return train_test_split(X, y, test_size=0.25, random_state=0)


def _constant_log_loss(y_train, y_test):
    classes = np.unique(y_train)
    prior = np.array([np.mean(y_train == c) for c in classes])
    return log_loss(y_test, np.tile(prior, (len(y_test), 1)), labels=classes)


def _saturated_proba(est, X):
    """The Gaussian margin model without the fitted noise: Phi(m / sqrt(v))
    for two classes, the softmax of m_k / sqrt(v_k) otherwise."""
    scores, var = est._margins(X)
    if scores.ndim == 2:
        var = var[:, None]
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.where(var > 0, scores / np.sqrt(var), np.sign(scores) * np.inf)
    if scores.ndim == 1:
        return np.column_stack([1 - ndtr(z), ndtr(z)])
    z = np.where(np.isfinite(z), z, np.sign(z) * 1e300)
    e = np.exp(z - z.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def _fit(cls, X, y, how):
    est = cls(random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # ConvergenceWarning of the defaults
        if how == "fit":
            return est.fit(X, y)
    classes = np.unique(y)
    for start in range(0, len(y), 50):
        est.partial_fit(X[start : start + 50], y[start : start + 50], classes=classes)
    return est


@pytest.mark.parametrize("cls", SECOND_ORDER, ids=lambda c: c.__name__)
@pytest.mark.parametrize("task", ["odd-even", "ten-digits"])
@pytest.mark.parametrize("how", ["fit", "partial_fit"])
def test_log_loss_beats_a_constant_and_the_saturated_model(cls, task, how):
    X_train, X_test, y_train, y_test = _digits(task)
    est = _fit(cls, X_train, y_train, how)
    proba = est.predict_proba(X_test)
    classes = np.unique(y_train)
    assert proba.shape == (len(y_test), len(classes))
    assert_allclose(proba.sum(axis=1), 1.0)
    # the most probable class is the predicted one
    assert np.array_equal(est.classes_[np.argmax(proba, axis=1)], est.predict(X_test))
    ours = log_loss(y_test, proba, labels=classes)
    constant = _constant_log_loss(y_train, y_test)
    saturated = log_loss(y_test, _saturated_proba(est, X_test), labels=classes)
    assert ours < 0.8 * constant, (ours, constant)
    if saturated > 0.8 * constant:
        # where the uncalibrated model is hardly better than a constant
        # (or worse: 0 or 1 on most rows), the calibration repairs it
        assert ours < 0.5 * saturated, (ours, saturated)
    if how == "fit":
        # only a noise is fitted (c = 1), from s2 = 0 on: never much worse
        assert ours < saturated + 0.01, (ours, saturated)
    # few test rows get probability exactly 0 or 1
    assert np.mean(proba.max(axis=1) > 1 - 1e-9) < 0.3
    assert_allclose(np.exp(est.predict_log_proba(X_test)), proba)


def test_saturation_of_the_issue_is_gone():
    """Odd against even with the defaults: the uncalibrated model gave 0 or
    1 for most test rows and a log-loss far above a constant's."""
    X_train, X_test, y_train, y_test = _digits("odd-even")
    for cls in SECOND_ORDER:
        est = _fit(cls, X_train, y_train, "fit")
        proba = est.predict_proba(X_test)[:, 1]
        assert np.mean((proba == 0) | (proba == 1)) < 0.05
        assert log_loss(y_test, proba) < 0.45


def test_calibration_is_kept_with_the_model():
    X_train, X_test, y_train, _ = _digits("odd-even")
    est = _fit(AROWClassifier, X_train, y_train, "partial_fit")
    import pickle

    clone = pickle.loads(pickle.dumps(est))
    assert_allclose(clone.predict_proba(X_test), est.predict_proba(X_test))


@pytest.mark.parametrize(
    "cls",
    [
        PassiveAggressiveClassifier,
        MIRAClassifier,
        KernelPassiveAggressiveClassifier,
        OnlineBayesPointClassifier,
    ],
    ids=lambda c: c.__name__,
)
def test_no_probability_model_points_to_calibration(cls):
    X_train, X_test, y_train, y_test = _digits("odd-even")
    est = cls().fit(X_train / 16, y_train)
    assert not hasattr(est, "predict_proba")
    with pytest.raises(AttributeError, match="CalibratedClassifierCV"):
        est.predict_proba(X_test)
    with pytest.raises(AttributeError, match="CalibratedClassifierCV"):
        est.predict_log_proba(X_test)
    # and the advice works
    calibrated = CalibratedClassifierCV(cls(), cv=3).fit(X_train / 16, y_train)
    proba = calibrated.predict_proba(X_test / 16)
    assert log_loss(y_test, proba) < _constant_log_loss(y_train, y_test)
