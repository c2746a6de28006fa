"""One step of the first-order kernel against its own optimisation problem.

Every update rule of ``_first_order.epoch`` is the closed-form minimiser of

    min  1/2 ||Delta||^2 + C * sum(xi)      (HINGE, PA-I; C = inf is PA)
    or   1/2 ||Delta||^2 + C * sum(xi**2)   (SQUARED_HINGE, PA-II)
    s.t. a_i . Delta + xi[g_i] >= c_i       for each constraint i of the rule,

where ``Delta`` is the change of the augmented weights ``[W; b]`` (``W`` alone
without an intercept) and ``g_i`` names the slack variable of constraint ``i``
(one per column for OVR, a single shared one otherwise).  The tests write each
rule's constraints down, solve that primal problem with a generic solver, and
check that one kernel step reaches the same minimiser and satisfies the KKT
conditions.
"""

from dataclasses import dataclass

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from kernel_calls import first_order_epoch
from numpy.testing import assert_allclose, assert_array_equal
from scipy.optimize import minimize, nnls

from sklearn_pa._compiled import _rules

Rule, Slack = _rules.Rule, _rules.Slack

MULTICLASS = (Rule.MAX_LOSS, Rule.PREDICTION, Rule.SUPPORT)
ALL_RULES = (Rule.BINARY, Rule.REGRESSION, Rule.OVR, *MULTICLASS)
SLACKS = (Slack.HINGE, Slack.SQUARED_HINGE)

# agreement with the generic solver, relative to the size of the answer
SOLVER_RTOL = 1e-6
# the kernel is a closed form: its KKT residuals are at rounding level of the
# natural scale of each quantity (see ``Tolerances``)
KKT_RTOL = 1e-11

entries = st.floats(
    -3.0, 3.0, allow_nan=False, allow_infinity=False, allow_subnormal=False
)
finite_C = st.floats(0.01, 10.0, allow_nan=False)
any_C = st.one_of(st.just(np.inf), finite_C)
slacks = st.sampled_from(SLACKS)
unit_weight = st.just(1.0)
# C * sample_weight stays in the range of C (larger ones: test_sample_weight_scales_C)
sample_weights = st.one_of(unit_weight, st.floats(0.1, 1.0))
intercepts = st.booleans()


def by_name(value):
    return value.name


@dataclass
class Problem:
    """One row and the model state before the step."""

    rule: Rule
    slack: Slack
    C: float
    x: np.ndarray
    W: np.ndarray
    b: np.ndarray
    label: int
    target: float
    epsilon: float
    margins: np.ndarray
    fit_intercept: bool
    sample_weight: float = 1.0

    @property
    def n_columns(self):
        return self.W.shape[1]

    @property
    def C_eff(self):
        return self.C * self.sample_weight

    @property
    def x_aug(self):
        """The row the problem is posed on: ``[x, 1]`` with an intercept."""
        return np.append(self.x, 1.0) if self.fit_intercept else self.x

    @property
    def scores(self):
        """Scores at W0, accumulated in the kernel's order (intercept first)."""
        s = self.b.copy()
        for j, xj in enumerate(self.x):
            s = s + xj * self.W[j]
        return s


def step(p, C=None, sample_weight=None):
    """One kernel step on ``p``: the new ``W``, ``b`` and the kernel's
    ``(mistakes, updates, skipped, overflow)``."""
    C = p.C if C is None else C
    sample_weight = p.sample_weight if sample_weight is None else sample_weight
    D, K = p.W.shape
    W = np.ascontiguousarray(p.W, dtype=float).copy()
    b = np.ascontiguousarray(p.b, dtype=float).copy()
    # BINARY reads the class weight of its label (0 or 1) with a single column
    class_weight = np.ones(max(K, 2))
    out = first_order_epoch(
        np.ascontiguousarray(p.x, dtype=float),
        np.arange(D, dtype=np.int32),
        np.zeros(1, dtype=np.int32),
        True,
        D,
        np.zeros(1, dtype=np.int64),
        np.array([p.label], dtype=np.int32),
        np.array([p.target], dtype=float),
        np.array([sample_weight], dtype=float),
        W,
        b,
        np.zeros((0, K)),
        np.zeros(0),
        class_weight,
        class_weight,
        np.ascontiguousarray(p.margins, dtype=float),
        np.ones(K, dtype=np.uint8),
        int(p.rule),
        int(p.slack),
        float(C),
        float(p.epsilon),
        bool(p.fit_intercept),
        0,
        0,
        np.zeros(K),
        0,
        K,
    )
    return W, b, out


