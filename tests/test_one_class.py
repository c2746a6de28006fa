"""Uniclass Passive-Aggressive (PassiveAggressiveOneClass).

Each step of the compiled kernel is checked against a generic solver (SLSQP) of
its own problem

    min_w 1/2 ||w - w_t||^2 (+ C xi | + C xi^2)  s.t.  ||w - x|| <= eps + xi

and against its KKT conditions; the learned-radius variant against the same
problem on the augmented vector (w, r) with radius B.
"""

import copy

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from kernel_calls import uniclass_epoch
from numpy.testing import assert_allclose
from scipy.optimize import minimize
from sklearn.base import clone
from sklearn.linear_model import SGDOneClassSVM
from sklearn.metrics import roc_auc_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from sklearn_pa import PassiveAggressiveOneClass
from sklearn_pa._compiled import _rules

Slack = _rules.Slack

entries = st.floats(-3.0, 3.0, allow_nan=False, allow_subnormal=False)
any_C = st.one_of(st.just(np.inf), st.floats(0.01, 10.0))
slacks = st.sampled_from([Slack.HINGE, Slack.SQUARED_HINGE])


def kernel_step(x, w, slack, C, epsilon, learn=False, bound=0.0, r=0.0, sparse=False):
    """One step of the compiled kernel on the row ``x``: (new w, new r)."""
    X = sp.csr_matrix(x.reshape(1, -1)) if sparse else x.reshape(1, -1)
    if sparse:
        data, indices, indptr = X.data, X.indices, X.indptr
        if data.shape[0] == 0:
            data, indices = np.zeros(1), np.zeros(1, dtype=np.int32)
    else:
        data = np.ascontiguousarray(X).ravel()
        indices, indptr = np.arange(x.shape[0], dtype=np.int32), np.zeros(1, np.int32)
    w = w.astype(float).copy()
    # the kernel's state is the gap B - r of the learned radius
    extra = np.array([bound - r if learn else 0.0], dtype=float)
    uniclass_epoch(
        data,
        indices,
        indptr,
        not sparse,
        x.shape[0],
        np.zeros(1, dtype=np.int64),
        np.ones(1),
        w,
        extra,
        int(slack),
        float(C),
        float(epsilon),
        learn,
        float(bound),
        np.zeros(1),
    )
    return w, (bound - extra[0] if learn else r)


def solve(x, w0, slack, C, radius, r0=None):
    """SLSQP on the step's problem, over (w[, r], xi)."""
    n = w0.shape[0]
    aug = r0 is not None
    z_w0 = np.append(w0, r0) if aug else w0
    target = np.append(x, 0.0) if aug else x
    m = z_w0.shape[0]
    finite = np.isfinite(C)

    def split(z):
        return z[:m], (z[m] if finite else 0.0)

    def fun(z):
        v, xi = split(z)
        value = 0.5 * np.sum((v - z_w0) ** 2)
        if finite:
            value += C * (xi if slack == Slack.HINGE else xi**2)
        return value

    def con(z):
        v, xi = split(z)
        return radius + xi - np.linalg.norm(v - target)

    dist = np.linalg.norm(z_w0 - target)
    z0 = np.append(z_w0, max(dist - radius, 0.0)) if finite else z_w0.copy()
    if not finite:
        # a feasible start: on the segment, inside the ball
        z0 = target + (z_w0 - target) * min(1.0, 0.99 * radius / max(dist, 1e-300))
    bounds = [(None, None)] * m + ([(0.0, None)] if finite else [])
    res = minimize(
        fun,
        z0,
        method="SLSQP",
        constraints=[{"type": "ineq", "fun": con}],
        bounds=bounds,
        options={"ftol": 1e-14, "maxiter": 500},
    )
    v, _ = split(res.x)
    return (v[:n], v[n]) if aug else (v, None)


