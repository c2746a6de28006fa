"""The cost-sensitive, multilabel-ranking and MIRA steps against their own
optimisation problems (the same method as ``test_oracle.py``).

- Cost-sensitive multiclass: the multiclass rules with margins
  ``sqrt(rho(y, r))``, zero costs included, solve the same QP as with unit
  margins (``constraints`` of ``test_oracle``).
- MULTILABEL: one step is the minimiser of the single most violated of the
  extreme constraints of the ranking "relevant > virtual label of score 0 >
  irrelevant" (margins 1, 1/2, 1/2), for PA, PA-I and PA-II.
- MIRA: one step solves ``min 1/2 sum_r ||M_r + tau_r x||^2 - beta tau_y``
  s.t. ``tau_r <= c [r == y]`` and ``sum_r tau_r = 0`` (Crammer & Singer
  2003, with the margin ``beta``), checked against SLSQP on ``tau``, against
  its KKT conditions, and for ultraconservativeness.
"""

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from kernel_calls import first_order_epoch
from numpy.testing import assert_allclose, assert_array_equal
from scipy.optimize import minimize
from test_oracle import (
    MULTICLASS,
    SLACKS,
    Constraints,
    Problem,
    any_C,
    assert_kkt,
    assert_matches_solver,
    by_name,
    constraints,
    kernel_delta,
    problems,
)

from sklearn_pa._compiled import _rules

Rule, Slack = _rules.Rule, _rules.Slack


# ------------------------------------------------------------ cost-sensitive
@st.composite
def cost_problems(draw, rule, slack):
    """A multiclass problem whose margins are sqrt of a random cost matrix
    with a zero diagonal and some zero off-diagonal costs."""
    p = draw(problems(rule, st.just(slack)))
    K = p.n_columns
    cost = draw(
        hnp.arrays(
            np.float64,
            (K, K),
            elements=st.one_of(st.just(0.0), st.floats(0.0, 16.0)),
        )
    )
    np.fill_diagonal(cost, 0.0)
    p.margins = np.sqrt(cost)
    return p


@pytest.mark.parametrize("slack", SLACKS, ids=by_name)
@pytest.mark.parametrize("rule", MULTICLASS, ids=by_name)
@settings(max_examples=120, deadline=None)
@given(data=st.data())
def test_cost_sensitive_step_is_the_minimiser(rule, slack, data):
    p = data.draw(cost_problems(rule, slack))
    cons = constraints(p)
    delta = kernel_delta(p, cons)
    assert_kkt(p, cons, delta)
    assert_matches_solver(p, cons, delta)


# ---------------------------------------------------------------- multilabel
def multilabel_step(p, relevant, C=None, rule=Rule.MULTILABEL):
    """One kernel step of a multilabel rule (the thresholded one by default)
    on the problem ``p`` with the label set ``relevant``."""
    D, K = p.W.shape
    W = p.W.copy()
    b = p.b.copy()
    indices = np.flatnonzero(relevant).astype(np.int32)
    out = first_order_epoch(
        np.ascontiguousarray(p.x, dtype=float),
        np.arange(D, dtype=np.int32),
        np.zeros(1, dtype=np.int32),
        True,
        D,
        np.zeros(1, dtype=np.int64),
        np.zeros(1, dtype=np.int32),
        np.zeros(1),
        np.array([p.sample_weight]),
        W,
        b,
        np.zeros((0, K)),
        np.zeros(0),
        np.ones(K),
        np.ones(K),
        np.ones((1, 1)),
        np.ones(K, dtype=np.uint8),
        int(rule),
        int(p.slack),
        float(p.C if C is None else C),
        0.0,
        float(p.fit_intercept),
        0,
        0,
        np.zeros(1),
        label_indptr=np.array([0, indices.size], dtype=np.int64),
        label_indices=indices if indices.size else np.zeros(1, dtype=np.int32),
    )
    return W, b, out


