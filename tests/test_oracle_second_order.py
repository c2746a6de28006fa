"""One step of the second-order kernel against its own optimisation problem.

Each rule of ``_second_order.epoch`` is the closed-form minimiser of a small
problem over a Gaussian ``N(mu, Sigma)``:

- CW (exact, Crammer, Dredze and Pereira 2008)::

      min KL(N(mu, S) || N(mu0, S0))  s.t.  y mu.x >= phi sqrt(x^T S x)

- AROW::  min KL + 1/(2r) max(0, 1 - y mu.x)^2 + 1/(2r) x^T S x
- SCW-I / SCW-II::  min KL + C xi  (or C xi^2)
  s.t. y mu.x + xi >= phi sqrt(x^T S x), xi >= 0
- SCCW, the matrix-Gaussian multiclass model ``W ~ N(M, S (x) I)``::

      min K/2 [log|S0|/|S| + tr(S0^-1 S) - D]
          + 1/2 sum_k (mu_k - mu0_k)^T S0^-1 (mu_k - mu0_k)
      s.t. (mu_y - mu_k).x >= phi sqrt(2 x^T S x)   for every k != y

The tests solve each problem with a generic solver (SLSQP / BFGS over the mean
and a Cholesky factor of the covariance), check that one kernel step reaches
the same minimiser, and check the KKT conditions of the closed form.  The
multiclass pair rules (k = 1, k = inf) are the binary problem on the lifted
vector ``f(x, y) - f(x, r)`` with one covariance block per class; diagonal
and full covariances agree on one-hot rows.
"""

import numpy as np
import pytest
from hypothesis import Phase, assume, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from kernel_calls import second_order_epoch
from numpy.testing import assert_allclose
from scipy.optimize import minimize
from scipy.special import ndtri

from sklearn_pa._compiled._rules import SecondOrderRule as R

SOLVER_RTOL = 2e-4
# generic solvers are slow to shrink with: report the first failing example
NO_SHRINK = (Phase.explicit, Phase.reuse, Phase.generate)
KKT_RTOL = 1e-9

# Entries below 1e-6 in magnitude become exact zeros: the generic solvers
# cannot certify optimality when a coordinate is 1e-286 next to 1 (their line
# search breaks down), while zeros keep the degenerate rows in the draw.  The
# kernels' behaviour at extreme scales is tested in test_robustness.py.
entries = st.floats(-2.0, 2.0, allow_nan=False, allow_subnormal=False).map(
    lambda v: 0.0 if abs(v) < 1e-6 else v
)
etas = st.floats(0.55, 0.95)
seeds = st.integers(0, 2**31 - 1)


def vector(n):
    return hnp.arrays(np.float64, n, elements=entries)


def spd(rng, d):
    A = rng.normal(size=(d, d))
    return A @ A.T / d + 0.5 * np.eye(d)


def run(
    rule,
    step,
    X,
    labels,
    W,
    b,
    sigma,
    *,
    phi=1.0,
    param=1.0,
    intercept=0.0,
    weights=None,
    full=True,
):
    """Run the kernel over the rows of X (in order); return (W, b, sigma)."""
    X = np.ascontiguousarray(np.atleast_2d(X), dtype=np.float64)
    n, d = X.shape
    W, b, sigma = W.copy(), b.copy(), sigma.copy()
    if full:
        S_diag, S_full = np.zeros((0, 1)), sigma
    else:
        S_diag, S_full = sigma, np.zeros((0, 1, 1))
    weights = np.ones(n) if weights is None else np.asarray(weights, dtype=float)
    K = W.shape[1]
    second_order_epoch(
        X.ravel(),
        np.arange(d, dtype=np.int32),
        np.zeros(1, dtype=np.int32),
        True,
        d,
        np.arange(n, dtype=np.int64),
        np.asarray(labels, dtype=np.int32),
        weights,
        W,
        b,
        S_diag,
        S_full,
        np.zeros((0, K)),
        np.zeros(0),
        np.ones(max(K, 2)),
        int(rule),
        int(step),
        phi,
        param,
        intercept,
        0,
        0,
        np.zeros(1),
    )
    if full:
        upper = np.triu(sigma)
        sigma = upper + np.triu(upper, 1).transpose(0, 2, 1)
    return W, b, sigma


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


def kl_sigma(S, S0_inv, logdet0):
    return 0.5 * (logdet0 - np.linalg.slogdet(S)[1] + np.trace(S0_inv @ S) - len(S))


