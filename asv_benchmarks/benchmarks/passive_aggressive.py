"""Fit and predict time, peak memory and test accuracy of the PA classifiers.

Each benchmark runs on a USPS-like dense problem and a 20 Newsgroups-like
sparse one (see ``common``), for the multiclass rules of
``PassiveAggressiveClassifier`` and for scikit-learn's one-vs-rest PA-I
(``SGDClassifier(learning_rate="pa1")``) as the reference.
"""

from sklearn.base import clone

from .common import ESTIMATORS, get_data, make_estimator


class PassiveAggressiveClassifierSuite:
    """PA-I classifiers, three epochs without early stopping."""

    param_names = ["representation", "estimator"]
    params = (["dense", "sparse"], list(ESTIMATORS))

    processes = 1
    timeout = 300
    warmup_time = 0

    def setup(self, representation, estimator):
        self.X_train, self.X_test, self.y_train, self.y_test = get_data(representation)
        self.estimator = make_estimator(estimator)
        self.fitted = clone(self.estimator).fit(self.X_train, self.y_train)

    def time_fit(self, representation, estimator):
        self.estimator.fit(self.X_train, self.y_train)

    def peakmem_fit(self, representation, estimator):
        self.estimator.fit(self.X_train, self.y_train)

    def time_predict(self, representation, estimator):
        self.fitted.predict(self.X_test)

    def track_test_score(self, representation, estimator):
        return float(self.fitted.score(self.X_test, self.y_test))

    track_test_score.unit = "accuracy"
