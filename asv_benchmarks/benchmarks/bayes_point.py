"""Fit time, peak memory and accuracy of the Online Bayes Point Machine.

On the 20 Newsgroups-like sparse problem of ``common`` (100 000 features, 20
classes), M copies of PA-I with the support-class rule, with and without
unlabeled samples (80% of the labels hidden as -1), against one
``PassiveAggressiveClassifier`` on the same labeled samples.  The copies'
weights take ``8 * M * n_features * n_classes`` bytes (160 MB for M = 10):
``peakmem_fit`` tracks it.
"""

import numpy as np

from sklearn_pa import OnlineBayesPointClassifier, PassiveAggressiveClassifier

from .common import EPOCHS, RANDOM_STATE, get_data


def _hide_labels(y, fraction=0.8):
    rng = np.random.RandomState(RANDOM_STATE)
    y = np.asarray(y).copy()
    y[rng.random_sample(y.shape[0]) < fraction] = -1
    return y


class OnlineBayesPointSuite:
    """One pass of M copies over the stream, supervised or semi-supervised."""

    param_names = ["representation", "n_estimators", "unlabeled_step"]
    params = (["dense", "sparse"], [1, 10], [0.0, 1.0])

    processes = 1
    timeout = 600
    warmup_time = 0

    def setup(self, representation, n_estimators, unlabeled_step):
        self.X_train, self.X_test, y_train, self.y_test = get_data(representation)
        self.y_semi = _hide_labels(y_train)
        self.estimator = OnlineBayesPointClassifier(
            PassiveAggressiveClassifier(multiclass="support"),
            n_estimators=n_estimators,
            unlabeled_step=unlabeled_step,
            max_iter=EPOCHS,
            tol=None,
            random_state=RANDOM_STATE,
        )

    def time_fit(self, representation, n_estimators, unlabeled_step):
        self.estimator.fit(self.X_train, self.y_semi)

    def peakmem_fit(self, representation, n_estimators, unlabeled_step):
        self.estimator.fit(self.X_train, self.y_semi)

    def track_test_score(self, representation, n_estimators, unlabeled_step):
        return float(
            self.estimator.fit(self.X_train, self.y_semi).score(
                self.X_test, self.y_test
            )
        )

    track_test_score.unit = "accuracy"


class SingleLearnerOnLabeledSuite:
    """The reference: one PA-I (support classes) on the labeled samples only."""

    param_names = ["representation"]
    params = (["dense", "sparse"],)

    processes = 1
    timeout = 300
    warmup_time = 0

    def setup(self, representation):
        self.X_train, self.X_test, y_train, self.y_test = get_data(representation)
        y_semi = _hide_labels(y_train)
        labeled = y_semi != -1
        self.X_lab, self.y_lab = self.X_train[labeled], y_semi[labeled]
        self.estimator = PassiveAggressiveClassifier(
            multiclass="support", max_iter=EPOCHS, tol=None, random_state=RANDOM_STATE
        )

    def time_fit(self, representation):
        self.estimator.fit(self.X_lab, self.y_lab)

    def track_test_score(self, representation):
        return float(
            self.estimator.fit(self.X_lab, self.y_lab).score(self.X_test, self.y_test)
        )

    track_test_score.unit = "accuracy"
