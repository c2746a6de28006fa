"""The peer second-order rules (SOP, IELLIP, NHERD, NAROW) against their
sources.

- NHERD (Crammer & Lee 2010) and NAROW (Orabona & Crammer 2010) solve
  problems: NHERD's mean is the minimiser of
  ``1/2 (mu - mu0)^T S0^-1 (mu - mu0) + C/2 max(0, 1 - y mu.x)^2`` and its
  covariance the image ``A S0 A^T`` of the old one under the affine map
  ``w -> w + C (1 - y w.x) y S0 x / (1 + C v)`` that moves every weight
  vector (herding, Sec. 3 of the paper); NAROW's step is AROW's problem
  ``min KL + 1/(2r) max(0, 1 - y mu.x)^2 + 1/(2r) x^T S x`` with
  ``r = v / (b v - 1)``, whose covariance brings ``x^T S x`` to ``1 / b``.
  Hypothesis draws the problems; ``scipy.optimize`` and the KKT conditions
  check the kernel's step.
- SOP (Cesa-Bianchi, Conconi & Gentile 2005, Fig. 2) and IELLIP (Yang, Jin &
  Ye 2009; LIBOL ``IELLIP.m``) are algorithms, not minimisers: the
  estimators' fits over several epochs equal independent NumPy
  transcriptions of the paper's / LIBOL's pseudo-code (SOP in the paper's
  own variables ``A = a I + sum x x^T``, ``v = sum y x``).  So do NHERD's and
  NAROW's (LIBOL ``NHERD.m``, ``NAROW.m``; Jubatus ``normal_herd.cpp`` for
  NHERD's diagonal covariance), dense and CSR, diagonal and full, binary
  and multiclass (k = 1).

One convention differs from LIBOL's code, on purpose: a score of exactly 0
is a mistake whatever the label (LIBOL predicts +1 at 0).
"""

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import Phase, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from kernel_calls import second_order_epoch
from numpy.testing import assert_allclose
from scipy.optimize import minimize

from sklearn_pa import (
    IELLIPClassifier,
    NAROWClassifier,
    NHERDClassifier,
    SOPClassifier,
)
from sklearn_pa._compiled._rules import SecondOrderRule as R

NO_SHRINK = (Phase.explicit, Phase.reuse, Phase.generate)
entries = st.floats(-2.0, 2.0, allow_nan=False, allow_subnormal=False).map(
    lambda v: 0.0 if abs(v) < 1e-6 else v
)
seeds = st.integers(0, 2**31 - 1)


def spd(rng, d):
    A = rng.normal(size=(d, d))
    return A @ A.T / d + 0.5 * np.eye(d)


def one_step(step, x, y, mu0, S0, *, param, shrinkage=0.0, t0=0):
    """One binary kernel step with a full covariance: (mu, Sigma)."""
    d = x.shape[0]
    W = mu0.reshape(d, 1).copy()
    S = S0[None].copy()
    second_order_epoch(
        np.ascontiguousarray(x, dtype=np.float64),
        np.arange(d, dtype=np.int32),
        np.zeros(1, dtype=np.int32),
        True,
        d,
        np.zeros(1, dtype=np.int64),
        np.array([1 if y > 0 else 0], dtype=np.int32),
        np.ones(1),
        W,
        np.zeros(1),
        np.zeros((0, 1)),
        S,
        np.zeros((0, 1)),
        np.zeros(0),
        np.ones(2),
        int(R.SO_BINARY),
        int(step),
        0.0,
        param,
        0.0,
        t0,
        0,
        np.zeros(1),
        shrinkage=shrinkage,
    )
    upper = np.triu(S[0])
    return W[:, 0], upper + np.triu(upper, 1).T


def squared_hinge_mean(x, y, mu0, S0, C):
    """argmin 1/2 (mu - mu0)^T S0^-1 (mu - mu0) + C/2 max(0, 1 - y mu.x)^2."""
    S0_inv = np.linalg.inv(S0)

    def objective(mu):
        d = mu - mu0
        h = max(0.0, 1.0 - y * mu @ x)
        return 0.5 * d @ S0_inv @ d + 0.5 * C * h * h

    def gradient(mu):
        h = max(0.0, 1.0 - y * mu @ x)
        return S0_inv @ (mu - mu0) - C * h * y * x

    res = minimize(objective, mu0, jac=gradient, method="BFGS", options={"gtol": 1e-12})
    return res.x


problems = dict(
    x=hnp.arrays(np.float64, 3, elements=entries),
    mu0=hnp.arrays(np.float64, 3, elements=entries),
    seed=seeds,
    y=st.sampled_from([-1.0, 1.0]),
)