def default_margins(K):
    return np.ones((K, K)) - np.eye(K)


@st.composite
def problems(
    draw,
    rule,
    slack=slacks,
    C=any_C,
    sample_weight=unit_weight,
    fit_intercept=intercepts,
    zero_row=False,
):
    """A random row, model and hyper-parameters for ``rule``.

    Multiclass rules get either the default unit margins or random ones in
    [0.1, 2].
    """
    n_features = draw(st.integers(1, 6))
    K = 1 if rule in (Rule.BINARY, Rule.REGRESSION) else draw(st.integers(3, 6))
    if zero_row:
        x = np.zeros(n_features)
    else:
        x = draw(hnp.arrays(np.float64, n_features, elements=entries))
        assume(x @ x >= 1e-6)
    W = draw(hnp.arrays(np.float64, (n_features, K), elements=entries))
    b = draw(hnp.arrays(np.float64, K, elements=entries))
    if rule == Rule.BINARY:
        label = draw(st.integers(0, 1))
    elif rule == Rule.REGRESSION:
        label = 0
    else:
        label = draw(st.integers(0, K - 1))
    target, epsilon = 0.0, 0.0
    if rule == Rule.REGRESSION:
        target = draw(st.floats(-10.0, 10.0, allow_nan=False))
        epsilon = draw(st.sampled_from([0.0, 0.1]) | st.floats(0.0, 1.0))
    margins = default_margins(K)
    if rule in MULTICLASS:
        if draw(st.booleans()):
            off = draw(hnp.arrays(np.float64, (K, K), elements=st.floats(0.1, 2.0)))
            margins = off * default_margins(K)
    return Problem(
        rule=rule,
        slack=draw(slack),
        C=draw(C),
        x=x,
        W=W,
        b=b,
        label=label,
        target=target,
        epsilon=epsilon,
        margins=margins,
        fit_intercept=draw(fit_intercept),
        sample_weight=draw(sample_weight),
    )


def argmax_other(values, y):
    """Index of the largest value other than ``values[y]``, lowest on ties."""
    return max((u for u in range(len(values)) if u != y), key=lambda u: values[u])


def assume_no_rounding_tie(a, b, scale):
    """Skip rows where a comparison of the rule is decided by rounding alone."""
    assume(a == b or abs(a - b) > 1e-9 * scale)


def rival(p):
    """The rival class of MAX_LOSS and PREDICTION at W0, or None (no step)."""
    s, y, m = p.scores, p.label, p.margins
    scale = 1.0 + np.abs(s).max()
    values = m[y] - (s[y] - s) if p.rule == Rule.MAX_LOSS else s
    best = np.sort(np.delete(values, y))
    assume_no_rounding_tie(best[-1], best[-2], scale)
    r = argmax_other(values, y)
    if p.rule == Rule.MAX_LOSS:
        return r
    # PREDICTION steps only on a mistake (a tie with a wrong class is one)
    assume_no_rounding_tie(s[r], s[y], scale)
    return r if s[r] >= s[y] else None


@dataclass
class Constraints:
    """``A @ Delta.ravel() + xi[group] >= c``, one row per constraint."""

    A: np.ndarray
    c: np.ndarray
    group: np.ndarray
    n_slack: int