@settings(max_examples=60, deadline=None)
@given(
    x=hnp.arrays(np.float64, 4, elements=entries),
    w0=hnp.arrays(np.float64, 4, elements=entries),
    slack=slacks,
    C=any_C,
    epsilon=st.floats(0.05, 2.0),
    sparse=st.booleans(),
)
def test_fixed_radius_step_solves_its_problem(x, w0, slack, C, epsilon, sparse):
    w, _ = kernel_step(x, w0, slack, C, epsilon, sparse=sparse)
    ref, _ = solve(x, w0, slack, C, epsilon)
    dist0 = np.linalg.norm(w0 - x)
    assert_allclose(w, ref, atol=1e-5 * (1 + dist0))
    # KKT: w - w0 = mu (x - w) / ||x - w||, mu >= 0, complementary slackness
    mu = np.linalg.norm(w - w0)
    d = np.linalg.norm(w - x)
    loss = dist0 - epsilon
    if loss <= 0:
        assert mu == 0
        return
    assume(d > 1e-9)
    assert_allclose(w - w0, mu * (x - w) / d, atol=1e-9 * (1 + dist0))
    xi = max(d - epsilon, 0.0)
    if np.isinf(C):
        assert_allclose(d, epsilon, rtol=1e-9)  # plain PA lands on the sphere
    elif slack == Slack.HINGE:
        assert mu <= C * (1 + 1e-12)
        assert (C - mu) * xi <= 1e-9 * (1 + C * dist0)
    else:
        assert_allclose(mu, 2 * C * xi, rtol=1e-9, atol=1e-12)


@settings(max_examples=40, deadline=None)
@given(
    x=hnp.arrays(np.float64, 3, elements=entries),
    w0=hnp.arrays(np.float64, 3, elements=entries),
    slack=slacks,
    C=any_C,
    bound=st.floats(0.5, 5.0),
    frac=st.floats(0.05, 1.0),
    sparse=st.booleans(),
)
def test_learned_radius_step_solves_the_augmented_problem(
    x, w0, slack, C, bound, frac, sparse
):
    r0 = frac * bound
    w, r = kernel_step(
        x, w0, slack, C, 0.0, learn=True, bound=bound, r=r0, sparse=sparse
    )
    ref_w, ref_r = solve(x, w0, slack, C, bound, r0=r0)
    scale = 1 + np.linalg.norm(w0 - x) + r0
    assert_allclose(w, ref_w, atol=1e-5 * scale)
    assert_allclose(r, ref_r, atol=1e-5 * scale)
    # KKT on the augmented vector z = (w, r), target (x, 0), radius B
    z0, z, target = np.append(w0, r0), np.append(w, r), np.append(x, 0.0)
    mu, d = np.linalg.norm(z - z0), np.linalg.norm(z - target)
    if np.linalg.norm(z0 - target) > bound and d > 1e-9:
        assert_allclose(z - z0, mu * (target - z) / d, atol=1e-9 * scale)
        xi = max(d - bound, 0.0)
        if np.isinf(C):
            assert_allclose(d, bound, rtol=1e-9)
        elif slack == Slack.HINGE:
            assert mu <= C * (1 + 1e-12)
            assert (C - mu) * xi <= 1e-9 * (1 + C * scale)
        else:
            assert_allclose(mu, 2 * C * xi, rtol=1e-9, atol=1e-12)
    # the learned radius never shrinks
    assert r <= r0 + 1e-15
    assert np.sqrt(bound**2 - r**2) >= np.sqrt(bound**2 - r0**2) - 1e-12


def reference_stream(X, slack, C, epsilon, learn=False, bound=0.0):
    """The rule in plain numpy, one row after another."""
    w = np.zeros(X.shape[1])
    r = bound if learn else 0.0
    for x in X:
        dist = np.sqrt(np.sum((w - x) ** 2) + r * r)
        loss = dist - (bound if learn else epsilon)
        if loss <= 0 or dist == 0:
            continue
        if slack == Slack.HINGE:
            tau = min(C, loss)
        else:
            tau = loss / (1 + 0.5 / C)
        beta = min(tau / dist, 1.0)
        w = w + beta * (x - w)
        r = (1 - beta) * r
    return w, r


