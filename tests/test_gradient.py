"""GD, EG+- and the error-proportional updates DPAU / DPMU.

Each rule is checked as the solution of its own problem (scipy.optimize on
small random instances, with hypothesis), against a plain numpy transcription
of its formula over a stream, and for its defining properties: one DPAU or
DPMU step closes the fraction ``c`` of the error, normalised GD with
``eta = c / 2`` is DPAU, EG weights stay positive and sum to ``U`` whatever
the step size.
"""

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal
from scipy.optimize import minimize

from sklearn_pa import (
    ErrorProportionalRegressor,
    ExponentiatedGradientRegressor,
    GradientDescentRegressor,
)

seeds = st.integers(0, 2**31 - 1)


def _boolean_problem(seed, n_samples=30, n_features=8, density=0.4):
    rng = np.random.RandomState(seed)
    X = (rng.uniform(size=(n_samples, n_features)) < density).astype(float)
    X[X.sum(axis=1) == 0, rng.randint(n_features)] = 1.0
    y = X @ rng.uniform(-2, 2, n_features) + rng.normal(scale=0.3, size=n_samples)
    return X, y


def _real_problem(seed, n_samples=30, n_features=6):
    rng = np.random.RandomState(seed)
    X = rng.normal(size=(n_samples, n_features))
    y = X @ rng.normal(size=n_features) + rng.normal(scale=0.3, size=n_samples)
    return X, y


def _one_step(est, X_warm, y_warm, x, y):
    """Warm the model up, then return (yhat before, yhat after) one step."""
    est.partial_fit(X_warm, y_warm)
    before = est.predict(x)[0]
    est.partial_fit(x, np.array([y]))
    return before, est.predict(x)[0]


# ------------------------------------------------------------ properties
@settings(max_examples=40, deadline=None)
@given(
    seed=seeds,
    c=st.floats(0.05, 1.0),
    fit_intercept=st.booleans(),
    sparse=st.booleans(),
    update=st.sampled_from(["additive", "multiplicative"]),
    target=st.floats(-20, 20),
)
def test_error_proportional_step_closes_fraction_c(
    seed, c, fit_intercept, sparse, update, target
):
    X, y = _boolean_problem(seed)
    if sparse:
        X = sp.csr_matrix(X)
    est = ErrorProportionalRegressor(
        C=c, update=update, fit_intercept=fit_intercept, shuffle=False
    )
    before, after = _one_step(est, X[:-1], y[:-1], X[-1:], target)
    scale = max(1.0, abs(target), abs(before))
    assert abs((after - before) - c * (target - before)) <= 1e-10 * scale


@settings(max_examples=25, deadline=None)
@given(seed=seeds, c=st.floats(0.05, 1.0), sparse=st.booleans())
def test_normalised_gd_with_half_c_is_dpau(seed, c, sparse):
    X, y = _real_problem(seed)
    if sparse:
        X = sp.csr_matrix(X)
    common = dict(max_iter=3, tol=None, random_state=seed)
    gd = GradientDescentRegressor(
        eta=c / 2, eta_scaling="inverse_sq_norm", intercept_scaling=1.0, **common
    ).fit(X, y)
    dpau = ErrorProportionalRegressor(C=c, update="additive", **common).fit(X, y)
    assert_allclose(gd.coef_, dpau.coef_, rtol=1e-12, atol=1e-12)
    assert_allclose(gd.intercept_, dpau.intercept_, rtol=1e-12, atol=1e-12)


def _eg_total(est):
    return np.sum(est._split_coef) + np.sum(est._split_intercept)


@settings(max_examples=30, deadline=None)
@given(
    seed=seeds,
    log_eta=st.floats(-6, 8),
    total=st.floats(0.1, 1e3),
    fit_intercept=st.booleans(),
    y_scale=st.floats(1.0, 1e6),
)
def test_eg_weights_finite_positive_and_sum_to_total(
    seed, log_eta, total, fit_intercept, y_scale
):
    """Steps whose exponents reach 1e15 and more (log-domain path) keep the
    weights finite, non-negative and summing to U."""
    X, y = _real_problem(seed, n_samples=40)
    est = ExponentiatedGradientRegressor(
        eta=10.0**log_eta,
        total_weight=total,
        fit_intercept=fit_intercept,
        max_iter=2,
        tol=None,
        random_state=0,
    )
    est.fit(X, y * y_scale)
    assert np.all(np.isfinite(est._split_coef))
    assert np.all(est._split_coef >= 0)
    assert_allclose(_eg_total(est), total, rtol=1e-10)
    assert np.all(np.isfinite(est.predict(X)))
    assert np.sum(np.abs(est.coef_)) + abs(est.intercept_[0]) <= total * (1 + 1e-10)