def solve_binary(kind, x, y, mu0, S0, phi, param):
    """Generic minimiser of the binary problems; returns (mu, S)."""
    d = len(x)
    S0_inv = np.linalg.inv(S0)
    logdet0 = np.linalg.slogdet(S0)[1]
    n_chol = d * (d + 1) // 2

    def split(z):
        mu = z[:d]
        L = unpack_chol(z[d : d + n_chol], d)
        return mu, L @ L.T, z[d + n_chol :]

    def kl(z):
        mu, S, _ = split(z)
        dm = mu - mu0
        return kl_sigma(S, S0_inv, logdet0) + 0.5 * dm @ S0_inv @ dm

    z0 = np.concatenate([mu0, pack_chol(S0)])
    if kind == R.STEP_AROW:

        def objective(z):
            mu, S, _ = split(z)
            hinge = max(0.0, 1.0 - y * mu @ x)
            return kl(z) + (hinge**2 + x @ S @ x) / (2 * param)

        res = minimize(objective, z0, method="BFGS", options={"gtol": 1e-11})
        mu, S, _ = split(res.x)
        return mu, S
    constraint = {
        "type": "ineq",
        "fun": lambda z: (
            y * split(z)[0] @ x
            - phi * np.sqrt(x @ split(z)[1] @ x)
            + (z[-1] if kind != R.STEP_CW else 0.0)
        ),
    }
    constraints = [constraint]
    if kind == R.STEP_CW:
        objective = kl
    else:
        z0 = np.concatenate([z0, [1.0]])
        constraints.append({"type": "ineq", "fun": lambda z: z[-1]})
        power = 1 if kind == R.STEP_SCW1 else 2

        def objective(z):
            return kl(z) + param * z[-1] ** power

    best = None
    # SLSQP's line search sometimes stalls from one start ("positive
    # directional derivative"); other starts (a large, surely feasible slack
    # among them) and then trust-constr give the solver its chances
    starts = [z0, z0 + 0.05, z0 - 0.05]
    if kind != R.STEP_CW:
        starts.append(np.concatenate([z0[:-1], [10.0]]))
    for start in starts:
        res = minimize(
            objective,
            start,
            method="SLSQP",
            constraints=constraints,
            options={"ftol": 1e-14, "maxiter": 1000},
        )
        if res.success:
            best = res
            break
    if best is None:
        res = minimize(
            objective,
            starts[-1],
            method="trust-constr",
            constraints=constraints,
            options={"gtol": 1e-12, "xtol": 1e-14, "maxiter": 20000},
        )
        if res.success:
            best = res
    assert best is not None, res.message
    mu, S, _ = split(best.x)
    return mu, S


def solve_sccw(x, y, M0, S0, phi):
    """Generic minimiser of the matrix-Gaussian all-constraint problem."""
    d, K = M0.shape
    S0_inv = np.linalg.inv(S0)
    logdet0 = np.linalg.slogdet(S0)[1]

    def split(z):
        M = z[: d * K].reshape(d, K)
        L = unpack_chol(z[d * K :], d)
        return M, L @ L.T

    def objective(z):
        M, S = split(z)
        dM = M - M0
        return K * kl_sigma(S, S0_inv, logdet0) + 0.5 * np.einsum(
            "ik,ij,jk->", dM, S0_inv, dM
        )

    def margins(z):
        M, S = split(z)
        s = x @ M
        return np.delete(s[y] - s, y) - phi * np.sqrt(2 * x @ S @ x)

    z0 = np.concatenate([M0.ravel(), pack_chol(S0)])
    res = None
    for start in (z0, z0 + 0.05, z0 - 0.05):
        res = minimize(
            objective,
            start,
            method="SLSQP",
            constraints=[{"type": "ineq", "fun": margins}],
            options={"ftol": 1e-15, "maxiter": 2000},
        )
        if res.success:
            return (*split(res.x), True)
    # SLSQP stopped without certifying optimality: still an upper bound on
    # the optimum at a (nearly) feasible point
    return (*split(res.x), objective, margins, pack_chol)


# ------------------------------------------------------------------ binary
STEPS = (R.STEP_CW, R.STEP_AROW, R.STEP_SCW1, R.STEP_SCW2)


@pytest.mark.parametrize("step", STEPS, ids=lambda s: s.name)
@settings(max_examples=25, deadline=None, phases=NO_SHRINK)
@given(
    x=vector(3),
    mu0=vector(3),
    seed=seeds,
    eta=etas,
    y=st.sampled_from([0, 1]),
    param=st.floats(0.1, 5.0),
)
def test_binary_step_is_the_minimiser(step, x, mu0, seed, eta, y, param):
    assume(x @ x > 0.1)
    rng = np.random.default_rng(seed)
    S0 = spd(rng, 3)
    phi = ndtri(eta)
    W, _, S = run(
        R.SO_BINARY,
        step,
        x,
        [y],
        mu0[:, None],
        np.zeros(1),
        S0[None],
        phi=phi,
        param=param,
    )
    ysign = 1.0 if y == 1 else -1.0
    if step == R.STEP_AROW and ysign * mu0 @ x >= 1.0:
        # AROW updates only on a margin error (its paper's algorithm); then
        # nothing moves
        assert_allclose(W[:, 0], mu0, atol=0)
        assert_allclose(S[0], S0, atol=0)
        return
    mu_ref, S_ref = solve_binary(step, x, ysign, mu0, S0, phi, param)
    scale = 1.0 + np.abs(mu_ref).max()
    assert_allclose(W[:, 0], mu_ref, rtol=0, atol=SOLVER_RTOL * scale)
    assert_allclose(S[0], S_ref, rtol=0, atol=SOLVER_RTOL * np.abs(S0).max())