@pytest.mark.parametrize("slack", [Slack.HINGE, Slack.SQUARED_HINGE])
@pytest.mark.parametrize("C", [np.inf, 0.3, 5.0])
@pytest.mark.parametrize("learn", [False, True])
def test_sparse_scaled_representation_matches_the_plain_rule(slack, C, learn):
    """The O(nnz) representation (centre = a * v, rescaled when a < 1e-9)
    gives the plain rule's centre on a long sparse stream."""
    rng = np.random.RandomState(0)
    X = sp.random(400, 50, density=0.1, random_state=rng, format="csr") * 3.0
    X = X + sp.csr_matrix(np.eye(50)[rng.randint(50, size=400)])
    X = sp.csr_matrix(X)
    est = PassiveAggressiveOneClass(
        C=C,
        loss="hinge" if slack == Slack.HINGE else "squared_hinge",
        epsilon="learn" if learn else 0.5,
        epsilon_bound=2.0 if learn else None,
        max_iter=1,
        shuffle=False,
    )
    est.fit(X)
    w, r = reference_stream(X.toarray(), slack, C, 0.5, learn, 2.0)
    assert_allclose(est.center_, w, atol=1e-10)
    dense = clone(est).fit(X.toarray())
    assert_allclose(dense.center_, w, atol=1e-10)
    if learn:
        assert_allclose(est.epsilon_, np.sqrt(4.0 - r * r), atol=1e-10)


def test_plain_pa_puts_every_sample_inside_right_after_its_step():
    rng = np.random.RandomState(1)
    X = rng.normal(size=(50, 3))
    est = PassiveAggressiveOneClass(C=np.inf, epsilon=0.7, shuffle=False)
    for x in X:
        est.partial_fit(x[None])
        assert est.decision_function(x[None])[0] >= -1e-12


def test_predict_decision_and_score_samples_agree():
    rng = np.random.RandomState(0)
    X = rng.normal(size=(300, 4))
    est = PassiveAggressiveOneClass(epsilon=2.0, random_state=0).fit(X)
    dec = est.decision_function(X)
    assert_allclose(dec, est.score_samples(X) - est.offset_)
    assert_allclose(-est.score_samples(X), np.linalg.norm(X - est.center_, axis=1))
    assert set(np.unique(est.predict(X))) <= {-1, 1}
    np.testing.assert_array_equal(est.predict(X), np.where(dec < 0, -1, 1))
    Xs = sp.csr_matrix(X)
    assert_allclose(est.score_samples(Xs), est.score_samples(X), atol=1e-12)


def test_learned_radius_grows_and_stays_below_the_bound():
    rng = np.random.RandomState(0)
    X = rng.normal(size=(500, 2))
    est = PassiveAggressiveOneClass(epsilon="learn", epsilon_bound=4.0, shuffle=False)
    radii = []
    for batch in np.array_split(X, 10):
        est.partial_fit(batch)
        radii.append(est.epsilon_)
    assert np.all(np.diff(radii) >= 0)
    assert 0 < radii[-1] <= 4.0


def test_learn_needs_a_bound_and_leaves_nothing():
    est = PassiveAggressiveOneClass(epsilon="learn")
    with pytest.raises(ValueError, match="epsilon_bound"):
        est.fit(np.zeros((3, 2)))
    assert not hasattr(est, "center_")


def _bad_batches(X):
    nan = X.copy()
    nan[3, 1] = np.nan
    inf = X.copy()
    inf[2, 0] = np.inf
    return {
        "NaN": (nan, {}),
        "inf": (inf, {}),
        "wrong width": (X[:, :-1], {}),
        "NaN in sparse": (sp.csr_matrix(nan), {}),
        "negative sample_weight": (X, {"sample_weight": -np.ones(len(X))}),
        "wrong sample_weight length": (X, {"sample_weight": np.ones(2)}),
    }


