"""Progressive validation on streams: averaged learners on the compiled
path, iterables of batches, pipelines and scikit-learn scorers."""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.base import clone, is_classifier
from sklearn.feature_extraction.text import HashingVectorizer
from sklearn.linear_model import SGDClassifier
from sklearn.metrics import f1_score, get_scorer, make_scorer, roc_auc_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from test_model_selection import _binary, _loop, _multiclass, _regression

from sklearn_pa import (
    AROWClassifier,
    GradientDescentRegressor,
    PassiveAggressiveClassifier,
    PassiveAggressiveRegressor,
)
from sklearn_pa.model_selection import progressive_val_predict, progressive_val_score

AVERAGED = [
    (PassiveAggressiveClassifier(average=True, intercept_scaling=1.0), _binary),
    (PassiveAggressiveClassifier(average=5, intercept_scaling=1.0), _binary),
    (PassiveAggressiveClassifier(average=True, intercept_scaling=1.0), _multiclass),
    (
        PassiveAggressiveClassifier(
            average=True, multiclass="ovr", intercept_scaling=1.0
        ),
        _multiclass,
    ),
    (PassiveAggressiveRegressor(average=True, intercept_scaling=1.0), _regression),
    (PassiveAggressiveRegressor(average=10, fit_intercept=False), _regression),
    (GradientDescentRegressor(average=True, intercept_scaling=1.0), _regression),
]
AVERAGED_IDS = ["bin", "bin-5", "multi", "ovr", "reg", "reg-10", "GD"]


@pytest.mark.parametrize("estimator, data", AVERAGED, ids=AVERAGED_IDS)
@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("batch_size", [None, 1, 7])
def test_averaged_learners_take_the_kernel_path(estimator, data, sparse, batch_size):
    """The kernel scores each row with the averaged model predict uses, so
    one pass is exactly the predict-then-learn loop of an averaged learner
    (the intercept's scale is fixed: "auto" would read the first batch)."""
    X, y = data(40)
    Xs = sp.csr_matrix(X) if sparse else X
    method = "decision_function" if is_classifier(estimator) else "predict"
    expected, fitted = _loop(estimator, Xs, y, method)
    # the averaged model differs from the current iterate: the test bites
    assert not np.allclose(fitted.coef_, fitted._standard_coef)
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
    assert_allclose(est.intercept_, fitted.intercept_, rtol=1e-10, atol=1e-12)


def test_averaged_learner_warns_nothing_and_is_fast_on_arrays():
    X, y = _binary(3000)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        score = progressive_val_score(PassiveAggressiveClassifier(average=True), X, y)
    assert 0.7 < score < 1.0


def _stream(X, y, size, sample_weight=None):
    for start in range(0, len(y), size):
        part = slice(start, start + size)
        if sample_weight is None:
            yield X[part], y[part]
        else:
            yield X[part], y[part], sample_weight[part]


@pytest.mark.parametrize(
    "estimator, data",
    [
        (PassiveAggressiveClassifier(intercept_scaling=1.0), _multiclass),
        (PassiveAggressiveClassifier(average=True, intercept_scaling=1.0), _binary),
        (PassiveAggressiveRegressor(average=True, intercept_scaling=1.0), _regression),
    ],
    ids=["PA-multi", "PA-avg-bin", "PA-avg-reg"],
)
def test_a_generator_of_batches_equals_the_arrays(estimator, data):
    # intercept_scaling is fixed: "auto" reads the first batch
    X, y = data(100)
    w = np.random.RandomState(0).uniform(0.5, 2.0, size=len(y))
    classes = np.unique(y) if is_classifier(estimator) else None
    expected, _, fitted = progressive_val_predict(
        estimator, X, y, sample_weight=w, return_estimator=True
    )
    got, predicted, est = progressive_val_predict(
        estimator,
        _stream(X, y, 13, w),
        classes=classes,
        return_estimator=True,
    )
    assert predicted.all()
    assert_allclose(got, expected, rtol=1e-10, atol=1e-12)
    assert_allclose(est.coef_, fitted.coef_, rtol=1e-10, atol=1e-12)
    result = progressive_val_score(
        estimator, _stream(X, y, 13), classes=classes, return_curve=True
    )
    assert_array_equal(result.y, y)
    assert result.cumulative_loss.shape == (len(y),)
    assert_allclose(result.score, progressive_val_score(estimator, X, y))


def test_a_stream_is_read_once_in_its_own_batches():
    X, y = _binary(60)
    seen = []

    def gen():
        for Xb, yb in _stream(X, y, 20):
            seen.append(len(yb))
            yield Xb, yb

    progressive_val_score(PassiveAggressiveClassifier(), gen(), classes=[0, 1])
    assert seen == [20, 20, 20]


def test_foreign_learner_on_a_stream_learns_the_first_batch_unpredicted():
    X, y = _multiclass(90)
    clf = SGDClassifier(random_state=0)
    y_pred, predicted = progressive_val_predict(
        clf, _stream(X, y, 30), classes=np.unique(y)
    )
    assert not predicted[:30].any() and predicted[30:].all()
    ref = clone(clf).partial_fit(X[:30], y[:30], classes=np.unique(y))
    assert_array_equal(y_pred[30:60], ref.predict(X[30:60]))