@settings(max_examples=60, deadline=None, phases=NO_SHRINK)
@given(x=vector(4), mu0=vector(4), seed=seeds, eta=etas, y=st.sampled_from([0, 1]))
def test_binary_cw_kkt(x, mu0, seed, eta, y):
    """The constraint is tight after a step; the mean moves along S0 x with a
    non-negative multiplier alpha, and S^-1 = S0^-1 + alpha phi / sqrt(u) x x^T."""
    assume(x @ x > 0.1)
    rng = np.random.default_rng(seed)
    S0 = spd(rng, 4)
    phi = ndtri(eta)
    ysign = 1.0 if y == 1 else -1.0
    W, _, S = run(
        R.SO_BINARY, R.STEP_CW, x, [y], mu0[:, None], np.zeros(1), S0[None], phi=phi
    )
    mu, S = W[:, 0], S[0]
    m0, v0 = ysign * mu0 @ x, x @ S0 @ x
    if m0 >= phi * np.sqrt(v0):  # already confident: no step
        assert_allclose(mu, mu0, rtol=0, atol=0)
        assert_allclose(S, S0, rtol=0, atol=0)
        return
    u = x @ S @ x
    scale = abs(m0) + phi * np.sqrt(v0)
    assert abs(ysign * mu @ x - phi * np.sqrt(u)) <= KKT_RTOL * scale
    sx = S0 @ x
    alpha = ysign * (mu - mu0) @ x / v0
    assert alpha > 0
    assert_allclose(
        mu - mu0, ysign * alpha * sx, atol=KKT_RTOL * np.abs(sx).max() * (1 + alpha)
    )
    lhs = np.linalg.inv(S)
    rhs = np.linalg.inv(S0) + alpha * phi / np.sqrt(u) * np.outer(x, x)
    assert_allclose(lhs, rhs, rtol=1e-7, atol=1e-7 * np.abs(rhs).max())
    assert np.all(np.linalg.eigvalsh(S) > 0)


@settings(max_examples=30, deadline=None, phases=NO_SHRINK)
@given(
    x=vector(3),
    mu0=vector(3),
    b0=entries,
    seed=seeds,
    a=st.floats(0.2, 3.0),
    y=st.sampled_from([0, 1]),
    step=st.sampled_from(STEPS),
)
def test_intercept_is_a_constant_feature(x, mu0, b0, seed, a, y, step):
    """An intercept is the weight of a constant feature a: b = a * w_a."""
    rng = np.random.default_rng(seed)
    S0 = spd(rng, 4)
    phi = 1.2
    W, b, S = run(
        R.SO_BINARY,
        step,
        x,
        [y],
        mu0[:, None],
        np.array([b0]),
        S0[None],
        phi=phi,
        intercept=a,
    )
    xa = np.append(x, a)
    Wa, _, Sa = run(
        R.SO_BINARY,
        step,
        xa,
        [y],
        np.append(mu0, b0 / a)[:, None],
        np.zeros(1),
        S0[None],
        phi=phi,
    )
    assert_allclose(W[:, 0], Wa[:-1, 0], atol=1e-12)
    assert_allclose(b[0], a * Wa[-1, 0], atol=1e-12 * (1 + abs(b[0])))
    assert_allclose(S, Sa, atol=1e-12)


# ---------------------------------------------------------- multiclass pairs
def lifted(x, k, K):
    z = np.zeros(len(x) * K)
    z[k * len(x) : (k + 1) * len(x)] = x
    return z


def block_diag(blocks):
    K, d, _ = blocks.shape
    out = np.zeros((K * d, K * d))
    for k in range(K):
        out[k * d : (k + 1) * d, k * d : (k + 1) * d] = blocks[k]
    return out