def constraints(p):
    """The constraints of ``p.rule`` on the change of the augmented weights."""
    xt, s, y, m, K = p.x_aug, p.scores, p.label, p.margins, p.n_columns
    rows, rhs, group = [], [], []

    def add(coefs, c, g=0):
        a = np.zeros((len(xt), K))
        for k, sign in coefs.items():
            a[:, k] += sign * xt
        rows.append(a.ravel())
        rhs.append(c)
        group.append(g)

    if p.rule == Rule.BINARY:
        ys = 1.0 if y == 1 else -1.0
        add({0: ys}, 1.0 - ys * s[0])
    elif p.rule == Rule.REGRESSION:
        # t - eps - xi <= score_new <= t + eps + xi
        add({0: 1.0}, p.target - p.epsilon - s[0])
        add({0: -1.0}, s[0] - p.target - p.epsilon)
    elif p.rule == Rule.OVR:
        for k in range(K):
            ys = 1.0 if k == y else -1.0
            add({k: ys}, 1.0 - ys * s[k], g=k)
    elif p.rule == Rule.SUPPORT:
        for u in range(K):
            if u != y:
                add({y: 1.0, u: -1.0}, m[y, u] - (s[y] - s[u]))
    else:
        r = rival(p)
        if r is not None:
            add({y: 1.0, r: -1.0}, m[y, r] - (s[y] - s[r]))
    return Constraints(
        A=np.array(rows).reshape(len(rows), len(xt) * K),
        c=np.array(rhs, dtype=float),
        group=np.array(group, dtype=int),
        n_slack=K if p.rule == Rule.OVR else 1,
    )


def optimal_slack(cons, delta):
    """The smallest slacks that make ``delta`` feasible (optimal given delta)."""
    xi = np.zeros(cons.n_slack)
    np.maximum.at(xi, cons.group, cons.c - cons.A @ delta.ravel())
    return xi


def objective(p, cons, delta):
    value = 0.5 * np.sum(delta**2)
    if np.isfinite(p.C_eff):
        xi = optimal_slack(cons, delta)
        penalty = xi if p.slack == Slack.HINGE else xi**2
        value += p.C_eff * np.sum(penalty)
    return value


def solve_primal(p, cons):
    """Minimise the rule's primal QP over (Delta, xi) with SLSQP.

    With C = inf there are no slack variables and the constraints are hard.
    PA-II is posed in ``eta = sqrt(2 C) xi``, the same problem with objective
    1/2 ||(Delta, eta)||^2, which keeps it well conditioned for any C.
    """
    n = cons.A.shape[1]
    shape = (len(p.x_aug), p.n_columns)
    C = p.C_eff
    n_slack = cons.n_slack if np.isfinite(C) else 0
    if len(cons.c) == 0:
        return np.zeros(shape), np.zeros(cons.n_slack)
    squared = p.slack == Slack.SQUARED_HINGE
    xi_per_unit = 1.0 / np.sqrt(2.0 * C) if squared else 1.0
    G = np.zeros((len(cons.c), n_slack))
    if n_slack:
        G[np.arange(len(cons.c)), cons.group] = xi_per_unit
    AG = np.hstack([cons.A, G])
    # objective 1/2 z' diag(quadratic) z + linear' z: the slack term is
    # C * sum(xi) for PA-I and 1/2 ||eta||^2 for PA-II
    quadratic = np.ones(n + n_slack)
    linear = np.zeros(n + n_slack)
    if not squared:
        quadratic[n:] = 0.0
        linear[n:] = C

    def fun(z):
        return 0.5 * z @ (quadratic * z) + linear @ z

    def jac(z):
        return quadratic * z + linear

    # PA-I keeps xi >= 0; PA-II needs no bound (a negative xi never helps)
    bounds = [(None, None)] * n + [(None if squared else 0.0, None)] * n_slack
    # with slacks, start from a feasible point: no change, xi covering every loss
    z0 = np.zeros(n + n_slack)
    if n_slack:
        z0[n:] = optimal_slack(cons, np.zeros(shape)) / xi_per_unit
    # SLSQP may stop early on a stale quasi-Newton model ("positive directional
    # derivative"): restart from where it stopped; the answer is checked for
    # feasibility and optimality by the caller
    for _ in range(5):
        result = minimize(
            fun,
            z0,
            jac=jac,
            method="SLSQP",
            bounds=bounds,
            constraints=[
                {"type": "ineq", "fun": lambda z: AG @ z - cons.c, "jac": lambda z: AG}
            ],
            options={"ftol": 1e-12, "maxiter": 500},
        )
        if result.status != 8:
            break
        z0 = result.x
    assert result.status in (0, 8), result.message
    xi = result.x[n:] * xi_per_unit if n_slack else np.zeros(cons.n_slack)
    return result.x[:n].reshape(shape), xi


