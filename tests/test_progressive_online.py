"""Progressive validation never reads ahead: the online scores do not depend
on the batch size nor on later rows (data-dependent constants such as
``intercept_scaling="auto"`` and kernel PA's ``gamma="scale"`` come from the
first sample), delayed labels work for every learner with ``partial_fit``,
and string labels of every length come back whole."""

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.base import clone, is_classifier, is_regressor
from sklearn.datasets import make_classification, make_regression
from test_progressive_delay import _reference

from sklearn_pa import (
    AROWClassifier,
    KernelPassiveAggressiveClassifier,
    PassiveAggressiveClassifier,
    PassiveAggressiveRegressor,
)
from sklearn_pa.model_selection import progressive_val_predict
from sklearn_pa.utils import all_estimators


def _online_learners(compiled_only):
    """Every public estimator with ``partial_fit`` (the ones with the
    compiled pass only, if asked), with a fixed random_state."""
    out = []
    for name, Estimator in all_estimators():
        if not hasattr(Estimator, "partial_fit"):
            continue
        est = Estimator()
        if compiled_only and not hasattr(est, "__sklearn_pa_prequential__"):
            continue
        if "random_state" in est.get_params():
            est.set_params(random_state=0)
        out.append(pytest.param(est, id=name))
    return out


def _data(est, n=60, seed=0, n_classes=2):
    if is_regressor(est):
        X, y = make_regression(n, 5, noise=5.0, random_state=seed)
        return X, y / np.std(y), {}
    X, y = make_classification(
        n, 5, n_informative=4, n_redundant=0, n_classes=n_classes, random_state=seed
    )
    if not is_classifier(est):  # the one-class learner
        return X, None, {}
    return X, y, {"classes": np.unique(y)}


def _scores(est, X, y, kwargs, **params):
    method = "decision_function" if is_classifier(est) else "predict"
    out, predicted = progressive_val_predict(
        est, X, y, method=method, **kwargs, **params
    )
    return np.asarray(out, dtype=float), predicted


COMPILED = _online_learners(compiled_only=True)


