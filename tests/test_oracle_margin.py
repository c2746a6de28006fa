"""The classical margin learners against their sources.

The perceptron, OGD, ROMMA and ALMA are checked against independent NumPy
transcriptions of the pseudo-code of their papers as LIBOL writes it
(``Perceptron.m``, ``M_PerceptronM.m``, ``M_PerceptronU.m``,
``M_PerceptronS.m``, ``OGD.m``, ``M_OGD.m``, ``ROMMA.m``, ``aROMMA.m``,
``M_ROMMA.m``, ``M_aROMMA.m``, ``ALMA.m``): several epochs of ``fit`` on
random data, dense and CSR, equal the transcription to 1e-10.  The
transcriptions scale the whole weight vector at each ROMMA / ALMA update,
where the kernel holds it as a scale times a vector.

Where the package departs from LIBOL it says so in the estimator's
docstring and the transcription follows the paper:

- a tie is a mistake (binary ``y s <= 0``; multiclass a wrong class
  scoring at least as high as the true one), the error set of the
  multiclass perceptrons is ``{r != y : s_r >= s_y}`` (Crammer & Singer
  2003, section 3) and the score-proportional share falls back to the
  uniform one when every class of it ties;
- ROMMA's step is the minimiser of its problem (Li & Long 2002): from
  ``w = 0``, or whenever the old half-space is not binding, it is
  ``phi / ||phi||^2`` (LIBOL adds ``phi``);
- ALMA updates when the margin is at most ``(1 - alpha) gamma_k`` (Gentile
  2001, Figure 1; LIBOL: strictly below).

ROMMA's step is also checked against a generic solver of its problem
(``scipy.optimize``) and its KKT conditions on hypothesis-drawn problems.
"""

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose
from scipy.optimize import LinearConstraint, minimize, nnls

from sklearn_pa import (
    ALMAClassifier,
    OnlineGradientDescentClassifier,
    PerceptronClassifier,
    ROMMAClassifier,
)
from sklearn_pa._compiled import _scaled
from sklearn_pa._compiled._rules import Rule
from sklearn_pa._core.rules import scaled_params

N_EPOCHS = 3


# ------------------------------------------------------------ transcriptions
def _scores(W, x):
    return W @ x


def perceptron_reference(X, y, K, variant, n_epochs):
    """LIBOL ``Perceptron.m`` (binary: ``if y f <= 0, w = w + y x``) and
    ``M_Perceptron{M,U,S}.m`` (multiclass, error set with ``>=``)."""
    d = X.shape[1]
    if K == 2:
        w = np.zeros(d)
        for _ in range(n_epochs):
            for x, label in zip(X, y):
                ys = 1.0 if label == 1 else -1.0
                if ys * (w @ x) <= 0:  # Perceptron.m: l_t = (hat_y ~= y)
                    w = w + ys * x
        return w[None, :]
    W = np.zeros((K, d))
    for _ in range(n_epochs):
        for x, t in zip(X, y):
            F = W @ x
            E = [r for r in range(K) if r != t and F[r] >= F[t]]
            if not E:
                continue
            W_old = W.copy()
            W[t] = W_old[t] + x
            if variant == "max":
                Fs = F.copy()
                Fs[t] = -np.inf
                s = int(np.argmax(Fs))
                W[s] = W_old[s] - x
            elif variant == "uniform":
                for s in E:
                    W[s] = W_old[s] - x / len(E)
            else:
                den = sum(F[s] for s in E) - len(E) * F[t]
                for s in E:
                    share = (F[s] - F[t]) / den if den > 0 else 1.0 / len(E)
                    W[s] = W_old[s] - share * x
    return W