@pytest.mark.parametrize("step", STEPS, ids=lambda s: s.name)
@settings(max_examples=30, deadline=None, phases=NO_SHRINK)
@given(
    x=vector(2), seed=seeds, eta=etas, param=st.floats(0.1, 5.0), K=st.integers(3, 4)
)
def test_single_constraint_is_the_lifted_binary_step(step, x, seed, eta, param, K):
    """k = 1: the binary step on z = f(x, y) - f(x, r), r the top wrong class,
    with block-diagonal covariance; the blocks (y, y) and (r, r) are kept."""
    assume(x @ x > 0.1)
    rng = np.random.default_rng(seed)
    d = len(x)
    M0 = rng.normal(size=(d, K))
    blocks = np.stack([spd(rng, d) for _ in range(K)])
    y = int(rng.integers(K))
    phi = ndtri(eta)
    W, _, S = run(
        R.SO_SINGLE, step, x, [y], M0, np.zeros(K), blocks, phi=phi, param=param
    )
    scores = x @ M0
    r = max((k for k in range(K) if k != y), key=lambda k: (scores[k], -k))
    z = lifted(x, y, K) - lifted(x, r, K)
    mu_ref, _, S_ref = run(
        R.SO_BINARY,
        step,
        z,
        [1],
        M0.T.reshape(-1, 1),
        np.zeros(1),
        block_diag(blocks)[None],
        phi=phi,
        param=param,
    )
    assert_allclose(W.T.ravel(), mu_ref[:, 0], atol=1e-12)
    for k in range(K):
        ref = S_ref[0][k * d : (k + 1) * d, k * d : (k + 1) * d]
        assert_allclose(S[k], ref, atol=1e-12)


@settings(max_examples=30, deadline=None, phases=NO_SHRINK)
@given(x=vector(2), seed=seeds, eta=etas, K=st.integers(3, 5))
def test_sequential_is_single_steps_in_turn(x, seed, eta, K):
    """k = inf: one pair step per wrong class, highest initial score first,
    each on the current mean and covariance."""
    assume(x @ x > 0.1)
    rng = np.random.default_rng(seed)
    d = len(x)
    M0 = rng.normal(size=(d, K))
    blocks = np.stack([spd(rng, d) for _ in range(K)])
    y = int(rng.integers(K))
    phi = ndtri(eta)
    W, _, S = run(R.SO_SEQUENTIAL, R.STEP_CW, x, [y], M0, np.zeros(K), blocks, phi=phi)
    scores = x @ M0
    rivals = sorted((k for k in range(K) if k != y), key=lambda k: (-scores[k], k))
    mu, Sig = M0.T.ravel().copy(), block_diag(blocks)
    for r in rivals:
        z = lifted(x, y, K) - lifted(x, r, K)
        mu_new, _, S_new = run(
            R.SO_BINARY, R.STEP_CW, z, [1], mu[:, None], np.zeros(1), Sig[None], phi=phi
        )
        mu = mu_new[:, 0]
        # keep the per-class blocks only, as the kernel does
        Sig = block_diag(
            np.stack(
                [S_new[0][k * d : (k + 1) * d, k * d : (k + 1) * d] for k in range(K)]
            )
        )
    assert_allclose(W.T.ravel(), mu, atol=1e-10)
    for k in range(K):
        assert_allclose(S[k], Sig[k * d : (k + 1) * d, k * d : (k + 1) * d], atol=1e-10)


# ------------------------------------------------------------------- SCCW
@settings(max_examples=40, deadline=None, phases=NO_SHRINK)
@given(
    x=vector(2), seed=seeds, eta=etas, K=st.integers(3, 4), spread=st.floats(0.1, 3.0)
)
def test_sccw_step_is_the_minimiser(x, seed, eta, K, spread):
    assume(x @ x > 0.1)
    rng = np.random.default_rng(seed)
    d = len(x)
    M0 = spread * rng.normal(size=(d, K))
    S0 = spd(rng, d)
    y = int(rng.integers(K))
    phi = ndtri(eta)
    W, _, S = run(R.SO_SUPPORT, R.STEP_CW, x, [y], M0, np.zeros(K), S0[None], phi=phi)
    M_ref, S_ref, *rest = solve_sccw(x, y, M0, S0, phi)
    if rest != [True]:
        # the solver did not converge: the kernel's point must be feasible
        # and no worse than the best point the solver found
        objective, margins, pack = rest
        z_kernel = np.concatenate([W.ravel(), pack(S[0])])
        z_solver = np.concatenate([M_ref.ravel(), pack(S_ref)])
        assert margins(z_kernel).min() >= -1e-9
        tol = 1e-9 + max(0.0, -margins(z_solver).min())
        assert objective(z_kernel) <= objective(z_solver) + tol
        return
    scale = 1.0 + np.abs(M_ref).max()
    assert_allclose(W, M_ref, rtol=0, atol=SOLVER_RTOL * scale)
    assert_allclose(S[0], S_ref, rtol=0, atol=SOLVER_RTOL * np.abs(S0).max())