@settings(max_examples=40, deadline=None, phases=NO_SHRINK)
@given(C=st.floats(0.1, 10.0), **problems)
def test_nherd_step_is_the_herded_squared_hinge_step(x, mu0, seed, y, C):
    S0 = spd(np.random.default_rng(seed), 3)
    mu, S = one_step(R.STEP_NHERD, x, y, mu0, S0, param=C)
    m, v = y * mu0 @ x, x @ S0 @ x
    if not m < 1.0:
        assert_allclose(mu, mu0)
        assert_allclose(S, S0)
        return
    # the mean: the minimiser, and its KKT condition
    assert_allclose(mu, squared_hinge_mean(x, y, mu0, S0, C), rtol=1e-5, atol=1e-7)
    h = 1.0 - y * mu @ x
    assert_allclose(np.linalg.solve(S0, mu - mu0), C * h * y * x, atol=1e-9)
    # the covariance: the old one carried by the map that moves every w
    A = np.eye(3) - C / (1.0 + C * v) * np.outer(S0 @ x, x)
    assert_allclose(S, A @ S0 @ A.T, rtol=1e-10, atol=1e-12)
    # i.e. the precision grows by (2 C + C^2 v) x x^T
    assert_allclose(
        np.linalg.inv(S),
        np.linalg.inv(S0) + (2 * C + C * C * v) * np.outer(x, x),
        rtol=1e-8,
        atol=1e-8,
    )


@settings(max_examples=40, deadline=None, phases=NO_SHRINK)
@given(b=st.floats(0.2, 5.0), **problems)
def test_narow_step_is_arow_with_the_adaptive_regulariser(x, mu0, seed, y, b):
    S0 = spd(np.random.default_rng(seed), 3)
    mu, S = one_step(R.STEP_NAROW, x, y, mu0, S0, param=b)
    m, v = y * mu0 @ x, x @ S0 @ x
    if not (m < 1.0 and v > 1.0 / b):
        assert_allclose(mu, mu0)
        assert_allclose(S, S0)
        return
    r = v / (b * v - 1.0)
    # the mean minimises AROW's objective (the mean part: C = 1 / r)
    assert_allclose(
        mu, squared_hinge_mean(x, y, mu0, S0, 1.0 / r), rtol=1e-5, atol=1e-7
    )
    # the covariance: AROW's KKT condition S^-1 = S0^-1 + x x^T / r
    assert_allclose(
        np.linalg.inv(S),
        np.linalg.inv(S0) + np.outer(x, x) / r,
        rtol=1e-8,
        atol=1e-8,
    )
    # and the variance along x is brought down to 1 / b
    assert_allclose(x @ S @ x, 1.0 / b, rtol=1e-9)


# ------------------------------------------------- transcriptions of the papers
def sop_paper(X, y, a, epochs):
    """Cesa-Bianchi, Conconi & Gentile 2005, Fig. 2, in the paper's variables:
    predict sgn(v^T (A + x x^T)^-1 x); on a mistake A += x x^T, v += y x.
    Returns (a A^-1 v, a A^-1), the model and covariance the estimator
    keeps."""
    d = X.shape[1]
    A, v = a * np.eye(d), np.zeros(d)
    for _ in range(epochs):
        for x, yt in zip(X, y):
            score = v @ np.linalg.solve(A + np.outer(x, x), x)
            if yt * score <= 0:
                A += np.outer(x, x)
                v += yt * x
    A_inv = np.linalg.inv(A)
    return a * A_inv @ v, a * A_inv


def iellip_libol(X, y, c, b, epochs):
    """LIBOL ``IELLIP.m`` line by line (row vectors)."""
    d = X.shape[1]
    w, Sigma, c_t = np.zeros(d), np.eye(d), c
    for _ in range(epochs):
        for x_t, y_t in zip(X, y):
            f_t = w @ x_t
            v_t = x_t @ Sigma @ x_t
            m_t = y_t * f_t
            if m_t <= 0 and v_t != 0:
                alpha_t = (1 - m_t) / np.sqrt(v_t)
                g_t = y_t * x_t / np.sqrt(v_t)
                S_x_t = g_t @ Sigma.T
                w = w + alpha_t * S_x_t
                Sigma = (Sigma - c_t * np.outer(S_x_t, S_x_t)) / (1 - c_t)
            c_t = c_t * b
    return w, Sigma


