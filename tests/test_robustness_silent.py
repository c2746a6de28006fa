"""Silent wrong models and unclear errors of the third hostile-input round:
each case is now refused with a ``ValueError`` that says what to fix, or
warned, as its family's peers do."""

import warnings

import numpy as np
import pytest
from sklearn.datasets import make_classification

from sklearn_pa import (
    AROWClassifier,
    ConfidenceWeightedClassifier,
    ExponentiatedGradientRegressor,
    GradientDescentRegressor,
    KernelPassiveAggressiveClassifier,
    KernelPassiveAggressiveRegressor,
    MIRAClassifier,
    OnlineBayesPointClassifier,
    PassiveAggressiveClassifier,
    PassiveAggressiveRegressor,
    SCWClassifier,
)

X3, Y3 = make_classification(
    n_samples=80, n_features=5, n_informative=3, n_classes=3, random_state=0
)
SECOND_ORDER = [ConfidenceWeightedClassifier, AROWClassifier, SCWClassifier]


# ------------------------------------------- 7. covariance changed mid-stream
@pytest.mark.parametrize("Estimator", SECOND_ORDER)
@pytest.mark.parametrize(
    "start, change",
    [
        ({}, {"covariance": "full"}),
        ({"covariance": "full"}, {"covariance": "diagonal"}),
        ({"covariance": "full"}, {"fit_intercept": False}),
        ({"multiclass": "support"}, {"multiclass": "single"}),
    ],
)
def test_covariance_changed_mid_stream_is_refused(Estimator, start, change):
    """set_params(covariance=..., multiclass=..., fit_intercept=...) between
    partial_fit calls reset the learned covariance to the prior and kept the
    weights; now refused (partial_fit and a warm-started fit), the model
    unchanged."""
    if "multiclass" in {**start, **change} and "multiclass" not in (
        Estimator().get_params()
    ):
        pytest.skip(f"{Estimator.__name__} has no multiclass parameter")
    est = Estimator(**start).partial_fit(X3, Y3, classes=[0, 1, 2])
    before = est.covariance_.copy()
    est.set_params(**change)
    with pytest.raises(ValueError, match="learned covariance has shape .* changed"):
        est.partial_fit(X3, Y3)
    np.testing.assert_array_equal(est.covariance_, before)
    warm = Estimator(warm_start=True, **start).fit(X3, Y3).set_params(**change)
    with pytest.raises(ValueError, match="learned covariance has shape"):
        warm.fit(X3, Y3)
    # set back, the stream continues
    est.set_params(**{k: Estimator(**start).get_params()[k] for k in change})
    est.partial_fit(X3, Y3)
    assert est.covariance_.shape == before.shape


# --------------------------------------------------- 8. degenerate kernels
def _ones_kernel_negated(a, b):
    return -float(np.dot(a, b))


def _nan_kernel(a, b):
    return np.nan


def _none_kernel(a, b):
    return None