@settings(max_examples=100, deadline=None, phases=NO_SHRINK)
@given(
    x=vector(3), seed=seeds, eta=etas, K=st.integers(3, 7), spread=st.floats(0.05, 3.0)
)
def test_sccw_kkt(x, seed, eta, K, spread):
    """Support classes meet their constraint with equality and positive
    multipliers, the others hold with slack and do not move; the true class
    moves by the sum of the multipliers; S^-1 grows by
    sqrt(2) A phi / (K sqrt(u)) x x^T."""
    assume(x @ x > 0.1)
    rng = np.random.default_rng(seed)
    d = len(x)
    M0 = spread * rng.normal(size=(d, K))
    S0 = spd(rng, d)
    y = int(rng.integers(K))
    phi = ndtri(eta)
    W, _, S = run(R.SO_SUPPORT, R.STEP_CW, x, [y], M0, np.zeros(K), S0[None], phi=phi)
    S = S[0]
    v0 = x @ S0 @ x
    l0 = np.delete(x @ M0[:, y] - x @ M0, y)
    if l0.min() >= phi * np.sqrt(2 * v0):
        assert_allclose(W, M0, rtol=0, atol=0)
        return
    sx = S0 @ x
    alpha = -(x @ (W - M0)) / v0  # per class; the true class gets -A
    A = -alpha[y]
    others = np.delete(alpha, y)
    scale = np.abs(l0).max() + phi * np.sqrt(2 * v0)
    assert A > 0
    assert np.all(others >= -KKT_RTOL * (1 + A))
    assert_allclose(others.sum(), A, rtol=1e-9)
    for k in range(K):
        assert_allclose(
            W[:, k] - M0[:, k],
            -alpha[k] * sx,
            atol=KKT_RTOL * (1 + A) * np.abs(sx).max(),
        )
    u = x @ S @ x
    margins = np.delete(x @ W[:, y] - x @ W, y) - phi * np.sqrt(2 * u)
    support = others > 0
    assert np.all(np.abs(margins[support]) <= 1e-8 * scale)
    assert np.all(margins[~support] >= -1e-8 * scale)
    rhs = np.linalg.inv(S0) + np.sqrt(2) * A * phi / (K * np.sqrt(u)) * np.outer(x, x)
    assert_allclose(np.linalg.inv(S), rhs, rtol=1e-7, atol=1e-7 * np.abs(rhs).max())


# ------------------------------------------------- diagonal == full, one-hot
@pytest.mark.parametrize(
    "rule, step, K",
    [
        (R.SO_BINARY, R.STEP_CW, 1),
        (R.SO_BINARY, R.STEP_AROW, 1),
        (R.SO_BINARY, R.STEP_SCW1, 1),
        (R.SO_BINARY, R.STEP_SCW2, 1),
        (R.SO_SINGLE, R.STEP_CW, 4),
        (R.SO_SINGLE, R.STEP_AROW, 4),
        (R.SO_SEQUENTIAL, R.STEP_CW, 4),
        (R.SO_SUPPORT, R.STEP_CW, 4),
    ],
    ids=lambda p: getattr(p, "name", str(p)),
)
@settings(max_examples=20, deadline=None, phases=NO_SHRINK)
@given(seed=seeds)
def test_diagonal_matches_full_on_one_hot_rows(rule, step, K, seed):
    rng = np.random.default_rng(seed)
    d, n = 4, 12
    X = np.zeros((n, d))
    X[np.arange(n), rng.integers(d, size=n)] = rng.uniform(0.3, 2.0, n) * rng.choice(
        [-1, 1], n
    )
    labels = rng.integers(max(K, 2), size=n)
    G = K if rule in (R.SO_SINGLE, R.SO_SEQUENTIAL) else 1
    var = rng.uniform(0.5, 2.0, size=(d + 1, G))
    W0 = rng.normal(size=(d, K))
    b0 = np.zeros(K)
    full = np.zeros((G, d, d))
    for g in range(G):
        full[g][np.diag_indices(d)] = var[:d, g]
    kw = dict(phi=1.1, param=0.8)
    Wd, bd, Sd = run(rule, step, X, labels, W0, b0, var, full=False, **kw)
    Wf, bf, Sf = run(rule, step, X, labels, W0, b0, full, **kw)
    assert_allclose(Wd, Wf, atol=1e-12)
    for g in range(G):
        assert_allclose(np.diag(Sf[g]), Sd[:d, g], atol=1e-12)
        assert_allclose(Sf[g] - np.diag(np.diag(Sf[g])), 0.0, atol=0)


def test_sample_weight_scales_the_multiplier():
    """A weight s scales CW's multiplier: the mean moves s times as far."""
    rng = np.random.default_rng(0)
    x, mu0, S0 = rng.normal(size=3), np.zeros(3), spd(rng, 3)
    W1, _, _ = run(
        R.SO_BINARY, R.STEP_CW, x, [1], mu0[:, None], np.zeros(1), S0[None], phi=1.0
    )
    Wh, _, Sh = run(
        R.SO_BINARY,
        R.STEP_CW,
        x,
        [1],
        mu0[:, None],
        np.zeros(1),
        S0[None],
        phi=1.0,
        weights=[0.5],
    )
    assert_allclose(Wh, 0.5 * W1, rtol=1e-12)
    assert np.all(np.linalg.eigvalsh(Sh[0]) > 0)
    W0, _, S0_ = run(
        R.SO_BINARY,
        R.STEP_CW,
        x,
        [1],
        mu0[:, None],
        np.zeros(1),
        S0[None],
        phi=1.0,
        weights=[0.0],
    )
    assert_allclose(W0, mu0[:, None], atol=0)
    assert_allclose(S0_[0], S0, atol=0)