@dataclass
class Tolerances:
    """Rounding-level tolerances in the natural unit of each quantity.

    With L the largest constraint value (a loss) and s = ||x~||^2, constraint
    values are O(L), multipliers and steps (tau, T, C, 2 C xi) are O(L / s),
    and the weight changes O(L / sqrt(s)).
    """

    gap: float
    tau: float
    delta: float

    @classmethod
    def of(cls, p, cons, rtol=KKT_RTOL):
        L = 1.0 + np.abs(cons.c).max(initial=0.0)
        s = p.x_aug @ p.x_aug
        return cls(gap=rtol * L, tau=rtol * L / s, delta=rtol * L / np.sqrt(s))


def kernel_delta(p, cons):
    """The kernel's change of the augmented weights, shape (D [+ 1], K), after
    checking the bookkeeping of the step."""
    W, b, (_, updates, skipped, overflow) = step(p)
    assert skipped == 0 and not overflow
    assert np.all(np.isfinite(W)) and np.all(np.isfinite(b))
    changed = not (np.array_equal(W, p.W) and np.array_equal(b, p.b))
    if updates and not changed:
        # a positive step too small to move any weight: the loss that caused
        # it is itself at rounding level
        assert np.all(cons.c <= Tolerances.of(p, cons).gap)
    else:
        assert updates == int(changed), "`updates` counts the changed rows"
    delta = W - p.W
    if p.fit_intercept:
        return np.vstack([delta, (b - p.b)[None, :]])
    assert_array_equal(b, p.b)
    return delta


def assert_kkt(p, cons, delta):
    """KKT conditions of the rule's primal problem at ``delta``.

    The multipliers tau >= 0 are recovered by non-negative least squares on
    the active constraints (so tau vanishes off them); the checks are primal
    feasibility, complementary slackness, stationarity in Delta
    (Delta = sum tau_i a_i), and stationarity in xi: per slack, T = sum tau_i
    obeys T <= C with equality when xi > 0 (PA-I), T = 2 C xi (PA-II), and
    xi = 0 (PA).
    """
    tol = Tolerances.of(p, cons)
    C = p.C_eff
    xi = optimal_slack(cons, delta)
    if not np.isfinite(C):
        assert np.all(xi <= tol.gap), f"PA: hard constraint violated by {xi}"
        xi[:] = 0.0
    gap = cons.A @ delta.ravel() + xi[cons.group] - cons.c
    assert np.all(gap >= -tol.gap), f"primal infeasible: {gap}"
    active = gap <= tol.gap
    tau = np.zeros(len(cons.c))
    if active.any():
        tau[active], _ = nnls(cons.A[active].T, delta.ravel())
    assert np.all(tau >= 0.0)
    assert np.all(gap[tau > tol.tau] <= tol.gap), "complementary slackness"
    assert_allclose(
        cons.A.T @ tau, delta.ravel(), atol=tol.delta, err_msg="stationarity"
    )
    T = np.bincount(cons.group, weights=tau, minlength=cons.n_slack)
    if np.isfinite(C) and p.slack == Slack.HINGE:
        assert np.all(T <= C + tol.tau), f"PA-I: sum of steps {T} above C = {C}"
        assert_allclose(T[xi > tol.gap], C, atol=tol.tau, err_msg="PA-I: T < C")
    elif np.isfinite(C):
        assert_allclose(T, 2 * C * xi, atol=tol.tau + 2 * C * tol.gap)