def extreme_constraint(p, relevant):
    """The most violated extreme constraint of the ranking Y > 0 > rest, as
    (coefficients, required margin, loss), or None when none is violated."""
    s = p.scores
    rel, irr = np.flatnonzero(relevant), np.flatnonzero(~relevant)
    options = []
    if rel.size and irr.size:
        r = rel[np.argmin(s[rel])]
        u = irr[np.argmax(s[irr])]
        options.append(({r: 1.0, u: -1.0}, 1.0, 1.0 - (s[r] - s[u])))
    if rel.size:
        r = rel[np.argmin(s[rel])]
        options.append(({r: 1.0}, 0.5, 0.5 - s[r]))
    if irr.size:
        u = irr[np.argmax(s[irr])]
        options.append(({u: -1.0}, 0.5, 0.5 + s[u]))
    losses = np.array([o[2] for o in options])
    scale = 1.0 + np.abs(s).max()
    # skip rows where the choice (or a minimum/maximum) is a rounding tie
    top = np.sort(losses)[::-1]
    if len(top) > 1:
        assume(abs(top[0] - top[1]) > 1e-9 * scale or top[0] <= 0)
    for group in (s[rel], s[irr]):
        g = np.sort(group)
        assume(len(g) < 2 or np.min(np.diff(g)) > 1e-9 * scale)
    best = options[int(np.argmax(losses))]
    return best if best[2] > 0 else None


def multilabel_constraints(p, relevant):
    xt, K = p.x_aug, p.n_columns
    chosen = extreme_constraint(p, relevant)
    if chosen is None:
        return Constraints(np.zeros((0, len(xt) * K)), np.zeros(0), np.zeros(0, int), 1)
    coefs, _, loss = chosen
    a = np.zeros((len(xt), K))
    for k, sign in coefs.items():
        a[:, k] += sign * xt
    return Constraints(a.reshape(1, -1), np.array([loss]), np.zeros(1, int), 1)


@st.composite
def multilabel_problems(draw, slack, C=any_C):
    p = draw(problems(Rule.SUPPORT, st.just(slack), C, sample_weight=st.just(1.0)))
    relevant = draw(hnp.arrays(np.bool_, p.n_columns))
    return p, relevant


def multilabel_delta(p, relevant, cons):
    W, b, (_, updates, skipped, overflow) = multilabel_step(p, relevant)
    assert skipped == 0 and not overflow
    delta = W - p.W
    if p.fit_intercept:
        delta = np.vstack([delta, (b - p.b)[None, :]])
    else:
        assert_array_equal(b, p.b)
    assert updates == int(np.any(delta != 0)) or len(cons.c) == 1
    return delta


@pytest.mark.parametrize("slack", SLACKS, ids=by_name)
@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_multilabel_step_is_the_minimiser(slack, data):
    """Relevant sets of any size, including none and all labels."""
    p, relevant = data.draw(multilabel_problems(slack))
    cons = multilabel_constraints(p, relevant)
    delta = multilabel_delta(p, relevant, cons)
    if len(cons.c) == 0:
        assert_array_equal(delta, 0.0)
        return
    assert_kkt(p, cons, delta)
    assert_matches_solver(p, cons, delta)


@settings(max_examples=100, deadline=None)
@given(data=st.data())
def test_multilabel_hard_constraint_holds_after_the_step(data):
    p, relevant = data.draw(multilabel_problems(Slack.HINGE, st.just(np.inf)))
    chosen = extreme_constraint(p, relevant)
    W, b, _ = multilabel_step(p, relevant)
    s_new = p.x @ W + b
    tol = 1e-9 * (1.0 + np.abs(p.scores).max())
    if chosen is not None:
        coefs, margin, _ = chosen
        assert sum(sign * s_new[k] for k, sign in coefs.items()) >= margin - tol


