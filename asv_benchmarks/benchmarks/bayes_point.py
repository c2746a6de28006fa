"""Fit and predict time, peak memory and accuracy of the Online Bayes Point
Machine, supervised and semi-supervised, dense and sparse.

80% of the training labels are hidden (-1).  M copies of PA-I with the
support-class rule are trained on that stream, ignoring the unlabeled samples
(``unlabeled_step=0``) or also stepping on them (``unlabeled_step=1``,
ss-SPA), against one ``PassiveAggressiveClassifier`` and scikit-learn's
one-vs-rest PA-I (``SGDClassifier(learning_rate="pa1")``) trained on the
labeled samples only.  On the 20 Newsgroups-like sparse problem the copies'
weights take ``8 * M * n_features * n_classes`` bytes (160 MB for M = 10):
``peakmem_fit`` tracks it.
"""

from functools import cache

import numpy as np

from sklearn_pa import OnlineBayesPointClassifier, PassiveAggressiveClassifier

from .common import (
    EPOCHS,
    RANDOM_STATE,
    Benchmark,
    Estimator,
    Predictor,
    get_data,
    score_tracker,
    sgd_pa1_classifier,
)


def _hide_labels(y, fraction=0.8):
    rng = np.random.RandomState(RANDOM_STATE)
    y = np.asarray(y).copy()
    y[rng.random_sample(y.shape[0]) < fraction] = -1
    return y


@cache
def _semi_supervised(representation):
    X_train, X_test, y_train, y_test = get_data(representation)
    return X_train, X_test, _hide_labels(y_train), y_test


@cache
def _labeled_only(representation):
    X_train, X_test, y_semi, y_test = _semi_supervised(representation)
    labeled = y_semi != -1
    return X_train[labeled], X_test, y_semi[labeled], y_test


def _obpm(n_estimators, unlabeled_step):
    return lambda: OnlineBayesPointClassifier(
        PassiveAggressiveClassifier(multiclass="support"),
        n_estimators=n_estimators,
        unlabeled_step=unlabeled_step,
        max_iter=EPOCHS,
        tol=None,
        random_state=RANDOM_STATE,
    )


ESTIMATORS = {
    "OBPM-M1-semi": _obpm(1, 1.0),
    "OBPM-M10": _obpm(10, 0.0),
    "OBPM-M10-semi": _obpm(10, 1.0),
    "PA-I-labeled": lambda: PassiveAggressiveClassifier(
        multiclass="support", max_iter=EPOCHS, tol=None, random_state=RANDOM_STATE
    ),
    "sklearn-SGD-pa1-labeled": sgd_pa1_classifier,
}


class OnlineBayesPointSuite(Predictor, Estimator, Benchmark):
    """OBPM on the partly labeled stream, single learners on its labeled part."""

    param_names = ["representation", "estimator"]
    params = (["dense", "sparse"], list(ESTIMATORS))

    def setup_cache(self):
        self.fit_all()

    setup_cache.timeout = 600

    def make_data(self, representation, estimator):
        if estimator.endswith("-labeled"):
            return _labeled_only(representation)
        return _semi_supervised(representation)

    def make_estimator(self, representation, estimator):
        return ESTIMATORS[estimator]()

    track_test_score = score_tracker("accuracy")