@pytest.mark.parametrize(
    "Estimator", [KernelPassiveAggressiveClassifier, KernelPassiveAggressiveRegressor]
)
@pytest.mark.parametrize(
    "params, match",
    [
        ({"kernel": "poly", "gamma": 0.0, "coef0": 0.0}, r"K\(x, x\) = 0.0"),
        ({"kernel": "sigmoid", "coef0": -10.0}, r"K\(x, x\) = -"),
        ({"kernel": _ones_kernel_negated}, r"K\(x, x\) = -"),
        ({"kernel": _nan_kernel}, "gives NaN values"),
        ({"kernel": _none_kernel}, "gives NaN values"),
        ({"kernel": "rbf", "kernel_params": {"gama": 5.0}}, r"holds \['gama'\]"),
    ],
)
def test_degenerate_kernel_is_refused(Estimator, params, match):
    """These kernels fitted a model with no support vector (the majority
    class), or NaN decisions, without a word; a misspelt kernel parameter
    was ignored."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 4))
    y = rng.integers(0, 2, 30)
    kwargs = (
        {"classes": [0, 1]} if Estimator is KernelPassiveAggressiveClassifier else {}
    )
    for method in ("fit", "partial_fit"):
        est = Estimator(max_iter=2, **params)
        with pytest.raises(ValueError, match=match):
            if method == "fit":
                est.fit(X, y)
            else:
                est.partial_fit(X, y, **kwargs)
        assert not hasattr(est, "dual_coef_")


def test_infinite_kernel_values_are_skipped_with_a_warning():
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(20, 3)), rng.integers(0, 2, 20)
    est = KernelPassiveAggressiveClassifier(kernel=lambda a, b: np.inf, max_iter=1)
    with pytest.warns(RuntimeWarning, match="rows were skipped"):
        est.fit(X, y)


def test_zero_rows_keep_a_zero_kernel_diagonal():
    """K(x, x) = 0 for an all-zero row is legitimate (linear, poly)."""
    X = np.vstack([np.zeros((3, 4)), np.eye(4)])
    y = np.array([0, 1, 0, 1, 0, 1, 0])
    KernelPassiveAggressiveClassifier(kernel="linear", max_iter=2).fit(X, y)


# ----------------------------------------------- 9. huge sample weights, CW
def test_fit_with_overflowing_sample_weights_is_refused_as_partial_fit_is():
    est = ConfidenceWeightedClassifier(max_iter=20)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        with pytest.raises(ValueError, match="(not finite|overflow)"):
            est.fit(X3, Y3, sample_weight=np.full(len(Y3), 1e308))
    assert not hasattr(est, "coef_")


# ---------------------------------------- 10. early stopping on tiny data
@pytest.mark.parametrize(
    "Estimator",
    [
        PassiveAggressiveRegressor,
        GradientDescentRegressor,
        ExponentiatedGradientRegressor,
        KernelPassiveAggressiveRegressor,
    ],
)
@pytest.mark.parametrize("fraction", [0.05, 0.1])
def test_early_stopping_with_one_validation_sample_is_refused(Estimator, fraction):
    """9 rows and validation_fraction <= 0.1 held out one sample, whose R^2
    is NaN: validation_scores_ all NaN and max_iter epochs."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(9, 3))
    y = X @ rng.normal(size=3)
    est = Estimator(early_stopping=True, validation_fraction=fraction)
    with pytest.raises(ValueError, match="1 validation sample.*at least 2"):
        est.fit(X, y)
    # two validation samples are enough
    Estimator(early_stopping=True, validation_fraction=0.2, max_iter=5).fit(X, y)


# ------------------------------------------ 12. warm_start on other classes
@pytest.mark.parametrize(
    "Estimator",
    [
        PassiveAggressiveClassifier,
        MIRAClassifier,
        *SECOND_ORDER,
        KernelPassiveAggressiveClassifier,
        OnlineBayesPointClassifier,
    ],
)
def test_warm_start_fit_on_other_classes_is_refused(Estimator):
    est = Estimator(warm_start=True, max_iter=3).fit(X3, Y3)
    with pytest.raises(ValueError, match=r"classes \[0, 1, 2\], y has \[5, 6, 7\]"):
        est.fit(X3, Y3 + 5)
    est.fit(X3, Y3)  # the same classes continue


def test_bayes_point_warns_when_minus_one_looks_like_a_class():
    y = Y3 - 1  # {-1, 0, 1}
    with pytest.warns(UserWarning, match="samples labeled -1 beside the label 0"):
        OnlineBayesPointClassifier(max_iter=2).fit(X3, y)
    with warnings.catch_warnings():
        warnings.filterwarnings("error", "y holds", UserWarning)
        OnlineBayesPointClassifier(max_iter=2).fit(X3, Y3 + 1)  # {1, 2, 3}
        y_semi = np.where(Y3 == 0, -1, Y3)  # unlabeled rows beside 1 and 2
        OnlineBayesPointClassifier(max_iter=2).fit(X3, y_semi)


# ---------------------------------------------------- 14. unclear errors
@pytest.mark.parametrize("method", ["fit", "partial_fit"])
def test_exponentiated_total_weight_that_overflows_is_refused(method):
    rng = np.random.default_rng(0)
    X = rng.random((30, 4))
    y = X @ rng.random(4)
    est = ExponentiatedGradientRegressor(total_weight=1e308)
    with pytest.raises(ValueError, match="total_weight=1e.308 .* overflow"):
        getattr(est, method)(X, y)


def test_assigned_sample_counter_beyond_2_53_is_refused():
    rng = np.random.default_rng(0)
    X = rng.random((30, 4))
    y = X @ rng.random(4)
    for Estimator in (ExponentiatedGradientRegressor, PassiveAggressiveRegressor):
        est = Estimator().fit(X, y)
        est.t_ = 1e300
        with pytest.raises(
            ValueError, match=r"t_ of .* whole number in \[1, 2\*\*53\]"
        ):
            est.partial_fit(X, y)
