"""``average="epoch"``: the average of the iterates of the last epoch of
``fit`` (the averaging restarts at every epoch that may end the run)."""

import warnings

import numpy as np
import pytest
from sklearn.datasets import make_classification, make_regression
from sklearn.exceptions import ConvergenceWarning

from sklearn_pa import (
    AROWClassifier,
    MIRAClassifier,
    PassiveAggressiveClassifier,
    PassiveAggressiveRegressor,
)

N = 240


@pytest.fixture(scope="module")
def multiclass():
    return make_classification(
        N, 15, n_informative=8, n_classes=4, n_clusters_per_class=1, random_state=0
    )


def _close(a, b):
    np.testing.assert_allclose(a.coef_, b.coef_, rtol=0, atol=1e-12)
    np.testing.assert_allclose(a.intercept_, b.intercept_, rtol=0, atol=1e-12)


@pytest.mark.parametrize("multiclass", ["support", "max_loss", "ovr"], indirect=False)
def test_epoch_average_is_the_mean_of_the_last_epochs_iterates(multiclass):
    # the definition, computed by hand: the iterates after each row of the
    # last epoch, in the order fit visits them, averaged
    X, y = make_classification(
        N, 15, n_informative=8, n_classes=4, n_clusters_per_class=1, random_state=0
    )
    n_epochs = 3
    kw = dict(multiclass=multiclass, random_state=0, C=0.5)
    est = PassiveAggressiveClassifier(
        average="epoch", max_iter=n_epochs, tol=None, **kw
    )
    est.fit(X, y)

    rng = np.random.RandomState(0)
    for _ in range(n_epochs - 1):
        rng.permutation(N)
    last_order = rng.permutation(N)
    ref = PassiveAggressiveClassifier(
        average=False, max_iter=n_epochs - 1, tol=None, **kw
    )
    ref.fit(X, y)
    coefs, intercepts = [], []
    for i in last_order:
        ref.partial_fit(X[i : i + 1], y[i : i + 1])
        coefs.append(ref.coef_.copy())
        intercepts.append(ref.intercept_.copy())
    np.testing.assert_allclose(est.coef_, np.mean(coefs, axis=0), rtol=0, atol=1e-10)
    np.testing.assert_allclose(
        est.intercept_, np.mean(intercepts, axis=0), rtol=0, atol=1e-10
    )
    # and the standard (last) iterate is the unaveraged model's
    np.testing.assert_allclose(est._standard_coef, ref.coef_, rtol=0, atol=1e-12)


@pytest.mark.parametrize(
    "make",
    [
        lambda **kw: PassiveAggressiveClassifier(**kw),
        lambda **kw: PassiveAggressiveClassifier(loss="squared_hinge", **kw),
        lambda **kw: MIRAClassifier(**kw),
        lambda **kw: AROWClassifier(**kw),
    ],
    ids=["PA-I", "PA-II", "MIRA", "AROW"],
)
def test_fixed_epochs_average_the_last_one_like_an_int_start(multiclass, make):
    X, y = multiclass
    a = make(average="epoch", max_iter=4, tol=None, random_state=1).fit(X, y)
    b = make(average=3 * N + 1, max_iter=4, tol=None, random_state=1).fit(X, y)
    _close(a, b)
    assert a._average_from == 3 * N + 1


def test_regressor_epoch_average():
    X, y = make_regression(N, 10, noise=1.0, random_state=0)
    a = PassiveAggressiveRegressor(
        average="epoch", max_iter=3, tol=None, random_state=0
    )
    b = PassiveAggressiveRegressor(
        average=2 * N + 1, max_iter=3, tol=None, random_state=0
    )
    _close(a.fit(X, y), b.fit(X, y))


def test_with_tol_the_average_restarts_at_every_epoch(multiclass):
    X, y = multiclass
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        a = PassiveAggressiveClassifier(average="epoch", random_state=0, tol=1e-2)
        a.fit(X, y)
        assert a.n_iter_ > 1
        b = PassiveAggressiveClassifier(
            average=(a.n_iter_ - 1) * N + 1,
            max_iter=a.n_iter_,
            tol=None,
            random_state=0,
        ).fit(X, y)
    _close(a, b)


def test_ovr_columns_that_stop_early_average_their_own_last_epoch():
    X, y = make_classification(
        300, 20, n_informative=10, n_classes=4, n_clusters_per_class=1, random_state=0
    )
    est = PassiveAggressiveClassifier(average="epoch", multiclass="ovr", random_state=0)
    est.fit(X, y)
    refs = [
        PassiveAggressiveClassifier(
            average=(e - 1) * 300 + 1,
            max_iter=e,
            tol=None,
            multiclass="ovr",
            random_state=0,
        ).fit(X, y)
        for e in range(1, est.n_iter_ + 1)
    ]
    stops = []
    for k in range(4):
        matches = [
            e + 1
            for e, ref in enumerate(refs)
            if np.allclose(ref.coef_[k], est.coef_[k], rtol=0, atol=1e-12)
            and abs(ref.intercept_[k] - est.intercept_[k]) <= 1e-12
        ]
        assert len(matches) == 1, (k, matches)
        stops.append(matches[0])
    # the columns stopped at different epochs: the case is not trivial
    assert len(set(stops)) > 1


def _epochs_averaged(est, X, y, **fit):
    """Which epochs of a fit gave the kernel averaging accumulators."""
    seen = []
    kernel = est._kernel_epoch

    def spy(rows, order, W, b, U, bu, **kwargs):
        seen.append(U.shape[0] > 0)
        return kernel(rows, order, W, b, U, bu, **kwargs)

    est._kernel_epoch = spy
    try:
        est.fit(X, y, **fit)
    finally:
        del est._kernel_epoch
    return seen