# ------------------------------------------- k = inf through the estimator
def _sequential_cw_reference(X, y, K, eta, covariance, floor=None):
    """Multiclass CW k = inf in plain NumPy: for each row, the single-constraint
    CW step on every wrong class in turn (highest initial score first), each
    on the mean and covariance the previous step left; diagonal covariance
    keeps the diagonal of the rank-one update (Crammer, Dredze and Pereira),
    then, with ``floor``, the floor of both blocks (:func:`floored`)."""
    d = X.shape[1]
    phi = ndtri(eta)
    psi, zeta = 1.0 + phi**2 / 2.0, 1.0 + phi**2
    mu = np.zeros((K, d))
    S = [np.ones(d) if covariance == "diagonal" else np.eye(d) for _ in range(K)]

    def sigma_x(k, x):
        return S[k] * x if covariance == "diagonal" else S[k] @ x

    for x, label in zip(X, y):
        scores = mu @ x
        rivals = sorted(
            (k for k in range(K) if k != label), key=lambda k: (-scores[k], k)
        )
        for r in rivals:
            sy, sr = sigma_x(label, x), sigma_x(r, x)
            m = (mu[label] - mu[r]) @ x
            v = x @ sy + x @ sr
            a = (-m * psi + np.sqrt(m**2 * phi**4 / 4.0 + v * phi**2 * zeta)) / (
                v * zeta
            )
            if not a > 0.0:
                continue
            sqrt_u = (-a * v * phi + np.sqrt(a**2 * v**2 * phi**2 + 4.0 * v)) / 2.0
            beta = a * phi / (sqrt_u + v * a * phi)
            mu[label] += a * sy
            mu[r] -= a * sr
            for k, s in ((label, sy), (r, sr)):
                if covariance == "diagonal":
                    S[k] = floored(S[k] - beta * s * s, x, floor)
                else:
                    S[k] = S[k] - beta * np.outer(s, s)
    return mu, S


def test_sequential_diagonal_repro():
    """The published repro: one row, four classes, from mu = 0, Sigma = I."""
    from sklearn_pa import ConfidenceWeightedClassifier

    clf = ConfidenceWeightedClassifier(
        eta=0.9, covariance="diagonal", multiclass="sequential", fit_intercept=False
    )
    clf.partial_fit(np.array([[1.0, 2.0, 0.5]]), [0], classes=[0, 1, 2, 3])
    assert_allclose(clf.coef_[0], [0.507252, 0.895510, 0.261907], atol=1e-6)


@pytest.mark.parametrize("covariance", ["diagonal", "full"])
@pytest.mark.parametrize("sparse_input", [False, True])
@settings(max_examples=25, deadline=None, phases=NO_SHRINK)
@given(seed=seeds, eta=etas, K=st.integers(3, 5))
def test_sequential_estimator_matches_numpy_reference(
    covariance, sparse_input, seed, eta, K
):
    """k = inf on general (not one-hot) rows equals single-constraint steps
    taken in turn, for the diagonal and the full covariance.  (Before the
    diagonal kernel refreshed Sigma_y x with the full-covariance shortcut
    (1 - beta v), which is wrong for a diagonal Sigma.)"""
    import scipy.sparse as sp

    from sklearn_pa import ConfidenceWeightedClassifier

    rng = np.random.default_rng(seed)
    n, d = 8, 4
    X = rng.normal(size=(n, d)) * (rng.random((n, d)) < 0.8)
    X[np.abs(X).sum(axis=1) == 0, 0] = 1.0
    y = rng.integers(K, size=n)
    clf = ConfidenceWeightedClassifier(
        eta=eta,
        covariance=covariance,
        multiclass="sequential",
        fit_intercept=False,
        shuffle=False,
    )
    clf.partial_fit(sp.csr_matrix(X) if sparse_input else X, y, classes=np.arange(K))
    mu, S = _sequential_cw_reference(X, y, K, eta, covariance)
    assert_allclose(clf.coef_, mu, atol=1e-10)
    sigma = clf._sigma
    for k in range(K):
        if covariance == "diagonal":
            assert_allclose(sigma[:d, k], S[k], atol=1e-10)
        else:
            assert_allclose(np.triu(sigma[k]), np.triu(S[k]), atol=1e-10)


