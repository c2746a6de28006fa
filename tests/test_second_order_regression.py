"""The confidence-weighted regressors against NumPy transcriptions of the code
they follow, and their estimator behaviour.

The transcriptions (in double precision; the originals use ``float``) are of

- Jubatus, ``jubatus_core/jubatus/core/regression/arow.cpp``,
  ``confidence_weighted.cpp`` and ``normal_herd.cpp``: ``train`` (the
  residual, its sign, the loss ``|e| - sensitivity``, the variance of
  ``linear_regression::calc_variance``) and ``update`` (per feature of the
  row: mean ``v1`` and variance ``v2``, a new feature starting at ``(0,
  1)``);
- Hivemall, ``core/src/main/java/hivemall/regression/AROWRegressionUDTF.java``:
  ``AROWe.train`` and ``getNewWeight`` (``train_arowe_regr``).

Both learn no intercept: ``fit_intercept=False`` reproduces them, and a fitted
intercept is their rule on a constant feature ``intercept_scaling`` appended
to every row.
"""

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose
from sklearn.base import clone
from sklearn.datasets import load_diabetes, make_regression
from sklearn.preprocessing import StandardScaler

from sklearn_pa import (
    AROWRegressor,
    ConfidenceWeightedRegressor,
    NHERDRegressor,
    PassiveAggressiveRegressor,
)

RTOL = 1e-10


def _nonzeros(X, i):
    if sp.issparse(X):
        row = X.getrow(i)
        return row.indices, row.data
    idx = np.flatnonzero(X[i])
    return idx, X[i, idx]


def jubatus_epochs(kind, X, y, n_epochs, *, C, sensitivity):
    """Jubatus' ``train`` over the rows in order, ``n_epochs`` times;
    ``kind`` is ``"arow"``, ``"cw"`` or ``"nherd"``; ``C`` is
    ``regularization_weight``.  Returns (mean, variances)."""
    d = X.shape[1]
    v1, v2 = np.zeros(d), np.ones(d)
    for _ in range(n_epochs):
        for i in range(X.shape[0]):
            idx, val = _nonzeros(X, i)
            predict = v1[idx] @ val  # linear_regression::estimate
            error = y[i] - predict
            sign_error = 1.0 if error > 0.0 else -1.0
            loss = sign_error * error - sensitivity
            variance = v2[idx] @ (val * val)  # calc_variance
            if not loss > 0.0:
                continue
            if kind == "arow":  # arow::train / arow::update
                beta = 1.0 / (variance + 1.0 / C)
                alpha = sign_error * loss * beta
                v1[idx] = v1[idx] + alpha * v2[idx] * val
                v2[idx] = v2[idx] - beta * v2[idx] * v2[idx] * val * val
            elif kind == "cw":  # confidence_weighted::train / update
                absolute_error = abs(error)
                b = 1.0 - 2 * C * absolute_error
                gamma = -b + np.sqrt(b * b + 8 * C * (absolute_error + C * variance))
                gamma /= 4 * C * variance
                covar_step = 2 * gamma * val * val * C
                v1[idx] = v1[idx] + sign_error * gamma * v2[idx] * val
                v2[idx] = 1.0 / (1.0 / v2[idx] + covar_step)
            else:  # normal_herd::train / update
                val_covariance = val * v2[idx]
                v1[idx] = v1[idx] + sign_error * loss * val_covariance / (
                    variance + 1.0 / C
                )
                v2[idx] = 1.0 / (1.0 / v2[idx] + (2 * C + C * C * variance) * val * val)
    return v1, v2


def hivemall_arowe_epochs(X, y, n_epochs, *, r, epsilon):
    """Hivemall's ``AROWe.train`` (``train_arowe_regr``) over the rows in
    order, ``n_epochs`` times.  Returns (weights, covariances)."""
    d = X.shape[1]
    w, cov = np.zeros(d), np.ones(d)
    for _ in range(n_epochs):
        for i in range(X.shape[0]):
            idx, x = _nonzeros(X, i)
            predicted = w[idx] @ x  # calcScoreAndVariance
            var = cov[idx] @ (x * x)
            loss = max(0.0, abs(predicted - y[i]) - epsilon)  # epsilonInsensitiveLoss
            if loss > 0.0:
                coeff = loss if (y[i] - predicted) > 0.0 else -loss
                beta = 1.0 / (var + r)
                cov_x = cov[idx] * x  # getNewWeight
                w[idx] = w[idx] + coeff * cov_x * beta
                cov[idx] = cov[idx] - beta * cov_x * cov_x
    return w, cov