@pytest.mark.parametrize("case", list(_bad_batches(np.zeros((5, 3)))))
@pytest.mark.parametrize("epsilon", [1.0, "learn"])
def test_rejected_batch_leaves_model_byte_identical(case, epsilon):
    rng = np.random.RandomState(0)
    X = rng.normal(size=(60, 3))
    est = PassiveAggressiveOneClass(epsilon=epsilon, epsilon_bound=3.0, random_state=0)
    est.partial_fit(X[:30])
    before = copy.deepcopy(est.__dict__)
    Xb, kw = _bad_batches(X[30:])[case]
    with pytest.raises(ValueError):
        est.partial_fit(Xb, **kw)
    assert before.keys() == est.__dict__.keys()
    for key, value in before.items():
        if isinstance(value, np.ndarray):
            assert value.tobytes() == est.__dict__[key].tobytes(), key
        elif not isinstance(value, np.random.RandomState):
            assert value == est.__dict__[key], key
    est.partial_fit(X[30:])


def test_invalid_parameter_leaves_fitted_model_unchanged():
    X = np.random.RandomState(0).normal(size=(40, 2))
    est = PassiveAggressiveOneClass().fit(X)
    center = est.center_.copy()
    est.set_params(C=-1.0)
    with pytest.raises(ValueError, match="C"):
        est.partial_fit(X)
    assert_allclose(est.center_, center)


def test_zero_rows_and_zero_weights():
    X = np.zeros((5, 3))
    est = PassiveAggressiveOneClass(epsilon=0.0).fit(X)
    assert np.all(np.isfinite(est.center_))
    # a zero weight skips its row
    X = np.vstack([np.full((4, 3), 10.0), np.ones((1, 3))])
    est = PassiveAggressiveOneClass(C=np.inf, epsilon=0.0, shuffle=False)
    est.fit(X, sample_weight=[0, 0, 0, 0, 1])
    assert_allclose(est.center_, 1.0)


def test_verbose_prints_one_line_per_epoch(capsys):
    X = np.random.RandomState(0).normal(size=(40, 2))
    PassiveAggressiveOneClass(max_iter=3, verbose=2).fit(X)
    out = capsys.readouterr().out
    assert out.count("-- Epoch") == 3 and "Radius" in out


def test_novelty_detection_on_digits_beats_the_linear_one_class_svm():
    """Train on one digit, flag the others (the example's setting).  The
    linear SGDOneClassSVM is scored on raw features, its better setting here
    (standardising puts the normal class at the origin it separates from)."""
    from sklearn.datasets import load_digits

    X, y = load_digits(return_X_y=True)
    rng = np.random.RandomState(0)
    idx = rng.permutation(len(y))
    X, y = X[idx], y[idx]
    normal = y == 0
    train = np.flatnonzero(normal)[:120]
    test = np.setdiff1d(np.arange(len(y)), train)
    ball = make_pipeline(
        StandardScaler(),
        PassiveAggressiveOneClass(
            C=0.1, epsilon="learn", epsilon_bound=10.0, random_state=0
        ),
    ).fit(X[train])
    svm = SGDOneClassSVM(nu=0.1, random_state=0).fit(X[train])
    truth = normal[test].astype(int)
    auc_ball = roc_auc_score(truth, ball.decision_function(X[test]))
    auc_svm = roc_auc_score(truth, svm.decision_function(X[test]))
    assert auc_ball > 0.95
    assert auc_ball > auc_svm
    # the learned radius makes predict useful: most normal samples inside,
    # most others outside
    inside = ball.predict(X[test]) == 1
    assert inside[truth == 1].mean() > 0.8
    assert inside[truth == 0].mean() < 0.2


def test_benchmark_entries_run():
    """The detectors enter ``python -m sklearn_pa.benchmark`` as one detector
    per class; kernel PA as a classifier."""
    from sklearn_pa.benchmark import run_benchmark

    names = ["PA-OneClass-I-learn", "OneClass-sklearn-SGDOneClassSVM", "KernelPA-I-rbf"]
    rows = run_benchmark("digits", names, cv=2, epochs=1)
    accuracy = {row["estimator"]: row["accuracy_mean"] for row in rows}
    assert accuracy["PA-OneClass-I-learn"] > 0.8
    assert accuracy["KernelPA-I-rbf"] > 0.95
