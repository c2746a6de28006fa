"""Benchmark entries of the Confidence-Weighted family.

:data:`ESTIMATORS` is merged into :data:`sklearn_pa.benchmark.ESTIMATORS`;
:data:`ESTIMATORS` are the registry entries of ``python -m
sklearn_pa.benchmark`` for this family; the published figures printed beside
them are ``sklearn_pa.benchmark.PUBLISHED``.

Run as a module, it times the diagonal multiclass CW and AROW against
scikit-learn's ``SGDClassifier(learning_rate="pa1")`` on 20 Newsgroups and the
full-covariance SCCW on USPS, with interleaved repeats (minimum of each)::

    python -m sklearn_pa._bench_confidence_weighted --repeats 5
"""

import argparse
import sys
import time

import numpy as np

from ._confidence_weighted import (
    AROWClassifier,
    ConfidenceWeightedClassifier,
    SCWClassifier,
)

__all__ = [
    "ESTIMATORS",
    "interleaved_fit_times",
    "main",
]


def _factory(cls, **params):
    def factory(epochs, random_state):
        return cls(max_iter=epochs, tol=None, random_state=random_state, **params)

    return factory


#: Short name -> factory(epochs, random_state), with the default
#: hyper-parameters of each estimator.
ESTIMATORS = {
    "CW-k1": _factory(ConfidenceWeightedClassifier, multiclass="single"),
    "CW-kinf": _factory(ConfidenceWeightedClassifier, multiclass="sequential"),
    "SCCW": _factory(ConfidenceWeightedClassifier, covariance="full"),
    "SCCWD": _factory(ConfidenceWeightedClassifier),
    "AROW": _factory(AROWClassifier),
    "SCW-I": _factory(SCWClassifier, variant=1),
    "SCW-II": _factory(SCWClassifier, variant=2),
    "CW-k1-avg": _factory(
        ConfidenceWeightedClassifier, multiclass="single", average=True
    ),
    "SCCW-avg": _factory(ConfidenceWeightedClassifier, covariance="full", average=True),
    "SCCWD-avg": _factory(ConfidenceWeightedClassifier, average=True),
    "AROW-avg": _factory(AROWClassifier, average=True),
}


class NumpySCCW:
    """A straightforward NumPy implementation of full-covariance SCCW.

    The same update as ``ConfidenceWeightedClassifier(covariance="full")``
    (no intercept), one NumPy call per operation and a Python loop over the
    rows: the reference that shows what the compiled kernel saves.
    """

    def __init__(self, eta=0.95, epochs=3, random_state=0):
        self.eta = eta
        self.epochs = epochs
        self.random_state = random_state

    def get_params(self, deep=True):
        return {
            "eta": self.eta,
            "epochs": self.epochs,
            "random_state": self.random_state,
        }

    def set_params(self, **params):
        for key, value in params.items():
            setattr(self, key, value)
        return self

    def fit(self, X, y):
        from scipy.special import ndtri

        classes, labels = np.unique(y, return_inverse=True)
        n, d = X.shape
        K = len(classes)
        phi = ndtri(self.eta)
        W = np.zeros((d, K))
        S = np.eye(d)
        rng = np.random.default_rng(self.random_state)
        for _ in range(self.epochs):
            for i in rng.permutation(n):
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

    def score(self, X, y):
        return float(np.mean(self.classes_[np.argmax(X @ self.coef_.T, 1)] == y))


def interleaved_fit_times(estimators, X, y, repeats=5):
    """Minimum fit time of each estimator over ``repeats`` interleaved rounds.

    Parameters
    ----------
    estimators : dict
        Name -> unfitted estimator.
    X, y : training data.
    repeats : int, default=5
        Rounds; each round fits every estimator once, in turn, so that a
        noisy machine slows all of them alike.

    Returns
    -------
    times : dict
        Name -> minimum fit time in seconds.
    """
    from sklearn.base import clone

    best = {name: float("inf") for name in estimators}
    for _ in range(repeats):
        for name, estimator in estimators.items():
            model = clone(estimator)
            tic = time.perf_counter()
            model.fit(X, y)
            best[name] = min(best[name], time.perf_counter() - tic)
    return best


def main(argv=None):
    """Print the speed comparisons (see the module docstring)."""
    from sklearn.linear_model import SGDClassifier

    from .benchmark import load_dataset

    parser = argparse.ArgumentParser(
        prog="python -m sklearn_pa._bench_confidence_weighted"
    )
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--data-home", default=None)
    args = parser.parse_args(argv)

    news = load_dataset("20newsgroups", args.data_home)
    epochs = 5
    candidates = {
        "sklearn-SGD-pa1": SGDClassifier(
            loss="hinge",
            penalty=None,
            learning_rate="pa1",
            eta0=1.0,
            max_iter=epochs,
            tol=None,
            random_state=0,
        ),
        "CW-k1": ESTIMATORS["CW-k1"](epochs, 0),
        "AROW": ESTIMATORS["AROW"](epochs, 0),
    }
    times = interleaved_fit_times(candidates, news.X, news.y, args.repeats)
    ref = times["sklearn-SGD-pa1"]
    print(f"20newsgroups {news.X.shape}, {epochs} epochs, min of {args.repeats}:")
    for name, value in times.items():
        print(f"  {name:18s} {value:7.3f} s   x SGD-pa1 {value / ref:.2f}")

    usps = load_dataset("usps", args.data_home)
    sccw = {
        "SCCW": ESTIMATORS["SCCW"](3, 0).set_params(eta=0.8, fit_intercept=False),
        "NumPy SCCW": NumpySCCW(eta=0.8, epochs=3),
    }
    times = interleaved_fit_times(sccw, usps.X, usps.y, args.repeats)
    print(f"usps {usps.X.shape}, 3 epochs, full covariance, min of {args.repeats}:")
    ref = times["NumPy SCCW"]
    for name, value in times.items():
        print(f"  {name:18s} {value:7.3f} s   x NumPy {value / ref:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