def _data(sparse, n=40, d=6, seed=0):
    rng = np.random.RandomState(seed)
    X = rng.normal(size=(n, d)) * (rng.uniform(size=(n, d)) < 0.6)
    y = X @ rng.normal(size=d) + 0.3 * rng.normal(size=n) + 0.5
    return (sp.csr_matrix(X) if sparse else X), y


ESTIMATORS = {
    "arow": (AROWRegressor, "regularization", lambda C: 1.0 / C),
    "cw": (ConfidenceWeightedRegressor, "confidence", lambda C: C),
    "nherd": (NHERDRegressor, "C", lambda C: C),
}


def _estimator(kind, C, epsilon, n_epochs, **kw):
    cls, name, value = ESTIMATORS[kind]
    return cls(
        **{name: value(C)},
        epsilon=epsilon,
        max_iter=n_epochs,
        tol=None,
        shuffle=False,
        **kw,
    )


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
@pytest.mark.parametrize("kind", ["arow", "cw", "nherd"])
@pytest.mark.parametrize("C, epsilon", [(1.0, 0.1), (0.3, 0.0), (2.5, 0.4)])
def test_fit_is_jubatus(kind, sparse, C, epsilon):
    X, y = _data(sparse)
    n_epochs = 5
    mu, var = jubatus_epochs(kind, X, y, n_epochs, C=C, sensitivity=epsilon)
    reg = _estimator(kind, C, epsilon, n_epochs, fit_intercept=False).fit(X, y)
    assert reg.n_iter_ == n_epochs
    assert_allclose(reg.coef_, mu, rtol=RTOL, atol=RTOL * np.abs(mu).max())
    assert_allclose(reg.covariance_[0, :-1], var, rtol=RTOL)
    assert_allclose(reg.intercept_, 0.0, atol=0)


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
@pytest.mark.parametrize("kind", ["arow", "cw", "nherd"])
def test_intercept_is_a_constant_feature(kind, sparse):
    X, y = _data(sparse, seed=1)
    a = 0.7
    Xa = (
        sp.hstack([X, np.full((X.shape[0], 1), a)]).tocsr()
        if sparse
        else np.hstack([X, np.full((X.shape[0], 1), a)])
    )
    mu, var = jubatus_epochs(kind, Xa, y, 4, C=0.8, sensitivity=0.1)
    reg = _estimator(kind, 0.8, 0.1, 4, intercept_scaling=a).fit(X, y)
    assert_allclose(reg.coef_, mu[:-1], rtol=RTOL, atol=RTOL * np.abs(mu).max())
    assert_allclose(reg.intercept_, a * mu[-1:], rtol=RTOL)
    assert_allclose(reg.covariance_[0], var, rtol=RTOL)


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
@pytest.mark.parametrize("r, epsilon", [(0.1, 0.1), (2.0, 0.0)])
def test_arow_is_hivemall_arowe(sparse, r, epsilon):
    X, y = _data(sparse, seed=2)
    w, cov = hivemall_arowe_epochs(X, y, 6, r=r, epsilon=epsilon)
    reg = AROWRegressor(
        regularization=r,
        epsilon=epsilon,
        fit_intercept=False,
        max_iter=6,
        tol=None,
        shuffle=False,
    ).fit(X, y)
    assert_allclose(reg.coef_, w, rtol=RTOL, atol=RTOL * np.abs(w).max())
    assert_allclose(reg.covariance_[0, :-1], cov, rtol=RTOL)


@pytest.mark.parametrize("kind", ["arow", "cw", "nherd"])
def test_partial_fit_continues_fit(kind):
    """``partial_fit`` calls, batch after batch, are the epochs of ``fit``."""
    X, y = _data(False, seed=3)
    mu, var = jubatus_epochs(kind, X, y, 3, C=1.2, sensitivity=0.05)
    reg = _estimator(kind, 1.2, 0.05, 1, fit_intercept=False)
    for _ in range(3):
        for start in range(0, X.shape[0], 7):
            reg.partial_fit(X[start : start + 7], y[start : start + 7])
    assert_allclose(reg.coef_, mu, rtol=RTOL, atol=RTOL * np.abs(mu).max())
    assert_allclose(reg.covariance_[0, :-1], var, rtol=RTOL)


@pytest.mark.parametrize("kind", ["arow", "cw", "nherd"])
def test_full_matches_diagonal_on_one_hot_rows(kind):
    """With orthogonal one-hot rows and no intercept the full covariance
    stays diagonal: both forms give one model."""
    rng = np.random.RandomState(4)
    X = np.eye(5)[rng.randint(0, 5, 60)] * rng.uniform(0.5, 2.0, (60, 1))
    y = rng.normal(size=60)
    kw = dict(fit_intercept=False)
    diag = _estimator(kind, 0.7, 0.1, 3, **kw).fit(X, y)
    full = _estimator(kind, 0.7, 0.1, 3, covariance="full", **kw).fit(X, y)
    assert_allclose(full.coef_, diag.coef_, rtol=1e-12, atol=1e-14)
    assert_allclose(np.diag(full.covariance_[0]), diag.covariance_[0, :-1], rtol=1e-12)