def test_stream_errors_are_clear():
    X, y = _binary(40)
    clf = PassiveAggressiveClassifier()
    with pytest.raises(ValueError, match="classes must be given"):
        progressive_val_score(clf, _stream(X, y, 10))
    with pytest.raises(ValueError, match=r"\(X, y\)"):
        progressive_val_score(clf, iter([X[:10]]), classes=[0, 1])
    with pytest.raises(ValueError, match="y is None"):
        progressive_val_score(clf, X, classes=[0, 1])
    with pytest.raises(ValueError, match="batch_size applies to arrays"):
        progressive_val_score(clf, _stream(X, y, 10), classes=[0, 1], batch_size=5)
    with pytest.raises(ValueError, match="sample_weight applies to arrays"):
        progressive_val_score(
            clf, _stream(X, y, 10), classes=[0, 1], sample_weight=np.ones(40)
        )


def _texts(n=200, seed=0):
    rng = np.random.RandomState(seed)
    words = {0: ["ball", "goal", "team", "match"], 1: ["vote", "law", "party", "poll"]}
    common = ["the", "a", "today", "news", "people"]
    y = rng.randint(0, 2, size=n)
    docs = [" ".join(rng.choice(words[label] + common, size=8).tolist()) for label in y]
    return np.array(docs, dtype=object), y


def test_pipeline_with_a_stateless_hashing_vectorizer():
    docs, y = _texts()
    vec = HashingVectorizer(n_features=2**10)
    pipe = make_pipeline(vec, PassiveAggressiveClassifier(average=True))
    stream = ((docs[i : i + 25], y[i : i + 25]) for i in range(0, len(y), 25))
    result = progressive_val_score(
        pipe, stream, classes=[0, 1], return_curve=True, return_estimator=True
    )
    # the same as the learner on the vectorized arrays
    Xv = vec.transform(docs)
    expected = progressive_val_score(PassiveAggressiveClassifier(average=True), Xv, y)
    assert_allclose(result.score, expected)
    assert result.score > 0.8
    # the fitted pipeline predicts text; the pipeline passed is untouched
    assert result.estimator.predict(docs[:5]).shape == (5,)
    assert not hasattr(pipe[-1], "coef_")
    # arrays through a pipeline: the same
    assert_allclose(progressive_val_score(pipe, docs, y), expected)


def test_pipeline_with_a_prefitted_transformer_and_an_unfitted_one():
    X, y = _binary(100)
    scaler = StandardScaler().fit(X[:20])
    pipe = make_pipeline(scaler, PassiveAggressiveClassifier())
    got = progressive_val_score(pipe, X[20:], y[20:])
    expected = progressive_val_score(
        PassiveAggressiveClassifier(), scaler.transform(X[20:]), y[20:]
    )
    assert_allclose(got, expected)
    with pytest.raises(ValueError, match="is not fitted"):
        progressive_val_score(
            make_pipeline(StandardScaler(), PassiveAggressiveClassifier()), X, y
        )
    with pytest.raises(TypeError, match="partial_fit"):
        progressive_val_score(make_pipeline(scaler, "passthrough"), X, y)


def test_any_scikit_learn_scorer():
    X, y = _multiclass(200)
    clf = PassiveAggressiveClassifier(average=True)
    y_pred, _ = progressive_val_predict(clf, X, y)
    f1 = progressive_val_score(clf, X, y, scoring="f1_macro")
    assert_allclose(f1, f1_score(y, y_pred, average="macro"))
    made = progressive_val_score(
        clf, X, y, scoring=make_scorer(f1_score, average="macro")
    )
    assert_allclose(made, f1)
    # roc_auc reads the online decision values
    Xb, yb = _binary(200)
    scores, _ = progressive_val_predict(clf, Xb, yb, method="decision_function")
    auc = progressive_val_score(clf, Xb, yb, scoring="roc_auc")
    assert_allclose(auc, roc_auc_score(yb, scores))
    assert_allclose(
        progressive_val_score(clf, Xb, yb, scoring=get_scorer("roc_auc")), auc
    )
    # a learner without probabilities cannot be scored by log-loss
    with pytest.raises(ValueError, match="predict_proba"):
        progressive_val_score(clf, Xb, yb, scoring="neg_log_loss")
    with pytest.raises(ValueError, match="get_scorer_names"):
        progressive_val_score(clf, Xb, yb, scoring="not_a_scorer")


def test_log_loss_of_a_probabilistic_learner_uses_the_proba_loop():
    X, y = _binary(80)
    clf = SGDClassifier(loss="log_loss", random_state=0)
    proba, predicted = progressive_val_predict(clf, X, y, method="predict_proba")
    assert not predicted[0] and predicted[1:].all()
    ref = clone(clf).partial_fit(X[:1], y[:1], classes=[0, 1])
    assert_allclose(proba[1], ref.predict_proba(X[1:2])[0])
    score = progressive_val_score(clf, X, y, scoring="neg_log_loss")
    eps = np.finfo(float).eps
    p = np.clip(proba[1:, 1], eps, 1 - eps)
    expected = -np.mean(-(y[1:] * np.log(p) + (1 - y[1:]) * np.log(1 - p)))
    assert_allclose(score, expected, rtol=1e-6)


def test_the_per_sample_loop_warns_on_long_arrays():
    # every estimator of the package takes the compiled path; one from
    # elsewhere takes the loop
    X, y = _binary(1200)
    with pytest.warns(UserWarning, match="batch_size"):
        progressive_val_score(SGDClassifier(random_state=0), X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        progressive_val_score(SGDClassifier(random_state=0), X, y, batch_size=100)
        progressive_val_score(AROWClassifier(), X, y)