def test_multilabel_kernel_checks_label_arrays():
    p = Problem(
        rule=Rule.SUPPORT,
        slack=Slack.HINGE,
        C=1.0,
        x=np.array([1.0, 2.0]),
        W=np.zeros((2, 3)),
        b=np.zeros(3),
        label=0,
        target=0.0,
        epsilon=0.0,
        margins=np.ones((3, 3)),
        fit_intercept=False,
    )
    with pytest.raises(ValueError, match="label indices must lie"):
        first_order_epoch(
            p.x,
            np.arange(2, dtype=np.int32),
            np.zeros(1, dtype=np.int32),
            True,
            2,
            np.zeros(1, dtype=np.int64),
            np.zeros(1, dtype=np.int32),
            np.zeros(1),
            np.ones(1),
            p.W,
            p.b,
            np.zeros((0, 3)),
            np.zeros(0),
            np.ones(3),
            np.ones(3),
            np.ones((1, 1)),
            np.ones(3, dtype=np.uint8),
            int(Rule.MULTILABEL),
            int(Slack.HINGE),
            1.0,
            0.0,
            0.0,
            0,
            0,
            np.zeros(1),
            label_indptr=np.array([0, 1], dtype=np.int64),
            label_indices=np.array([3], dtype=np.int32),
        )
    with pytest.raises(ValueError, match="needs label_indptr"):
        first_order_epoch(
            p.x,
            np.arange(2, dtype=np.int32),
            np.zeros(1, dtype=np.int32),
            True,
            2,
            np.zeros(1, dtype=np.int64),
            np.zeros(1, dtype=np.int32),
            np.zeros(1),
            np.ones(1),
            p.W,
            p.b,
            np.zeros((0, 3)),
            np.zeros(0),
            np.ones(3),
            np.ones(3),
            np.ones((1, 1)),
            np.ones(3, dtype=np.uint8),
            int(Rule.MULTILABEL),
            int(Slack.HINGE),
            1.0,
            0.0,
            0.0,
            0,
            0,
            np.zeros(1),
        )
    assert_array_equal(p.W, 0.0)


# ---------------------------------------------------------------------- MIRA
def mira_step(p, beta, c):
    """One MIRA kernel step (bound c passed as C, margin beta as epsilon)."""
    D, K = p.W.shape
    W = p.W.copy()
    b = p.b.copy()
    out = first_order_epoch(
        np.ascontiguousarray(p.x, dtype=float),
        np.arange(D, dtype=np.int32),
        np.zeros(1, dtype=np.int32),
        True,
        D,
        np.zeros(1, dtype=np.int64),
        np.array([p.label], dtype=np.int32),
        np.zeros(1),
        np.ones(1),
        W,
        b,
        np.zeros((0, K)),
        np.zeros(0),
        np.ones(max(K, 2)),
        np.ones(max(K, 2)),
        np.ones((1, 1)),
        np.ones(K, dtype=np.uint8),
        int(Rule.MIRA),
        int(Slack.HINGE),
        float(c),
        float(beta),
        float(p.fit_intercept),
        0,
        0,
        np.zeros(1),
    )
    return W, b, out


def augmented(p, W, b):
    """Prototypes as rows ``[M_r, b_r]`` (the intercept is the weight of a
    constant feature 1 in these problems)."""
    return np.hstack([W.T, b[:, None]]) if p.fit_intercept else W.T.copy()


def solve_mira(scores, A, y, beta, c):
    """The MIRA program in tau with SLSQP: with s_r the scores and A the
    squared norm of the row, 1/2 sum_r ||M_r + tau_r x||^2 - beta tau_y is
    1/2 A ||tau||^2 + sum_r (s_r - beta [r == y]) tau_r + constant."""
    K = len(scores)
    B = scores - beta * (np.arange(K) == y)

    def fun(t):
        return 0.5 * A * t @ t + B @ t

    def jac(t):
        return A * t + B

    bounds = [(None, c if r == y else 0.0) for r in range(K)]
    t0 = np.zeros(K)  # feasible: no step
    # SLSQP may stop on a stale quasi-Newton model ("positive directional
    # derivative"): restart from where it stopped, as in test_oracle
    for _ in range(5):
        res = minimize(
            fun,
            t0,
            jac=jac,
            method="SLSQP",
            bounds=bounds,
            constraints=[
                {"type": "eq", "fun": lambda t: t.sum(), "jac": lambda t: np.ones(K)}
            ],
            options={"ftol": 1e-14, "maxiter": 500},
        )
        if res.status != 8:
            break
        t0 = res.x
    assert res.status in (0, 8), res.message
    return res.x, fun


betas = st.one_of(st.just(0.0), st.floats(0.0, 3.0))
bounds_c = st.one_of(st.just(1.0), st.floats(0.05, 5.0))


