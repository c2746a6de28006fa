"""Uniclass PA (novelty detection) and kernel PA, against scikit-learn peers,
dense and sparse.

- ``OneClassSuite``: ``PassiveAggressiveOneClass`` (fixed and learned radius)
  and ``SGDOneClassSVM`` trained on one class;
  fit and scoring time, peak memory, and the ROC AUC of "normal class vs the
  others" on the test set.
- ``KernelPASuite``: ``KernelPassiveAggressiveClassifier`` (RBF, with and
  without a budget) against the linear PA-I and scikit-learn's RBF ``SVC`` on
  the first 2000 training and 1000 test samples (kernel methods cost a kernel
  row per sample and support vector).
- ``KernelPARegressorSuite``: ``KernelPassiveAggressiveRegressor`` (RBF)
  against the linear PA-I regressor and scikit-learn's RBF ``SVR`` on the
  same subsets of the dense preference problem.

The classification data are the standardised USPS-like problem of ``common``,
and the regression data the dense preference problem; ``sparse`` is the same
data stored as CSR (the sparse kernel and row paths on the same problem).  The
20 Newsgroups-like problem does not suit these methods: a ball around the
true mean of one class separates it from the others with a ROC AUC of 0.52,
and RBF kernels between its nearly orthogonal unit-norm rows leave an SVC at
chance level.  The bound and radius of the balls are of the order of the
distances between samples (about 16 here): a bound far larger learns slowly.
Only the public API of ``sklearn_pa`` is used.
"""

from functools import cache

import numpy as np
import scipy.sparse as sp
from sklearn.linear_model import SGDOneClassSVM
from sklearn.metrics import roc_auc_score
from sklearn.svm import SVC, SVR

from sklearn_pa import (
    KernelPassiveAggressiveRegressor,
    PassiveAggressiveOneClass,
    PassiveAggressiveRegressor,
)

from .common import (
    EPOCHS,
    RANDOM_STATE,
    Benchmark,
    Detector,
    Estimator,
    Predictor,
    get_data,
    registry_estimator,
    score_tracker,
)

NORMAL_CLASS = 0
N_KERNEL_TRAIN = 2000
N_KERNEL_TEST = 1000


@cache
def _scaled(representation):
    """Standardised dense problem, as an ndarray or a CSR matrix."""
    X_train, X_test, y_train, y_test = get_data("dense")
    mean, std = X_train.mean(axis=0), X_train.std(axis=0)
    X_train, X_test = (X_train - mean) / std, (X_test - mean) / std
    if representation == "sparse":
        X_train, X_test = sp.csr_matrix(X_train), sp.csr_matrix(X_test)
    return X_train, X_test, y_train, y_test


@cache
def _one_class_problem(representation):
    X_train, X_test, y_train, y_test = _scaled(representation)
    truth = (y_test == NORMAL_CLASS).astype(int)
    return X_train[y_train == NORMAL_CLASS], X_test, None, truth


def _one_class(name):
    if name == "PA-OneClass-I-learn":
        return PassiveAggressiveOneClass(
            C=0.1,
            epsilon="learn",
            epsilon_bound=15.0,
            max_iter=EPOCHS,
            random_state=RANDOM_STATE,
        )
    if name == "PA-OneClass-I-fixed":
        return PassiveAggressiveOneClass(
            C=0.1, epsilon=5.0, max_iter=EPOCHS, random_state=RANDOM_STATE
        )
    return SGDOneClassSVM(nu=0.1, max_iter=EPOCHS, tol=None, random_state=RANDOM_STATE)


class OneClassSuite(Detector, Estimator, Benchmark):
    """Novelty detection: train on one class, flag the others."""

    param_names = ["representation", "estimator"]
    params = (
        ["dense", "sparse"],
        ["PA-OneClass-I-learn", "PA-OneClass-I-fixed", "sklearn-SGDOneClassSVM"],
    )

    def setup_cache(self):
        self.fit_all()

    setup_cache.timeout = 600

    def make_data(self, representation, estimator):
        return _one_class_problem(representation)

    def make_estimator(self, representation, estimator):
        return _one_class(estimator)

    def test_score(self, estimator, X_test, truth):
        return roc_auc_score(truth, estimator.decision_function(X_test))

    track_test_score = score_tracker("ROC AUC")


@cache
def _kernel_problem(name, representation):
    if name == "regression":
        X_train, X_test, y_train, y_test = get_data("regression-dense")
        if representation == "sparse":
            X_train, X_test = sp.csr_matrix(X_train), sp.csr_matrix(X_test)
    else:
        X_train, X_test, y_train, y_test = _scaled(representation)
    return (
        X_train[:N_KERNEL_TRAIN],
        X_test[:N_KERNEL_TEST],
        y_train[:N_KERNEL_TRAIN],
        y_test[:N_KERNEL_TEST],
    )


KERNEL = {
    # entries of the benchmark command's registry (PA-I: the linear PA-I)
    **{
        name: (lambda name=name: registry_estimator(name))
        for name in ["KernelPA-I-rbf", "KernelPA-I-rbf-budget500", "PA-I"]
    },
    "sklearn-SVC-rbf": lambda: SVC(kernel="rbf"),
}


def _n_support(fitted):
    if hasattr(fitted, "support_vectors_"):
        return int(fitted.support_vectors_.shape[0])
    return int(np.count_nonzero(getattr(fitted, "coef_", [])))


class KernelPASuite(Predictor, Estimator, Benchmark):
    """Kernel PA-I against the linear PA-I and an RBF SVC."""

    param_names = ["representation", "estimator"]
    params = (["dense", "sparse"], list(KERNEL))

    def setup_cache(self):
        self.fit_all()

    setup_cache.timeout = 600

    def make_data(self, representation, estimator):
        return _kernel_problem("classification", representation)

    def make_estimator(self, representation, estimator):
        return KERNEL[estimator]()

    track_test_score = score_tracker("accuracy")

    def track_n_support(self, representation, estimator):
        return _n_support(self.fitted)

    track_n_support.unit = "support vectors"


KERNEL_REGRESSORS = {
    "KernelPA-I-rbf": lambda: KernelPassiveAggressiveRegressor(
        max_iter=EPOCHS, random_state=RANDOM_STATE
    ),
    "PA-I-linear": lambda: PassiveAggressiveRegressor(
        max_iter=EPOCHS, tol=None, random_state=RANDOM_STATE
    ),
    "sklearn-SVR-rbf": lambda: SVR(kernel="rbf"),
}


class KernelPARegressorSuite(Predictor, Estimator, Benchmark):
    """Kernel PA-I regression against the linear PA-I and an RBF SVR."""

    param_names = ["representation", "estimator"]
    params = (["dense", "sparse"], list(KERNEL_REGRESSORS))

    def setup_cache(self):
        self.fit_all()

    setup_cache.timeout = 600

    def make_data(self, representation, estimator):
        return _kernel_problem("regression", representation)

    def make_estimator(self, representation, estimator):
        return KERNEL_REGRESSORS[estimator]()

    track_test_score = score_tracker("R2")

    def track_n_support(self, representation, estimator):
        return _n_support(self.fitted)

    track_n_support.unit = "support vectors"
