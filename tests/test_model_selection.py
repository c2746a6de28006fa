"""Progressive validation: one kernel pass equals the predict-then-learn loop."""

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.base import clone, is_classifier
from sklearn.datasets import make_classification, make_regression
from sklearn.linear_model import SGDClassifier, SGDRegressor
from sklearn.metrics import mean_absolute_error

from sklearn_pa import (
    ErrorProportionalRegressor,
    ExponentiatedGradientRegressor,
    GradientDescentRegressor,
    PassiveAggressiveClassifier,
    PassiveAggressiveRegressor,
)
from sklearn_pa.model_selection import progressive_val_predict, progressive_val_score
from sklearn_pa.utils import all_estimators


def _loop(estimator, X, y, method, classes=None):
    """The definition: predict sample i with the model of samples < i.

    The package's estimators predict the first sample with their initial
    model; one call to ``__sklearn_pa_prequential__`` on that sample alone gives it
    (its own equivalence to ``predict`` is checked from the second sample on).
    A classifier learns ``classes`` (default: the labels of ``y``).
    """
    est = clone(estimator)
    if classes is None:
        classes = np.unique(y)
    kwargs = {"classes": classes} if is_classifier(est) else {}
    out = [est.__sklearn_pa_prequential__(X[:1], y[:1], **kwargs)[0]]
    for i in range(1, X.shape[0]):
        out.append(getattr(est, method)(X[i : i + 1])[0])
        est.partial_fit(X[i : i + 1], y[i : i + 1], **kwargs)
    return np.asarray(out), est


def _binary(n=120):
    return make_classification(n_samples=n, n_features=8, random_state=0)


def _multiclass(n=120):
    return make_classification(
        n_samples=n, n_features=8, n_informative=5, n_classes=4, random_state=0
    )


def _regression(n=120):
    X, y = make_regression(n_samples=n, n_features=8, noise=1.0, random_state=0)
    return X, y / 10


def _boolean(n=120):
    rng = np.random.RandomState(0)
    X = (rng.uniform(size=(n, 10)) < 0.3).astype(float)
    return X, X @ rng.uniform(-2, 2, 10)


CASES = [
    (PassiveAggressiveClassifier(intercept_scaling=1.0), _binary),
    (PassiveAggressiveClassifier(intercept_scaling=1.0), _multiclass),
    (PassiveAggressiveClassifier(multiclass="ovr", intercept_scaling=1.0), _multiclass),
    (PassiveAggressiveRegressor(intercept_scaling=1.0), _regression),
    (GradientDescentRegressor(intercept_scaling=1.0), _regression),
    (
        GradientDescentRegressor(
            eta=0.005, eta_scaling="constant", intercept_scaling=1.0
        ),
        _regression,
    ),
    (ExponentiatedGradientRegressor(eta=0.01, total_weight=20.0), _regression),
    (ErrorProportionalRegressor(), _regression),
    (ErrorProportionalRegressor(update="multiplicative", C=0.3), _boolean),
]
IDS = ["PA-bin", "PA-multi", "PA-ovr", "PA-reg", "GD", "GD-const", "EG", "DPAU", "DPMU"]


@pytest.mark.parametrize("estimator, data", CASES, ids=IDS)
@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("batch_size", [None, 1, 7])
def test_kernel_path_is_the_predict_then_learn_loop(
    estimator, data, sparse, batch_size
):
    X, y = data(40)
    Xs = sp.csr_matrix(X) if sparse else X
    method = "decision_function" if is_classifier(estimator) else "predict"
    expected, fitted = _loop(estimator, Xs, y, method)
    scores, predicted, est = progressive_val_predict(
        estimator,
        Xs,
        y,
        method="decision_function",
        batch_size=batch_size,
        return_estimator=True,
    )
    assert predicted.all()
    assert_allclose(scores, expected, rtol=1e-10, atol=1e-10)
    assert_allclose(est.coef_, fitted.coef_, rtol=1e-10, atol=1e-12)
    # the predictions are the decision values mapped as predict maps them
    y_pred, _ = progressive_val_predict(estimator, Xs, y, batch_size=batch_size)
    if is_classifier(estimator):
        classes = fitted.classes_
        if expected.ndim == 1:
            labels = classes[(expected > 0).astype(int)]
        else:
            labels = classes[np.argmax(expected, axis=1)]
        assert_array_equal(y_pred, labels)
        # from the second sample on, exactly what predict said then
        ref = clone(estimator).partial_fit(Xs[:1], y[:1], classes=classes)
        assert y_pred[1] == ref.predict(Xs[1:2])[0]
    else:
        assert_allclose(y_pred, expected, rtol=1e-10, atol=1e-10)


def test_score_and_curve_for_a_regressor():
    X, y = _regression()
    est = GradientDescentRegressor()
    result = progressive_val_score(est, X, y, return_curve=True)
    y_pred, _ = progressive_val_predict(est, X, y)
    errors = (y - y_pred) ** 2
    assert result.loss == "squared_error"
    assert result.scoring == "neg_mean_squared_error"
    assert_allclose(result.cumulative_loss, np.cumsum(errors))
    assert_allclose(result.score, -np.mean(errors))
    assert result.n_predicted == len(y)
    assert_allclose(progressive_val_score(est, X, y), result.score)
    mae = progressive_val_score(est, X, y, scoring="neg_mean_absolute_error")
    assert_allclose(mae, -np.mean(np.abs(y - y_pred)))
    custom = progressive_val_score(est, X, y, scoring=mean_absolute_error)
    assert_allclose(custom, np.mean(np.abs(y - y_pred)))


