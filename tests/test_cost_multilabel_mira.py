"""Cost-sensitive multiclass PA, multilabel ranking PA and MIRAClassifier."""

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.base import clone
from sklearn.datasets import load_digits, make_blobs, make_multilabel_classification
from sklearn.metrics import (
    coverage_error,
    f1_score,
    label_ranking_average_precision_score,
)
from sklearn.model_selection import cross_val_score
from sklearn.multiclass import OneVsRestClassifier

from sklearn_pa import MIRAClassifier, PassiveAggressiveClassifier


def _state(est):
    return {
        k: (v.copy() if isinstance(v, np.ndarray) else v)
        for k, v in est.__dict__.items()
    }


def _assert_unchanged(est, before):
    after = est.__dict__
    assert set(after) == set(before)
    for k, v in before.items():
        if isinstance(v, np.ndarray):
            assert_array_equal(after[k], v)


# ------------------------------------------------------------ cost-sensitive
def _three_class_data(seed=0, n=600):
    X, y = make_blobs(
        n_samples=n,
        centers=[[0, 0], [1.5, 0], [0.75, 1.3]],
        cluster_std=0.8,
        random_state=seed,
    )
    return X, y


COST = np.array([[0.0, 20.0, 1.0], [1.0, 0.0, 1.0], [1.0, 1.0, 0.0]])


@pytest.mark.parametrize("multiclass", ["support", "max_loss", "prediction"])
def test_unit_costs_are_the_plain_rules(multiclass):
    X, y = _three_class_data()
    ones = np.ones((3, 3)) - np.eye(3)
    params = dict(multiclass=multiclass, max_iter=3, tol=None, random_state=0)
    a = PassiveAggressiveClassifier(**params).fit(X, y)
    b = PassiveAggressiveClassifier(cost_matrix=ones, **params).fit(X, y)
    assert_array_equal(a.coef_, b.coef_)
    assert_array_equal(a.intercept_, b.intercept_)


@pytest.mark.parametrize(
    "cost, match",
    [
        (np.ones((2, 2)) - np.eye(2), r"expected \(3, 3\)"),
        (np.ones((3, 4)), r"expected \(3, 3\)"),
        (-COST, "negative"),
        (COST + np.eye(3), "zero diagonal"),
        (np.where(COST == 20.0, np.nan, COST), "NaN or infinity"),
        (np.where(COST == 20.0, np.inf, COST), "NaN or infinity"),
        ([["a", "b", "c"]] * 3, "array of numbers"),
    ],
)
def test_bad_cost_matrix_is_refused_atomically(cost, match):
    X, y = _three_class_data()
    clf = PassiveAggressiveClassifier(random_state=0).partial_fit(
        X[:50], y[:50], classes=[0, 1, 2]
    )
    before = _state(clf)
    clf.set_params(cost_matrix=cost)
    with pytest.raises(ValueError, match=match):
        clf.partial_fit(X[50:100], y[50:100])
    _assert_unchanged(clf, before)
    with pytest.raises(ValueError, match=match):
        clone(clf).fit(X, y)


def test_cost_matrix_needs_pairs_of_classes():
    X, y = _three_class_data()
    with pytest.raises(ValueError, match="multiclass='ovr'"):
        PassiveAggressiveClassifier(cost_matrix=COST, multiclass="ovr").fit(X, y)
    binary = y < 2
    with pytest.raises(ValueError, match="at least 3 classes.*class_weight"):
        PassiveAggressiveClassifier(cost_matrix=COST[:2, :2]).fit(X[binary], y[binary])


def _progressive_cost(clf, X, y, cost, batch=10):
    """Sum of rho(y, y_hat) over a stream, predicting each batch before
    learning it (the first batch is learnt blind)."""
    total = 0.0
    classes = np.unique(y)
    for start in range(0, len(y), batch):
        Xb, yb = X[start : start + batch], y[start : start + batch]
        if start:
            total += cost[yb, clf.predict(Xb)].sum()
        clf.partial_fit(Xb, yb, classes=classes)
    return total