# ---------------------------------------- the covariance floor (ARCOR), k = 1
def floored(S, x, floor):
    """ARCOR's projection of a diagonal covariance onto the matrices whose
    eigenvalues (its entries) are at least ``floor``, as the kernel applies
    it after a step: the variances of the row's non-zero features (the
    others are at least ``floor`` already, the covariance starting at the
    identity)."""
    if floor is None:
        return S
    return np.where(x != 0, np.maximum(S, floor), S)


def _arow_diagonal_reference(X, y, K, r, a, floor):
    """AROW with a diagonal covariance in plain NumPy, row by row: binary
    (labels +-1, one block) or k = 1 (the true class against the
    highest-scoring wrong class, the lowest index among ties, one block per
    class); the intercept is the weight of the constant feature ``a``; after
    each step the floor.  Returns the means and variances ``(G, d + 1)``."""
    d = X.shape[1]
    G = 1 if K == 2 else K
    mu, S = np.zeros((G, d + 1)), np.ones((G, d + 1))
    for x, label in zip(X, y):
        xt = np.append(x, a)
        if K == 2:
            pairs = [(0, 1.0 if label == 1 else -1.0)]
        else:
            scores = mu @ xt
            rival = min(
                (k for k in range(K) if k != label), key=lambda k: (-scores[k], k)
            )
            pairs = [(label, 1.0), (rival, -1.0)]
        m = sum(sign * mu[g] @ xt for g, sign in pairs)
        sx = [S[g] * xt for g, _ in pairs]
        v = sum(xt @ s for s in sx)
        if not (v > 0.0 and m < 1.0):
            continue
        beta = 1.0 / (v + r)
        alpha = (1.0 - m) * beta
        for (g, sign), s in zip(pairs, sx):
            mu[g] += sign * alpha * s
            S[g] = floored(S[g] - beta * s * s, xt, floor)
    return mu, S


def _stream(seed, n, d, K):
    """Rows with zeros (so that sparse rows leave features out) and labels."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) * (rng.random((n, d)) < 0.6)
    X[np.abs(X).sum(axis=1) == 0, 0] = 1.0
    return X, rng.integers(K, size=n)


def _row_by_row(est, X, y, sparse_input, **kwargs):
    """``partial_fit`` on one row at a time, dense or CSR."""
    import scipy.sparse as sp

    for i in range(X.shape[0]):
        row = sp.csr_matrix(X[i : i + 1]) if sparse_input else X[i : i + 1]
        est.partial_fit(row, y[i : i + 1], **kwargs)
    return est


@pytest.mark.parametrize("sparse_input", [False, True])
@pytest.mark.parametrize("K", [2, 3])
@settings(max_examples=20, deadline=None, phases=NO_SHRINK)
@given(
    seed=seeds,
    floor=st.floats(0.02, 1.0),
    r=st.floats(0.1, 10.0),
    a=st.sampled_from([0.0, 1.0, 0.5]),
)
def test_arow_floor_is_the_rule_then_the_projection(sparse_input, K, seed, floor, r, a):
    """AROW with ``covariance_floor``, learned by ``partial_fit`` one row at
    a time (dense and CSR rows alike), is AROW's step in NumPy followed by
    the floor of the variances of the row's features and the intercept."""
    from sklearn_pa import AROWClassifier

    X, y = _stream(seed, 12, 4, K)
    clf = AROWClassifier(
        regularization=r,
        covariance_floor=floor,
        fit_intercept=a != 0.0,
        intercept_scaling=a if a != 0.0 else "auto",
    )
    _row_by_row(clf, X, y, sparse_input, classes=np.arange(K))
    mu, S = _arow_diagonal_reference(X, y, K, r, a, floor)
    d = X.shape[1]
    assert_allclose(clf.coef_, mu[:, :d], rtol=1e-9, atol=1e-12)
    assert_allclose(clf.intercept_, a * mu[:, d], rtol=1e-9, atol=1e-12)
    assert_allclose(clf._sigma[:d].T, S[:, :d], rtol=1e-9, atol=1e-12)
    if a != 0.0:
        assert_allclose(clf._sigma[d], S[:, d], rtol=1e-9, atol=1e-12)
    # every variance is at least the floor (untouched ones are 1)
    assert clf._sigma.min() >= floor