def ogd_reference(X, y, K, eta, n_epochs):
    """LIBOL ``OGD.m`` (hinge loss) and ``M_OGD.m``: ``eta_t = eta /
    sqrt(t)``, ``t`` counting every sample from 1."""
    d = X.shape[1]
    t = 1
    W = np.zeros((1 if K == 2 else K, d))
    for _ in range(n_epochs):
        for x, label in zip(X, y):
            eta_t = eta / np.sqrt(t)
            if K == 2:
                ys = 1.0 if label == 1 else -1.0
                if 1 - ys * (W[0] @ x) > 0:
                    W[0] = W[0] + eta_t * ys * x
            else:
                F = W @ x
                Fs = F.copy()
                Fs[label] = -np.inf
                s = int(np.argmax(Fs))
                if 1 - (F[label] - F[s]) > 0:
                    W[label] = W[label] + eta_t * x
                    W[s] = W[s] - eta_t * x
            t += 1
    return W


def _kesler(x, K, t, s):
    phi = np.zeros((K, x.shape[0]))
    phi[t] = x
    phi[s] = -x
    return phi


def romma_reference(X, y, K, aggressive, n_epochs):
    """LIBOL ``ROMMA.m`` / ``aROMMA.m`` / ``M_ROMMA.m`` / ``M_aROMMA.m``
    (Li & Long 2002, eq. (3)): ``w = c w + d phi``, with the paper's first
    step ``phi / ||phi||^2``."""
    d = X.shape[1]
    W = np.zeros((1 if K == 2 else K, d))
    for _ in range(n_epochs):
        for x, label in zip(X, y):
            if K == 2:
                phi = (1.0 if label == 1 else -1.0) * x[None, :]
            else:
                F = W @ x
                Fs = F.copy()
                Fs[label] = -np.inf
                phi = _kesler(x, K, label, int(np.argmax(Fs)))
            m = float(np.sum(W * phi))
            if not (m < 1 if aggressive else m <= 0):
                continue
            q, N = float(np.sum(phi * phi)), float(np.sum(W * W))
            if N == 0 or m >= q * N:
                W = phi / q
                continue
            deno = q * N - m * m
            if deno <= 0:
                continue
            W = (q * N - m) / deno * W + N * (1 - m) / deno * phi
    return W


def alma_reference(X, y, K, alpha, B, C, n_epochs, normalize):
    """LIBOL ``ALMA.m`` (p = 2; Gentile 2001, Figure 1): ``gamma_k = B /
    sqrt(k)``, ``eta_k = C / sqrt(k)``, ``w = (w + eta_k phi) / max(1,
    ||.||)``; multiclass on the Kesler construction.  ``normalize``: the
    paper's ``x_hat = x / ||x||`` (LIBOL takes ``x`` as given)."""
    d = X.shape[1]
    W = np.zeros((1 if K == 2 else K, d))
    k = 1
    for _ in range(n_epochs):
        for x, label in zip(X, y):
            if normalize:
                x = x / np.linalg.norm(x)
            if K == 2:
                phi = (1.0 if label == 1 else -1.0) * x[None, :]
            else:
                F = W @ x
                Fs = F.copy()
                Fs[label] = -np.inf
                phi = _kesler(x, K, label, int(np.argmax(Fs)))
            gamma_k = B / np.sqrt(k)
            if np.sum(W * phi) <= (1 - alpha) * gamma_k:
                W = W + C / np.sqrt(k) * phi
                W = W / max(1.0, np.linalg.norm(W))
                k += 1
    return W


# ---------------------------------------------------------------- problems
def _problem(seed, n_classes):
    rng = np.random.RandomState(seed)
    n, d = 40, 6
    X = rng.normal(size=(n, d))
    X[rng.uniform(size=X.shape) < 0.3] = 0.0
    V = rng.normal(size=(d, n_classes))
    y = np.argmax(X @ V + 0.5 * rng.normal(size=(n, n_classes)), axis=1)
    y[:n_classes] = np.arange(n_classes)  # every class present
    return X, y


def _fit(est, X, y, sparse):
    params = dict(max_iter=N_EPOCHS, tol=None, shuffle=False, intercept_scaling=1.0)
    est.set_params(**params)
    return est.fit(sp.csr_matrix(X) if sparse else X, y)


def _augmented(est):
    """``[coef_, intercept_]``: the transcription's weights on ``[x, 1]``."""
    return np.hstack([est.coef_, est.intercept_[:, None]])


