"""Migrating from scikit-learn: the recipe that reproduces its model bit for
bit (``weight_scaling="step"``), and the loader of its pickles."""

import warnings

import numpy as np
import pytest
import sklearn.linear_model
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.datasets import make_classification, make_regression
from sklearn.linear_model import SGDClassifier, SGDRegressor
from sklearn.utils.fixes import parse_version

from sklearn_pa import PassiveAggressiveClassifier, PassiveAggressiveRegressor

SKLEARN_HAS_PA = hasattr(sklearn.linear_model, "PassiveAggressiveClassifier")
needs_sklearn_pa = pytest.mark.skipif(
    not SKLEARN_HAS_PA,
    reason="this scikit-learn no longer has PassiveAggressiveClassifier",
)
# every test here uses SGD's PA step, which appeared in scikit-learn 1.8
pytestmark = pytest.mark.skipif(
    parse_version(sklearn.__version__) < parse_version("1.8"),
    reason="SGDClassifier(learning_rate='pa1') appeared in scikit-learn 1.8",
)

#: The recipe: the parameters that make this package's model scikit-learn's.
RECIPE = dict(
    multiclass="ovr",
    fit_intercept=False,
    shuffle=False,
    average=False,
    weight_scaling="step",
)


def _quiet(fit):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # deprecation, convergence
        return fit()


def imbalanced(n_classes, seed=0):
    weights = [0.8, 0.15, 0.05] if n_classes == 3 else [0.9, 0.1]
    X, y = make_classification(
        400,
        20,
        n_informative=10,
        n_classes=n_classes,
        weights=weights,
        random_state=seed,
    )
    class_weight = dict(zip(range(n_classes), [1.0, 3.0, 10.0][:n_classes]))
    return X, y, class_weight


def sgd_classifier(C, loss, **kwargs):
    rate = "pa1" if loss == "hinge" else "pa2"
    return SGDClassifier(
        loss="hinge", penalty=None, learning_rate=rate, eta0=C, **kwargs
    )


# ------------------------------------------------------------------ recipe
@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("loss", ["hinge", "squared_hinge"])
@pytest.mark.parametrize("C", [0.01, 1.0])
def test_recipe_reproduces_sklearn_bit_for_bit(n_classes, loss, C):
    """With the recipe, class weights as scikit-learn applied them: the same
    coef_, to the last bit, as its removed class where it still has it, and
    always as SGDClassifier(learning_rate="pa1" / "pa2"), sample weights
    included."""
    X, y, class_weight = imbalanced(n_classes)
    sample_weight = np.random.RandomState(0).uniform(0.2, 3.0, size=len(y))
    common = dict(max_iter=5, tol=None, class_weight=class_weight)
    ours = PassiveAggressiveClassifier(C=C, loss=loss, **RECIPE, **common)
    if SKLEARN_HAS_PA:
        ref = _quiet(
            lambda: sklearn.linear_model.PassiveAggressiveClassifier(
                C=C, loss=loss, fit_intercept=False, shuffle=False, **common
            ).fit(X, y)
        )
        assert_array_equal(ours.fit(X, y).coef_, ref.coef_)
        assert ours.t_ == ref.t_ and ours.n_iter_ == ref.n_iter_
    sgd = _quiet(
        lambda: sgd_classifier(
            C, loss, fit_intercept=False, shuffle=False, **common
        ).fit(X, y, sample_weight=sample_weight)
    )
    ours.fit(X, y, sample_weight=sample_weight)
    assert_array_equal(ours.coef_, sgd.coef_)
    # the default, weights on C, is another model
    default = PassiveAggressiveClassifier(
        C=C, loss=loss, **{**RECIPE, "weight_scaling": "C"}, **common
    ).fit(X, y, sample_weight=sample_weight)
    assert not np.allclose(default.coef_, sgd.coef_)


@pytest.mark.parametrize(
    "loss, rate",
    [("epsilon_insensitive", "pa1"), ("squared_epsilon_insensitive", "pa2")],
)
def test_regressor_recipe_reproduces_sgd_with_sample_weights(loss, rate):
    X, y = make_regression(200, 10, noise=5.0, random_state=0)
    sample_weight = np.random.RandomState(1).uniform(0.2, 3.0, size=len(y))
    sgd = _quiet(
        lambda: SGDRegressor(
            loss="epsilon_insensitive",
            penalty=None,
            learning_rate=rate,
            eta0=0.3,
            fit_intercept=False,
            shuffle=False,
            max_iter=3,
            tol=None,
        ).fit(X, y, sample_weight=sample_weight)
    )
    ours = PassiveAggressiveRegressor(
        C=0.3,
        loss=loss,
        fit_intercept=False,
        shuffle=False,
        max_iter=3,
        tol=None,
        weight_scaling="step",
    ).fit(X, y, sample_weight=sample_weight)
    assert_array_equal(ours.coef_, sgd.coef_)


def test_weights_on_C_do_nothing_where_C_does_not_bind():
    """The issue the parameter answers: on data whose steps C=1 never caps,
    class weights on C change nothing, and on the step they do."""
    X, y, _ = imbalanced(2)
    X = X * 10.0  # ||x||^2 large: every step loss / ||x||^2 is below C
    kw = dict(shuffle=False, max_iter=3, tol=None, average=False)
    plain = PassiveAggressiveClassifier(**kw).fit(X, y)
    on_C = PassiveAggressiveClassifier(class_weight={1: 5.0}, **kw).fit(X, y)
    on_step = PassiveAggressiveClassifier(
        class_weight={1: 5.0}, weight_scaling="step", **kw
    ).fit(X, y)
    assert_array_equal(on_C.coef_, plain.coef_)
    assert not np.allclose(on_step.coef_, plain.coef_)


def test_step_weights_scale_the_step_exactly():
    """One binary PA-I step with weight w is w times the unweighted step."""
    X = np.array([[1.0, 2.0]])
    kw = dict(C=10.0, fit_intercept=False, average=False)
    one = PassiveAggressiveClassifier(**kw).partial_fit(X, [1], classes=[0, 1])
    three = PassiveAggressiveClassifier(weight_scaling="step", **kw).partial_fit(
        X, [1], classes=[0, 1], sample_weight=[3.0]
    )
    assert_allclose(three.coef_, 3.0 * one.coef_, rtol=1e-15)
    # the margin is overshot: 3 > 1
    assert_allclose(three.decision_function(X), [3.0], rtol=1e-15)