def assert_matches_solver(p, cons, delta):
    """``delta`` is the minimiser the generic solver finds, with its objective."""
    ref, ref_xi = solve_primal(p, cons)
    size = max(1.0, np.linalg.norm(ref))
    gap = cons.A @ ref.ravel() + ref_xi[cons.group] - cons.c
    assert np.all(gap >= -Tolerances.of(p, cons, SOLVER_RTOL).gap)
    err = np.linalg.norm(delta - ref)
    assert err <= SOLVER_RTOL * size, (
        f"the kernel step is not the minimiser: |difference| = {err:.3g}\n"
        f"kernel:\n{delta}\nsolver:\n{ref}"
    )
    f_kernel, f_ref = objective(p, cons, delta), objective(p, cons, ref)
    assert abs(f_kernel - f_ref) <= SOLVER_RTOL * max(1.0, f_ref), (f_kernel, f_ref)


@pytest.mark.parametrize("slack", SLACKS, ids=by_name)
@pytest.mark.parametrize("rule", ALL_RULES, ids=by_name)
@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_step_is_the_minimiser(rule, slack, data):
    """One step solves the rule's primal problem, with C in {inf} U [0.01, 10]
    and C scaled by the sample weight."""
    p = data.draw(problems(rule, st.just(slack), sample_weight=sample_weights))
    cons = constraints(p)
    delta = kernel_delta(p, cons)
    assert_kkt(p, cons, delta)
    assert_matches_solver(p, cons, delta)


SUPPORT_SETTINGS = {
    "PA": (Slack.HINGE, st.just(np.inf)),
    "PA-I": (Slack.HINGE, finite_C),
    "PA-II": (Slack.SQUARED_HINGE, finite_C),
}


@pytest.mark.parametrize("setting", list(SUPPORT_SETTINGS))
@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_support_step(setting, data):
    """SPA in its own terms: Delta w_y = T x~ and Delta w_u = -tau_u x~ with
    tau_u >= 0 and T = sum tau_u; every support class (tau_u > 0) sits on its
    constraint with the shared slack xi; T <= C with T = C when xi > 0 (PA-I),
    xi = T / (2 C) (PA-II), xi = 0 (PA); and the generic minimiser agrees.
    """
    slack, C = SUPPORT_SETTINGS[setting]
    p = data.draw(problems(Rule.SUPPORT, st.just(slack), C))
    cons = constraints(p)
    tol = Tolerances.of(p, cons)
    delta = kernel_delta(p, cons)
    xt, y = p.x_aug, p.label

    tau = -(xt @ delta) / (xt @ xt)
    T = -tau[y]
    tau = np.delete(tau, y)
    expected = -np.outer(xt, np.insert(tau, y, -T))
    assert_allclose(delta, expected, atol=tol.delta, err_msg="not Delta = x~ tau")
    assert np.all(tau >= -tol.tau)
    assert_allclose(T, tau.sum(), atol=tol.tau)

    s_new = p.scores + xt @ delta
    shortfall = np.delete(p.margins[y] - (s_new[y] - s_new), y)
    xi = max(0.0, shortfall.max())
    assert_allclose(shortfall[tau > tol.tau], xi, atol=tol.gap, err_msg="support")
    if setting == "PA":
        assert xi <= tol.gap
    elif setting == "PA-I":
        assert T <= p.C + tol.tau
        if xi > tol.gap:
            assert_allclose(T, p.C, atol=tol.tau)
    else:
        assert_allclose(xi, T / (2 * p.C), atol=tol.gap + tol.tau / (2 * p.C))
    assert_matches_solver(p, cons, delta)