def _with_ones(X):
    return np.hstack([X, np.ones((X.shape[0], 1))])


seeds = st.integers(0, 2**31 - 1)
class_counts = st.sampled_from([2, 3, 4])
layouts = st.booleans()


@settings(max_examples=30, deadline=None)
@given(
    seed=seeds,
    K=class_counts,
    sparse=layouts,
    variant=st.sampled_from(["max", "uniform", "score"]),
)
def test_perceptron_is_the_transcription(seed, K, sparse, variant):
    X, y = _problem(seed, K)
    est = _fit(PerceptronClassifier(multiclass=variant), X, y, sparse)
    ref = perceptron_reference(_with_ones(X), y, K, variant, N_EPOCHS)
    assert_allclose(_augmented(est), ref, rtol=1e-10, atol=1e-10)


@settings(max_examples=30, deadline=None)
@given(seed=seeds, K=class_counts, sparse=layouts, eta=st.floats(0.01, 2.0))
def test_ogd_is_the_transcription(seed, K, sparse, eta):
    X, y = _problem(seed, K)
    est = _fit(OnlineGradientDescentClassifier(eta=eta), X, y, sparse)
    ref = ogd_reference(_with_ones(X), y, K, eta, N_EPOCHS)
    assert_allclose(_augmented(est), ref, rtol=1e-10, atol=1e-10)


@settings(max_examples=30, deadline=None)
@given(seed=seeds, K=class_counts, sparse=layouts, aggressive=st.booleans())
def test_romma_is_the_transcription(seed, K, sparse, aggressive):
    X, y = _problem(seed, K)
    est = _fit(ROMMAClassifier(aggressive=aggressive), X, y, sparse)
    ref = romma_reference(_with_ones(X), y, K, aggressive, N_EPOCHS)
    scale = max(1.0, np.abs(ref).max())
    assert_allclose(_augmented(est), ref, rtol=1e-10, atol=1e-10 * scale)


@settings(max_examples=30, deadline=None)
@given(
    seed=seeds,
    K=class_counts,
    sparse=layouts,
    alpha=st.floats(0.05, 1.0),
    C=st.floats(0.1, 3.0),
    normalize=st.booleans(),
)
def test_alma_is_the_transcription(seed, K, sparse, alpha, C, normalize):
    X, y = _problem(seed, K)
    est = _fit(ALMAClassifier(alpha=alpha, C=C, normalize=normalize), X, y, sparse)
    ref = alma_reference(
        _with_ones(X), y, K, alpha, 1.0 / alpha, C, N_EPOCHS, normalize
    )
    assert_allclose(_augmented(est), ref, rtol=1e-10, atol=1e-10)
    assert np.linalg.norm(_augmented(est)) <= 1.0 + 1e-12


def test_fit_without_intercept_is_the_transcription():
    X, y = _problem(0, 3)
    est = _fit(ROMMAClassifier(fit_intercept=False), X, y, False)
    assert_allclose(est.coef_, romma_reference(X, y, 3, False, N_EPOCHS), rtol=1e-10)
    assert np.all(est.intercept_ == 0.0)
    est = _fit(PerceptronClassifier(fit_intercept=False, multiclass="score"), X, y, 1)
    assert_allclose(est.coef_, perceptron_reference(X, y, 3, "score", N_EPOCHS))


# ------------------------------------------------------- ROMMA's problem
def _romma_step(W, x, label, aggressive):
    """One step of the scaled kernel from ``W`` (``(n_columns, d)``) on the
    row ``x``; returns the new ``W``."""
    from types import SimpleNamespace

    K, d = W.shape
    rows = SimpleNamespace(
        data=np.ascontiguousarray(x, dtype=float),
        indices=np.arange(d, dtype=np.int32),
        indptr=np.zeros(1, dtype=np.int32),
        dense=True,
        n_features=d,
    )
    Wf = np.array(W.T, order="C")  # a copy: W stays the state before
    rule = Rule.AGGRESSIVE_ROMMA if aggressive else Rule.ROMMA
    _scaled.epoch(
        rows,
        np.zeros(1, dtype=np.int64),
        Wf,
        np.zeros(K),
        np.zeros((0, K)),
        np.zeros(0),
        params=scaled_params(rule),
        labels=np.array([label], dtype=np.int32),
        sample_weight=np.ones(1),
        weight_pos=np.ones(max(K, 2)),
        intercept_sq=0.0,
        loss_out=np.zeros(1),
        counter=np.ones(1, dtype=np.int64),
    )
    return Wf.T