@pytest.mark.parametrize("est", COMPILED)
@pytest.mark.parametrize("variant", ["dense", "sparse-3-classes", "shifted"])
def test_online_scores_do_not_depend_on_the_batch_size(est, variant):
    n_classes = 3 if variant == "sparse-3-classes" else 2
    if n_classes == 3 and not is_classifier(est):
        n_classes = 2
    X, y, kwargs = _data(est, n_classes=n_classes, seed=1)
    if variant == "shifted":  # far from the RMS of 1: "auto" matters
        X = 7.0 * X + 3.0
    if variant.startswith("sparse"):
        X = X * (np.random.RandomState(0).rand(*X.shape) < 0.6)
        X = sp.csr_matrix(X)
    whole, predicted = _scores(est, X, y, kwargs)
    assert predicted[1:].all()
    for batch_size in (1, 2, 13):
        scores, predicted_b = _scores(est, X, y, kwargs, batch_size=batch_size)
        assert_array_equal(predicted_b, predicted)
        assert_allclose(scores, whole, rtol=1e-9, atol=1e-12, err_msg=str(batch_size))
    # a stream of batches of its own sizes, too
    cuts = [0, 5, 6, 31, X.shape[0]]
    stream = [(X[a:b], y[a:b]) for a, b in zip(cuts[:-1], cuts[1:])]
    method = "decision_function" if is_classifier(est) else "predict"
    scores, _ = progressive_val_predict(est, stream, method=method, **kwargs)
    assert_allclose(np.asarray(scores, float), whole, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("est", COMPILED)
def test_later_rows_do_not_change_earlier_scores(est):
    X, y, kwargs = _data(est, seed=2)
    before, _ = _scores(est, X, y, kwargs)
    X_later = X.copy()
    X_later[30:] *= 100.0
    for batch_size in (None, 7):
        after, _ = _scores(est, X_later, y, kwargs, batch_size=batch_size)
        assert_allclose(after[:30], before[:30], rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize(
    "est",
    [
        PassiveAggressiveClassifier(),
        PassiveAggressiveClassifier(average=True, multiclass="ovr"),
        AROWClassifier(),
        KernelPassiveAggressiveClassifier(),
        PassiveAggressiveRegressor(),
    ],
    ids=["PA", "PA-avg-ovr", "AROW", "KPA", "PA-reg"],
)
def test_default_constants_are_the_per_sample_loop(est):
    """With the defaults ("auto", "scale") the online scores are those of the
    predict / partial_fit loop over single samples."""
    X, y, kwargs = _data(est, n=40, seed=3, n_classes=3 if "avg" in str(est) else 2)
    X = 5.0 * X + 1.0
    scores, _ = _scores(est, X, y, kwargs)
    method = "decision_function" if is_classifier(est) else "predict"
    loop = clone(est).partial_fit(X[:1], y[:1], **kwargs)
    expected = []
    for i in range(1, X.shape[0]):
        expected.append(getattr(loop, method)(X[i : i + 1])[0])
        loop.partial_fit(X[i : i + 1], y[i : i + 1])
    assert_allclose(scores[1:], np.asarray(expected), rtol=1e-9, atol=1e-12)


def _arrival(kind, n, rng):
    if isinstance(kind, int):
        return kind
    if kind == "blocks":  # the labels of each 9 rows arrive together
        return (np.arange(n) // 9 + 1) * 9 + 0.5
    arrival = np.arange(n) + rng.exponential(6.0, n)
    arrival[rng.rand(n) < 0.05] = np.inf
    return arrival


@pytest.mark.parametrize("est", _online_learners(compiled_only=False))
@pytest.mark.parametrize("kind", [1, 3, "blocks", "random"])
def test_delay_works_for_every_online_learner(est, kind):
    X, y, kwargs = _data(est, n=50, seed=4)
    arrival = _arrival(kind, 50, np.random.RandomState(0))
    method = "decision_function" if is_classifier(est) else "predict"
    y_fit = np.zeros(50) if y is None else y
    out, predicted = progressive_val_predict(
        est, X, y_fit, delay=arrival, method=method, **kwargs
    )
    assert out.shape[0] == 50
    expected, _ = _reference(est, X, y_fit, arrival, kwargs.get("classes"), method)
    first = np.flatnonzero([e is not None for e in expected])
    assert first.size
    assert predicted[first].all()
    if not hasattr(est, "__sklearn_pa_prequential__") and not isinstance(kind, int):
        # partial_fit on the rows whose labels arrive together: the loop
        # over single rows is the reference only for a constant delay
        return
    assert_allclose(
        out[first], np.asarray([expected[j] for j in first]), rtol=1e-9, atol=1e-12
    )
    if hasattr(est, "__sklearn_pa_prequential__"):
        # the rows before the first label: the initial model's scores
        assert predicted.all() and np.all(np.isfinite(out))


def test_delay_on_kernel_pa_predicts_the_empty_expansion_first():
    X, y = make_classification(30, 4, random_state=0)
    for delay in (1, 3, 8):
        out, predicted = progressive_val_predict(
            KernelPassiveAggressiveClassifier(),
            X,
            y,
            classes=[0, 1],
            delay=delay,
            method="decision_function",
        )
        assert predicted.all()
        assert_array_equal(out[: delay + 1], 0.0)
        assert np.any(out[delay + 1 :] != 0.0)
        labels, _ = progressive_val_predict(
            KernelPassiveAggressiveClassifier(), X, y, classes=[0, 1], delay=delay
        )
        assert_array_equal(labels[: delay + 1], 0)


LABELS = [("no", "yes"), ("a", "bbbb", "cc"), ("a-much-longer-label", "x")]


@pytest.mark.parametrize("labels", LABELS, ids=lambda t: "-".join(t))
@pytest.mark.parametrize("first", [0, -1])
@pytest.mark.parametrize("as_object", [False, True])
@pytest.mark.parametrize(
    "how", [{"delay": 1}, {"delay": 2}, {"delay": "random"}, {"batch_size": 1}, {}]
)
def test_string_labels_of_every_length_come_back_whole(labels, first, as_object, how):
    """The labels (sorted) of the codes 0, 1, ...; the stream starts with the
    shortest or the last one."""
    rng = np.random.RandomState(0)
    n = 40
    X = rng.randn(n, 3)
    codes = rng.randint(0, len(labels), n)
    codes[:3] = np.arange(len(labels))[first]
    codes[3 : 3 + len(labels)] = np.arange(len(labels))
    y = np.asarray([labels[c] for c in codes], dtype=object if as_object else None)
    if how.get("delay") == "random":
        how = {"delay": np.arange(n) + rng.randint(1, 6, n) + 0.5}
    est = PassiveAggressiveClassifier(new_classes="add")
    pred, predicted = progressive_val_predict(est, X, y, **how)
    assert not predicted[0] and predicted[-1]
    assert set(pred[predicted]) <= set(labels)
    # the same labels as the codes give
    pred_codes, predicted_codes = progressive_val_predict(est, X, codes, **how)
    assert_array_equal(predicted_codes, predicted)
    assert_array_equal(
        pred[predicted], np.asarray(labels, dtype=object)[pred_codes[predicted]]
    )
    assert len(set(pred[predicted])) > 1
