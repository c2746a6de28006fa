"""Cost-sensitive PA and multilabel ranking PA against their peers, dense and
sparse (MIRA is in ``passive_aggressive.PassiveAggressiveClassifierSuite``,
beside the other multiclass rules).

- ``CostSensitiveSuite``: PA-I with a cost matrix (one costly confusion per
  class pair ``(k, k + 1)``) against the cost-blind rule and scikit-learn's
  one-vs-rest PA-I; ``track_test_score`` is the accuracy, ``track_cost`` the
  mean test cost.
- ``MultilabelSuite``: the ranking rule against one-vs-rest PA-I and
  scikit-learn's one-vs-rest PA-I on a multilabel version of the problems of
  ``common`` (each sample also carries the label of its class's
  "super-category", ``class // 5``); ``track_test_score`` is the label
  ranking average precision of ``decision_function``.
"""

from functools import cache

import numpy as np
from sklearn.metrics import label_ranking_average_precision_score

from sklearn_pa import PassiveAggressiveClassifier

from .common import (
    EPOCHS,
    RANDOM_STATE,
    Benchmark,
    Estimator,
    Predictor,
    get_data,
    registry_estimator,
    score_tracker,
    sgd_pa1_classifier,
)


def _pa(**params):
    return PassiveAggressiveClassifier(
        max_iter=EPOCHS, tol=None, random_state=RANDOM_STATE, **params
    )


def _cost_matrix(n_classes):
    cost = np.ones((n_classes, n_classes)) - np.eye(n_classes)
    for k in range(n_classes - 1):
        cost[k, k + 1] = 10.0
    return cost


def _n_classes(representation):
    return np.unique(get_data(representation)[2]).shape[0]


class CostSensitiveSuite(Predictor, Estimator, Benchmark):
    """PA-I with and without a cost matrix, three epochs."""

    param_names = ["representation", "estimator"]
    params = (["dense", "sparse"], ["cost-sensitive", "cost-blind", "sklearn-SGD-pa1"])

    def setup_cache(self):
        self.fit_all()

    setup_cache.timeout = 600

    def make_data(self, representation, estimator):
        return get_data(representation)

    def make_estimator(self, representation, estimator):
        if estimator == "sklearn-SGD-pa1":
            return sgd_pa1_classifier()
        if estimator == "cost-sensitive":
            return _pa(cost_matrix=_cost_matrix(_n_classes(representation)))
        return _pa()

    track_test_score = score_tracker("accuracy")

    def track_cost(self, representation, estimator):
        cost = _cost_matrix(_n_classes(representation))
        pred = self.fitted.predict(self.X_test)
        return float(cost[self.y_test, pred].mean())

    track_cost.unit = "mean cost"


@cache
def _multilabel_problem(representation):
    X_train, X_test, y_train, y_test = get_data(representation)
    n_classes = int(max(y_train.max(), y_test.max())) + 1
    n_labels = n_classes + (n_classes + 4) // 5

    def targets(y):
        Y = np.zeros((y.shape[0], n_labels), dtype=np.int64)
        Y[np.arange(y.shape[0]), y] = 1
        Y[np.arange(y.shape[0]), n_classes + y // 5] = 1
        return Y

    return X_train, X_test, targets(y_train), targets(y_test)


MULTILABEL = {
    # the multilabel learners of the benchmark command's registry
    name: (lambda name=name: registry_estimator(name))
    for name in ["PA-I-ranking", "OvR-PA-I", "sklearn-OvR-SGD-pa1"]
}


class MultilabelSuite(Predictor, Estimator, Benchmark):
    """Label ranking PA-I against one-vs-rest, three epochs."""

    param_names = ["representation", "estimator"]
    params = (["dense", "sparse"], list(MULTILABEL))

    def setup_cache(self):
        self.fit_all()

    setup_cache.timeout = 600

    def make_data(self, representation, estimator):
        return _multilabel_problem(representation)

    def make_estimator(self, representation, estimator):
        return MULTILABEL[estimator]()

    def test_score(self, estimator, X_test, Y_test):
        scores = estimator.decision_function(X_test)
        return label_ranking_average_precision_score(Y_test, scores)

    track_test_score = score_tracker("LRAP")