@settings(max_examples=300, deadline=None)
@given(data=st.data(), beta=betas, c=bounds_c)
def test_mira_step_is_the_minimiser(data, beta, c):
    p = data.draw(problems(Rule.SUPPORT, st.just(Slack.HINGE)))
    xt, y = p.x_aug, p.label
    M0 = augmented(p, p.W, p.b)
    W, b, (_, updates, skipped, overflow) = mira_step(p, beta, c)
    assert skipped == 0 and not overflow
    dM = augmented(p, W, b) - M0
    A = xt @ xt
    tau = dM @ xt / A
    assert_allclose(dM, np.outer(tau, xt), atol=1e-12 * (1 + np.abs(dM).max()))
    scale = 1.0 + np.abs(p.scores).max() / A + c
    # feasibility
    assert abs(tau.sum()) <= 1e-10 * scale
    assert tau[y] <= c + 1e-10 * scale
    assert np.all(np.delete(tau, y) <= 1e-10 * scale)
    # KKT: tau_r = min(c [r == y], theta - B_r / A) for one theta
    s = p.scores
    B = s - beta * (np.arange(p.n_columns) == y)
    upper = np.where(np.arange(p.n_columns) == y, c, 0.0)
    free = tau < upper - 1e-9 * scale
    if free.any():
        theta = tau[free] + B[free] / A
        assert np.ptp(theta) <= 1e-8 * scale
        # at the bound, the unconstrained value theta - B_r / A is above it
        bound = ~free
        assert np.all(theta[0] - B[bound] / A >= upper[bound] - 1e-8 * scale)
    # ultraconservative: classes below the true class by beta or more keep still
    still = (np.arange(p.n_columns) != y) & (s <= s[y] - beta)
    assert np.all(np.abs(tau[still]) <= 1e-12 * scale)
    # the generic solver agrees
    ref, fun = solve_mira(s, A, y, beta, c)
    assert fun(tau) <= fun(ref) + 1e-7 * max(1.0, abs(fun(ref)))
    assert_allclose(tau, ref, atol=1e-5 * scale)
    assert updates == int(np.any(dM != 0))


@settings(max_examples=200, deadline=None)
@given(data=st.data(), beta=betas, c=bounds_c)
def test_binary_mira_is_the_two_prototype_program(data, beta, c):
    """One column holds w = M_1 - M_0 with M_0 = -w/2, M_1 = w/2."""
    p = data.draw(problems(Rule.BINARY, st.just(Slack.HINGE)))
    xt, y = p.x_aug, p.label
    w0 = augmented(p, p.W, p.b)[0]
    M0 = np.vstack([-w0 / 2, w0 / 2])
    W, b, _ = mira_step(p, beta, c)
    w1 = augmented(p, W, b)[0]
    s = np.array([-p.scores[0] / 2, p.scores[0] / 2])
    ref, _ = solve_mira(s, xt @ xt, y, beta, c)
    M1 = M0 + np.outer(ref, xt)
    expected = M1[1] - M1[0]
    scale = 1.0 + np.abs(w0).max() + c * np.abs(xt).max()
    assert_allclose(w1, expected, atol=1e-5 * scale)


def test_mira_from_zero_with_zero_margin_never_moves():
    """The paper's program has the zero step at a tie: documented behaviour."""
    p = Problem(
        rule=Rule.SUPPORT,
        slack=Slack.HINGE,
        C=1.0,
        x=np.array([1.0, -2.0]),
        W=np.zeros((2, 4)),
        b=np.zeros(4),
        label=2,
        target=0.0,
        epsilon=0.0,
        margins=np.ones((4, 4)),
        fit_intercept=True,
    )
    W, b, (mistakes, updates, _, _) = mira_step(p, 0.0, 1.0)
    assert_array_equal(W, 0.0)
    assert (mistakes, updates) == (1, 0)
    W, b, (_, updates, _, _) = mira_step(p, 1.0, 1.0)
    assert updates == 1
    # the true class gains, every tied class loses the same, sum zero
    assert W[0, 2] > 0 and np.allclose(np.delete(W[0], 2), W[0, 0])
    assert_allclose(W.sum(axis=1), 0.0, atol=1e-15)