@pytest.mark.parametrize(
    "cls", [AROWRegressor, ConfidenceWeightedRegressor, NHERDRegressor]
)
@pytest.mark.parametrize("covariance", ["diagonal", "full"])
def test_dense_and_csr_agree(cls, covariance):
    X, y = _data(False, seed=5)
    kw = dict(covariance=covariance, max_iter=4, tol=None, random_state=0)
    dense = cls(**kw).fit(X, y)
    csr = cls(**kw).fit(sp.csr_matrix(X), y)
    assert_allclose(csr.coef_, dense.coef_, rtol=1e-12, atol=1e-14)
    assert_allclose(csr.intercept_, dense.intercept_, rtol=1e-12, atol=1e-14)
    assert_allclose(csr.covariance_, dense.covariance_, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize(
    "cls", [AROWRegressor, ConfidenceWeightedRegressor, NHERDRegressor]
)
def test_sample_weight(cls):
    """A zero weight skips a sample; an integer weight is not a repetition
    (it scales one step) but moves the model."""
    X, y = _data(False, seed=6)
    kw = dict(max_iter=2, tol=None, shuffle=False, intercept_scaling=1.0)
    w = np.ones(X.shape[0])
    w[::3] = 0.0
    weighted = cls(**kw).fit(X, y, sample_weight=w)
    kept = cls(**kw).fit(X[w > 0], y[w > 0])
    assert_allclose(weighted.coef_, kept.coef_, rtol=1e-12)
    heavy = cls(**kw).fit(X, y, sample_weight=np.full(X.shape[0], 3.0))
    assert not np.allclose(heavy.coef_, cls(**kw).fit(X, y).coef_)


def test_arow_weight_divides_r():
    X, y = _data(False, seed=7)
    kw = dict(max_iter=1, tol=None, shuffle=False, fit_intercept=False)
    a = AROWRegressor(regularization=2.0, **kw).fit(
        X, y, sample_weight=np.full(40, 4.0)
    )
    b = AROWRegressor(regularization=0.5, **kw).fit(X, y)
    assert_allclose(a.coef_, b.coef_, rtol=1e-12)


@pytest.mark.parametrize(
    "cls", [AROWRegressor, ConfidenceWeightedRegressor, NHERDRegressor]
)
def test_predict_variance_and_covariance(cls):
    X, y = _data(False, seed=8)
    reg = cls(max_iter=3, tol=None, random_state=0).fit(X, y)
    S = np.diag(reg.covariance_[0])
    Xa = np.hstack([X, np.full((X.shape[0], 1), reg.intercept_scaling_)])
    assert_allclose(reg.predict_variance(X), np.einsum("ij,jk,ik->i", Xa, S, Xa))
    # the variances only shrink from the prior 1
    assert np.all(reg.covariance_ <= 1.0) and np.all(reg.covariance_ > 0.0)
    full = clone(reg).set_params(covariance="full").fit(X, y)
    assert full.covariance_.shape == (1, 7, 7)
    assert np.all(np.linalg.eigvalsh(full.covariance_[0]) > 0)


@pytest.mark.parametrize(
    "cls", [AROWRegressor, ConfidenceWeightedRegressor, NHERDRegressor]
)
def test_learns_diabetes(cls):
    """On standardised data (CW's constraint is in units of the target: see
    ``test_cw_stays_finite_on_large_targets``)."""
    X, y = load_diabetes(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    y = (y - y.mean()) / y.std()
    reg = cls(random_state=0, average=True).fit(X, y)
    pa = PassiveAggressiveRegressor(random_state=0, average=True).fit(X, y)
    assert reg.score(X, y) > 0.45
    assert reg.score(X, y) > pa.score(X, y) - 0.05


def test_cw_stays_finite_on_large_targets():
    """CW's precision grows by about ``2 phi |e| / v`` per step: residuals in
    the hundreds collapse the covariance until the multiplier overflows.
    Such a step is not taken, the model stays finite (and poor: scale y)."""
    X, y = load_diabetes(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    reg = ConfidenceWeightedRegressor(random_state=0, max_iter=5, tol=None)
    reg.fit(X, y)
    assert np.all(np.isfinite(reg.coef_)) and np.all(np.isfinite(reg.covariance_))
    # pure noise on features far from 0: the variances reach subnormal
    # numbers, where the multiplier times the intercept's feature overflows
    rng = np.random.RandomState(0)
    X, y = rng.normal(loc=100, size=(100, 2)), rng.normal(size=100)
    reg = ConfidenceWeightedRegressor(max_iter=30, tol=None, random_state=0)
    reg.fit(X, y)
    assert np.all(np.isfinite(reg.coef_)) and np.all(np.isfinite(reg.intercept_))


def test_epsilon_insensitive_zone():
    """A sample predicted within epsilon leaves the model as it was."""
    X, y = _data(False, seed=9)
    reg = AROWRegressor(epsilon=0.5, max_iter=3, tol=None).fit(X, y)
    coef, cov = reg.coef_.copy(), reg.covariance_.copy()
    x = X[:1]
    reg.partial_fit(x, reg.predict(x) + 0.4)
    assert_allclose(reg.coef_, coef, atol=0)
    assert_allclose(reg.covariance_, cov, atol=0)
    reg.partial_fit(x, reg.predict(x) + 0.6)
    assert not np.allclose(reg.coef_, coef)


def test_warm_start_keeps_the_covariance():
    X, y = _data(False, seed=10)
    kw = dict(max_iter=2, tol=None, shuffle=False)
    once = NHERDRegressor(**kw, warm_start=True).fit(X, y)
    once.fit(X, y)
    twice = NHERDRegressor(max_iter=4, tol=None, shuffle=False).fit(X, y)
    assert_allclose(once.coef_, twice.coef_, rtol=1e-12)
    assert_allclose(once.covariance_, twice.covariance_, rtol=1e-12)


def test_full_covariance_on_make_regression():
    X, y = make_regression(n_samples=200, n_features=5, noise=0.5, random_state=0)
    for cls in (AROWRegressor, ConfidenceWeightedRegressor, NHERDRegressor):
        reg = cls(covariance="full", random_state=0).fit(X, y)
        assert reg.score(X, y) > 0.99


@pytest.mark.parametrize(
    "cls", [AROWRegressor, ConfidenceWeightedRegressor, NHERDRegressor]
)
@pytest.mark.parametrize("covariance", ["diagonal", "full"])
def test_state_protocol_and_parameter_mixing(cls, covariance):
    """The regressors mix as the classifiers (Gaussians by default): one
    partition is the serial fit, a prepared block's epoch is ``partial_fit``,
    and two partitions still learn."""
    import copy

    from sklearn_pa.distributed import fit_parameter_mixing

    X, y = make_regression(n_samples=240, n_features=8, noise=1.0, random_state=0)
    y = y / y.std()
    est = cls(covariance=covariance, random_state=0)
    learner = est.__sklearn_pa_state__()
    assert learner.default_mixing == "gaussian"
    mixed = fit_parameter_mixing(est, X, y, n_epochs=3, n_partitions=1, n_jobs=1)
    serial = clone(est).set_params(max_iter=3, tol=None).fit(X, y)
    assert_allclose(mixed.coef_, serial.coef_, rtol=1e-12)
    assert_allclose(mixed.covariance_, serial.covariance_, rtol=1e-12)
    fitted = clone(est).partial_fit(X[:100], y[:100])
    learner = fitted.__sklearn_pa_state__()
    state = learner.get()
    block = learner.prepare(X[100:], y[100:])
    new, stats = learner.epoch(block, state, copy.deepcopy(fitted._rng))
    reference = copy.deepcopy(fitted).partial_fit(X[100:], y[100:])
    ref = reference.__sklearn_pa_state__().get()
    for key in ("W", "b", "sigma"):
        assert_allclose(new[key], ref[key], rtol=1e-12, atol=1e-14)
    two = fit_parameter_mixing(est, X, y, n_epochs=3, n_partitions=2, n_jobs=1)
    assert two.score(X, y) > 0.9


@pytest.mark.parametrize(
    "cls", [AROWRegressor, ConfidenceWeightedRegressor, NHERDRegressor]
)
def test_average_is_the_mean_of_the_iterates(cls):
    rng = np.random.RandomState(11)
    X = rng.normal(size=(30, 4))
    y = X @ rng.normal(size=4)
    kw = dict(shuffle=False, intercept_scaling=1.0)
    avg = cls(average=True, max_iter=1, tol=None, **kw).fit(X, y)
    one = cls(**kw)
    coefs, intercepts = [], []
    for i in range(30):
        one.partial_fit(X[i : i + 1], y[i : i + 1])
        coefs.append(one.coef_.copy())
        intercepts.append(one.intercept_.copy())
    assert_allclose(avg.coef_, np.mean(coefs, axis=0), rtol=1e-10, atol=1e-12)
    assert_allclose(avg.intercept_, np.mean(intercepts, axis=0), rtol=1e-10, atol=1e-12)
