"""What ``sample_weight`` and ``class_weight`` do at the default parameters.

A weight means what it meant in scikit-learn's removed PassiveAggressive
classes (it scales the step, ``weight_scaling="step"``), and every other
learner that takes weights either shows their effect at its defaults or
warns at fit time (:class:`~sklearn_pa.exceptions.InactiveWeightsWarning`)
naming what would make them count."""

import inspect
import re
import warnings

import numpy as np
import pytest
import sklearn
import sklearn.linear_model
from sklearn.base import is_classifier, is_regressor
from sklearn.datasets import make_classification, make_regression
from sklearn.metrics import recall_score
from sklearn.model_selection import train_test_split
from sklearn.utils.class_weight import compute_sample_weight

import sklearn_pa
from sklearn_pa import PassiveAggressiveClassifier, PassiveAggressiveRegressor
from sklearn_pa.exceptions import InactiveWeightsWarning
from sklearn_pa.utils import all_estimators


def _imbalanced():
    """The migration page's problem: 95 % / 5 %, a held-out quarter."""
    X, y = make_classification(
        4000,
        20,
        n_informative=5,
        weights=[0.95, 0.05],
        flip_y=0.02,
        class_sep=0.8,
        random_state=0,
    )
    return train_test_split(X, y, stratify=y, random_state=0)


def _rare_recall_gain(Estimator):
    X_train, X_test, y_train, y_test = _imbalanced()
    recall = []
    for class_weight in (None, "balanced"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)  # the deprecated class
            clf = Estimator(class_weight=class_weight, random_state=0)
            pred = clf.fit(X_train, y_train).predict(X_test)
        recall.append(recall_score(y_test, pred))
    return recall


def test_balanced_class_weight_raises_rare_recall_as_sklearn_did():
    """At the default parameters, ``class_weight="balanced"`` raises the rare
    class's recall at least as much as scikit-learn's own class does (0.322
    to 0.746 here, 0.322 to 0.644 there)."""
    sklearn_pa_ = getattr(sklearn.linear_model, "PassiveAggressiveClassifier", None)
    if sklearn_pa_ is None:
        pytest.skip("this scikit-learn no longer has PassiveAggressiveClassifier")
    ours = _rare_recall_gain(PassiveAggressiveClassifier)
    theirs = _rare_recall_gain(sklearn_pa_)
    assert theirs[1] - theirs[0] > 0.2  # the reference does gain
    assert ours[1] - ours[0] >= theirs[1] - theirs[0]
    assert ours[1] >= theirs[1]


def test_weight_scaling_C_stays_an_option():
    """Weights on ``C`` do nothing where ``C=1`` does not bind (this
    problem's steps stay below it) and bind with a small ``C``."""
    X_train, X_test, y_train, y_test = _imbalanced()

    def recall(**params):
        clf = PassiveAggressiveClassifier(random_state=0, **params)
        return recall_score(y_test, clf.fit(X_train, y_train).predict(X_test))

    assert PassiveAggressiveClassifier().weight_scaling == "step"
    assert PassiveAggressiveRegressor().weight_scaling == "step"
    plain = recall()
    assert recall(class_weight="balanced", weight_scaling="C") == plain
    assert recall(class_weight="balanced", weight_scaling="C", C=0.01) > plain + 0.2


def _weighted_estimators():
    for name, Estimator in all_estimators():
        takes_sample_weight = (
            "sample_weight" in inspect.signature(Estimator.fit).parameters
        )
        takes_class_weight = "class_weight" in Estimator().get_params()
        if takes_sample_weight:
            yield pytest.param(Estimator, "sample_weight", id=f"{name}-sample_weight")
        if takes_class_weight:
            yield pytest.param(Estimator, "class_weight", id=f"{name}-class_weight")


def test_weighted_estimators_found():
    ids = {p.id for p in _weighted_estimators()}
    assert {
        "PassiveAggressiveClassifier-class_weight",
        "PassiveAggressiveRegressor-sample_weight",
        "MIRAClassifier-class_weight",
        "ROMMAClassifier-sample_weight",
    } <= ids
    assert len(ids) >= 20