@pytest.mark.parametrize("sparse_input", [False, True])
@settings(max_examples=15, deadline=None, phases=NO_SHRINK)
@given(seed=seeds, eta=etas, K=st.integers(3, 5), floor=st.floats(0.02, 1.0))
def test_sequential_cw_floor_is_the_rule_then_the_projection(
    sparse_input, seed, eta, K, floor
):
    """Multiclass CW k = inf with ``covariance_floor``: each pair step of
    the NumPy reference followed by the floor of both blocks, each pair
    seeing the floored covariance the previous one left."""
    from sklearn_pa import ConfidenceWeightedClassifier

    X, y = _stream(seed, 8, 4, K)
    clf = ConfidenceWeightedClassifier(
        eta=eta,
        multiclass="sequential",
        covariance_floor=floor,
        fit_intercept=False,
    )
    _row_by_row(clf, X, y, sparse_input, classes=np.arange(K))
    mu, S = _sequential_cw_reference(X, y, K, eta, "diagonal", floor=floor)
    assert_allclose(clf.coef_, mu, rtol=1e-9, atol=1e-12)
    for k in range(K):
        assert_allclose(clf._sigma[: X.shape[1], k], S[k], rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize(
    "make",
    [
        lambda f: __import__("sklearn_pa").AROWClassifier(covariance_floor=f),
        lambda f: __import__("sklearn_pa").SCWClassifier(covariance_floor=f),
        lambda f: __import__("sklearn_pa").ConfidenceWeightedClassifier(
            covariance_floor=f
        ),
        lambda f: __import__("sklearn_pa").ConfidenceWeightedClassifier(
            multiclass="single", covariance_floor=f
        ),
    ],
)
@pytest.mark.parametrize("K", [2, 4])
def test_an_inactive_floor_is_bit_identical_to_none(make, K):
    """A floor below every variance the stream reaches writes nothing: the
    model is the one without a floor, to the bit (``covariance_floor=None``
    is itself the model of the kernel before the floor existed: the golden
    streams, ``tests/test_golden*.py``)."""
    X, y = _stream(7, 40, 6, K)
    none = _row_by_row(make(None), X, y, False, classes=np.arange(K))
    tiny = _row_by_row(make(1e-300), X, y, False, classes=np.arange(K))
    np.testing.assert_array_equal(none.coef_, tiny.coef_)
    np.testing.assert_array_equal(none.intercept_, tiny.intercept_)
    np.testing.assert_array_equal(none._sigma, tiny._sigma)


def test_sccw_support_floor_is_the_step_then_the_projection():
    """The support-class rule (SCCW, one shared block): one row with the
    floor is the row without it, then the projection of the variances the
    row touches; the mean is the same."""
    X, y = _stream(3, 30, 5, 4)
    from sklearn_pa import ConfidenceWeightedClassifier

    for i in range(1, X.shape[0]):
        kw = dict(multiclass="support", fit_intercept=False, shuffle=False)
        floor = 0.3
        clf = ConfidenceWeightedClassifier(covariance_floor=floor, **kw)
        clf.partial_fit(X[:i], y[:i], classes=np.arange(4))
        plain = ConfidenceWeightedClassifier(**kw)
        plain.partial_fit(X[:1], y[:1], classes=np.arange(4))
        # the state before row i, without the floor's parameter
        plain._sigma[...] = clf._sigma
        plain.coef_[...] = clf.coef_
        plain.intercept_[...] = clf.intercept_
        plain.partial_fit(X[i : i + 1], y[i : i + 1])
        clf.partial_fit(X[i : i + 1], y[i : i + 1])
        np.testing.assert_array_equal(clf.coef_, plain.coef_)
        np.testing.assert_array_equal(
            clf._sigma[:, 0], floored(plain._sigma[:, 0], np.append(X[i], 0.0), floor)
        )


@pytest.mark.parametrize(
    "bad, match", [(0.0, "covariance_floor"), (1.5, "covariance_floor")]
)
def test_floor_out_of_range_is_refused(bad, match):
    from sklearn_pa import AROWClassifier

    with pytest.raises(ValueError, match=match):
        AROWClassifier(covariance_floor=bad).fit([[0.0], [1.0]], [0, 1])


def test_floor_with_a_full_covariance_is_refused():
    """The floor of a full covariance bounds its eigenvalues: an
    eigendecomposition at every step, refused (the kernel refuses it too)."""
    from sklearn_pa import AROWClassifier, AROWRegressor

    X = np.array([[0.0, 1.0], [1.0, 0.0]])
    for est, y in ((AROWClassifier, [0, 1]), (AROWRegressor, [0.0, 1.0])):
        with pytest.raises(ValueError, match="covariance='full'"):
            est(covariance="full", covariance_floor=0.1).fit(X, y)
    with pytest.raises(ValueError, match="diagonal covariance"):
        second_order_epoch(
            X.ravel(),
            np.arange(2, dtype=np.int32),
            np.zeros(1, dtype=np.int32),
            True,
            2,
            np.arange(2, dtype=np.int64),
            np.array([0, 1], dtype=np.int32),
            np.ones(2),
            np.zeros((2, 1)),
            np.zeros(1),
            np.zeros((0, 1)),
            np.eye(2)[None].copy(),
            np.zeros((0, 1)),
            np.zeros(0),
            np.ones(2),
            int(R.SO_BINARY),
            int(R.STEP_AROW),
            1.0,
            1.0,
            0.0,
            0,
            0,
            np.zeros(1),
            floor=0.1,
        )