def test_score_and_curve_for_a_classifier_count_online_mistakes():
    X, y = _multiclass()
    result = progressive_val_score(
        PassiveAggressiveClassifier(), X, y, return_curve=True
    )
    mistakes = result.predictions != y
    assert result.loss == "mistakes"
    assert_array_equal(result.cumulative_loss, np.cumsum(mistakes))
    assert_allclose(result.score, 1 - mistakes.mean())


def test_the_estimator_passed_is_not_modified():
    X, y = _regression()
    est = GradientDescentRegressor()
    result = progressive_val_score(est, X, y, return_estimator=True)
    assert not hasattr(est, "coef_")
    assert hasattr(result.estimator, "coef_")


def test_foreign_estimator_falls_back_to_a_loop():
    X, y = _regression(60)
    sgd = SGDRegressor(learning_rate="constant", eta0=0.01, random_state=0)
    y_pred, predicted = progressive_val_predict(sgd, X, y)
    assert not predicted[0] and predicted[1:].all()
    ref = clone(sgd).partial_fit(X[:1], y[:1])
    expected = []
    for i in range(1, len(y)):
        expected.append(ref.predict(X[i : i + 1])[0])
        ref.partial_fit(X[i : i + 1], y[i : i + 1])
    assert_allclose(y_pred[1:], expected)
    # batches: the first batch is learned unpredicted
    _, predicted = progressive_val_predict(sgd, X, y, batch_size=10)
    assert not predicted[:10].any() and predicted[10:].all()
    score = progressive_val_score(sgd, X, y)
    assert_allclose(score, -np.mean((y[1:] - y_pred[1:]) ** 2))
    clf = SGDClassifier(random_state=0)
    Xc, yc = _multiclass(60)
    result = progressive_val_score(clf, Xc, yc, return_curve=True)
    assert result.n_predicted == 59
    assert result.cumulative_loss[0] == 0


@pytest.mark.parametrize("name", ["AROWClassifier", "ConfidenceWeightedClassifier"])
def test_second_order_models_take_the_kernel_path(name):
    """The second-order kernel records the pre-update scores: every sample,
    the first included, is predicted, as by the predict-then-learn loop."""
    import sklearn_pa

    X, y = make_classification(60, 5, n_informative=3, random_state=0)
    est = getattr(sklearn_pa, name)(intercept_scaling=1.0)
    y_pred, predicted = progressive_val_predict(est, X, y)
    assert predicted.all()
    ref = clone(est).partial_fit(X[:1], y[:1], classes=np.unique(y))
    for i in range(1, X.shape[0]):
        assert y_pred[i] == ref.predict(X[i : i + 1])[0]
        ref.partial_fit(X[i : i + 1], y[i : i + 1])


def test_bad_arguments():
    X, y = _regression(20)
    with pytest.raises(ValueError, match="scoring"):
        progressive_val_score(GradientDescentRegressor(), X, y, scoring="roc")
    with pytest.raises(ValueError, match="batch_size"):
        progressive_val_score(GradientDescentRegressor(), X, y, batch_size=0)
    with pytest.raises(ValueError, match="method"):
        progressive_val_predict(GradientDescentRegressor(), X, y, method="proba")
    with pytest.raises(TypeError, match="partial_fit"):
        from sklearn.linear_model import LinearRegression

        progressive_val_score(LinearRegression(), X, y)
    with pytest.raises(ValueError, match="inconsistent"):
        progressive_val_score(GradientDescentRegressor(), X, y[:-1])


def test_partial_fit_scores_is_atomic_on_bad_input():
    X, y = _regression(20)
    est = GradientDescentRegressor().partial_fit(X, y)
    coef = est.coef_.copy()
    bad = X.copy()
    bad[-1, 0] = np.nan
    with pytest.raises(ValueError):
        est.__sklearn_pa_prequential__(bad, y)
    assert_array_equal(est.coef_, coef)
    avg = PassiveAggressiveRegressor(average=True).partial_fit(X, y)
    coef = avg.coef_.copy()
    with pytest.raises(ValueError):
        avg.__sklearn_pa_prequential__(bad, y)
    assert_array_equal(avg.coef_, coef)


@pytest.mark.parametrize(
    "Estimator",
    [E for _, E in all_estimators() if hasattr(E, "__sklearn_pa_prequential__")],
    ids=lambda E: E.__name__,
)
def test_the_prequential_protocol_hands_its_scores_to_then(Estimator):
    """Every learner with the prequential protocol (discovered) takes
    ``then`` and calls it once, inside the call, with the scores it returns;
    a ``then`` that raises leaves the model as it was."""
    rng = np.random.RandomState(0)
    X = rng.normal(size=(30, 4))
    est = Estimator()
    y = rng.randint(3, size=30) if is_classifier(est) else rng.normal(size=30)
    if "random_state" in est.get_params():
        est.set_params(random_state=0)
    kwargs = {"classes": np.unique(y)} if is_classifier(est) else {}
    est.partial_fit(X[:10], y[:10], **kwargs)
    seen = []
    try:
        scores = est.__sklearn_pa_prequential__(X[10:20], y[10:20], then=seen.append)
    except NotImplementedError:
        assert seen == []
        pytest.skip(f"{Estimator.__name__} records no scores in this configuration")
    assert len(seen) == 1
    assert_array_equal(seen[0], scores)
    before = est.predict(X[20:])

    def fail(scores):
        raise RuntimeError("then failed")

    with pytest.raises(RuntimeError, match="then failed"):
        est.__sklearn_pa_prequential__(X[20:], y[20:], then=fail)
    assert_array_equal(est.predict(X[20:]), before)
