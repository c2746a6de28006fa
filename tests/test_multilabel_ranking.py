"""The seed's multilabel ranking rule (``multilabel="ranking"``).

Crammer et al. (2006, sec. 7) define the margin of a label set ``Y`` as
``min_{r in Y} s_r - max_{s not in Y} s_s`` (eq. 31) and update on the single
extreme pair ``(r_t, s_t)`` (eqs. 35-36):

    min 1/2 ||W - W_t||^2 (+ C xi or C xi^2)
    s.t. (w_{r_t} - w_{s_t}) . x >= 1 - xi

The kernel step is checked against that problem solved by SLSQP and against
its KKT conditions (the helpers of ``test_oracle``), and the estimator against
the issue's example where the thresholded rule moves and the ranking one does
not.
"""

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from numpy.testing import assert_allclose, assert_array_equal
from test_oracle import (
    SLACKS,
    Constraints,
    any_C,
    assert_kkt,
    assert_matches_solver,
    by_name,
    problems,
)
from test_oracle_cost_multilabel_mira import multilabel_step

from sklearn_pa import PassiveAggressiveClassifier
from sklearn_pa._compiled import _rules

Rule, Slack = _rules.Rule, _rules.Slack


def ranking_step(p, relevant):
    """One kernel step of the seed's pure ranking rule."""
    return multilabel_step(p, relevant, rule=Rule.MULTILABEL_RANKING)


def seed_constraint(p, relevant):
    """Eq. 36 on the augmented weights: the extreme pair at margin 1, or no
    constraint when the margin is at least 1 or a side is empty."""
    s = p.scores
    rel, irr = np.flatnonzero(relevant), np.flatnonzero(~relevant)
    xt, K = p.x_aug, p.n_columns
    empty = Constraints(np.zeros((0, len(xt) * K)), np.zeros(0), np.zeros(0, int), 1)
    if rel.size == 0 or irr.size == 0:
        return empty, None
    scale = 1.0 + np.abs(s).max()
    for group in (s[rel], s[irr]):
        g = np.sort(group)
        assume(len(g) < 2 or np.min(np.diff(g)) > 1e-9 * scale)
    r = rel[np.argmin(s[rel])]
    u = irr[np.argmax(s[irr])]
    loss = 1.0 - (s[r] - s[u])
    assume(abs(loss) > 1e-9 * scale)
    if loss <= 0:
        return empty, (r, u)
    a = np.zeros((len(xt), K))
    a[:, r] += xt
    a[:, u] -= xt
    return Constraints(a.reshape(1, -1), np.array([loss]), np.zeros(1, int), 1), (r, u)


@st.composite
def ranking_problems(draw, slack, C=any_C):
    p = draw(problems(Rule.SUPPORT, st.just(slack), C, sample_weight=st.just(1.0)))
    relevant = draw(hnp.arrays(np.bool_, p.n_columns))
    return p, relevant


@pytest.mark.parametrize("slack", SLACKS, ids=by_name)
@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_ranking_step_is_the_minimiser_of_eq_36(slack, data):
    p, relevant = data.draw(ranking_problems(slack))
    cons, pair = seed_constraint(p, relevant)
    W, b, (mistakes, updates, skipped, overflow) = ranking_step(p, relevant)
    assert skipped == 0 and not overflow
    delta = W - p.W
    if p.fit_intercept:
        delta = np.vstack([delta, (b - p.b)[None, :]])
    else:
        assert_array_equal(b, p.b)
    if pair is not None:
        s = p.scores
        assert mistakes == int(s[pair[0]] <= s[pair[1]])
    if len(cons.c) == 0:
        assert_array_equal(delta, 0.0)
        assert updates == 0
        return
    # only the two extreme prototypes move
    moved = np.flatnonzero(np.any(delta != 0, axis=0))
    assert set(moved) <= set(pair)
    assert_kkt(p, cons, delta)
    assert_matches_solver(p, cons, delta)


@settings(max_examples=100, deadline=None)
@given(data=st.data())
def test_ranking_hard_constraint_holds_after_the_step(data):
    p, relevant = data.draw(ranking_problems(Slack.HINGE, st.just(np.inf)))
    assume(relevant.any() and not relevant.all())
    W, b, _ = ranking_step(p, relevant)
    s_new = p.x @ W + b
    tol = 1e-9 * (1.0 + np.abs(p.scores).max())
    cons, pair = seed_constraint(p, relevant)
    r, u = pair
    assert s_new[r] - s_new[u] >= min(1.0, p.scores[r] - p.scores[u]) - tol


def _from_weights(multilabel, coef):
    clf = PassiveAggressiveClassifier(
        C=np.inf, fit_intercept=False, multilabel=multilabel
    )
    clf.partial_fit([[1.0, 0.0]], [[1, 0, 0]], classes=np.arange(3))
    clf.coef_ = np.array(coef, dtype=float)
    return clf


def test_ranking_margin_met_leaves_the_model_unchanged():
    """Margin 0.2 - (-5) = 5.2 >= 1: the seed's rule does not move; the
    thresholded rule lifts the relevant label to the threshold 1/2."""
    coef = [[0.2, 0.0], [-5.0, 0.0], [-5.0, 0.0]]
    ranking = _from_weights("ranking", coef)
    ranking.partial_fit([[1.0, 0.0]], [[1, 0, 0]])
    assert_array_equal(ranking.coef_, coef)
    thresholded = _from_weights("thresholded", coef)
    thresholded.partial_fit([[1.0, 0.0]], [[1, 0, 0]])
    assert_allclose(thresholded.coef_[0], [0.5, 0.0])


def test_ranking_step_on_a_violated_margin():
    """Margin 0.2 - 0 = 0.2: tau = 0.8 / (2 ||x||^2) = 0.4 on the pair."""
    coef = [[0.2, 0.0], [0.0, 0.0], [-5.0, 0.0]]
    clf = _from_weights("ranking", coef)
    clf.partial_fit([[1.0, 0.0]], [[1, 0, 0]])
    assert_allclose(clf.coef_, [[0.6, 0.0], [-0.4, 0.0], [-5.0, 0.0]])


def test_ranking_rule_learns_a_ranking():
    """On a multilabel problem the ranking rule orders the labels at least as
    well as the thresholded one (label ranking average precision)."""
    from sklearn.datasets import make_multilabel_classification
    from sklearn.metrics import label_ranking_average_precision_score

    X, Y = make_multilabel_classification(
        n_samples=600, n_features=20, n_classes=5, random_state=0
    )
    scores = {}
    for rule in ("ranking", "thresholded"):
        clf = PassiveAggressiveClassifier(
            multilabel=rule, max_iter=5, tol=None, random_state=0
        ).fit(X[:400], Y[:400])
        scores[rule] = label_ranking_average_precision_score(
            Y[400:], clf.decision_function(X[400:])
        )
    assert scores["ranking"] > 0.7
    assert scores["ranking"] >= scores["thresholded"] - 0.05


def test_multilabel_parameter_is_validated():
    clf = PassiveAggressiveClassifier(multilabel="seed")
    with pytest.raises(ValueError, match="multilabel"):
        clf.fit([[0.0, 1.0], [1.0, 0.0]], [[1, 0], [0, 1]])