def _predictions(estimator, X):
    if is_classifier(estimator):
        return estimator.predict(X)
    if hasattr(estimator, "decision_function"):
        return estimator.decision_function(X)
    return estimator.predict(X)


def _names_a_remedy(message, estimator):
    """Whether the warning names a parameter of the estimator (``name=``)
    or another learner of the package that makes the weights count."""
    params = set(estimator.get_params())
    named = set(re.findall(r"\b(\w+)=", message))
    learners = {name for name, _ in all_estimators()} - {type(estimator).__name__}
    return bool(named & params) or any(name in message for name in learners)


@pytest.mark.parametrize("Estimator, weight", list(_weighted_estimators()))
def test_weights_have_an_effect_or_a_warning(Estimator, weight):
    """Every learner taking ``sample_weight`` or ``class_weight``: at its
    default parameters the weights change the model visibly (a classifier,
    weighted towards the rare class by ``class_weight="balanced"`` or the
    same weights per row, changes the predictions of at least 1 % of the
    held-out rows; a regressor or one-class learner, given random weights,
    changes its outputs by more than 1e-3 of their spread), or ``fit`` warns and names
    the parameter (or learner) that would make them bind."""
    estimator = Estimator()
    if is_classifier(estimator):
        X_train, X_test, y_train, _ = _imbalanced()
    else:
        X, y = make_regression(2000, 20, noise=5.0, random_state=0)
        if not is_regressor(estimator):  # the one-class learner
            y = None
        X_train, X_test = X[:1500], X[1500:]
        y_train = None if y is None else y[:1500]
    seed = {"random_state": 0} if "random_state" in estimator.get_params() else {}
    kwargs, params = {}, dict(seed)
    if weight == "sample_weight" and y_train is not None and is_classifier(estimator):
        # the class weighting as per-row weights
        kwargs["sample_weight"] = compute_sample_weight("balanced", y_train)
    elif weight == "sample_weight":
        kwargs["sample_weight"] = np.random.RandomState(1).uniform(
            0.1, 5.0, X_train.shape[0]
        )
    else:
        params["class_weight"] = "balanced"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        plain = _predictions(Estimator(**seed).fit(X_train, y_train), X_test)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        weighted = Estimator(**params).fit(X_train, y_train, **kwargs)
    weighted = _predictions(weighted, X_test)
    if is_classifier(estimator):
        effect = np.mean(plain != weighted) >= 0.01
    else:
        effect = np.max(np.abs(plain - weighted)) > 1e-3 * np.std(plain)
    inactive = [
        str(w.message) for w in caught if issubclass(w.category, InactiveWeightsWarning)
    ]
    assert effect or inactive, (
        f"{Estimator.__name__}: {weight} has no visible effect at the default "
        "parameters and fit gives no InactiveWeightsWarning"
    )
    for message in inactive:
        assert weight in message
        assert _names_a_remedy(message, estimator), message


def test_mira_weights_bind_with_the_margin_the_warning_names():
    """The margin the warning suggests does make MIRA's weights count, and
    fit is silent there."""
    X_train, X_test, y_train, _ = _imbalanced()
    with pytest.warns(InactiveWeightsWarning, match=r"margin=(\S+) here") as record:
        sklearn_pa.MIRAClassifier(class_weight="balanced").fit(X_train, y_train)
    margin = float(re.search(r"margin=(\S+) here", str(record[0].message)).group(1))
    with warnings.catch_warnings():
        warnings.simplefilter("error", InactiveWeightsWarning)
        plain = sklearn_pa.MIRAClassifier(margin=margin, random_state=0)
        weighted = sklearn_pa.MIRAClassifier(
            margin=margin, class_weight="balanced", random_state=0
        )
        plain = plain.fit(X_train, y_train).predict(X_test)
        weighted = weighted.fit(X_train, y_train).predict(X_test)
    assert np.mean(plain != weighted) >= 0.01


def test_romma_warns_only_for_weights_other_than_zero_and_one():
    X, y = make_classification(200, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", InactiveWeightsWarning)
        sklearn_pa.ROMMAClassifier().fit(X, y, sample_weight=(np.arange(200) % 2))
    with pytest.warns(InactiveWeightsWarning, match="no step size"):
        sklearn_pa.ROMMAClassifier().fit(X, y, sample_weight=1.0 + y)