vectors = st.lists(st.floats(-2, 2, allow_subnormal=False), min_size=12, max_size=12)


@settings(max_examples=60, deadline=None)
@given(
    w=vectors,
    x=vectors,
    K=st.sampled_from([1, 3]),
    label=st.integers(0, 1),
    scale=st.floats(0.05, 3.0),
)
def test_romma_step_is_the_minimiser(w, x, K, label, scale):
    """min ||V||^2 s.t. <V, W> >= ||W||^2, <V, phi> >= 1 (Li & Long 2002,
    section 3): the kernel's step equals a generic solver's minimiser and
    meets the KKT conditions, V = l1 W + l2 phi with l1, l2 >= 0 and
    complementary slackness."""
    d = 4
    W = scale * np.array(w[: K * d]).reshape(K, d)
    x = np.array(x[:d])
    assume(np.linalg.norm(x) > 0.1 and np.linalg.norm(W) > 0.1)
    if K == 1:
        phi = (1.0 if label == 1 else -1.0) * x[None, :]
    else:
        F = W @ x
        Fs = F.copy()
        Fs[label] = -np.inf
        phi = _kesler(x, K, label, int(np.argmax(Fs)))
    m, N = float(np.sum(W * phi)), float(np.sum(W * W))
    assume(m < 0.9)
    # the two constraints must be compatible with room to spare
    cos = m / np.sqrt(N * np.sum(phi * phi))
    assume(cos > -0.95)
    V = _romma_step(W, x, label, aggressive=True)
    A = np.stack([W.ravel(), phi.ravel()])
    res = minimize(
        lambda v: v @ v,
        W.ravel(),
        jac=lambda v: 2 * v,
        hess=lambda v: 2 * np.eye(v.size),
        constraints=[LinearConstraint(A, [N, 1.0], np.inf)],
        method="trust-constr",
        options={"gtol": 1e-12, "xtol": 1e-14, "maxiter": 2000},
    )
    assert res.constr_violation < 1e-8
    size = max(1.0, np.linalg.norm(res.x))
    # the kernel's step is at least as good as the solver's (the interior
    # point stops ~1e-5 inside), and the same point
    assert np.sum(V * V) <= res.fun * (1 + 1e-6) + 1e-9
    assert_allclose(V.ravel(), res.x, atol=1e-3 * size)
    # KKT: feasibility, and V = l1 W + l2 phi with l >= 0 supported on the
    # active constraints only (complementary slackness)
    g = np.array([np.sum(V * W) - N, np.sum(V * phi) - 1.0])
    assert g[0] >= -1e-9 * max(1.0, N) and g[1] >= -1e-9
    active = g <= 1e-9 * np.array([max(1.0, N), 1.0])
    A = np.stack([W.ravel(), phi.ravel()], axis=1)[:, active]
    lam, residual = nnls(A, V.ravel())
    assert residual <= 1e-9 * size


@pytest.mark.parametrize("aggressive", [False, True])
def test_romma_from_zero_is_phi_over_its_norm(aggressive):
    x = np.array([1.0, -2.0, 0.5])
    V = _romma_step(np.zeros((1, 3)), x, 0, aggressive)
    assert_allclose(V[0], -x / (x @ x))


def test_romma_leaves_a_contradicting_example_alone():
    """phi = -w (scaled): no vector meets both constraints; no step."""
    w = np.array([[1.0, 2.0, -1.0]])
    V = _romma_step(w, 2 * w[0], 0, aggressive=False)
    assert_allclose(V, w)
