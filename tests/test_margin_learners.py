"""The perceptron, OGD, ROMMA and ALMA as estimators: streams, averaging,
weights, the scale representation of the scaled kernel."""

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose, assert_array_equal
from test_oracle_margin import (
    _kesler,
    _problem,
    alma_reference,
    romma_reference,
)

from sklearn_pa import (
    ALMAClassifier,
    OnlineBayesPointClassifier,
    OnlineGradientDescentClassifier,
    PerceptronClassifier,
    ROMMAClassifier,
)

ESTIMATORS = [
    PerceptronClassifier(),
    PerceptronClassifier(multiclass="uniform"),
    PerceptronClassifier(multiclass="score", average=True),
    OnlineGradientDescentClassifier(eta=0.3),
    OnlineGradientDescentClassifier(eta=0.3, average=True),
    ROMMAClassifier(),
    ROMMAClassifier(aggressive=True),
    ALMAClassifier(alpha=0.5),
    ALMAClassifier(alpha=0.5, normalize=False),
]


def _ids(est):
    return repr(est)


@pytest.mark.parametrize("est", ESTIMATORS, ids=_ids)
@pytest.mark.parametrize("K", [2, 4])
def test_partial_fit_stream_is_one_epoch_of_fit(est, K):
    """Batches through partial_fit continue the state (OGD's t, ALMA's k,
    the average) exactly as one unshuffled epoch of fit."""
    X, y = _problem(3, K)
    one = est.set_params(max_iter=1, tol=None, shuffle=False, intercept_scaling=1.0)
    one = type(est)(**one.get_params()).fit(X, y)
    stream = type(est)(**est.get_params())
    for rows in np.array_split(np.arange(X.shape[0]), 5):
        stream.partial_fit(X[rows], y[rows], classes=np.arange(K))
    assert_allclose(stream.coef_, one.coef_, rtol=1e-12, atol=1e-13)
    assert_allclose(stream.intercept_, one.intercept_, rtol=1e-12, atol=1e-13)
    if hasattr(one, "n_updates_"):
        assert stream.n_updates_ == one.n_updates_ > 0


def test_averaged_perceptron_is_the_mean_of_the_iterates():
    X, y = _problem(5, 3)
    est = PerceptronClassifier(
        average=True, max_iter=2, tol=None, shuffle=False, fit_intercept=False
    ).fit(X, y)
    iterates = []
    W = np.zeros((3, X.shape[1]))
    for _ in range(2):
        for x, t in zip(X, y):
            F = W @ x
            rivals = [r for r in range(3) if r != t]
            s = max(rivals, key=lambda r: (F[r], -r))
            if F[s] >= F[t]:
                W = W.copy()
                W[t] += x
                W[s] -= x
            iterates.append(W)
    assert_allclose(est.coef_, np.mean(iterates, axis=0), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize(
    "est",
    [PerceptronClassifier(multiclass="score"), ROMMAClassifier(aggressive=True)],
    ids=_ids,
)
def test_zero_weight_skips_the_sample(est):
    X, y = _problem(7, 3)
    w = np.ones(X.shape[0])
    w[::3] = 0.0
    est.set_params(max_iter=2, tol=None, shuffle=False, intercept_scaling=1.0)
    a = type(est)(**est.get_params()).fit(X, y, sample_weight=w)
    b = type(est)(**est.get_params()).fit(X[w > 0], y[w > 0])
    assert_allclose(a.coef_, b.coef_, rtol=1e-12)


def test_perceptron_weight_scales_the_step():
    X, y = _problem(8, 2)
    params = dict(max_iter=2, tol=None, shuffle=False)
    a = PerceptronClassifier(**params).fit(X, y, sample_weight=np.full(len(y), 3.0))
    b = PerceptronClassifier(**params).fit(X, y)
    assert_allclose(a.coef_, 3 * b.coef_)


def test_alma_scale_is_folded_back_exactly():
    """Large steps: each projection divides the model, the scale of the
    kernel leaves [1e-9, 1e9] and is folded into the arrays, and the result
    is still the transcription's."""
    X, y = _problem(11, 3)
    X = 30 * X
    est = ALMAClassifier(
        alpha=1.0,
        C=40.0,
        normalize=False,
        fit_intercept=False,
        max_iter=4,
        tol=None,
        shuffle=False,
    ).fit(sp.csr_matrix(X), y)
    ref = alma_reference(X, y, 3, 1.0, 1.0, 40.0, 4, False)
    assert_allclose(est.coef_, ref, rtol=1e-10, atol=1e-12)
    assert np.linalg.norm(est.coef_) <= 1 + 1e-12


def test_romma_keeps_its_norm_up_to_date_over_many_updates():
    """The kernel's running ||W||^2 steers every later step: after many
    epochs the model is still the transcription's."""
    X, y = _problem(12, 4)
    est = ROMMAClassifier(
        aggressive=True, fit_intercept=False, max_iter=15, tol=None, shuffle=False
    ).fit(X, y)
    ref = romma_reference(X, y, 4, True, 15)
    assert_allclose(est.coef_, ref, rtol=1e-9, atol=1e-9 * np.abs(ref).max())


def test_kesler_helper_moves_two_prototypes():
    phi = _kesler(np.array([1.0, 2.0]), 3, 0, 2)
    assert_array_equal(phi, [[1, 2], [0, 0], [-1, -2]])


def test_perceptron_on_separable_data_stops_making_mistakes():
    rng = np.random.RandomState(0)
    X = rng.normal(size=(200, 5))
    y = (X @ rng.normal(size=5) > 0).astype(int)
    est = PerceptronClassifier(max_iter=200, tol=None, random_state=0).fit(X, y)
    assert est.score(X, y) == 1.0


@pytest.mark.parametrize("cls", [PerceptronClassifier, ROMMAClassifier])
def test_bayes_point_machine_refuses_these_rules(cls):
    X, y = _problem(1, 3)
    with pytest.raises(ValueError):
        OnlineBayesPointClassifier(cls(), max_iter=1).fit(X, y)


def test_alma_normalize_is_normalizer_then_raw():
    from sklearn.preprocessing import Normalizer

    X, y = _problem(2, 3)
    params = dict(alpha=0.5, fit_intercept=False, max_iter=3, tol=None, random_state=0)
    a = ALMAClassifier(**params).fit(X, y)
    b = ALMAClassifier(normalize=False, **params).fit(Normalizer().fit_transform(X), y)
    assert_allclose(a.coef_, b.coef_, rtol=1e-12, atol=1e-14)
