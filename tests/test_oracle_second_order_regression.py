"""One regression step of the second-order kernel against its optimisation
problem (``SO_REGRESSION``, ``_compiled/_cw_regression_rules.pxd``).

- AROW regression (Jubatus ``arow.cpp``, Hivemall ``train_arowe_regr``)::

      min KL(N(mu, S) || N(mu0, S0))
          + 1/(2r) max(0, |y - mu.x| - epsilon)^2 + 1/(2r) x^T S x

- CW regression (Jubatus ``confidence_weighted.cpp``), the variance form of
  CW on the residual's sign ``s = sign(y - mu0.x)``::

      min KL(N(mu, S) || N(mu0, S0))  s.t.  s (mu.x - y) >= phi x^T S x

Each is solved by a generic solver (BFGS / SLSQP over the mean and a
Cholesky factor of the covariance) and compared with one kernel step with a
full covariance; the KKT conditions of the closed forms are checked too.
NHERD's update is not the solution of such a problem (the herding of every
weight vector); its full form is checked against the paper's formula and
the NumPy transcription of Jubatus in ``test_second_order_regression.py``.
"""

from types import SimpleNamespace

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import Phase, assume, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from numpy.testing import assert_allclose
from scipy.optimize import minimize

from sklearn_pa import AROWRegressor, ConfidenceWeightedRegressor, NHERDRegressor
from sklearn_pa._compiled import _second_order
from sklearn_pa._compiled._rules import SecondOrderRule as R

SOLVER_TOL = 2e-4
KKT_RTOL = 1e-9
NO_SHRINK = (Phase.explicit, Phase.reuse, Phase.generate)

entries = st.floats(-2.0, 2.0, allow_nan=False, allow_subnormal=False).map(
    lambda v: 0.0 if abs(v) < 1e-6 else v
)
seeds = st.integers(0, 2**31 - 1)


def vector(n):
    return hnp.arrays(np.float64, n, elements=entries)


def spd(rng, d):
    A = rng.normal(size=(d, d))
    return A @ A.T / d + 0.5 * np.eye(d)


def regression_epoch(step, X, y, mu, sigma, *, epsilon, param, weights=None):
    """Run the kernel's regression rule over the rows of dense ``X`` in
    order, from mean ``mu`` and covariance ``sigma`` (full ``(d, d)`` or
    diagonal ``(d,)``), without intercept; returns ``(mu, sigma)``."""
    X = np.ascontiguousarray(np.atleast_2d(X), dtype=np.float64)
    n, d = X.shape
    W = np.array(mu, dtype=np.float64).reshape(d, 1)
    full = np.ndim(sigma) == 2
    if full:
        S_diag, S_full = np.zeros((0, 1)), np.array(sigma, dtype=np.float64)[None]
    else:
        S_diag = np.append(np.array(sigma, dtype=np.float64), 1.0)[:, None]
        S_full = np.zeros((0, 1, 1))
    rows = SimpleNamespace(
        data=X.ravel(),
        indices=np.arange(d, dtype=np.int32),
        indptr=np.zeros(1, dtype=np.int32),
        dense=True,
        n_features=d,
    )
    _second_order.epoch(
        rows,
        np.arange(n, dtype=np.int64),
        params={
            "rule": int(R.SO_REGRESSION),
            "step": int(step),
            # CW's phi is its own field, AROW's r and NHERD's C are ``param``
            "phi": float(param) if step == R.STEP_CW_REGRESSION else 0.0,
            "param": 0.0 if step == R.STEP_CW_REGRESSION else float(param),
            "epsilon": float(epsilon),
            "shrinkage": 0.0,
            "delta": 0.0,
            "floor": 0.0,
        },
        labels=np.zeros(0, dtype=np.int32),
        sample_weight=np.ones(n) if weights is None else np.asarray(weights, float),
        class_weight=np.ones(0),
        W=W,
        b=np.zeros(1),
        S_diag=S_diag,
        S_full=S_full,
        U=np.zeros((0, 1)),
        bu=np.zeros(0),
        intercept=0.0,
        t0=0,
        average_start=0,
        loss_out=np.zeros(1),
        targets=np.asarray(y, dtype=np.float64).reshape(-1),
    )
    if full:
        upper = np.triu(S_full[0])
        return W[:, 0], upper + np.triu(upper, 1).T
    return W[:, 0], S_diag[:d, 0]