def nherd_libol(X, y, C, epochs):
    """LIBOL ``NHERD.m`` line by line."""
    d = X.shape[1]
    w, Sigma, gamma = np.zeros(d), np.eye(d), 1.0 / C
    for _ in range(epochs):
        for x_t, y_t in zip(X, y):
            v_t = x_t @ Sigma @ x_t
            m_t = y_t * (w @ x_t)
            if 1 - m_t > 0:
                beta_t = 1 / (v_t + gamma)
                alpha_t = max(0, 1 - m_t) * beta_t
                S_x_t = x_t @ Sigma.T
                w = w + alpha_t * y_t * S_x_t
                Sigma = Sigma - beta_t**2 * (v_t + 2 * gamma) * np.outer(S_x_t, S_x_t)
    return w, Sigma


def narow_libol(X, y, b, epochs):
    """LIBOL ``NAROW.m`` line by line."""
    d = X.shape[1]
    w, Sigma = np.zeros(d), np.eye(d)
    for _ in range(epochs):
        for x_t, y_t in zip(X, y):
            v_t = x_t @ Sigma @ x_t
            m_t = y_t * (w @ x_t)
            if 1 - m_t > 0:
                chi_t = v_t
                with np.errstate(divide="ignore"):
                    r_t = chi_t / (b * chi_t - 1) if chi_t > 1 / b else np.inf
                beta_t = 1 / (v_t + r_t)
                alpha_t = max(0, 1 - m_t) * beta_t
                S_x_t = x_t @ Sigma.T
                w = w + alpha_t * y_t * S_x_t
                Sigma = Sigma - beta_t * np.outer(S_x_t, S_x_t)
    return w, Sigma


def pair_reference(X, y, K, name, p, covariance, epochs, sequential=False, floor=None):
    """Every rule on the pair (y, r), r the highest-scoring wrong class (the
    lowest index among ties; binary: the one weight vector, labels +-1),
    with one covariance block per class, full or diagonal.  NHERD's diagonal
    rules are the paper's three: "project" (``nherd``, as Jubatus'
    ``normal_herd.cpp``) 1 / S_rr += (2 C + C^2 v) x_r^2, "exact"
    (``nherd_exact``) S_rr / (1 + C x_r^2 S_rr)^2 and "drop"
    (``nherd_drop``), the diagonal of the full step, which the other
    diagonal rules keep too.  With
    ``sequential`` every wrong class in turn (highest score first), each
    pair on the state the previous one left (k = inf).  With ``floor``
    (diagonal), ARCOR's projection after each pair step (after IELLIP's
    scale): the variances of the row's non-zero features raised to it."""
    n, d = X.shape
    binary = K == 2
    G = 1 if binary else K
    W = np.zeros((G, d))
    S = np.stack([np.eye(d)] * G) if covariance == "full" else np.ones((G, d))
    t = 0

    def sx(g, x):
        return S[g] @ x if covariance == "full" else S[g] * x

    def pair_step(pairs, x, t):
        nonlocal S
        m = sum(sign * W[g] @ x for g, sign in pairs)
        sxs = [sx(g, x) for g, _ in pairs]
        v = sum(x @ s for s in sxs)
        alpha = beta = kappa = 0.0
        scale = 1.0
        if name == "sop" and m <= 0:
            beta = 1.0 / (v + p)
            alpha = (p - m) * beta
        elif name == "iellip" and m <= 0 and v > 0:
            c, b = p
            c_t = c * b ** (t - 1)
            alpha, beta, scale = (1 - m) / v, c_t / v, 1 / (1 - c_t)
        elif name.startswith("nherd") and m < 1:
            gamma = 1.0 / p
            alpha = (1 - m) / (v + gamma)
            beta = (v + 2 * gamma) / (v + gamma) ** 2
            kappa = 2 * p + p * p * v
        elif name == "narow" and m < 1 and v > 1 / p:
            r_t = v / (p * v - 1)
            beta = 1 / (v + r_t)
            alpha = (1 - m) * beta
        if alpha == 0.0 and beta == 0.0:
            return
        for (g, sign), s in zip(pairs, sxs):
            W[g] += sign * alpha * s
            if covariance == "full":
                S[g] -= beta * np.outer(s, s)
            elif name == "nherd":
                S[g] = S[g] / (1 + kappa * S[g] * x * x)
            elif name == "nherd_exact":
                S[g] = S[g] / (1 + p * x * x * S[g]) ** 2
            else:
                S[g] -= beta * s * s
        S *= scale
        if floor is not None and covariance == "diagonal":
            for g, _ in pairs:
                S[g] = np.where(x != 0, np.maximum(S[g], floor), S[g])

    for _ in range(epochs):
        for x, yt in zip(X, y):
            t += 1
            if binary:
                pair_step([(0, 1.0 if yt == 1 else -1.0)], x, t)
                continue
            scores = W @ x
            rivals = sorted(
                (k for k in range(K) if k != yt), key=lambda k: (-scores[k], k)
            )
            for r in rivals if sequential else rivals[:1]:
                pair_step([(yt, 1.0), (r, -1.0)], x, t)
    return W, S


