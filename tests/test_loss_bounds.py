"""The loss bounds of PA, PA-I and PA-II (Crammer et al. 2006, sec. 4).

With ``l_t`` the hinge loss of the online weights on round t and ``l*_t``
that of any fixed competitor ``u``:

- Theorem 2 (PA, separable: l*_t = 0 for all t, ||x_t|| <= R):
  sum l_t^2 <= ||u||^2 R^2;
- Theorem 3 (PA, ||x_t|| = 1): sum l_t^2 <= (||u|| + 2 sqrt(sum l*_t^2))^2;
- Theorem 4 (PA-I): #mistakes <= max(R^2, 1/C) (||u||^2 + 2 C sum l*_t);
- Theorem 5 (PA-II): sum l_t^2 <= (R^2 + 1/(2C)) (||u||^2 + 2 C sum l*_t^2).

The competitor ``u`` is a batch solution on the whole stream (the
hard-margin SVM by SLSQP on separable streams, a linear SVM with the hinge or
squared hinge otherwise), also rescaled, since the bounds hold for every u.
The online losses are the scores each sample had before its update
(progressive validation), on separable and noisy random streams.
"""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import minimize
from sklearn.svm import LinearSVC

from sklearn_pa import PassiveAggressiveClassifier
from sklearn_pa.model_selection import progressive_val_predict

RTOL = 1e-9


def stream(seed, n, d, noise, separable, unit_norm):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) * rng.uniform(0.2, 3.0, size=(n, 1))
    u0 = rng.normal(size=d)
    m = X @ u0
    if separable:
        keep = np.abs(m) > 0.2 * np.std(m)
        X, m = X[keep], m[keep]
    if unit_norm:
        X = X / np.linalg.norm(X, axis=1, keepdims=True)
    y = np.where(m > 0, 1, -1)
    if noise:
        flip = rng.random(len(y)) < noise
        y[flip] = -y[flip]
    return X, y


def online_losses(C, loss, X, y):
    """Hinge losses and mistakes of the online weights, before each update."""
    pa = PassiveAggressiveClassifier(
        C=C, loss=loss, fit_intercept=False, shuffle=False, max_iter=1, tol=None
    )
    scores, predicted = progressive_val_predict(
        pa, X, y, classes=[-1, 1], method="decision_function"
    )
    assert predicted.all()
    margin = y * scores
    return np.maximum(0.0, 1.0 - margin), int(np.sum(margin <= 0))


def hard_margin_u(X, y):
    """min ||u||^2 s.t. y_t u . x_t >= 1, by SLSQP, scaled to be feasible
    (by a hair more, so that rounding keeps every l*_t at 0)."""
    A = y[:, None] * X
    res = minimize(
        lambda u: 0.5 * u @ u,
        np.zeros(X.shape[1]),
        jac=lambda u: u,
        constraints=[{"type": "ineq", "fun": lambda u: A @ u - 1, "jac": lambda u: A}],
        method="SLSQP",
        options={"ftol": 1e-12, "maxiter": 500},
    )
    u = res.x
    low = np.min(A @ u)
    assert low > 0, res.message
    return u / min(low, 1.0) * (1 + 1e-9)


def svm_u(X, y, loss, C=1.0):
    svm = LinearSVC(loss=loss, C=C, fit_intercept=False, max_iter=100000, tol=1e-8)
    return svm.fit(X, y).coef_.ravel()


def competitor_losses(u, X, y):
    return np.maximum(0.0, 1.0 - y * (X @ u))


seeds = st.integers(0, 2**31 - 1)
sizes = st.integers(20, 120)
dims = st.integers(1, 6)
scales = st.sampled_from([0.5, 1.0, 2.0])


#: the streams of Theorems 4 and 5: noisy or separable, any aggressiveness C,
#: and competitors u of several scales
def noisy_streams(test):
    return settings(max_examples=40, deadline=None)(
        given(
            seed=seeds,
            n=sizes,
            d=dims,
            noise=st.sampled_from([0.0, 0.05, 0.2]),
            C=st.floats(0.01, 10.0),
            scale=scales,
            separable=st.booleans(),
        )(test)
    )


