"""Oracle tests: structured PA / k-best MIRA steps against a generic solver."""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import minimize

from sklearn_pa import StructuredPassiveAggressive
from sklearn_pa._compiled import _sequence

LOSSES = {"hinge": 0, "squared_hinge": 1}


def primal_step(D, ell, C, loss):
    """argmin_dw 1/2 ||dw||^2 + C xi (or C xi^2) s.t. dw . D_j >= ell_j - xi,
    by SLSQP on the primal."""
    k, n = D.shape

    def objective(v):
        dw, xi = v[:n], v[n]
        pen = C * xi if loss == "hinge" else C * xi**2
        return 0.5 * dw @ dw + pen

    def gradient(v):
        dw, xi = v[:n], v[n]
        return np.r_[dw, C if loss == "hinge" else 2 * C * xi]

    cons = [
        {
            "type": "ineq",
            "fun": lambda v, j=j: v[:n] @ D[j] - ell[j] + v[n],
            "jac": lambda v, j=j: np.r_[D[j], 1.0],
        }
        for j in range(k)
    ]
    bounds = [(None, None)] * n + [(0, None) if loss == "hinge" else (None, None)]
    res = minimize(
        objective,
        np.zeros(n + 1),
        jac=gradient,
        constraints=cons,
        bounds=bounds,
        method="SLSQP",
        options={"ftol": 1e-14, "maxiter": 1000},
    )
    return res.x[:n], res.fun


def kernel_step(D, ell, C, loss):
    G = np.ascontiguousarray(D @ D.T)
    alpha = np.zeros(len(ell))
    grad = np.zeros(len(ell))
    _sequence.solve_kbest_qp(G, np.ascontiguousarray(ell), C, LOSSES[loss], alpha, grad)
    return alpha


@settings(max_examples=60, deadline=None)
@given(
    k=st.integers(1, 6),
    n=st.integers(1, 8),
    C=st.floats(0.05, 20.0),
    loss=st.sampled_from(["hinge", "squared_hinge"]),
    seed=st.integers(0, 2**31 - 1),
)
def test_dual_solver_matches_slsqp_and_kkt(k, n, C, loss, seed):
    rng = np.random.default_rng(seed)
    D = rng.normal(size=(k, n))
    if k > 2 and seed % 3 == 0:  # linearly dependent constraints
        D[-1] = D[0] + D[1]
    ell = rng.normal(size=k) + 0.5
    alpha = kernel_step(D, ell, C, loss)
    dw = alpha @ D
    dw_ref, f_ref = primal_step(D, ell, C, loss)
    xi = max(0.0, np.max(ell - D @ dw)) if loss == "hinge" else alpha.sum() / (2 * C)
    f = 0.5 * dw @ dw + (C * xi if loss == "hinge" else C * xi**2)
    assert f <= f_ref + 1e-7 * max(1.0, abs(f_ref))
    np.testing.assert_allclose(dw, dw_ref, atol=1e-5 * max(1.0, np.abs(dw_ref).max()))
    # KKT of the dual: alpha >= 0; the active constraints hold with slack xi,
    # the others are satisfied; sum(alpha) <= C, equal when xi > 0 (hinge)
    assert np.all(alpha >= 0)
    margins = D @ dw - ell + xi
    assert np.all(margins >= -1e-8)
    assert np.all(np.abs(margins[alpha > 1e-9]) <= 1e-8)
    if loss == "hinge":
        assert alpha.sum() <= C * (1 + 1e-12)
        if xi > 1e-8:
            assert alpha.sum() == pytest.approx(C, rel=1e-9)


def phi(x, z, L):
    emis = np.zeros((x.shape[1], L))
    trans = np.zeros((L + 1, L + 1))
    prev = L
    for t, lab in enumerate(z):
        emis[:, lab] += x[t]
        trans[prev, lab] += 1
        prev = lab
    trans[prev, L] += 1
    return np.concatenate([emis.ravel(), trans.ravel()])


@settings(max_examples=25, deadline=None)
@given(
    k=st.integers(1, 5),
    T=st.integers(1, 4),
    C=st.floats(0.05, 5.0),
    loss=st.sampled_from(["hinge", "squared_hinge"]),
    seed=st.integers(0, 2**31 - 1),
)
def test_kbest_mira_step_matches_generic_solver(k, T, C, loss, seed):
    """One k-best MIRA step of the estimator equals the primal QP over the
    brute-force k best sequences with Hamming margins."""
    rng = np.random.default_rng(seed)
    L, d = 3, 3
    warm = [rng.normal(size=(int(rng.integers(1, 5)), d)) for _ in range(6)]
    warm_y = [rng.integers(0, L, size=w.shape[0]) for w in warm]
    pa = StructuredPassiveAggressive(
        C=C, loss=loss, k_best=k, average=False, shuffle=False
    )
    pa.partial_fit(warm, warm_y, classes=np.arange(L))
    w0 = np.concatenate([pa._W.ravel(), pa._Tr.ravel()])
    x = rng.normal(size=(T, d))
    gold = rng.integers(0, L, size=T)
    seqs = sorted(
        itertools.product(range(L), repeat=T),
        key=lambda z: -phi(x, z, L) @ w0,
    )[:k]
    pg = phi(x, gold, L)
    D = np.array([pg - phi(x, z, L) for z in seqs])
    ell = np.array([np.sum(np.array(z) != gold) for z in seqs]) - D @ w0
    pa.partial_fit([x], [gold])
    w1 = np.concatenate([pa._W.ravel(), pa._Tr.ravel()])
    if np.all(ell <= 0):
        np.testing.assert_array_equal(w1, w0)
        return
    dw_ref, _ = primal_step(D, ell, C, loss)
    np.testing.assert_allclose(
        w1 - w0, dw_ref, atol=1e-5 * max(1.0, np.abs(dw_ref).max())
    )