ESTIMATORS = {
    "sop": (SOPClassifier, lambda p: {"regularization": p}),
    "iellip": (
        IELLIPClassifier,
        lambda p: {"shrinkage": p[0], "shrinkage_decay": p[1]},
    ),
    "nherd": (NHERDClassifier, lambda p: {"C": p}),
    "nherd_exact": (NHERDClassifier, lambda p: {"C": p, "diagonal_rule": "exact"}),
    "nherd_drop": (NHERDClassifier, lambda p: {"C": p, "diagonal_rule": "drop"}),
    "narow": (NAROWClassifier, lambda p: {"variance_floor": 1.0 / p}),
}
PARAMS = {
    "sop": 0.7,
    "iellip": (0.3, 0.8),
    "nherd": 0.5,
    "nherd_exact": 0.5,
    "nherd_drop": 0.5,
    "narow": 1.5,
}
#: the four algorithms (NHERD's diagonal rules agree with a full covariance)
ALGORITHMS = ["iellip", "narow", "nherd", "sop"]


def _data(seed, n, d, K):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) * (rng.random((n, d)) < 0.7)
    X[np.abs(X).sum(axis=1) == 0, 0] = 1.0
    return X, rng.integers(K, size=n)


def _fit(name, covariance, sparse_input, X, y, epochs):
    cls, kwargs = ESTIMATORS[name]
    clf = cls(
        **kwargs(PARAMS[name]),
        covariance=covariance,
        fit_intercept=False,
        shuffle=False,
        max_iter=epochs,
        tol=None,
    )
    return clf.fit(sp.csr_matrix(X) if sparse_input else X, y)


def _sigma_blocks(clf, d):
    cov = clf.covariance_
    return cov if cov.ndim == 3 else cov[:, :d]


