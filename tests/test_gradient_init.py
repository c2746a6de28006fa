"""Initial weights of EG+- and DPMU (``coef_init`` / ``intercept_init``).

The seed starts EG+-(s+-, eta) and DPMU(s+-, c) from a given positive weight
pair ``s+-``.  A plain-Python transcription of the seed's update rules,
started from the same pair, is the reference for one pass of ``fit``.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose

from sklearn_pa import (
    ErrorProportionalRegressor,
    ExponentiatedGradientRegressor,
    GradientDescentRegressor,
)


def eg_reference(X, y, pos, neg, eta):
    """EG+- as the seed writes it: v+- = w+- exp(+-2 eta (y - yhat) U x),
    w+- = U v+- / ||v+-||_1 with U = ||s+-||_1."""
    pos, neg = pos.copy(), neg.copy()
    U = pos.sum() + neg.sum()
    for x, t in zip(X, y):
        r = t - (pos - neg) @ x
        vp = pos * np.exp(2 * eta * r * U * x)
        vn = neg * np.exp(-2 * eta * r * U * x)
        z = vp.sum() + vn.sum()
        pos, neg = U * vp / z, U * vn / z
    return pos, neg


def dpmu_reference(X, y, pos, neg, c):
    """DPMU: w+_i *= beta^x_i, w-_i /= beta^x_i, beta the positive root of
    yhat+ beta^2 - (yhat + c (y - yhat)) beta - yhat- = 0."""
    pos, neg = pos.copy(), neg.copy()
    for x, t in zip(X, y):
        if not x.any():
            continue  # no active feature: nothing to scale
        yp, yn = pos @ x, neg @ x
        yhat = yp - yn
        T = yhat + c * (t - yhat)
        beta = (T + np.sqrt(T * T + 4 * yp * yn)) / (2 * yp)
        pos = pos * beta**x
        neg = neg / beta**x
    return pos, neg


def augment(X, fit_intercept):
    return np.hstack([X, np.ones((len(X), 1))]) if fit_intercept else X


@settings(max_examples=30, deadline=None)
@given(
    seed=st.integers(0, 2**31 - 1),
    fit_intercept=st.booleans(),
    eta=st.floats(1e-3, 0.05),
)
def test_eg_from_given_pair_matches_the_seed(seed, fit_intercept, eta):
    rng = np.random.default_rng(seed)
    n, N = 30, 4
    X = rng.uniform(-1, 1, size=(n, N))
    y = X @ rng.uniform(-1, 1, size=N)
    pos = rng.uniform(0.05, 1.0, size=N + fit_intercept)
    neg = rng.uniform(0.05, 1.0, size=N + fit_intercept)
    U = pos.sum() + neg.sum()
    reg = ExponentiatedGradientRegressor(
        eta=eta,
        total_weight=U,
        fit_intercept=fit_intercept,
        max_iter=1,
        tol=None,
        shuffle=False,
    )
    coef_init = np.vstack([pos[:N], neg[:N]])
    intercept_init = np.array([pos[N], neg[N]]) if fit_intercept else None
    reg.fit(X, y, coef_init=coef_init, intercept_init=intercept_init)
    ref_pos, ref_neg = eg_reference(augment(X, fit_intercept), y, pos, neg, eta)
    ref = ref_pos - ref_neg
    assert_allclose(reg.coef_, ref[:N], rtol=1e-9, atol=1e-12)
    if fit_intercept:
        assert_allclose(reg.intercept_, [ref[N]], rtol=1e-9, atol=1e-12)


@settings(max_examples=30, deadline=None)
@given(
    seed=st.integers(0, 2**31 - 1),
    fit_intercept=st.booleans(),
    c=st.floats(0.05, 1.0),
)
def test_dpmu_from_given_pair_matches_the_seed(seed, fit_intercept, c):
    rng = np.random.default_rng(seed)
    n, N = 30, 5
    X = (rng.random((n, N)) < 0.4).astype(float)
    y = X @ rng.uniform(-1, 1, size=N) + 0.3
    pos = rng.uniform(0.1, 2.0, size=N + fit_intercept)
    neg = rng.uniform(0.1, 2.0, size=N + fit_intercept)
    reg = ErrorProportionalRegressor(
        C=c,
        update="multiplicative",
        fit_intercept=fit_intercept,
        max_iter=1,
        tol=None,
        shuffle=False,
    )
    coef_init = np.vstack([pos[:N], neg[:N]])
    intercept_init = np.array([pos[N], neg[N]]) if fit_intercept else None
    reg.fit(X, y, coef_init=coef_init, intercept_init=intercept_init)
    ref_pos, ref_neg = dpmu_reference(augment(X, fit_intercept), y, pos, neg, c)
    ref = ref_pos - ref_neg
    assert_allclose(reg.coef_, ref[:N], rtol=1e-9, atol=1e-12)
    if fit_intercept:
        assert_allclose(reg.intercept_, [ref[N]], rtol=1e-9, atol=1e-12)


def test_dpmu_default_intercept_pair_is_one():
    X = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    y = np.array([1.0, -1.0, 0.5])
    coef_init = np.array([[2.0, 0.5], [1.0, 1.5]])
    params = dict(update="multiplicative", max_iter=1, tol=None, shuffle=False)
    a = ErrorProportionalRegressor(**params)
    b = ErrorProportionalRegressor(**params)
    a.fit(X, y, coef_init=coef_init)
    b.fit(X, y, coef_init=coef_init, intercept_init=[1.0, 1.0])
    assert_allclose(a.coef_, b.coef_)
    assert_allclose(a.intercept_, b.intercept_)


def test_dpau_accepts_a_signed_coef_init():
    X = np.eye(3)
    y = np.array([1.0, 2.0, 3.0])
    start = np.array([0.5, -1.0, 2.0])
    reg = ErrorProportionalRegressor(C=1.0, max_iter=1, tol=None, shuffle=False)
    reg.fit(X, y, coef_init=start, intercept_init=[0.0])
    # c = 1 interpolates each sample in turn: x = e_i hits w_i and b
    gd = GradientDescentRegressor(
        eta=0.5,
        eta_scaling="inverse_sq_norm",
        max_iter=1,
        tol=None,
        shuffle=False,
    ).fit(X, y, coef_init=start, intercept_init=[0.0])
    assert_allclose(reg.coef_, gd.coef_)


@pytest.mark.parametrize(
    "Est, params",
    [
        (ExponentiatedGradientRegressor, {"total_weight": 4.0}),
        (ErrorProportionalRegressor, {"update": "multiplicative"}),
    ],
)
@pytest.mark.parametrize(
    "coef_init, intercept_init, match",
    [
        (np.ones(2), [1.0, 1.0], r"shape \(2, n_features\)"),
        (np.full((2, 3), 0.5), [0.5, 0.5], r"expected \(2, 2\)"),
        ([[1.0, 0.0], [1.0, 1.0]], [0.5, 0.5], "strictly positive"),
        ([[1.0, -1.0], [1.0, 1.0]], [0.5, 0.5], "strictly positive"),
        ([[1.0, np.nan], [1.0, 1.0]], [0.5, 0.5], "NaN"),
        ([[1.0, 1.0], [1.0, 1.0]], [1.0, 1.0, 1.0], r"expected\s+\(2,\)"),
    ],
)
def test_bad_initial_pairs_are_refused_before_any_update(
    Est, params, coef_init, intercept_init, match
):
    X = np.array([[1.0, 0.0], [0.0, 1.0]])
    y = np.array([1.0, -1.0])
    reg = Est(**params).fit(X, y)
    before = reg.coef_.copy()
    with pytest.raises(ValueError, match=match):
        reg.fit(X, y, coef_init=coef_init, intercept_init=intercept_init)
    assert_allclose(reg.coef_, before)


def test_eg_total_must_match_total_weight():
    X = np.array([[1.0, 0.0], [0.0, 1.0]])
    y = np.array([1.0, -1.0])
    reg = ExponentiatedGradientRegressor(total_weight=4.0)
    with pytest.raises(ValueError, match="total_weight=6"):
        reg.fit(X, y, coef_init=np.ones((2, 2)), intercept_init=[1.0, 1.0])
    with pytest.raises(ValueError, match="pass intercept_init"):
        reg.fit(X, y, coef_init=np.ones((2, 2)))
    reg.fit(X, y, coef_init=np.ones((2, 2)) * 0.75, intercept_init=[0.5, 0.5])
    assert reg.coef_.shape == (2,)


def test_intercept_init_alone_is_refused():
    X = np.array([[1.0, 0.0], [0.0, 1.0]])
    with pytest.raises(ValueError, match="together with coef_init"):
        ErrorProportionalRegressor(update="multiplicative").fit(
            X, [1.0, 0.0], intercept_init=[1.0, 1.0]
        )
