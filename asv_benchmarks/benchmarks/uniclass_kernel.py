"""Uniclass PA (novelty detection) and kernel PA, against scikit-learn peers.

- ``OneClassSuite``: ``PassiveAggressiveOneClass`` (fixed and learned radius)
  and ``SGDOneClassSVM`` trained on one class of the dense USPS-like problem
  of ``common``; fit and scoring time, peak memory, and the ROC AUC of
  "normal class vs the others" on the test set.
- ``KernelPASuite``: ``KernelPassiveAggressiveClassifier`` (RBF, with and
  without a budget) against the linear PA-I and scikit-learn's RBF ``SVC`` on a
  3000-sample subset of the same problem (kernel methods cost a kernel row per
  sample and support vector).

The bound and radius of the balls are of the order of the distances between
samples (about 16 here): a bound far larger learns slowly.  Only the public
API of ``sklearn_pa`` is used.
"""

import numpy as np
from sklearn.base import clone
from sklearn.linear_model import SGDOneClassSVM
from sklearn.metrics import roc_auc_score
from sklearn.svm import SVC

from sklearn_pa import (
    KernelPassiveAggressiveClassifier,
    PassiveAggressiveClassifier,
    PassiveAggressiveOneClass,
)

from .common import EPOCHS, RANDOM_STATE, get_data

NORMAL_CLASS = 0
N_KERNEL_TRAIN = 3000


def _standardised():
    X_train, X_test, y_train, y_test = get_data("dense")
    mean, std = X_train.mean(axis=0), X_train.std(axis=0)
    return (X_train - mean) / std, (X_test - mean) / std, y_train, y_test


ONE_CLASS = {
    "PA-OneClass-I-learn": lambda: PassiveAggressiveOneClass(
        C=0.1,
        epsilon="learn",
        epsilon_bound=15.0,
        max_iter=EPOCHS,
        random_state=RANDOM_STATE,
    ),
    "PA-OneClass-I-fixed": lambda: PassiveAggressiveOneClass(
        C=0.1, epsilon=5.0, max_iter=EPOCHS, random_state=RANDOM_STATE
    ),
    "sklearn-SGDOneClassSVM": lambda: SGDOneClassSVM(
        nu=0.1, max_iter=EPOCHS, tol=None, random_state=RANDOM_STATE
    ),
}

KERNEL = {
    "KernelPA-I-rbf": lambda: KernelPassiveAggressiveClassifier(
        max_iter=EPOCHS, random_state=RANDOM_STATE
    ),
    "KernelPA-I-rbf-budget1000": lambda: KernelPassiveAggressiveClassifier(
        budget=1000, max_iter=EPOCHS, random_state=RANDOM_STATE
    ),
    "PA-I-linear": lambda: PassiveAggressiveClassifier(
        max_iter=EPOCHS, tol=None, random_state=RANDOM_STATE
    ),
    "sklearn-SVC-rbf": lambda: SVC(kernel="rbf"),
}


class OneClassSuite:
    """Novelty detection: train on one class, flag the others."""

    param_names = ["estimator"]
    params = (list(ONE_CLASS),)
    processes = 1
    timeout = 300
    warmup_time = 0

    def setup(self, estimator):
        X_train, self.X_test, y_train, y_test = _standardised()
        self.X_normal = X_train[y_train == NORMAL_CLASS]
        self.truth = (y_test == NORMAL_CLASS).astype(int)
        self.estimator = ONE_CLASS[estimator]()
        self.fitted = clone(self.estimator).fit(self.X_normal)

    def time_fit(self, estimator):
        self.estimator.fit(self.X_normal)

    def peakmem_fit(self, estimator):
        self.estimator.fit(self.X_normal)

    def time_decision_function(self, estimator):
        self.fitted.decision_function(self.X_test)

    def track_roc_auc(self, estimator):
        return float(
            roc_auc_score(self.truth, self.fitted.decision_function(self.X_test))
        )

    track_roc_auc.unit = "ROC AUC"


class KernelPASuite:
    """Kernel PA-I against the linear PA-I and an RBF SVC."""

    param_names = ["estimator"]
    params = (list(KERNEL),)
    processes = 1
    timeout = 600
    warmup_time = 0

    def setup(self, estimator):
        X_train, X_test, y_train, y_test = _standardised()
        self.X_train, self.y_train = X_train[:N_KERNEL_TRAIN], y_train[:N_KERNEL_TRAIN]
        self.X_test, self.y_test = X_test, y_test
        self.estimator = KERNEL[estimator]()
        self.fitted = clone(self.estimator).fit(self.X_train, self.y_train)

    def time_fit(self, estimator):
        self.estimator.fit(self.X_train, self.y_train)

    def peakmem_fit(self, estimator):
        self.estimator.fit(self.X_train, self.y_train)

    def time_predict(self, estimator):
        self.fitted.predict(self.X_test)

    def track_test_score(self, estimator):
        return float(self.fitted.score(self.X_test, self.y_test))

    track_test_score.unit = "accuracy"

    def track_n_support(self, estimator):
        fitted = self.fitted
        if hasattr(fitted, "support_vectors_"):
            return int(fitted.support_vectors_.shape[0])
        return int(np.count_nonzero(getattr(fitted, "coef_", [])))

    track_n_support.unit = "support vectors"