@pytest.mark.parametrize("sparse_input", [False, True])
@pytest.mark.parametrize("name", ALGORITHMS)
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_binary_full_fit_is_the_paper(name, sparse_input, seed):
    """Binary, full covariance: the fit over 4 epochs is the source's
    algorithm (SOP: the paper's Fig. 2; the others: LIBOL's .m files)."""
    X, y01 = _data(seed, 15, 4, 2)
    ysign = np.where(y01 == 1, 1.0, -1.0)
    clf = _fit(name, "full", sparse_input, X, y01, 4)
    p = PARAMS[name]
    if name == "sop":
        w, S = sop_paper(X, ysign, p, 4)
    elif name == "iellip":
        w, S = iellip_libol(X, ysign, *p, 4)
    elif name == "nherd":
        w, S = nherd_libol(X, ysign, p, 4)
    else:
        w, S = narow_libol(X, ysign, p, 4)
    assert_allclose(clf.coef_[0], w, rtol=1e-10, atol=1e-10)
    assert_allclose(clf.covariance_[0], S, rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("covariance", ["diagonal", "full"])
@pytest.mark.parametrize("sparse_input", [False, True])
@pytest.mark.parametrize("name", sorted(ESTIMATORS))
@pytest.mark.parametrize("K", [2, 3])
def test_fit_matches_the_pair_reference(name, covariance, sparse_input, K):
    """Diagonal and full, binary and multiclass k = 1, 3 epochs."""
    X, y = _data(K + 10, 20, 5, K)
    clf = _fit(name, covariance, sparse_input, X, y, 3)
    W, S = pair_reference(X, y, K, name, PARAMS[name], covariance, 3)
    assert_allclose(clf.coef_, W, rtol=1e-10, atol=1e-10)
    assert_allclose(_sigma_blocks(clf, X.shape[1]), S, rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("name", ALGORITHMS)
def test_partial_fit_continues_the_rounds(name):
    """partial_fit in three batches is one pass of the reference (IELLIP's
    c_t keeps counting the rounds across calls)."""
    X, y = _data(5, 24, 4, 3)
    cls, kwargs = ESTIMATORS[name]
    clf = cls(
        **kwargs(PARAMS[name]), fit_intercept=False, covariance="full", shuffle=False
    )
    for part in np.array_split(np.arange(24), 3):
        clf.partial_fit(X[part], y[part], classes=np.arange(3))
    W, S = pair_reference(X, y, 3, name, PARAMS[name], "full", 1)
    assert_allclose(clf.coef_, W, rtol=1e-10, atol=1e-10)
    assert_allclose(clf.covariance_, S, rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("covariance", ["diagonal", "full"])
@pytest.mark.parametrize("name", sorted(ESTIMATORS))
def test_sequential_kernel_rule_is_pair_steps_in_turn(name, covariance):
    """The kernel's k = inf rule (SO_SEQUENTIAL, not offered by the
    estimators) with a peer step: every wrong class in turn, each pair on
    the state the previous one left (IELLIP's scale and NHERD's diagonal
    precision included)."""
    X, y = _data(7, 12, 4, 4)
    n, d = X.shape
    full = covariance == "full"
    W, b = np.zeros((d, 4)), np.zeros(4)
    S_full = np.stack([np.eye(d)] * 4) if full else np.zeros((0, 1, 1))
    S_diag = np.zeros((0, 1)) if full else np.ones((d + 1, 4))
    step = {
        "sop": R.STEP_SOP,
        "iellip": R.STEP_IELLIP,
        "nherd": R.STEP_NHERD,
        "nherd_exact": R.STEP_NHERD_EXACT,
        "nherd_drop": R.STEP_NHERD_DROP,
        "narow": R.STEP_NAROW,
    }[name]
    p = PARAMS[name]
    shrinkage, param = (p[0], p[1]) if name == "iellip" else (0.0, p)
    for epoch in range(2):
        second_order_epoch(
            np.ascontiguousarray(X).ravel(),
            np.arange(d, dtype=np.int32),
            np.zeros(1, dtype=np.int32),
            True,
            d,
            np.arange(n, dtype=np.int64),
            y.astype(np.int32),
            np.ones(n),
            W,
            b,
            S_diag,
            S_full,
            np.zeros((0, 4)),
            np.zeros(0),
            np.ones(4),
            int(R.SO_SEQUENTIAL),
            int(step),
            0.0,
            param,
            0.0,
            epoch * n,
            0,
            np.zeros(1),
            shrinkage=shrinkage,
        )
    W_ref, S_ref = pair_reference(X, y, 4, name, p, covariance, 2, sequential=True)
    assert_allclose(W.T, W_ref, rtol=1e-10, atol=1e-10)
    if full:
        for k in range(4):
            assert_allclose(np.triu(S_full[k]), np.triu(S_ref[k]), atol=1e-10)
    else:
        assert_allclose(S_diag[:d].T, S_ref, rtol=1e-10, atol=1e-10)


def test_support_rule_is_refused():
    with pytest.raises(ValueError, match="support"):
        W = np.zeros((2, 3))
        second_order_epoch(
            np.ones(2),
            np.arange(2, dtype=np.int32),
            np.zeros(1, dtype=np.int32),
            True,
            2,
            np.zeros(1, dtype=np.int64),
            np.zeros(1, dtype=np.int32),
            np.ones(1),
            W,
            np.zeros(3),
            np.ones((3, 1)),
            np.zeros((0, 1, 1)),
            np.zeros((0, 3)),
            np.zeros(0),
            np.ones(3),
            int(R.SO_SUPPORT),
            int(R.STEP_NHERD),
            0.0,
            1.0,
            0.0,
            0,
            0,
            np.zeros(1),
        )


@pytest.mark.parametrize("sparse_input", [False, True])
@pytest.mark.parametrize("name", sorted(ESTIMATORS))
@settings(max_examples=8, deadline=None)
@given(
    seed=st.integers(0, 2**31 - 1), K=st.sampled_from([2, 3]), floor=st.floats(0.02, 1)
)
def test_floor_is_the_rule_then_the_projection(name, sparse_input, seed, K, floor):
    """Every peer rule with ``covariance_floor`` (diagonal), learned by
    ``partial_fit`` one row at a time from dense or CSR rows, is the
    reference's pair step followed by the floor of the variances of the
    row's features.  NAROW's own ``variance_floor`` (a bound on the
    variance along the example, which decides whether it steps) is kept:
    the two combine."""
    X, y = _data(seed, 14, 4, K)
    cls, kwargs = ESTIMATORS[name]
    clf = cls(**kwargs(PARAMS[name]), covariance_floor=floor, fit_intercept=False)
    for i in range(X.shape[0]):
        row = sp.csr_matrix(X[i : i + 1]) if sparse_input else X[i : i + 1]
        clf.partial_fit(row, y[i : i + 1], classes=np.arange(K))
    W, S = pair_reference(X, y, K, name, PARAMS[name], "diagonal", 1, floor=floor)
    assert_allclose(clf.coef_, W, rtol=1e-9, atol=1e-12)
    assert_allclose(_sigma_blocks(clf, X.shape[1]), S, rtol=1e-9, atol=1e-12)
