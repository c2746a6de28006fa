"""Fit time, peak memory and accuracy of the Confidence-Weighted family.

- full-covariance SCCW on the USPS-like dense problem (256 features): the
  kernel is one BLAS ``dsymv`` and one ``dsyr`` per row, so its time should
  follow the BLAS, not the interpreter;
- diagonal multiclass CW (k = 1) and AROW on the 20 Newsgroups-like sparse
  problem, beside scikit-learn's one-vs-rest PA-I
  (``SGDClassifier(learning_rate="pa1")``).
"""

from sklearn.base import clone

from sklearn_pa import AROWClassifier, ConfidenceWeightedClassifier

from .common import EPOCHS, ESTIMATORS, RANDOM_STATE, get_data


def _params():
    return {"max_iter": EPOCHS, "tol": None, "random_state": RANDOM_STATE}


CW_ESTIMATORS = {
    "SCCW-full": lambda: ConfidenceWeightedClassifier(covariance="full", **_params()),
    "SCCWD": lambda: ConfidenceWeightedClassifier(**_params()),
    "CW-k1": lambda: ConfidenceWeightedClassifier(multiclass="single", **_params()),
    "AROW": lambda: AROWClassifier(**_params()),
    "sklearn-SGD-pa1": ESTIMATORS["sklearn-SGD-pa1"],
}


class ConfidenceWeightedDenseSuite:
    """USPS-like dense data, 3 epochs."""

    param_names = ["estimator"]
    params = (["SCCW-full", "SCCWD", "CW-k1", "sklearn-SGD-pa1"],)

    processes = 1
    timeout = 300
    warmup_time = 0

    def setup(self, estimator):
        self.X_train, self.X_test, self.y_train, self.y_test = get_data("dense")
        self.estimator = CW_ESTIMATORS[estimator]()
        self.fitted = clone(self.estimator).fit(self.X_train, self.y_train)

    def time_fit(self, estimator):
        self.estimator.fit(self.X_train, self.y_train)

    def peakmem_fit(self, estimator):
        self.estimator.fit(self.X_train, self.y_train)

    def track_test_score(self, estimator):
        return float(self.fitted.score(self.X_test, self.y_test))

    track_test_score.unit = "accuracy"


class ConfidenceWeightedSparseSuite:
    """20 Newsgroups-like sparse data, 3 epochs (diagonal covariance only)."""

    param_names = ["estimator"]
    params = (["SCCWD", "CW-k1", "AROW", "sklearn-SGD-pa1"],)

    processes = 1
    timeout = 300
    warmup_time = 0

    def setup(self, estimator):
        self.X_train, self.X_test, self.y_train, self.y_test = get_data("sparse")
        self.estimator = CW_ESTIMATORS[estimator]()
        self.fitted = clone(self.estimator).fit(self.X_train, self.y_train)

    def time_fit(self, estimator):
        self.estimator.fit(self.X_train, self.y_train)

    def peakmem_fit(self, estimator):
        self.estimator.fit(self.X_train, self.y_train)

    def track_test_score(self, estimator):
        return float(self.fitted.score(self.X_test, self.y_test))

    track_test_score.unit = "accuracy"