# ------------------------------------------------------- formula parity
def _gd_reference(X, y, eta, scaling, a):
    w = np.zeros(X.shape[1])
    b = 0.0
    for x, t in zip(X, y):
        r = t - (x @ w + b)
        rate = eta if scaling == "constant" else eta / (x @ x + a * a)
        w += 2 * rate * r * x
        b += 2 * rate * r * a * a
    return w, b


def _eg_reference(X, y, eta, U, intercept):
    n = X.shape[1] + (1 if intercept else 0)
    Xa = np.hstack([X, np.ones((X.shape[0], 1))]) if intercept else X
    wp = np.full(n, U / (2 * n))
    wm = np.full(n, U / (2 * n))
    for x, t in zip(Xa, y):
        r = t - x @ (wp - wm)
        vp = wp * np.exp(2 * eta * r * U * x)
        vm = wm * np.exp(-2 * eta * r * U * x)
        z = vp.sum() + vm.sum()
        wp, wm = U * vp / z, U * vm / z
    return wp, wm


def _dpmu_reference(X, y, c, intercept):
    Xa = np.hstack([X, np.ones((X.shape[0], 1))]) if intercept else X
    wp = np.ones(Xa.shape[1])
    wm = np.ones(Xa.shape[1])
    for x, t in zip(Xa, y):
        yp, ym = x @ wp, x @ wm
        yhat = yp - ym
        T = yhat + c * (t - yhat)
        beta = (T + np.sqrt(T * T + 4 * yp * ym)) / (2 * yp)
        wp = wp * beta**x
        wm = wm / beta**x
    return wp, wm


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("scaling", ["constant", "inverse_sq_norm"])
@pytest.mark.parametrize("fit_intercept", [False, True])
def test_gd_matches_formula(sparse, scaling, fit_intercept):
    X, y = _real_problem(0, n_samples=60)
    eta = 0.02 if scaling == "constant" else 0.3
    est = GradientDescentRegressor(
        eta=eta,
        eta_scaling=scaling,
        fit_intercept=fit_intercept,
        intercept_scaling=1.5,
        shuffle=False,
    )
    est.partial_fit(sp.csr_matrix(X) if sparse else X, y)
    w, b = _gd_reference(X, y, eta, scaling, 1.5 if fit_intercept else 0.0)
    assert_allclose(est.coef_, w, rtol=1e-12, atol=1e-12)
    assert_allclose(est.intercept_[0], b, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("fit_intercept", [False, True])
def test_eg_matches_formula(sparse, fit_intercept):
    """The O(nnz) scaled representation gives the textbook EG+- weights."""
    rng = np.random.RandomState(0)
    X = sp.random(200, 40, density=0.1, random_state=rng).toarray()
    y = 3 * X[:, 0] - 2 * X[:, 1] + 0.1 * rng.normal(size=200)
    est = ExponentiatedGradientRegressor(
        eta=0.05, total_weight=6.0, fit_intercept=fit_intercept, shuffle=False
    )
    est.partial_fit(sp.csr_matrix(X) if sparse else X, y)
    wp, wm = _eg_reference(X, y, 0.05, 6.0, fit_intercept)
    n = X.shape[1]
    assert_allclose(est._split_coef[:, 0], wp[:n], rtol=1e-10)
    assert_allclose(est._split_coef[:, 1], wm[:n], rtol=1e-10)
    if fit_intercept:
        assert_allclose(est._split_intercept, [wp[n], wm[n]], rtol=1e-10)


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("fit_intercept", [False, True])
def test_dpmu_matches_formula(sparse, fit_intercept):
    X, y = _boolean_problem(1, n_samples=80, n_features=12)
    est = ErrorProportionalRegressor(
        C=0.313, update="multiplicative", fit_intercept=fit_intercept, shuffle=False
    )
    est.partial_fit(sp.csr_matrix(X) if sparse else X, y)
    wp, wm = _dpmu_reference(X, y, 0.313, fit_intercept)
    n = X.shape[1]
    assert_allclose(est._split_coef[:, 0], wp[:n], rtol=1e-10)
    assert_allclose(est._split_coef[:, 1], wm[:n], rtol=1e-10)
    assert_allclose(est.coef_, wp[:n] - wm[:n], rtol=1e-10, atol=1e-12)


def test_dense_and_sparse_agree():
    X, y = _boolean_problem(3, n_samples=100, n_features=15)
    for est in [
        GradientDescentRegressor(random_state=0, max_iter=5, tol=None),
        ExponentiatedGradientRegressor(random_state=0, max_iter=5, tol=None),
        ErrorProportionalRegressor(update="multiplicative", random_state=0),
    ]:
        dense = est.fit(X, y).coef_.copy()
        sparse = est.fit(sp.csr_matrix(X), y).coef_
        assert_allclose(dense, sparse, rtol=1e-10, atol=1e-12)


# --------------------------------------------------------------- oracles
def _augment(x, intercept):
    return np.append(x, 1.0) if intercept else x


@settings(max_examples=25, deadline=None)
@given(seed=seeds, c=st.floats(0.05, 1.0), target=st.floats(-5, 5))
def test_dpau_is_min_norm_change(seed, c, target):
    """DPAU = argmin ||w' - w||^2  s.t.  w'.x - w.x = c (y - yhat)."""
    X, y = _real_problem(seed, n_samples=10, n_features=4)
    est = ErrorProportionalRegressor(C=c, shuffle=False).partial_fit(X[:-1], y[:-1])
    w = np.append(est.coef_, est.intercept_)
    x = np.append(X[-1], 1.0)
    gap = c * (target - x @ w)
    res = minimize(
        lambda v: np.sum((v - w) ** 2),
        w,
        jac=lambda v: 2 * (v - w),
        constraints=[{"type": "eq", "fun": lambda v: v @ x - w @ x - gap}],
        method="SLSQP",
        options={"ftol": 1e-14, "maxiter": 200},
    )
    est.partial_fit(X[-1:], [target])
    w_new = np.append(est.coef_, est.intercept_)
    assert_allclose(w_new, res.x, atol=1e-6 * max(1.0, np.abs(res.x).max()))
    # KKT: the change is parallel to x
    delta = w_new - w
    assert_allclose(delta, (delta @ x) / (x @ x) * x, atol=1e-12 * max(1, abs(gap)))


def _kl(v, w):
    return np.sum(v * np.log(v / w) - v + w)


@settings(max_examples=25, deadline=None)
@given(
    seed=seeds,
    eta=st.floats(0.01, 0.3),
    total=st.floats(0.5, 3.0),
    intercept=st.booleans(),
)
def test_eg_is_entropy_plus_linearised_loss_minimiser(seed, eta, total, intercept):
    """With r = w / U on the simplex over the 2N inputs (Ux, -Ux), the EG+-
    step is  argmin_{r' in simplex} RE(r' || r) + eta (L(r) + grad L(r).(r' - r)),
    L(r) = (y - r . (Ux, -Ux))^2  (Kivinen & Warmuth 1997, section 4)."""
    X, y = _real_problem(seed, n_samples=8, n_features=3)
    est = ExponentiatedGradientRegressor(
        eta=eta, total_weight=total, fit_intercept=intercept, shuffle=False
    ).partial_fit(X[:-1], y[:-1])
    r = (
        np.concatenate(
            [
                _augment(est._split_coef[:, 0], False),
                est._split_intercept[:1] if intercept else [],
                est._split_coef[:, 1],
                est._split_intercept[1:] if intercept else [],
            ]
        )
        / total
    )
    x = _augment(X[-1], intercept)
    x2 = np.concatenate([total * x, -total * x])
    grad = -2 * (y[-1] - r @ x2) * x2

    # the simplex by a change of variables (v = softmax(z)), so that an
    # unconstrained quasi-Newton solver can take it
    def objective(z):
        v = np.exp(z - z.max())
        v /= v.sum()
        g = np.log(np.maximum(v, 1e-300) / r) + 1 + eta * grad
        value = np.sum(v * np.log(np.maximum(v, 1e-300) / r)) + eta * grad @ v
        return value, v * (g - v @ g)

    res = minimize(
        objective,
        np.log(r),
        jac=True,
        method="BFGS",
        options={"gtol": 1e-13, "maxiter": 2000},
    )
    res.x = np.exp(res.x - res.x.max()) / np.exp(res.x - res.x.max()).sum()
    est.partial_fit(X[-1:], y[-1:])
    n = X.shape[1]
    new = (
        np.concatenate(
            [
                est._split_coef[:, 0],
                est._split_intercept[:1] if intercept else [],
                est._split_coef[:, 1],
                est._split_intercept[1:] if intercept else [],
            ]
        )
        / total
    )
    assert_allclose(new, res.x, atol=1e-6)
    # KKT: log(r'/r) + eta grad is constant (the simplex multiplier)
    stationarity = np.log(new / r) + eta * grad
    assert_allclose(stationarity, stationarity[0], atol=1e-9)
    assert new.size == 2 * (n + intercept)


@settings(max_examples=25, deadline=None)
@given(seed=seeds, c=st.floats(0.05, 1.0), intercept=st.booleans())
def test_dpmu_is_min_unnormalised_relative_entropy(seed, c, intercept):
    """DPMU = argmin_{w'+, w'- > 0} RE~(w'+ || w+) + RE~(w'- || w-)
    s.t. (w'+ - w'-) . x = yhat + c (y - yhat), with the unnormalised
    relative entropy RE~(v || w) = sum v log(v / w) - v + w; for Boolean x
    its minimiser is w+_i beta^{x_i}, w-_i beta^{-x_i}."""
    X, y = _boolean_problem(seed, n_samples=8, n_features=4)
    est = ErrorProportionalRegressor(
        C=c, update="multiplicative", fit_intercept=intercept, shuffle=False
    ).partial_fit(X[:-1], y[:-1])
    x = _augment(X[-1], intercept)

    def pair(e):
        p = list(e._split_coef[:, 0]) + (
            list(e._split_intercept[:1]) if intercept else []
        )
        m = list(e._split_coef[:, 1]) + (
            list(e._split_intercept[1:]) if intercept else []
        )
        return np.array(p + m)

    w = pair(est)
    k = x.size
    yhat = x @ (w[:k] - w[k:])
    T = yhat + c * (y[-1] - yhat)
    res = minimize(
        lambda v: _kl(v, w),
        w,
        jac=lambda v: np.log(v / w),
        bounds=[(1e-12, None)] * w.size,
        constraints=[{"type": "eq", "fun": lambda v: x @ (v[:k] - v[k:]) - T}],
        method="SLSQP",
        options={"ftol": 1e-15, "maxiter": 500},
    )
    est.partial_fit(X[-1:], y[-1:])
    new = pair(est)
    assert res.success
    assert_allclose(new, res.x, rtol=1e-5, atol=1e-7)
    # KKT: log(w'/w) = lambda (x, -x)
    lam = np.log(new / w)
    active = x == 1
    assert_allclose(lam[:k][~active], 0, atol=1e-12)
    assert_allclose(lam[:k][active], lam[:k][active][0], atol=1e-10)
    assert_allclose(lam[k:], -lam[:k], atol=1e-10)


# ------------------------------------------------------ bad input, state
def _state(est):
    return {
        k: (v.copy() if isinstance(v, np.ndarray) else v)
        for k, v in est.__dict__.items()
    }


def _assert_same_state(est, saved):
    assert set(est.__dict__) == set(saved)
    for key, value in saved.items():
        if isinstance(value, np.ndarray):
            assert_array_equal(est.__dict__[key], value)


@pytest.mark.parametrize(
    "est",
    [
        GradientDescentRegressor(),
        ExponentiatedGradientRegressor(),
        ErrorProportionalRegressor(),
        ErrorProportionalRegressor(update="multiplicative"),
    ],
    ids=["GD", "EG", "DPAU", "DPMU"],
)
def test_bad_batch_leaves_model_untouched(est):
    X, y = _boolean_problem(0, n_samples=20)
    est.partial_fit(X, y)
    saved = _state(est)
    bad_X = X.copy()
    bad_X[3, 2] = np.nan
    for args in [
        (bad_X, y),
        (X[:, :-1], y),
        (X, np.where(np.arange(len(y)) == 5, np.inf, y)),
        (X, y[:-1]),
    ]:
        with pytest.raises(ValueError):
            est.partial_fit(*args)
        _assert_same_state(est, saved)
    with pytest.raises(ValueError, match="sample_weight"):
        est.partial_fit(X, y, sample_weight=-np.ones(len(y)))
    _assert_same_state(est, saved)


@pytest.mark.parametrize("sparse", [False, True])
def test_dpmu_refuses_non_boolean_input_before_any_update(sparse):
    X, y = _boolean_problem(0, n_samples=20)
    est = ErrorProportionalRegressor(update="multiplicative").partial_fit(X, y)
    saved = _state(est)
    bad = X.copy()
    bad[-1, 0] = 0.5  # the last row: a row-by-row check would have updated
    with pytest.raises(ValueError, match="Boolean.*Binarizer"):
        est.partial_fit(sp.csr_matrix(bad) if sparse else bad, y)
    _assert_same_state(est, saved)
    with pytest.raises(ValueError, match="Boolean"):
        ErrorProportionalRegressor(update="multiplicative").fit(bad * 2, y)


def test_switching_update_mid_stream_is_refused():
    X, y = _boolean_problem(0, n_samples=20)
    est = ErrorProportionalRegressor(update="multiplicative").partial_fit(X, y)
    saved = _state(est)
    est.set_params(update="additive")
    with pytest.raises(ValueError, match="another update"):
        est.partial_fit(X, y)
    _assert_same_state(est, saved)
    # fit starts over, also with warm_start
    est.set_params(warm_start=True).fit(X, y)
    est.set_params(update="multiplicative").fit(X, y)
    assert np.all(est._split_coef > 0)


def test_zero_rows_do_not_move_the_model():
    X = np.zeros((5, 4))
    y = np.arange(5.0)
    for est in [
        GradientDescentRegressor(fit_intercept=False),
        ErrorProportionalRegressor(fit_intercept=False),
        ErrorProportionalRegressor(update="multiplicative", fit_intercept=False),
    ]:
        est.partial_fit(X, y)
        assert np.all(np.isfinite(est.coef_))
        assert_array_equal(est.coef_, 0.0)


def test_eg_sum_to_total_and_uniform_start():
    X, y = _real_problem(0)
    est = ExponentiatedGradientRegressor(total_weight=3.0, eta=1e-9, tol=None)
    est.set_params(max_iter=1).fit(X[:1] * 0, y[:1] * 0)
    assert_allclose(est._split_coef, 3.0 / (2 * (X.shape[1] + 1)))
    assert_allclose(est.coef_, 0.0)


def test_sample_weight_scales_the_rate():
    X, y = _real_problem(0, n_samples=20)
    a = GradientDescentRegressor(eta=0.2, shuffle=False).partial_fit(
        X, y, sample_weight=np.full(20, 0.5)
    )
    b = GradientDescentRegressor(eta=0.1, shuffle=False).partial_fit(X, y)
    assert_allclose(a.coef_, b.coef_, rtol=1e-12)
    c = ErrorProportionalRegressor(update="multiplicative", shuffle=False)
    Xb, yb = _boolean_problem(0, n_samples=20)
    c.partial_fit(Xb, yb, sample_weight=np.r_[np.zeros(19), 1.0])
    d = ErrorProportionalRegressor(update="multiplicative").partial_fit(
        Xb[-1:], yb[-1:]
    )
    assert_allclose(c.coef_, d.coef_, rtol=1e-12)


@pytest.mark.parametrize(
    "params, match",
    [
        ({"eta": 0.0}, "eta"),
        ({"eta_scaling": "adaptive"}, "eta_scaling"),
    ],
)
def test_invalid_parameters(params, match):
    X, y = _real_problem(0)
    with pytest.raises(ValueError, match=match):
        GradientDescentRegressor(**params).fit(X, y)


def test_invalid_parameters_multiplicative():
    X, y = _real_problem(0)
    with pytest.raises(ValueError, match="total_weight"):
        ExponentiatedGradientRegressor(total_weight=-1).fit(X, y)
    with pytest.raises(ValueError, match="'C'"):
        ErrorProportionalRegressor(C=1.5).fit(X, y)
    with pytest.raises(ValueError, match="update"):
        ErrorProportionalRegressor(update="exp").fit(X, y)


def test_verbose_prints_progress(capsys):
    X, y = _real_problem(0)
    ExponentiatedGradientRegressor(verbose=1, max_iter=2, tol=None).fit(X, y)
    out = capsys.readouterr().out
    assert "Epoch 2" in out and "Avg. loss" in out and "Mistakes" not in out


def test_regression_benchmark_runs_and_formats():
    from sklearn_pa.benchmark import format_table, run_benchmark

    rows = run_benchmark("preference-synthetic", ["DPAU", "DPMU"], epochs=1)
    assert [row["estimator"] for row in rows] == ["DPAU", "DPMU"]
    assert all(0 < row["online_mse"] < 2 for row in rows)
    table = format_table(rows)
    assert "online MSE" in table and "regression" in table
    with pytest.raises(ValueError, match="regression data set"):
        run_benchmark("preference-synthetic", ["PA-I"], epochs=1)