@pytest.mark.parametrize(
    "multiclass, C, ratio",
    [("support", 0.1, 0.7), ("max_loss", 0.1, 0.7), ("prediction", 1.0, 0.9)],
)
def test_costs_lower_the_cumulative_cost(multiclass, C, ratio):
    """Predicting class 1 for class 0 costs 20; the cost-sensitive learner,
    which asks for a margin sqrt(20) against that mistake, pays less over the
    stream than the cost-blind one, averaged over 5 streams (measured: about
    0.55 of the blind cost for support / max-loss; the prediction-based rule
    only reacts to mistakes, never builds the larger margin ahead of them,
    and gains less, about 0.8)."""
    blind, aware = [], []
    for seed in range(5):
        X, y = _three_class_data(seed, n=1500)
        params = dict(multiclass=multiclass, C=C, random_state=seed)
        blind.append(
            _progressive_cost(PassiveAggressiveClassifier(**params), X, y, COST)
        )
        aware.append(
            _progressive_cost(
                PassiveAggressiveClassifier(cost_matrix=COST, **params), X, y, COST
            )
        )
    assert np.mean(aware) < ratio * np.mean(blind), (aware, blind)


# ---------------------------------------------------------------- multilabel
def _multilabel(n=400, seed=0, sparse=False):
    X, Y = make_multilabel_classification(
        n_samples=n,
        n_features=30,
        n_classes=6,
        n_labels=2,
        allow_unlabeled=True,
        random_state=seed,
    )
    X = X / np.linalg.norm(X, axis=1, keepdims=True).clip(1e-12)
    return (sp.csr_matrix(X) if sparse else X), Y


def test_multilabel_fit_predict_shapes():
    X, Y = _multilabel()
    clf = PassiveAggressiveClassifier(max_iter=10, tol=None, random_state=0)
    clf.fit(X[:300], Y[:300])
    assert_array_equal(clf.classes_, np.arange(6))
    assert clf.coef_.shape == (6, 30)
    scores = clf.decision_function(X[300:])
    assert scores.shape == (100, 6)
    pred = clf.predict(X[300:])
    assert pred.shape == (100, 6)
    assert_array_equal(pred, (scores > 0).astype(int))
    lrap = label_ranking_average_precision_score(Y[300:], scores)
    assert lrap > 0.7


def test_multilabel_dense_sparse_and_sparse_y_agree():
    X, Y = _multilabel()
    params = dict(max_iter=3, tol=None, random_state=0)
    a = PassiveAggressiveClassifier(**params).fit(X, Y)
    b = PassiveAggressiveClassifier(**params).fit(sp.csr_matrix(X), sp.csr_matrix(Y))
    assert_allclose(a.coef_, b.coef_, rtol=1e-12, atol=1e-14)
    assert_allclose(a.intercept_, b.intercept_, rtol=1e-12, atol=1e-14)


def test_multilabel_empty_and_full_rows():
    """Rows with no relevant label only push every score below the threshold;
    rows with every label relevant only push them above it."""
    X = np.array([[1.0, 0.0], [0.0, 1.0]])
    Y = np.array([[0, 0, 0], [1, 1, 1]])
    clf = PassiveAggressiveClassifier(
        C=np.inf, fit_intercept=False, max_iter=10, tol=None, random_state=0
    )
    clf.fit(X, Y)
    assert_array_equal(clf.predict(X), Y)
    s = clf.decision_function(X)
    # each step enforces the extreme constraint exactly (C = inf): at the end
    # all of them hold, with the threshold margins 1/2
    assert s[0].max() <= -0.5 + 1e-12
    assert s[1].min() >= 0.5 - 1e-12


def test_multilabel_partial_fit_classes_are_column_indices():
    X, Y = _multilabel()
    clf = PassiveAggressiveClassifier(random_state=0)
    with pytest.raises(ValueError, match=r"np.arange\(6\)"):
        clf.partial_fit(X[:50], Y[:50])
    with pytest.raises(ValueError, match="column indices"):
        clf.partial_fit(X[:50], Y[:50], classes=["a", "b", "c", "d", "e", "f"])
    assert not hasattr(clf, "coef_")
    clf.partial_fit(X[:50], Y[:50], classes=np.arange(6))
    before = _state(clf)
    with pytest.raises(ValueError, match="6"):
        clf.partial_fit(X[50:100], Y[50:100, :5])
    with pytest.raises(ValueError, match="same form"):
        clf.partial_fit(X[50:100], Y[50:100, 0])
    bad = Y[50:100].copy()
    bad[0, 0] = 2
    with pytest.raises(ValueError, match="only 0 and 1"):
        clf.partial_fit(X[50:100], bad)
    Xbad = X[50:100].copy()
    Xbad[3, 3] = np.nan
    with pytest.raises(ValueError):
        clf.partial_fit(Xbad, Y[50:100])
    _assert_unchanged(clf, before)
    clf.partial_fit(X[50:100], Y[50:100])
    assert clf.t_ == 101