# --------------------------------------------------------------- generic solver
def unpack_chol(theta, d):
    L = np.zeros((d, d))
    L[np.tril_indices(d)] = theta
    L[np.diag_indices(d)] = np.exp(L[np.diag_indices(d)])
    return L


def pack_chol(S):
    L = np.linalg.cholesky(S)
    L[np.diag_indices(len(S))] = np.log(np.diag(L))
    return L[np.tril_indices(len(S))]


def solve(kind, x, y, mu0, S0, epsilon, param):
    """Generic minimiser of the AROW / CW regression problems; (mu, S)."""
    d = len(x)
    S0_inv = np.linalg.inv(S0)
    logdet0 = np.linalg.slogdet(S0)[1]

    def split(z):
        L = unpack_chol(z[d:], d)
        return z[:d], L @ L.T

    def kl(z):
        mu, S = split(z)
        dm = mu - mu0
        return 0.5 * (
            logdet0 - np.linalg.slogdet(S)[1] + np.trace(S0_inv @ S) - d
        ) + 0.5 * (dm @ S0_inv @ dm)

    z0 = np.concatenate([mu0, pack_chol(S0)])
    if kind == R.STEP_AROW_REGRESSION:

        def objective(z):
            mu, S = split(z)
            loss = max(0.0, abs(y - mu @ x) - epsilon)
            return kl(z) + (loss**2 + x @ S @ x) / (2 * param)

        res = minimize(objective, z0, method="BFGS", options={"gtol": 1e-11})
        return split(res.x)
    s = 1.0 if y - mu0 @ x > 0 else -1.0

    def margin(z):
        mu, S = split(z)
        return s * (mu @ x - y) - param * (x @ S @ x)

    for start in (z0, z0 + 0.05, z0 - 0.05):
        res = minimize(
            kl,
            start,
            method="SLSQP",
            constraints=[{"type": "ineq", "fun": margin}],
            options={"ftol": 1e-14, "maxiter": 1000},
        )
        if res.success:
            return split(res.x)
    raise AssertionError(res.message)


@settings(max_examples=30, deadline=None, phases=NO_SHRINK)
@given(
    x=vector(3),
    mu0=vector(3),
    seed=seeds,
    y=st.floats(-3.0, 3.0),
    epsilon=st.sampled_from([0.0, 0.1, 0.5]),
    param=st.floats(0.2, 3.0),
    kind=st.sampled_from([R.STEP_AROW_REGRESSION, R.STEP_CW_REGRESSION]),
)
def test_step_is_the_minimiser(x, mu0, seed, y, epsilon, param, kind):
    assume(x @ x > 0.1)
    S0 = spd(np.random.default_rng(seed), 3)
    e = y - mu0 @ x
    assume(abs(abs(e) - epsilon) > 1e-3)  # (no step at the kink)
    mu, S = regression_epoch(kind, x, [y], mu0, S0, epsilon=epsilon, param=param)
    if abs(e) <= epsilon:
        # inside the insensitive zone: no step (Jubatus, Hivemall's AROWe)
        assert_allclose(mu, mu0, rtol=0, atol=0)
        assert_allclose(S, S0, rtol=0, atol=0)
        return
    mu_ref, S_ref = solve(kind, x, y, mu0, S0, epsilon, param)
    scale = 1.0 + np.abs(mu_ref).max()
    assert_allclose(mu, mu_ref, rtol=0, atol=SOLVER_TOL * scale)
    assert_allclose(S, S_ref, rtol=0, atol=SOLVER_TOL * np.abs(S0).max())


