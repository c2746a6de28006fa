"""Reference implementations that the benchmark prints beside ours.

Not part of the package's API: :class:`NumpySCCW` is the full-covariance SCCW
update written with one NumPy call per operation (the timing protocol shows
what the compiled kernel saves), and :class:`OneDetectorPerClass` lets a
novelty detector enter the accuracy tables as a classifier.

A novelty detector enters the accuracy table as a *one-ball-per-class*
classifier: one detector is fit on the samples of each class, and a sample
goes to the class whose detector scores it highest (its
``decision_function``).  The accuracy then measures how well each detector
describes its own class against the others, for ``PassiveAggressiveOneClass``
and for scikit-learn's ``SGDOneClassSVM`` alike.  Detectors are fit on
standardised features (statistics of the training fold).
"""

from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.preprocessing import StandardScaler
from sklearn.utils._param_validation import Interval
from sklearn.utils.multiclass import unique_labels
from sklearn.utils.validation import check_is_fitted, validate_data

__all__ = ["NumpySCCW", "OneDetectorPerClass"]


class NumpySCCW(ClassifierMixin, BaseEstimator):
    """A straightforward NumPy implementation of full-covariance SCCW.

    The same update as ``ConfidenceWeightedClassifier(covariance="full")``
    without an intercept, one NumPy call per operation and a Python loop over
    the rows: the reference that shows what the compiled kernel saves.  Dense
    input only.

    Parameters
    ----------
    eta : float, default=0.8
        Confidence (the full-covariance default of the compiled estimator).
    max_iter : int, default=3
        Passes over the data.
    tol : None, default=None
        No early stopping (present for the benchmark's protocol).
    shuffle : bool, default=True
        Shuffle the rows before each pass.
    random_state : int, default=0
        Seed of the shuffling.
    fit_intercept : False, default=False
        There is no intercept; ``True`` is refused.

    Examples
    --------
    >>> from sklearn.datasets import load_digits
    >>> from sklearn_pa.benchmark._reference import NumpySCCW
    >>> X, y = load_digits(return_X_y=True)
    >>> X = X[:300] / 16
    >>> NumpySCCW(max_iter=1).fit(X, y[:300]).score(X, y[:300]) > 0.8
    True
    """

    _parameter_constraints = {
        "eta": [Interval(Real, 0.5, 1, closed="neither")],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "tol": [None],
        "shuffle": ["boolean"],
        "random_state": ["random_state"],
        "fit_intercept": ["boolean"],
    }

    def __init__(
        self,
        eta=0.8,
        *,
        max_iter=3,
        tol=None,
        shuffle=True,
        random_state=0,
        fit_intercept=False,
    ):
        self.eta = eta
        self.max_iter = max_iter
        self.tol = tol
        self.shuffle = shuffle
        self.random_state = random_state
        self.fit_intercept = fit_intercept

    def fit(self, X, y):
        from scipy.special import ndtri

        self._validate_params()
        if self.fit_intercept:
            raise ValueError(
                "NumpySCCW has no intercept: set fit_intercept=False "
                "(--set fit_intercept=False on the command line)."
            )
        X, y = validate_data(self, X, y)
        classes, labels = np.unique(y, return_inverse=True)
        n, d = X.shape
        K = len(classes)
        phi = ndtri(self.eta)
        W = np.zeros((d, K))
        S = np.eye(d)
        rng = np.random.default_rng(self.random_state)
        for _ in range(self.max_iter):
            for i in rng.permutation(n) if self.shuffle else range(n):
                x, t = X[i], labels[i]
                scores = x @ W
                sx = S @ x
                v = x @ sx
                margins = np.delete(scores[t] - scores, t)
                others = np.delete(np.arange(K), t)
                if v <= 0 or margins.min() >= phi * np.sqrt(2 * v):
                    continue
                order = np.argsort(margins, kind="stable")
                L, A_best, su_best, n_sup = 0.0, 0.0, 0.0, 0
                for j, idx in enumerate(order, start=1):
                    L += margins[idx]
                    B = ((j + 1) * K + j * phi**2) * v
                    a = B * B - j * j * phi**4 * v * v
                    A = (
                        -K * B * L
                        + j * K * phi * np.sqrt(phi**2 * v * v * L * L + 2 * v * a)
                    ) / a
                    c = np.sqrt(2) * A * phi * v
                    su = (-c + np.sqrt(c * c + 4 * K * K * v)) / (2 * K)
                    alpha = (phi * np.sqrt(2) * su - margins[idx]) / v - A
                    if alpha <= 0:
                        break
                    n_sup, A_best, su_best = j, A, su
                if n_sup == 0:
                    continue
                sup = order[:n_sup]
                alphas = (phi * np.sqrt(2) * su_best - margins[sup]) / v - A_best
                W[:, others[sup]] -= np.outer(sx, alphas)
                W[:, t] += A_best * sx
                beta = (
                    np.sqrt(2)
                    * A_best
                    * phi
                    / (K * su_best + np.sqrt(2) * A_best * phi * v)
                )
                S -= beta * np.outer(sx, sx)
        self.coef_ = W.T
        self.classes_ = classes
        return self

    def decision_function(self, X):
        check_is_fitted(self)
        X = validate_data(self, X, reset=False)
        return X @ self.coef_.T

    def predict(self, X):
        return self.classes_[np.argmax(self.decision_function(X), axis=1)]


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
    >>> from sklearn_pa.benchmark._reference import OneDetectorPerClass
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
