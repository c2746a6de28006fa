"""Defaults that work on ordinary data: the one-class radius follows the
data's scale; CW says when the labels are too noisy for it."""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler

from sklearn_pa import (
    AROWClassifier,
    ConfidenceWeightedClassifier,
    PassiveAggressiveOneClass,
    SCWClassifier,
)
from sklearn_pa.exceptions import NoisyLabelsWarning


def _digits():
    return load_digits(return_X_y=True)


@pytest.mark.parametrize("scaling", ["raw", "standard", "unit"])
def test_one_class_default_flags_a_tenth_of_its_training_digits(scaling):
    X, y = _digits()
    X = {
        "raw": X,
        "standard": StandardScaler().fit_transform(X),
        "unit": X / 16,
    }[scaling]
    ball = PassiveAggressiveOneClass(random_state=0).fit(X)
    outside = np.mean(ball.predict(X) == -1)
    assert 0.03 < outside < 0.25, outside
    # novelty detection: a ball around the zeros leaves out the other digits
    zeros = PassiveAggressiveOneClass(random_state=0).fit(X[y == 0])
    assert np.mean(zeros.predict(X[y == 0]) == -1) < 0.25
    assert np.mean(zeros.predict(X[y != 0]) == -1) > 0.9


def test_one_class_auto_radius_is_the_90th_percentile_of_the_first_batch():
    X, _ = _digits()
    dist = np.linalg.norm(X - X.mean(axis=0), axis=1)
    ball = PassiveAggressiveOneClass(max_iter=1).fit(X)
    assert_allclose(ball.epsilon_, np.percentile(dist, 90))
    assert_allclose(
        PassiveAggressiveOneClass().fit(sp.csr_matrix(X)).epsilon_, ball.epsilon_
    )
    # partial_fit measures it on the first batch, then keeps it
    stream = PassiveAggressiveOneClass().partial_fit(X[:500])
    first = np.percentile(np.linalg.norm(X[:500] - X[:500].mean(axis=0), axis=1), 90)
    assert_allclose(stream.epsilon_, first)
    stream.partial_fit(X[500:] * 10)
    assert_allclose(stream.epsilon_, first)
    # an explicit radius is still a radius in data units
    assert PassiveAggressiveOneClass(epsilon=1.0).fit(X).epsilon_ == 1.0


def test_the_old_fixed_radius_flagged_every_digit():
    """What the default used to do (epsilon=1.0 in data units)."""
    X, _ = _digits()
    old = PassiveAggressiveOneClass(epsilon=1.0, random_state=0).fit(X)
    assert np.mean(old.predict(X) == -1) > 0.99


def _noisy_digits(flip, seed=0):
    X, y = _digits()
    y = y % 2  # odd against even
    rng = np.random.RandomState(seed)
    noisy = y.copy()
    flipped = rng.rand(len(y)) < flip
    noisy[flipped] = 1 - noisy[flipped]
    X_train, X_test, y_train, _ = train_test_split(X, noisy, random_state=0)
    _, _, _, y_test = train_test_split(X, y, random_state=0)  # clean test labels
    return X_train, X_test, y_train, y_test


def _fit_recording(est, X, y):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        est.fit(X, y)
    return [w for w in caught if issubclass(w.category, NoisyLabelsWarning)]


def test_cw_warns_on_noisy_digits_and_points_to_arow():
    X_train, X_test, y_train, y_test = _noisy_digits(0.1)
    cw = ConfidenceWeightedClassifier(random_state=0)
    caught = _fit_recording(cw, X_train, y_train)
    assert len(caught) == 1
    assert "AROWClassifier" in str(caught[0].message)
    # the advice helps: AROW and SCW do not warn and score much better
    for cls in (AROWClassifier, SCWClassifier):
        other = cls(random_state=0)
        assert not _fit_recording(other, X_train, y_train)
        assert other.score(X_test, y_test) > cw.score(X_test, y_test) + 0.05
    averaged = ConfidenceWeightedClassifier(average=True, random_state=0)
    averaged.fit(X_train, y_train)
    assert averaged.score(X_test, y_test) > cw.score(X_test, y_test) + 0.05


def test_cw_does_not_warn_on_clean_digits():
    X, y = _digits()
    for target in (y, y % 2):
        assert not _fit_recording(
            ConfidenceWeightedClassifier(random_state=0), X, target
        )