@settings(max_examples=60, deadline=None, phases=NO_SHRINK)
@given(
    x=vector(4),
    mu0=vector(4),
    seed=seeds,
    y=st.floats(-3.0, 3.0),
    epsilon=st.sampled_from([0.0, 0.1, 0.5]),
    param=st.floats(0.05, 5.0),
)
def test_cw_kkt(x, mu0, seed, y, epsilon, param):
    """After a CW step the constraint is tight, the mean moved along S0 x by
    ``s gamma`` with ``gamma > 0``, and ``S^-1 = S0^-1 + 2 gamma phi x x^T``."""
    assume(x @ x > 0.1)
    S0 = spd(np.random.default_rng(seed), 4)
    e = y - mu0 @ x
    assume(abs(e) > epsilon)
    mu, S = regression_epoch(
        R.STEP_CW_REGRESSION, x, [y], mu0, S0, epsilon=epsilon, param=param
    )
    s = 1.0 if e > 0 else -1.0
    v0 = x @ S0 @ x
    gamma = s * (mu - mu0) @ x / v0
    assert gamma > 0
    sx = S0 @ x
    assert_allclose(mu - mu0, s * gamma * sx, atol=KKT_RTOL * np.abs(sx).max() * 10)
    scale = abs(e) + param * v0 + 1.0
    assert abs(s * (mu @ x - y) - param * (x @ S @ x)) <= 1e-8 * scale
    rhs = np.linalg.inv(S0) + 2 * gamma * param * np.outer(x, x)
    assert_allclose(np.linalg.inv(S), rhs, rtol=1e-7, atol=1e-7 * np.abs(rhs).max())


@settings(max_examples=60, deadline=None, phases=NO_SHRINK)
@given(
    x=vector(4),
    mu0=vector(4),
    seed=seeds,
    y=st.floats(-3.0, 3.0),
    epsilon=st.sampled_from([0.0, 0.1, 0.5]),
    r=st.floats(0.05, 5.0),
    w=st.floats(0.1, 4.0),
)
def test_arow_kkt(x, mu0, seed, y, epsilon, r, w):
    """The AROW step is a stationary point of its objective (the loss
    weighted by the sample weight ``w``, i.e. ``r / w``): the gradient in mu
    ``S0^-1 (mu - mu0) - (w / r) s (|y - mu.x| - epsilon) x`` vanishes and
    ``S^-1 = S0^-1 + (w / r) x x^T``."""
    assume(x @ x > 0.1)
    S0 = spd(np.random.default_rng(seed), 4)
    e = y - mu0 @ x
    assume(abs(e) > epsilon)
    mu, S = regression_epoch(
        R.STEP_AROW_REGRESSION, x, [y], mu0, S0, epsilon=epsilon, param=r, weights=[w]
    )
    e1 = y - mu @ x
    s = 1.0 if e > 0 else -1.0
    assert s * e1 > epsilon - 1e-12  # still on the same side, outside the zone
    grad = np.linalg.solve(S0, mu - mu0) - (w / r) * s * (abs(e1) - epsilon) * x
    scale = np.abs(np.linalg.solve(S0, mu - mu0)).max() + 1.0
    assert np.abs(grad).max() <= 1e-8 * scale
    rhs = np.linalg.inv(S0) + (w / r) * np.outer(x, x)
    assert_allclose(np.linalg.inv(S), rhs, rtol=1e-7, atol=1e-7 * np.abs(rhs).max())


@settings(max_examples=60, deadline=None, phases=NO_SHRINK)
@given(
    x=vector(4),
    mu0=vector(4),
    seed=seeds,
    y=st.floats(-3.0, 3.0),
    epsilon=st.sampled_from([0.0, 0.1, 0.5]),
    C=st.floats(0.05, 5.0),
)
def test_nherd_full_is_the_herding_update(x, mu0, seed, y, epsilon, C):
    """NHERD (Crammer & Lee 2010, full covariance): every weight vector moves
    by the same PA-style step, ``Sigma <- (I - c Sigma x x^T) Sigma (I - c x
    x^T Sigma)`` with ``c = C / (1 + C v)``, the mean by ``s (|e| - epsilon)
    / (v + 1 / C) Sigma x``."""
    assume(x @ x > 0.1)
    S0 = spd(np.random.default_rng(seed), 4)
    e = y - mu0 @ x
    assume(abs(e) > epsilon)
    mu, S = regression_epoch(
        R.STEP_NHERD_REGRESSION, x, [y], mu0, S0, epsilon=epsilon, param=C
    )
    v = x @ S0 @ x
    sx = S0 @ x
    mu_ref = mu0 + np.sign(e) * (abs(e) - epsilon) / (v + 1 / C) * sx
    c = C / (1 + C * v)
    A = np.eye(4) - c * np.outer(sx, x)
    S_ref = A @ S0 @ A.T
    assert_allclose(mu, mu_ref, rtol=1e-10, atol=1e-12 * (1 + np.abs(mu_ref).max()))
    assert_allclose(S, S_ref, rtol=1e-10, atol=1e-12 * np.abs(S0).max())