@pytest.mark.parametrize("rule", ALL_RULES, ids=by_name)
@settings(max_examples=100, deadline=None)
@given(data=st.data())
def test_hard_constraints_hold_after_the_step(rule, data):
    """With C = inf the row just seen has no loss left on the rule's
    constraints (for MAX_LOSS and PREDICTION: against the rival at W0)."""
    p = data.draw(problems(rule, C=st.just(np.inf)))
    W, b, _ = step(p)
    s_new = p.x @ W + b
    y, m = p.label, p.margins
    tol = 1e-9 * (1.0 + np.abs(p.scores).max())
    if rule == Rule.BINARY:
        assert (1.0 if y == 1 else -1.0) * s_new[0] >= 1.0 - tol
    elif rule == Rule.REGRESSION:
        assert abs(p.target - s_new[0]) <= p.epsilon + tol
    elif rule == Rule.OVR:
        signs = np.where(np.arange(p.n_columns) == y, 1.0, -1.0)
        assert np.all(signs * s_new >= 1.0 - tol)
    elif rule == Rule.SUPPORT:
        assert np.all(np.delete(s_new[y] - s_new - m[y], y) >= -tol)
    else:
        r = rival(p)
        if r is not None:
            assert s_new[y] - s_new[r] >= m[y, r] - tol


@pytest.mark.parametrize("rule", ALL_RULES, ids=by_name)
@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_zero_row_without_intercept_is_a_no_op(rule, data):
    """Nothing to learn from x = 0 (not even with C = inf): no step, no NaN."""
    p = data.draw(problems(rule, fit_intercept=st.just(False), zero_row=True))
    W, b, (_, updates, skipped, overflow) = step(p)
    assert_array_equal(W, p.W)
    assert_array_equal(b, p.b)
    assert (updates, skipped, overflow) == (0, 0, False)


@pytest.mark.parametrize("rule", ALL_RULES, ids=by_name)
@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_zero_sample_weight_is_a_no_op(rule, data):
    p = data.draw(problems(rule))
    W, b, (_, updates, _, _) = step(p, sample_weight=0.0)
    assert_array_equal(W, p.W)
    assert_array_equal(b, p.b)
    assert updates == 0


@pytest.mark.parametrize("rule", ALL_RULES, ids=by_name)
@settings(max_examples=60, deadline=None)
@given(data=st.data(), weight=st.floats(0.01, 10.0))
def test_sample_weight_scales_C(rule, data, weight):
    p = data.draw(problems(rule))
    W_w, b_w, out_w = step(p, sample_weight=weight)
    W_c, b_c, out_c = step(p, C=p.C * weight, sample_weight=1.0)
    assert_allclose(W_w, W_c, rtol=1e-14, atol=0.0)
    assert_allclose(b_w, b_c, rtol=1e-14, atol=0.0)
    assert out_w == out_c


def test_short_class_weight_arrays_are_refused():
    """The kernel indexes class weights by label without bounds checks, so it
    checks their length once at the boundary."""
    p = Problem(
        rule=Rule.BINARY,
        slack=Slack.HINGE,
        C=1.0,
        x=np.array([1.25]),
        W=np.zeros((1, 1)),
        b=np.zeros(1),
        label=1,
        target=0.0,
        epsilon=0.0,
        margins=default_margins(1),
        fit_intercept=False,
    )
    one = np.ones(1)
    with pytest.raises(ValueError, match="class weights need 2 entries"):
        first_order_epoch(
            p.x,
            np.arange(1, dtype=np.int32),
            np.zeros(1, dtype=np.int32),
            True,
            1,
            np.zeros(1, dtype=np.int64),
            np.array([1], dtype=np.int32),
            np.zeros(1),
            np.ones(1),
            p.W,
            p.b,
            np.zeros((0, 1)),
            np.zeros(0),
            one,
            one,
            np.ones((1, 1)),
            np.ones(1, dtype=np.uint8),
            int(Rule.BINARY),
            int(Slack.HINGE),
            1.0,
            0.0,
            0.0,
            0,
            0,
            np.zeros(1),
            0,
            1,
        )
    W, b, out = step(p)
    assert_allclose(W, [[0.8]])
    assert out[1] == 1 and not out[3]
