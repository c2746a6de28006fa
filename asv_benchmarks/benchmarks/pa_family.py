"""Cost-sensitive PA, multilabel ranking PA and MIRA against their peers.

- ``MIRASuite``: MIRA and PA-I (support rule) on the dense and sparse
  problems of ``common``; scikit-learn's one-vs-rest PA-I as reference.
- ``CostSensitiveSuite``: PA-I with a cost matrix (one costly confusion per
  class pair ``(k, k + 1)``) against the cost-blind rule; ``track_cost`` is
  the mean test cost.
- ``MultilabelSuite``: the ranking rule against one-vs-rest PA-I on a
  multilabel version of the sparse problem (each document also carries the
  label of its class's "super-category", ``class // 5``); tracks label
  ranking average precision.
"""

from functools import cache

import numpy as np
from sklearn.base import clone
from sklearn.linear_model import SGDClassifier
from sklearn.metrics import label_ranking_average_precision_score
from sklearn.multiclass import OneVsRestClassifier

from sklearn_pa import MIRAClassifier, PassiveAggressiveClassifier

from .common import EPOCHS, RANDOM_STATE, get_data


def _pa(**params):
    return PassiveAggressiveClassifier(
        max_iter=EPOCHS, tol=None, random_state=RANDOM_STATE, **params
    )


def _sgd():
    return SGDClassifier(
        loss="hinge",
        penalty=None,
        learning_rate="pa1",
        eta0=1.0,
        max_iter=EPOCHS,
        tol=None,
        random_state=RANDOM_STATE,
    )


class MIRASuite:
    param_names = ["representation", "estimator"]
    params = (["dense", "sparse"], ["MIRA", "PA-I", "sklearn-SGD-pa1"])
    processes = 1
    timeout = 300
    warmup_time = 0

    def setup(self, representation, estimator):
        self.X_train, self.X_test, self.y_train, self.y_test = get_data(representation)
        self.estimator = {
            "MIRA": lambda: MIRAClassifier(
                max_iter=EPOCHS, tol=None, random_state=RANDOM_STATE
            ),
            "PA-I": lambda: _pa(),
            "sklearn-SGD-pa1": _sgd,
        }[estimator]()
        self.fitted = clone(self.estimator).fit(self.X_train, self.y_train)

    def time_fit(self, representation, estimator):
        self.estimator.fit(self.X_train, self.y_train)

    def peakmem_fit(self, representation, estimator):
        self.estimator.fit(self.X_train, self.y_train)

    def track_test_score(self, representation, estimator):
        return float(self.fitted.score(self.X_test, self.y_test))

    track_test_score.unit = "accuracy"


def _cost_matrix(n_classes):
    cost = np.ones((n_classes, n_classes)) - np.eye(n_classes)
    for k in range(n_classes - 1):
        cost[k, k + 1] = 10.0
    return cost


class CostSensitiveSuite:
    param_names = ["representation", "estimator"]
    params = (["dense", "sparse"], ["cost-sensitive", "cost-blind"])
    processes = 1
    timeout = 300
    warmup_time = 0

    def setup(self, representation, estimator):
        self.X_train, self.X_test, self.y_train, self.y_test = get_data(representation)
        self.cost = _cost_matrix(np.unique(self.y_train).shape[0])
        params = {"cost_matrix": self.cost} if estimator == "cost-sensitive" else {}
        self.estimator = _pa(**params)
        self.fitted = clone(self.estimator).fit(self.X_train, self.y_train)

    def time_fit(self, representation, estimator):
        self.estimator.fit(self.X_train, self.y_train)

    def track_cost(self, representation, estimator):
        pred = self.fitted.predict(self.X_test)
        return float(self.cost[self.y_test, pred].mean())

    track_cost.unit = "mean cost"


@cache
def _multilabel_problem():
    X_train, X_test, y_train, y_test = get_data("sparse")

    def targets(y):
        Y = np.zeros((y.shape[0], 24), dtype=np.int64)
        Y[np.arange(y.shape[0]), y] = 1
        Y[np.arange(y.shape[0]), 20 + y // 5] = 1
        return Y

    return X_train, X_test, targets(y_train), targets(y_test)


class MultilabelSuite:
    param_names = ["estimator"]
    params = (["PA-I-ranking", "OvR(PA-I)", "sklearn-OvR(SGD-pa1)"],)
    processes = 1
    timeout = 600
    warmup_time = 0

    def setup(self, estimator):
        self.X_train, self.X_test, self.Y_train, self.Y_test = _multilabel_problem()
        self.estimator = {
            "PA-I-ranking": lambda: _pa(),
            "OvR(PA-I)": lambda: OneVsRestClassifier(_pa()),
            "sklearn-OvR(SGD-pa1)": lambda: OneVsRestClassifier(_sgd()),
        }[estimator]()
        self.fitted = clone(self.estimator).fit(self.X_train, self.Y_train)

    def time_fit(self, estimator):
        self.estimator.fit(self.X_train, self.Y_train)

    def track_lrap(self, estimator):
        scores = self.fitted.decision_function(self.X_test)
        return float(label_ranking_average_precision_score(self.Y_test, scores))

    track_lrap.unit = "LRAP"