@settings(max_examples=40, deadline=None)
@given(seed=seeds, n=sizes, d=dims, scale=st.sampled_from([1.0, 1.5, 3.0]))
def test_theorem_2_separable_pa(seed, n, d, scale):
    X, y = stream(seed, n, d, noise=0.0, separable=True, unit_norm=False)
    u = scale * hard_margin_u(X, y)  # any u with l*_t = 0 (scale >= 1)
    assert np.all(competitor_losses(u, X, y) == 0.0)
    ell, _ = online_losses(np.inf, "hinge", X, y)
    R2 = np.max(np.sum(X**2, axis=1))
    assert np.sum(ell**2) <= (u @ u) * R2 * (1 + RTOL)


@settings(max_examples=40, deadline=None)
@given(
    seed=seeds,
    n=sizes,
    d=dims,
    noise=st.sampled_from([0.0, 0.05, 0.2]),
    scale=scales,
)
def test_theorem_3_pa_unit_norm(seed, n, d, noise, scale):
    X, y = stream(seed, n, d, noise=noise, separable=False, unit_norm=True)
    u = scale * svm_u(X, y, "squared_hinge")
    star = competitor_losses(u, X, y)
    ell, _ = online_losses(np.inf, "hinge", X, y)
    bound = (np.linalg.norm(u) + 2 * np.sqrt(np.sum(star**2))) ** 2
    assert np.sum(ell**2) <= bound * (1 + RTOL)


@noisy_streams
def test_theorem_4_pa1_mistakes(seed, n, d, noise, C, scale, separable):
    X, y = stream(seed, n, d, noise=noise, separable=separable, unit_norm=False)
    u = scale * svm_u(X, y, "hinge")
    star = competitor_losses(u, X, y)
    _, mistakes = online_losses(C, "hinge", X, y)
    R2 = np.max(np.sum(X**2, axis=1))
    bound = max(R2, 1.0 / C) * (u @ u + 2 * C * np.sum(star))
    assert mistakes <= bound * (1 + RTOL)


@noisy_streams
def test_theorem_5_pa2_squared_loss(seed, n, d, noise, C, scale, separable):
    X, y = stream(seed, n, d, noise=noise, separable=separable, unit_norm=False)
    u = scale * svm_u(X, y, "squared_hinge")
    star = competitor_losses(u, X, y)
    ell, _ = online_losses(C, "squared_hinge", X, y)
    R2 = np.max(np.sum(X**2, axis=1))
    bound = (R2 + 1.0 / (2 * C)) * (u @ u + 2 * C * np.sum(star**2))
    assert np.sum(ell**2) <= bound * (1 + RTOL)


def test_bounds_are_not_vacuous_here():
    """On a separable stream the PA bound is within a small factor of the
    observed loss (the tests above would catch a real violation)."""
    X, y = stream(3, 200, 3, noise=0.0, separable=True, unit_norm=False)
    u = hard_margin_u(X, y)
    ell, _ = online_losses(np.inf, "hinge", X, y)
    R2 = np.max(np.sum(X**2, axis=1))
    assert 0 < np.sum(ell**2) <= (u @ u) * R2
    assert (u @ u) * R2 < 100 * np.sum(ell**2)


def test_a_wrong_step_can_break_theorem_2():
    """The check is not vacuous: a rule whose steps overshoot the PA step
    four times breaks the bound on some separable streams, where PA keeps
    it on the same streams."""
    broken = 0
    for seed in range(50):
        X, y = stream(seed, 100, 3, noise=0.0, separable=True, unit_norm=False)
        u = hard_margin_u(X, y)
        R2 = np.max(np.sum(X**2, axis=1))
        w, total = np.zeros(X.shape[1]), 0.0
        for x, t in zip(X, y):
            ell = max(0.0, 1.0 - t * (w @ x))
            total += ell**2
            w += 4.0 * ell / (x @ x) * t * x
        broken += total > (u @ u) * R2
        ell, _ = online_losses(np.inf, "hinge", X, y)
        assert np.sum(ell**2) <= (u @ u) * R2 * (1 + RTOL)
    assert broken > 0
