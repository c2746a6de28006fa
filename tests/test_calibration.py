"""Calibrated probabilities learned online
(:class:`sklearn_pa.calibration.OnlineCalibratedClassifier`).

Every meta-estimator of the package (found by discovery) is run around
every classifier of the package (found by discovery): the scores it
calibrates on are those each row got before its model learned from it, the
classifier learns what it learns alone, a call is atomic under errors,
interrupts and threads, and the model saves and loads.
"""

import pickle
import threading
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.special import expit, logsumexp
from sklearn.base import clone
from sklearn.isotonic import IsotonicRegression
from sklearn.linear_model import SGDClassifier

from sklearn_pa import PassiveAggressiveClassifier
from sklearn_pa.calibration import OnlineCalibratedClassifier, _online
from sklearn_pa.utils import all_estimators

META = all_estimators("meta_estimator")
CLASSIFIERS = all_estimators("classifier")
METHODS = ("sigmoid", "temperature", "isotonic")


def _base(Estimator, **params):
    est = Estimator(**params)
    for name, value in {"random_state": 0, "shuffle": False}.items():
        if name in est.get_params():
            est.set_params(**{name: value})
    return est


def _data(n=120, d=5, k=3, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    W = rng.normal(size=(d, k))
    y = np.argmax(X @ W + 0.5 * rng.normal(size=(n, k)), axis=1)
    return X, y


def _quiet(function, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return function(*args, **kwargs)


def _stream(model, X, y, batch=10, **kwargs):
    for start in range(0, X.shape[0], batch):
        rows = slice(start, start + batch)
        _quiet(model.partial_fit, X[rows], y[rows], classes=[0, 1, 2], **kwargs)
    return model


def test_meta_estimators_are_found_apart_from_the_learners():
    assert ("OnlineCalibratedClassifier", OnlineCalibratedClassifier) in META
    learners = {name for name, _ in all_estimators("all")}
    assert "OnlineCalibratedClassifier" not in learners


# ------------------------------------------------------ the prequential scores
@pytest.mark.parametrize("Meta", [m for _, m in META])
@pytest.mark.parametrize("name, Estimator", CLASSIFIERS)
def test_the_window_holds_each_rows_score_before_its_update(name, Estimator, Meta):
    """One-row calls: the score recorded for each row is the classifier's
    ``decision_function`` of that row just before the call, and the
    classifier inside learns exactly what it learns alone."""
    X, y = _data(n=40)
    wrapper = Meta(_base(Estimator))
    alone = _base(Estimator)
    expected = []
    for i in range(X.shape[0]):
        if hasattr(alone, "classes_"):
            expected.append(np.atleast_1d(alone.decision_function(X[i : i + 1])[0]))
        _quiet(wrapper.partial_fit, X[i : i + 1], y[i : i + 1], classes=[0, 1, 2])
        _quiet(alone.partial_fit, X[i : i + 1], y[i : i + 1], classes=[0, 1, 2])
    scores, labels, _ = wrapper._window()
    np.testing.assert_array_equal(labels, y)
    # the first row was scored by the model before any update
    np.testing.assert_allclose(scores[1:], np.array(expected), rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(
        wrapper.estimator_.decision_function(X), alone.decision_function(X)
    )


@pytest.mark.parametrize("name, Estimator", CLASSIFIERS)
def test_a_batch_learns_what_the_classifier_learns_alone(name, Estimator):
    X, y = _data()
    wrapper = _stream(OnlineCalibratedClassifier(_base(Estimator)), X, y)
    alone = _stream(_base(Estimator), X, y)
    np.testing.assert_array_equal(
        wrapper.estimator_.decision_function(X), alone.decision_function(X)
    )
    proba = wrapper.predict_proba(X)
    assert proba.shape == (X.shape[0], 3)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0, rtol=1e-12)
    assert wrapper.n_calibration_samples_ == X.shape[0]


# ---------------------------------------------------------------- the maps
def _fitted(method, binary=False):
    X, y = _data(n=300, seed=1)
    if binary:
        y = (y == 1).astype(int)
    model = OnlineCalibratedClassifier(
        PassiveAggressiveClassifier(random_state=0), method=method
    )
    for start in range(0, 300, 30):
        rows = slice(start, start + 30)
        classes = [0, 1] if binary else [0, 1, 2]
        _quiet(model.partial_fit, X[rows], y[rows], classes=classes)
    return model, X


@pytest.mark.parametrize("binary", [True, False], ids=["binary", "multiclass"])
def test_sigmoid_is_the_maximum_likelihood_of_platts_targets(binary):
    """KKT of Platt's problem: the gradient of the log-loss of the smoothed
    targets vanishes at the fitted ``(a, b)`` of every map."""
    model, X = _fitted("sigmoid", binary)
    S, labels, w = model._window()
    for k, (a, b) in enumerate(model.calibration_):
        t = (labels == (1 if S.shape[1] == 1 else k)).astype(float)
        pos, neg = w[t == 1].sum(), w[t == 0].sum()
        target = np.where(t == 1, (pos + 1) / (pos + 2), 1 / (neg + 2))
        residual = w * (expit(a * S[:, k] + b) - target)
        scale = np.std(S[:, k])
        assert abs((residual * S[:, k] / scale).sum()) < 1e-3 * S.shape[0]
        assert abs(residual.sum()) < 1e-3 * S.shape[0]


@pytest.mark.parametrize("binary", [True, False], ids=["binary", "multiclass"])
def test_temperature_minimises_the_log_loss_of_the_window(binary):
    model, X = _fitted("temperature", binary)
    S, labels, w = model._window()
    beta = model.calibration_[0]

    def loss(b):
        F = b * S
        if F.shape[1] == 1:
            f = F[:, 0]
            return (w * np.logaddexp(0, np.where(labels == 1, -f, f))).sum()
        return (w * (logsumexp(F, axis=1) - F[np.arange(len(F)), labels])).sum()

    assert beta > 0
    for other in (beta * 0.9, beta * 1.1, beta * 0.5, beta * 2.0):
        assert loss(beta) <= loss(other) + 1e-9
    # the ranking of the classes is the model's own
    scores = model.estimator_.decision_function(X)
    predicted = model.predict(X)
    if binary:
        np.testing.assert_array_equal(predicted, (scores > 0).astype(int))
    else:
        np.testing.assert_array_equal(predicted, np.argmax(scores, axis=1))


@pytest.mark.parametrize("binary", [True, False], ids=["binary", "multiclass"])
def test_isotonic_is_scikit_learns_isotonic_fit_of_the_window(binary):
    model, X = _fitted("isotonic", binary)
    S, labels, w = model._window()
    scores = model.estimator_.decision_function(X).reshape(X.shape[0], -1)
    P = []
    for k in range(S.shape[1]):
        t = (labels == (1 if S.shape[1] == 1 else k)).astype(float)
        iso = IsotonicRegression(y_min=0, y_max=1, out_of_bounds="clip")
        P.append(iso.fit(S[:, k], t, sample_weight=w).predict(scores[:, k]))
    P = np.column_stack(P)
    if binary:
        expected = np.column_stack([1 - P[:, 0], P[:, 0]])
    else:
        total = P.sum(axis=1, keepdims=True)
        expected = np.where(total > 0, P / np.where(total > 0, total, 1), 1 / 3)
    np.testing.assert_allclose(model.predict_proba(X), expected, atol=1e-12)
    # monotone in each class's score
    for k in range(S.shape[1]):
        order = np.argsort(scores[:, k])
        p = P[order, k]
        assert np.all(np.diff(p) >= -1e-12)


def test_calibration_improves_the_log_loss_of_a_raw_sigmoid():
    """On held-out rows, the calibrated sigmoid's log-loss is below that of
    the plain logistic of the scores (river's PA probabilities)."""
    X, y = _data(n=2000, d=10, seed=3)
    y = (y == 0).astype(int)
    model = OnlineCalibratedClassifier(PassiveAggressiveClassifier(random_state=0))
    for start in range(0, 1500, 50):
        rows = slice(start, start + 50)
        _quiet(model.partial_fit, X[rows], y[rows], classes=[0, 1])
    P = model.predict_proba(X[1500:])[:, 1]
    raw = expit(model.estimator_.decision_function(X[1500:]))
    t = y[1500:]

    def log_loss(p):
        p = np.clip(p, 1e-15, 1 - 1e-15)
        return -np.mean(t * np.log(p) + (1 - t) * np.log(1 - p))

    assert log_loss(P) < log_loss(raw)


def test_the_window_keeps_the_most_recent_rows():
    X, y = _data(n=400)
    model = OnlineCalibratedClassifier(
        PassiveAggressiveClassifier(random_state=0), window=50
    )
    for i in range(0, 400, 3):
        _quiet(model.partial_fit, X[i : i + 3], y[i : i + 3], classes=[0, 1, 2])
    S, labels, _ = model._window()
    assert model.n_calibration_samples_ == 50 == S.shape[0]
    np.testing.assert_array_equal(labels, y[-50:])
    # no more than a bounded number of blocks is kept between joins
    assert len(model._window_blocks) <= _online._BLOCKS + 1


def test_a_new_class_starts_the_window_again():
    X, y = _data(n=90)
    model = OnlineCalibratedClassifier(
        PassiveAggressiveClassifier(new_classes="add", random_state=0)
    )
    first = y[:40] < 2
    _quiet(model.partial_fit, X[:40][first], y[:40][first])
    assert model._window()[0].shape[1] == 1
    _quiet(model.partial_fit, X[40:], y[40:])
    S, labels, _ = model._window()
    # the rows up to the one that brings the class in have no score for it
    # (NaN): they are not recorded
    first = int(np.argmax(y[40:] == 2))
    assert S.shape == (50 - (first + 1), 3)
    np.testing.assert_array_equal(labels, y[40 + first + 1 :])
    assert model.predict_proba(X).shape == (90, 3)


# ------------------------------------------------------------ refusals
def test_a_classifier_of_another_package_is_refused():
    X, y = _data()
    model = OnlineCalibratedClassifier(SGDClassifier())
    with pytest.raises(TypeError, match="does not record the scores.*CalibratedCl"):
        model.partial_fit(X, y, classes=[0, 1, 2])
    assert not hasattr(model, "estimator_")


def test_a_multilabel_y_is_refused():
    X, _ = _data()
    Y = (X[:, :3] > 0).astype(int)
    with pytest.raises(ValueError, match="single-label.*1-D"):
        OnlineCalibratedClassifier().partial_fit(X, Y, classes=[0, 1, 2])


def test_uniform_before_any_recorded_row():
    """Unlabeled rows (a semi-supervised Bayes point machine's) teach the
    classifier but not the calibration: before a labeled row, the
    probabilities are uniform."""
    from sklearn_pa import OnlineBayesPointClassifier

    X, y = _data()
    model = OnlineCalibratedClassifier(OnlineBayesPointClassifier(random_state=0))
    _quiet(model.partial_fit, X[:20], np.full(20, -1), classes=[0, 1, 2])
    assert model.n_calibration_samples_ == 0
    np.testing.assert_allclose(model.predict_proba(X[:3]), 1 / 3)
    _quiet(model.partial_fit, X[20:40], y[20:40])
    assert model.n_calibration_samples_ == 20


# ------------------------------------------------------------ atomicity
def _state(model):
    return pickle.dumps(model)


@pytest.mark.parametrize("name, Estimator", CLASSIFIERS)
def test_a_refused_batch_changes_nothing(name, Estimator):
    X, y = _data()
    model = _stream(OnlineCalibratedClassifier(_base(Estimator)), X[:60], y[:60])
    before = _state(model)
    bad = X[60:80].copy()
    bad[5, 2] = np.nan
    with pytest.raises(ValueError):
        model.partial_fit(bad, y[60:80])
    assert _state(model) == before


@pytest.mark.parametrize("error", [RuntimeError, KeyboardInterrupt])
@pytest.mark.parametrize("name, Estimator", CLASSIFIERS)
def test_an_error_in_the_calibration_step_undoes_the_classifiers_call(
    name, Estimator, error, monkeypatch
):
    """The window is updated inside the classifier's atomic block: an error
    (or an interrupt) there leaves both the classifier and the window as
    they were, bit for bit."""
    X, y = _data()
    model = _stream(OnlineCalibratedClassifier(_base(Estimator)), X[:60], y[:60])
    model.predict_proba(X)  # (the map formed)
    before = _state(model)

    def fail(*args):
        raise error("stop")

    monkeypatch.setattr(_online, "_trimmed", fail)
    with pytest.raises(error):
        _quiet(model.partial_fit, X[60:80], y[60:80])
    assert _state(model) == before
    monkeypatch.undo()
    _quiet(model.partial_fit, X[60:80], y[60:80])
    assert model.n_calibration_samples_ == 80


def test_calls_from_threads_lose_no_row():
    X, y = _data(n=400)
    model = OnlineCalibratedClassifier(
        PassiveAggressiveClassifier(random_state=0), window=10_000
    )
    _quiet(model.partial_fit, X[:1], y[:1], classes=[0, 1, 2])
    rows = np.arange(1, 400)

    def work(part):
        for i in part:
            _quiet(model.partial_fit, X[i : i + 1], y[i : i + 1])

    threads = [
        threading.Thread(target=work, args=(p,)) for p in np.array_split(rows, 4)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert model.n_calibration_samples_ == 400
    alone = PassiveAggressiveClassifier().partial_fit(X, y, classes=[0, 1, 2])
    assert model.estimator_.t_ == alone.t_


# ------------------------------------------------------------ persistence
@pytest.mark.parametrize("method", METHODS)
def test_saved_and_loaded_it_predicts_and_continues_identically(method):
    X, y = _data(n=200)
    model = OnlineCalibratedClassifier(
        PassiveAggressiveClassifier(random_state=0), method=method
    )
    _stream(model, X[:100], y[:100])
    loaded = pickle.loads(pickle.dumps(model))
    np.testing.assert_array_equal(loaded.predict_proba(X), model.predict_proba(X))
    _stream(model, X[100:], y[100:])
    _stream(loaded, X[100:], y[100:])
    np.testing.assert_array_equal(loaded.predict_proba(X), model.predict_proba(X))
    sio = pytest.importorskip("skops.io")
    from sklearn_pa.persistence import trusted_types

    again = sio.loads(sio.dumps(model), trusted=trusted_types())
    np.testing.assert_array_equal(again.predict_proba(X), model.predict_proba(X))


def test_a_saved_window_that_disagrees_with_its_classifier_is_refused():
    X, y = _data()
    model = _stream(OnlineCalibratedClassifier(), X, y)
    state = model.__getstate__()
    for edit, message in [
        ({"classes_": np.array([0, 1, 5])}, "classes_ that are not those"),
        ({"_window_labels": np.full(120, 7)}, "window labels outside"),
        ({"_window_scores": np.zeros((120, 1))}, "score columns"),
        ({"calibration_": np.zeros((2, 2))}, "a map of shape"),
    ]:
        loaded = OnlineCalibratedClassifier.__new__(OnlineCalibratedClassifier)
        with pytest.raises(ValueError, match=f"{message}.*damaged or edited"):
            loaded.__setstate__({**state, **edit})


def test_fit_starts_again():
    X, y = _data()
    model = OnlineCalibratedClassifier(PassiveAggressiveClassifier(random_state=0))
    _quiet(model.fit, X[:50], y[:50])
    _quiet(model.fit, X, y)
    fresh = _quiet(clone(model).fit, X, y)
    np.testing.assert_array_equal(model.predict_proba(X), fresh.predict_proba(X))
    assert model.n_calibration_samples_ == X.shape[0]


def test_sparse_rows_give_the_dense_rows_probabilities():
    X, y = _data()
    dense = _stream(OnlineCalibratedClassifier(), X, y)
    sparse = _stream(OnlineCalibratedClassifier(), sp.csr_matrix(X), y)
    np.testing.assert_allclose(
        sparse.predict_proba(X), dense.predict_proba(X), rtol=1e-12
    )


# ------------------------------------------------------------ the benchmark
def test_the_calibration_benchmark_scores_and_draws(tmp_path):
    """``--dataset usps-calibration`` / ``20newsgroups-calibration`` on a
    small data set: a row per learner with finite scores, probabilities the
    reliability bins account for, and the diagram drawn."""
    pytest.importorskip("matplotlib")
    from sklearn.utils import Bunch

    from sklearn_pa.benchmark import format_table, plot_results
    from sklearn_pa.benchmark._calibration import (
        reliability,
        run_calibration,
        usps_held_out,
    )

    X, y = _data(n=600, d=8)
    data = usps_held_out(Bunch(name="tiny", X=X, y=y), random_state=0)
    names = ["PA+sigmoid", "PA+temperature", "AROW-probit", "PA-CalibratedCV"]
    rows = run_calibration(data, names)
    assert [row["estimator"] for row in rows] == names
    for row in rows:
        assert 0 <= row["ece"] <= 1 and row["log_loss"] > 0 and 0 <= row["brier"] <= 2
        assert sum(n for _, _, n in row["reliability"]) == data.X_test.shape[0]
    assert "ECE" in format_table(rows)
    path = tmp_path / "reliability.png"
    plot_results(rows, path)
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    # the ECE of probabilities that are their own accuracy is 0
    P = np.array([[0.5, 0.5], [0.5, 0.5], [1.0, 0.0], [0.0, 1.0]])
    bins, ece = reliability(P, np.array([0, 1, 0, 1]))
    assert ece == pytest.approx(0.0)
    with pytest.raises(ValueError, match="Unknown learner"):
        run_calibration(data, ["SVM"])
