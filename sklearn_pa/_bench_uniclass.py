"""Benchmark entries of the uniclass and kernel PA estimators.

``python -m sklearn_pa.benchmark`` scores classifiers by accuracy.  A novelty
detector enters it as a *one-ball-per-class* classifier: one detector is fit
on the samples of each class, and a sample goes to the class whose detector
scores it highest (its ``decision_function``).  The accuracy then measures
how well each detector describes its own class against the others, for
``PassiveAggressiveOneClass`` and for scikit-learn's ``SGDOneClassSVM`` alike.
Detectors are fit on standardised features (statistics of the training fold).
"""

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.linear_model import SGDOneClassSVM
from sklearn.preprocessing import StandardScaler
from sklearn.utils.multiclass import unique_labels
from sklearn.utils.validation import check_is_fitted, validate_data

from ._kernel import KernelPassiveAggressiveClassifier
from ._one_class import PassiveAggressiveOneClass

__all__ = ["OneDetectorPerClass", "uniclass_kernel_estimators"]


class OneDetectorPerClass(ClassifierMixin, BaseEstimator):
    """One novelty detector per class; predict the class that scores highest.

    Parameters
    ----------
    detector : estimator
        An outlier detector with ``decision_function``; cloned per class.
    max_iter, tol, shuffle, random_state
        Set on each clone of ``detector`` (so that the benchmark's
        protocol, ``epochs`` passes without early stopping, applies).

    Examples
    --------
    >>> from sklearn.datasets import load_digits
    >>> from sklearn_pa import PassiveAggressiveOneClass
    >>> from sklearn_pa._bench_uniclass import OneDetectorPerClass
    >>> X, y = load_digits(return_X_y=True)
    >>> det = PassiveAggressiveOneClass(C=0.1, epsilon="learn", epsilon_bound=5.0)
    >>> OneDetectorPerClass(det).fit(X, y).score(X, y) > 0.8
    True
    """

    def __init__(
        self, detector, *, max_iter=5, tol=None, shuffle=True, random_state=None
    ):
        self.detector = detector
        self.max_iter = max_iter
        self.tol = tol
        self.shuffle = shuffle
        self.random_state = random_state

    def fit(self, X, y):
        X, y = validate_data(self, X, y)
        self.classes_ = unique_labels(y)
        self.scaler_ = StandardScaler().fit(X)
        Xs = self.scaler_.transform(X)
        detector = clone(self.detector).set_params(
            max_iter=self.max_iter,
            tol=self.tol,
            shuffle=self.shuffle,
            random_state=self.random_state,
        )
        self.detectors_ = [clone(detector).fit(Xs[y == c]) for c in self.classes_]
        return self

    def decision_function(self, X):
        check_is_fitted(self)
        X = validate_data(self, X, reset=False)
        Xs = self.scaler_.transform(X)
        return np.column_stack([d.decision_function(Xs) for d in self.detectors_])

    def predict(self, X):
        return self.classes_[np.argmax(self.decision_function(X), axis=1)]


def uniclass_kernel_estimators():
    """Registry entries (name -> factory(epochs, random_state)) for
    :data:`sklearn_pa.benchmark.ESTIMATORS`."""

    def one_class(**params):
        def factory(epochs, random_state):
            return OneDetectorPerClass(
                PassiveAggressiveOneClass(**params),
                max_iter=epochs,
                random_state=random_state,
            )

        return factory

    def sgd_one_class(epochs, random_state):
        return OneDetectorPerClass(
            SGDOneClassSVM(nu=0.1), max_iter=epochs, random_state=random_state
        )

    def kernel(**params):
        def factory(epochs, random_state):
            return KernelPassiveAggressiveClassifier(
                max_iter=epochs, random_state=random_state, **params
            )

        return factory

    return {
        "KernelPA-I-rbf": kernel(C=1.0),
        "KernelPA-I-rbf-budget500": kernel(C=1.0, budget=500),
        "PA-OneClass-I-learn": one_class(C=0.1, epsilon="learn", epsilon_bound=5.0),
        "OneClass-sklearn-SGDOneClassSVM": sgd_one_class,
    }