def test_epochs_that_cannot_be_the_last_are_not_averaged(multiclass):
    X, y = multiclass
    est = PassiveAggressiveClassifier(average="epoch", max_iter=4, tol=None)
    assert _epochs_averaged(est, X, y) == [False, False, False, True]
    # the stopping rule may end the run once n_iter_no_change epochs passed
    # without improving on the first: the epochs before cannot
    est = PassiveAggressiveClassifier(
        average="epoch", max_iter=6, tol=1e9, n_iter_no_change=3
    )
    assert _epochs_averaged(est, X, y) == [False, False, False, True]
    assert est.n_iter_ == 4
    # early stopping scores the published (averaged) model after each epoch
    est = PassiveAggressiveClassifier(
        average="epoch", max_iter=4, tol=None, early_stopping=True
    )
    assert _epochs_averaged(est, X, y) == [True] * 4
    # the other averages run over every epoch
    est = PassiveAggressiveClassifier(average=True, max_iter=3, tol=None)
    assert _epochs_averaged(est, X, y) == [True] * 3


def test_a_partial_fit_stream_averages_from_its_first_step(multiclass):
    X, y = multiclass
    classes = np.unique(y)
    a = PassiveAggressiveClassifier(average="epoch", random_state=0)
    b = PassiveAggressiveClassifier(average=True, random_state=0)
    for start in range(0, N, 60):
        a.partial_fit(X[start : start + 60], y[start : start + 60], classes=classes)
        b.partial_fit(X[start : start + 60], y[start : start + 60], classes=classes)
        _close(a, b)


def test_partial_fit_after_fit_continues_the_last_epochs_average(multiclass):
    X, y = multiclass
    a = PassiveAggressiveClassifier(
        average="epoch", max_iter=3, tol=None, random_state=0
    )
    b = PassiveAggressiveClassifier(
        average=2 * N + 1, max_iter=3, tol=None, random_state=0
    )
    a.fit(X, y).partial_fit(X[:50], y[:50])
    b.fit(X, y).partial_fit(X[:50], y[:50])
    _close(a, b)
    # a model fitted without averaging starts its average with the stream
    c = PassiveAggressiveClassifier(average=False, max_iter=2, tol=None, random_state=0)
    c.fit(X, y)
    c.set_params(average="epoch").partial_fit(X[:50], y[:50])
    assert c._average_from == 2 * N + 1


def test_warm_start_refits_average_their_own_last_epoch(multiclass):
    X, y = multiclass
    kw = dict(max_iter=2, tol=None, random_state=0)
    a = PassiveAggressiveClassifier(average="epoch", warm_start=True, **kw)
    a.fit(X, y)
    first = a.coef_.copy()
    a.fit(X, y)
    assert a._average_from == N + 1
    assert not np.allclose(a.coef_, first)


def test_a_stream_computes_its_average_when_read(multiclass, monkeypatch):
    X, y = multiclass
    classes = np.unique(y)
    est = PassiveAggressiveClassifier(random_state=0)
    calls = []
    publish = est._publish_average
    monkeypatch.setattr(
        est, "_publish_average", lambda *a, **k: calls.append(1) or publish(*a, **k)
    )
    for start in range(0, N, 40):
        est.partial_fit(X[start : start + 40], y[start : start + 40], classes=classes)
    assert calls == []  # six calls, no average computed
    assert "coef_" not in vars(est)
    # a few rows are scored from the weights and the accumulators of their
    # features (w . x - (u . x) / n): the average is not formed
    predicted = est.predict(X[:5])
    scores = est.decision_function(X[:5])
    assert calls == []
    est.coef_  # noqa: B018 (the first read computes it, once)
    assert len(calls) == 1
    est.intercept_  # noqa: B018
    assert len(calls) == 1
    np.testing.assert_allclose(scores, est.decision_function(X[:5]), rtol=1e-12)
    np.testing.assert_array_equal(predicted, est.predict(X[:5]))
    # the same model as one computed on every call
    ref = PassiveAggressiveClassifier(random_state=0)
    for start in range(0, N, 40):
        ref.partial_fit(X[start : start + 40], y[start : start + 40], classes=classes)
        ref.coef_  # noqa: B018
    _close(est, ref)


def test_a_pending_average_is_pickled_and_assigned_weights_win(multiclass):
    import pickle

    X, y = multiclass
    classes = np.unique(y)
    est = PassiveAggressiveClassifier(random_state=0)
    est.partial_fit(X[:100], y[:100], classes=classes)
    clone = pickle.loads(pickle.dumps(est))
    _close(clone, est)
    # weights assigned before the average was ever read are the next
    # call's starting point, as after a read
    a = PassiveAggressiveClassifier(random_state=0)
    b = PassiveAggressiveClassifier(random_state=0)
    a.partial_fit(X[:100], y[:100], classes=classes)
    b.partial_fit(X[:100], y[:100], classes=classes)
    start = np.full((4, X.shape[1]), 0.01)
    assert "_average_pending" in vars(a)
    a.coef_ = start.copy()
    b.coef_  # noqa: B018
    b.coef_ = start.copy()
    a.partial_fit(X[100:], y[100:])
    b.partial_fit(X[100:], y[100:])
    _close(a, b)
    assert not np.allclose(a.coef_, est.partial_fit(X[100:], y[100:]).coef_)