def test_multilabel_refuses_class_weight_and_costs():
    X, Y = _multilabel()
    with pytest.raises(ValueError, match="class_weight"):
        PassiveAggressiveClassifier(class_weight="balanced").fit(X, Y)
    with pytest.raises(ValueError, match="cost_matrix"):
        PassiveAggressiveClassifier(cost_matrix=np.zeros((6, 6))).fit(X, Y)


def test_multilabel_refit_single_label_and_back():
    X, Y = _multilabel()
    clf = PassiveAggressiveClassifier(max_iter=2, tol=None, random_state=0)
    clf.fit(X, Y)
    clf.fit(X, Y[:, 0])
    assert clf.predict(X).ndim == 1
    clf.fit(X, Y)
    assert clf.predict(X).shape == Y.shape


def test_multilabel_against_one_vs_rest_on_synthetic_data():
    """Ranking quality at least that of scikit-learn-style one-vs-rest PA."""
    X, Y = _multilabel(n=1000, seed=1)
    params = dict(max_iter=5, tol=None, random_state=0)
    rank = PassiveAggressiveClassifier(**params).fit(X[:700], Y[:700])
    ovr = OneVsRestClassifier(PassiveAggressiveClassifier(**params)).fit(
        X[:700], Y[:700]
    )
    s_rank = rank.decision_function(X[700:])
    s_ovr = ovr.decision_function(X[700:])
    lrap_rank = label_ranking_average_precision_score(Y[700:], s_rank)
    lrap_ovr = label_ranking_average_precision_score(Y[700:], s_ovr)
    assert lrap_rank > lrap_ovr - 0.02
    assert coverage_error(Y[700:], s_rank) < coverage_error(Y[700:], s_ovr) + 0.2
    f1 = f1_score(Y[700:], rank.predict(X[700:]), average="micro")
    assert f1 > 0.5


def test_multilabel_early_stopping_runs():
    X, Y = _multilabel()
    clf = PassiveAggressiveClassifier(early_stopping=True, random_state=0).fit(X, Y)
    assert clf.n_iter_ >= 1


# ---------------------------------------------------------------------- MIRA
def test_mira_digits_cross_validation():
    X, y = load_digits(return_X_y=True)
    scores = cross_val_score(
        MIRAClassifier(max_iter=5, tol=None, random_state=0), X, y, cv=3
    )
    assert scores.mean() > 0.88


def test_mira_is_ultraconservative():
    """After one step only the classes that scored within the margin of the
    true class (and the true class) changed."""
    X, y = load_digits(return_X_y=True)
    clf = MIRAClassifier(margin=0.5, shuffle=False, fit_intercept=False)
    clf.partial_fit(X[:200], y[:200], classes=np.arange(10))
    W0 = clf.coef_.copy()
    for i in range(200, 260):
        s = clf.decision_function(X[i : i + 1])[0]
        clf.partial_fit(X[i : i + 1], y[i : i + 1])
        moved = np.flatnonzero(np.any(clf.coef_ != W0, axis=1))
        allowed = set(np.flatnonzero(s > s[y[i]] - 0.5)) | {y[i]}
        assert set(moved) <= allowed
        W0 = clf.coef_.copy()


def test_mira_zero_margin_from_zero_start_does_not_learn():
    X, y = load_digits(return_X_y=True)
    clf = MIRAClassifier(margin=0.0, max_iter=2, tol=None).fit(X, y)
    assert_array_equal(clf.coef_, 0.0)
    # from a non-zero start it learns (mistake-driven)
    start = MIRAClassifier(max_iter=1, tol=None, random_state=0).fit(X[:100], y[:100])
    clf = MIRAClassifier(margin=0.0, max_iter=3, tol=None, random_state=0)
    clf.fit(X, y, coef_init=start.coef_, intercept_init=start.intercept_)
    assert clf.score(X, y) > start.score(X, y)