# ---------------------------------------------- the covariance floor (ARCOR)
def diagonal_reference(kind, X, y, *, epsilon, param, a, floor):
    """The diagonal regression rules in plain NumPy, row by row, with the
    intercept the weight of the constant feature ``a``: AROW keeps the
    diagonal of the Sherman-Morrison update, CW and NHERD add ``d x_j^2``
    to each precision (Jubatus); after each step ARCOR's projection (Vaits
    and Crammer 2011; Moroshko, Vaits and Crammer 2015), the variances of
    the row's non-zero features and the intercept raised to ``floor``.
    Returns the mean and the variances ``(d + 1,)``."""
    d = X.shape[1]
    mu, S = np.zeros(d + 1), np.ones(d + 1)
    for x, target in zip(X, y):
        xt = np.append(x, a)
        e = target - mu @ xt
        v = xt @ (S * xt)
        if not v > 0.0:
            continue
        if kind == "arow":
            if not abs(e) - epsilon > 0.0:
                continue
            alpha = np.sign(e) * (abs(e) - epsilon) / (v + param)
            mu += alpha * S * xt
            S = S - (S * xt) ** 2 / (v + param)
        else:
            if kind == "cw":
                phi, q = param, abs(e)
                if not q > epsilon:
                    continue
                b = 1.0 - 2.0 * phi * q
                g = (np.sqrt(b * b + 8.0 * phi * (q + phi * v)) - b) / (4.0 * phi * v)
                alpha, prec = np.sign(e) * g, 2.0 * g * phi
            else:
                if not abs(e) - epsilon > 0.0:
                    continue
                alpha = np.sign(e) * (abs(e) - epsilon) / (v + 1.0 / param)
                prec = 2.0 * param + param * param * v
            mu += alpha * S * xt
            S = S / (1.0 + prec * S * xt * xt)
        S = np.where(xt != 0, np.maximum(S, floor), S)
    return mu, S


REGRESSORS = {
    "arow": lambda p, **kw: AROWRegressor(regularization=p, **kw),
    "cw": lambda p, **kw: ConfidenceWeightedRegressor(confidence=p, **kw),
    "nherd": lambda p, **kw: NHERDRegressor(C=p, **kw),
}


@pytest.mark.parametrize("sparse_input", [False, True])
@pytest.mark.parametrize("kind", sorted(REGRESSORS))
@settings(max_examples=15, deadline=None)
@given(
    seed=seeds,
    floor=st.floats(0.02, 1.0),
    param=st.floats(0.2, 5.0),
    epsilon=st.floats(0.0, 0.5),
    a=st.sampled_from([0.0, 1.0]),
)
def test_floor_is_the_rule_then_the_projection(
    kind, sparse_input, seed, floor, param, epsilon, a
):
    """``partial_fit`` one row at a time with ``covariance_floor``, dense and
    CSR rows alike, is the NumPy transcription of the rule followed by the
    floor."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(14, 4)) * (rng.random((14, 4)) < 0.6)
    y = X @ rng.normal(size=4) + rng.normal(scale=0.3, size=14)
    reg = REGRESSORS[kind](
        param,
        epsilon=epsilon,
        covariance_floor=floor,
        fit_intercept=a != 0.0,
        intercept_scaling=a if a != 0.0 else "auto",
    )
    for i in range(X.shape[0]):
        row = sp.csr_matrix(X[i : i + 1]) if sparse_input else X[i : i + 1]
        reg.partial_fit(row, y[i : i + 1])
    mu, S = diagonal_reference(
        kind, X, y, epsilon=epsilon, param=param, a=a, floor=floor
    )
    assert_allclose(reg.coef_, mu[:4], rtol=1e-9, atol=1e-12)
    assert_allclose(reg.intercept_, [a * mu[4]], rtol=1e-9, atol=1e-12)
    var = reg.covariance_[0]
    assert_allclose(var[:4], S[:4], rtol=1e-9, atol=1e-12)
    if a != 0.0:
        assert_allclose(var[4], S[4], rtol=1e-9, atol=1e-12)
