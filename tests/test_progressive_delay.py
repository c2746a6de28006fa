"""Progressive validation of streams whose labels arrive late (``delay``)
and the windowed loss (``window``), against plain Python loops."""

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.datasets import make_classification, make_regression
from sklearn.linear_model import SGDClassifier

from sklearn_pa import (
    AROWClassifier,
    ConfidenceWeightedClassifier,
    MIRAClassifier,
    PassiveAggressiveClassifier,
    PassiveAggressiveRegressor,
)
from sklearn_pa.model_selection import progressive_val_predict, progressive_val_score


def _data(n=150, n_classes=3, seed=0):
    return make_classification(
        n_samples=n,
        n_features=8,
        n_informative=5,
        n_classes=n_classes,
        random_state=seed,
    )


def _arrivals(kind, n, rng):
    if kind == "constant":
        return 7
    if kind == "batches":  # the labels of each 25 rows arrive together
        return (np.arange(n) // 25 + 1) * 25 + 0.5
    # random delays, some never arriving
    arrival = np.arange(n) + rng.exponential(10.0, n)
    arrival[rng.rand(n) < 0.05] = np.inf
    return arrival


def _reference(est, X, y, arrival, classes=None, method="decision_function"):
    """Row by row: before predicting row j, learn (one row per call, in
    arrival order, ties in row order) every row whose label arrived before
    time j; the zero model predicts before the first label."""
    n = y.shape[0]
    if np.isscalar(arrival):
        arrival = np.arange(n) + float(arrival)
    order = np.argsort(arrival, kind="stable")
    est = clone(est)
    kwargs = {} if classes is None else {"classes": classes}
    learned, out, fitted = 0, [], False
    for j in range(n):
        while learned < n and arrival[order[learned]] < j:
            i = order[learned]
            est.partial_fit(X[i : i + 1], y[i : i + 1], **kwargs)
            learned += 1
            fitted = True
        if fitted:
            out.append(getattr(est, method)(X[j : j + 1])[0])
        else:
            out.append(None)
    while learned < n and np.isfinite(arrival[order[learned]]):
        i = order[learned]
        est.partial_fit(X[i : i + 1], y[i : i + 1], **kwargs)
        learned += 1
    return out, est


@pytest.mark.parametrize("kind", ["constant", "batches", "random"])
@pytest.mark.parametrize(
    "est",
    [
        # (a fixed intercept scale: "auto" reads the first call's rows)
        PassiveAggressiveClassifier(intercept_scaling=1.0, random_state=0),
        PassiveAggressiveClassifier(
            average=False, multiclass="ovr", intercept_scaling=1.0, random_state=0
        ),
        MIRAClassifier(average=True, intercept_scaling=1.0, random_state=0),
        AROWClassifier(intercept_scaling=1.0, random_state=0),
    ],
    ids=["pa-averaged", "pa-ovr", "mira", "arow"],
)
def test_delayed_predictions_match_the_python_loop(kind, est):
    X, y = _data()
    arrival = _arrivals(kind, y.shape[0], np.random.RandomState(1))
    scores, predicted, fitted = progressive_val_predict(
        est, X, y, delay=arrival, method="decision_function", return_estimator=True
    )
    expected, ref = _reference(est, X, y, arrival, classes=np.unique(y))
    assert predicted.all()  # the initial model predicts the first rows
    for row, value in enumerate(expected):
        if value is None:  # before any label: the zero model
            np.testing.assert_array_equal(scores[row], 0.0)
        else:
            np.testing.assert_allclose(scores[row], value, rtol=0, atol=1e-12)
    np.testing.assert_allclose(fitted.coef_, ref.coef_, rtol=0, atol=1e-12)
    np.testing.assert_allclose(fitted.intercept_, ref.intercept_, rtol=0, atol=1e-12)
    labels, _ = progressive_val_predict(est, X, y, delay=arrival)
    np.testing.assert_array_equal(labels, fitted.classes_[np.argmax(scores, axis=1)])


def test_delay_zero_and_arrival_at_the_row_are_no_delay():
    X, y = _data()
    est = PassiveAggressiveClassifier(intercept_scaling=1.0, random_state=0)
    plain = progressive_val_predict(est, X, y, method="decision_function")[0]
    zero = progressive_val_predict(est, X, y, delay=0, method="decision_function")[0]
    # arrival at time i: learned before row i + 1, through the delayed loop
    at_row = progressive_val_predict(
        est, X, y, delay=np.arange(y.shape[0]), method="decision_function"
    )[0]
    np.testing.assert_array_equal(zero, plain)
    np.testing.assert_allclose(at_row, plain, rtol=0, atol=1e-12)


def test_delay_regressor_and_foreign_learner():
    X, y = make_regression(n_samples=80, n_features=5, noise=1.0, random_state=0)
    reg = PassiveAggressiveRegressor(intercept_scaling=1.0, random_state=0)
    pred, predicted = progressive_val_predict(reg, X, y, delay=3)
    expected, _ = _reference(reg, X, y, 3, method="predict")
    np.testing.assert_array_equal(pred[:4], 0.0)
    np.testing.assert_allclose(pred[4:], expected[4:], rtol=0, atol=1e-12)
    # scikit-learn's own learner: the rows before the first label are not
    # predicted
    Xc, yc = _data(n=60)
    sgd = SGDClassifier(random_state=0, shuffle=False)
    labels, predicted = progressive_val_predict(sgd, Xc, yc, delay=5)
    expected, _ = _reference(sgd, Xc, yc, 5, classes=np.unique(yc), method="predict")
    assert not predicted[:6].any() and predicted[6:].all()
    np.testing.assert_array_equal(labels[6:], expected[6:])


def test_delay_with_growing_classes():
    X, y = _data(n=120, n_classes=4)
    order = np.argsort(y < 2, kind="stable")[::-1]  # classes 0, 1 first
    X, y = X[order], y[order]
    est = PassiveAggressiveClassifier(
        new_classes="add", intercept_scaling=1.0, random_state=0
    )
    labels, predicted = progressive_val_predict(est, X, y, delay=4)
    expected, _ = _reference(est, X, y, 4, method="predict")
    assert not predicted[:5].any()  # no class is known before a label
    np.testing.assert_array_equal(labels[5:], expected[5:])
    scores, _ = progressive_val_predict(est, X, y, delay=4, method="decision_function")
    first = {c: int(np.flatnonzero(y == c)[0]) for c in (2, 3)}
    for c, row in first.items():
        # a class is not known when its first row is predicted (nor for
        # the next 4 rows, whose labels have not arrived)
        assert np.all(scores[row : row + 5, c] == -np.inf)


@pytest.mark.parametrize("window", [1, 10, 37])
@pytest.mark.parametrize("weighted", [False, True])
def test_window_is_the_numpy_rolling_mean(window, weighted):
    X, y = _data()
    sw = np.random.RandomState(0).uniform(0.5, 2.0, y.shape[0]) if weighted else None
    result = progressive_val_score(
        PassiveAggressiveClassifier(random_state=0),
        X,
        y,
        sample_weight=sw,
        delay=5,
        window=window,
        return_curve=True,
    )
    mistakes = (result.predictions != y).astype(float)
    w = np.ones_like(mistakes) if sw is None else sw
    padded = np.concatenate([np.zeros(window - 1), mistakes * w])
    weights = np.concatenate([np.zeros(window - 1), w])
    kernel = np.ones(window)
    expected = np.convolve(padded, kernel, "valid") / np.convolve(
        weights, kernel, "valid"
    )
    np.testing.assert_allclose(result.windowed_loss, expected, rtol=1e-12)
    np.testing.assert_allclose(
        result.cumulative_loss, np.cumsum(mistakes), rtol=0, atol=0
    )


def test_window_skips_unpredicted_rows():
    X, y = _data(n=60)
    result = progressive_val_score(
        SGDClassifier(random_state=0),
        X,
        y,
        batch_size=10,
        window=15,
        return_curve=True,
    )
    assert np.all(np.isnan(result.windowed_loss[:10]))
    mistakes = (result.predictions != y)[10:].astype(float)
    np.testing.assert_allclose(
        result.windowed_loss[10:15], np.cumsum(mistakes[:5]) / np.arange(1, 6)
    )
    np.testing.assert_allclose(result.windowed_loss[-1], mistakes[-15:].mean())


def test_delay_and_window_errors():
    X, y = _data(n=30)
    est = PassiveAggressiveClassifier()
    with pytest.raises(ValueError, match="return_curve"):
        progressive_val_score(est, X, y, window=5)
    with pytest.raises(ValueError, match="window"):
        progressive_val_score(est, X, y, window=0, return_curve=True)
    with pytest.raises(ValueError, match="non-negative"):
        progressive_val_score(est, X, y, delay=-1)
    with pytest.raises(ValueError, match="before its row"):
        progressive_val_score(est, X, y, delay=np.arange(30) - 1.0)
    with pytest.raises(ValueError, match="shape"):
        progressive_val_score(est, X, y, delay=np.arange(3))
    with pytest.raises(ValueError, match="batch_size"):
        progressive_val_score(est, X, y, delay=2, batch_size=5)
    stream = [(X[:10], y[:10]), (X[10:], y[10:])]
    with pytest.raises(ValueError, match="arrays"):
        progressive_val_score(est, stream, classes=[0, 1], delay=2)


def test_growing_probabilities_take_the_loop():
    """The compiled pass refuses the probabilities of a stream that adds
    classes (before touching the model): the per-sample loop records them,
    in the columns of the final classes."""
    X, y = _data(n=40)
    est = ConfidenceWeightedClassifier(new_classes="add")
    with pytest.raises(NotImplementedError):
        clone(est).__sklearn_pa_prequential__(X, y, predict_proba=True)
    proba, predicted = progressive_val_predict(
        est, X, y, method="predict_proba", batch_size=1
    )
    assert proba.shape == (40, 3)
    assert not predicted[0] and predicted[1:].all()
    np.testing.assert_allclose(proba[predicted].sum(axis=1), 1.0)


def test_delay_through_a_pipeline_and_probabilities():
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import Normalizer

    X, y = _data(n=80)
    est = AROWClassifier(intercept_scaling=1.0)
    pipe = make_pipeline(Normalizer(), est)
    scores, _ = progressive_val_predict(pipe, X, y, delay=3, method="decision_function")
    Xn = Normalizer().transform(X)
    direct, _ = progressive_val_predict(est, Xn, y, delay=3, method="decision_function")
    np.testing.assert_allclose(scores, direct, rtol=0, atol=1e-12)
    # a constant delay learns one row per call: the loop's probabilities
    proba, predicted = progressive_val_predict(
        est, Xn, y, delay=3, method="predict_proba"
    )
    expected, _ = _reference(
        est, Xn, y, 3, classes=np.unique(y), method="predict_proba"
    )
    for row, value in enumerate(expected):
        if value is not None:
            np.testing.assert_allclose(proba[row], value, rtol=0, atol=1e-12)