def test_binary_mira_one_column():
    """Two classes: one column w = M_1 - M_0 (the step rule itself is checked
    against the two-prototype program in the oracle tests)."""
    X, y = load_digits(n_class=2, return_X_y=True)
    clf = MIRAClassifier(max_iter=3, tol=None, random_state=0).fit(X[:300], y[:300])
    assert clf.coef_.shape == (1, 64)
    assert clf.decision_function(X).shape == (len(y),)
    assert clf.score(X[300:], y[300:]) > 0.95


def test_mira_bad_input_is_atomic():
    X, y = load_digits(return_X_y=True)
    clf = MIRAClassifier(random_state=0).partial_fit(
        X[:100], y[:100], classes=range(10)
    )
    before = _state(clf)
    with pytest.raises(ValueError, match="not in classes"):
        clf.partial_fit(X[100:200], y[100:200] + 10)
    with pytest.raises(ValueError):
        clf.partial_fit(X[100:200, :10], y[100:200])
    clf.set_params(margin=-1.0)
    with pytest.raises(ValueError, match="margin"):
        clf.partial_fit(X[100:200], y[100:200])
    _assert_unchanged(clf, before)


def test_mira_sample_weight_zero_skips():
    X, y = load_digits(return_X_y=True)
    keep = np.arange(len(y)) % 3 != 0
    params = dict(max_iter=1, tol=None, shuffle=False, intercept_scaling=1.0)
    a = MIRAClassifier(**params).fit(X, y, sample_weight=keep.astype(float))
    b = MIRAClassifier(**params).fit(X[keep], y[keep])
    assert_array_equal(a.coef_, b.coef_)
    assert_array_equal(a.intercept_, b.intercept_)


@pytest.mark.parametrize("margin", [0.5, 1.0, 3.0])
def test_mira_is_spa_pa1_with_unit_bound(margin):
    """Along x, 1/2 sum_r ||M_r + tau_r x||^2 - beta tau_y differs from the
    support-class PA-I dual only by a constant: MIRA with margin beta is
    PA-I (C = 1, multiclass="support") with margins beta.  The two kernels'
    step helpers (mira_steps, support_steps) are written independently."""
    X, y = load_digits(return_X_y=True)
    K = 10
    a = MIRAClassifier(margin=margin, max_iter=3, tol=None, random_state=0).fit(X, y)
    b = PassiveAggressiveClassifier(
        C=1.0,
        multiclass="support",
        cost_matrix=margin**2 * (np.ones((K, K)) - np.eye(K)),
        max_iter=3,
        tol=None,
        random_state=0,
        average=False,  # MIRA's default: the last iterate
    ).fit(X, y)
    assert_allclose(a.coef_, b.coef_, rtol=1e-9, atol=1e-12)
    assert_allclose(a.intercept_, b.intercept_, rtol=1e-9, atol=1e-12)


# ---------------------------------------------------------------- real data
@pytest.mark.realdata
def test_20newsgroups_multilabel_ranking(data_dir):
    """20 Newsgroups with super-category labels, 5 epochs (measured: LRAP
    0.889, coverage 2.97, micro-F1 0.794; one-vs-rest PA-I 0.895 / 2.87 /
    0.816)."""
    from sklearn_pa.benchmark import load_dataset

    data = load_dataset("20newsgroups-multilabel", data_dir)
    assert data.Y.shape == (11314, 24)
    assert set(data.Y.sum(axis=1)) == {1, 2}
    clf = PassiveAggressiveClassifier(max_iter=5, tol=None, random_state=0)
    clf.fit(data.X, data.Y)
    scores = clf.decision_function(data.X_test)
    assert label_ranking_average_precision_score(data.Y_test, scores) >= 0.88
    assert coverage_error(data.Y_test, scores) <= 3.1
    f1 = f1_score(data.Y_test, clf.predict(data.X_test), average="micro")
    assert f1 >= 0.78
