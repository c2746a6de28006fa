"""Fit and predict time, peak memory and test score of the PA classifiers and
regressor, dense and sparse, beside scikit-learn's PA in the same suite.

- ``PassiveAggressiveClassifierSuite``: the multiclass rules of
  ``PassiveAggressiveClassifier`` (support classes, max-loss, one-vs-rest) and
  ``MIRAClassifier`` on the USPS-like dense and 20 Newsgroups-like sparse
  problems of ``common``; scikit-learn's one-vs-rest PA-I
  (``SGDClassifier(learning_rate="pa1")``) as the reference.
- ``PassiveAggressiveRegressorSuite``: PA-I and PA-II regression on the dense
  and sparse preference problems, against ``SGDRegressor(learning_rate="pa1")``
  with the same epsilon-insensitive loss.
"""

from sklearn_pa import (
    PassiveAggressiveClassifier,
    PassiveAggressiveRegressor,
)

from .common import (
    EPOCHS,
    RANDOM_STATE,
    Benchmark,
    Estimator,
    Predictor,
    get_data,
    registry_estimator,
    score_tracker,
    sgd_pa1_regressor,
)


def _pa(**params):
    return PassiveAggressiveClassifier(
        C=1.0,
        loss="hinge",
        max_iter=EPOCHS,
        tol=None,
        shuffle=True,
        random_state=RANDOM_STATE,
        **params,
    )


#: Classifiers of the benchmark command's registry.
CLASSIFIERS = {
    name: (lambda name=name: registry_estimator(name))
    for name in ["PA-I", "PA-I-maxloss", "PA-I-ovr", "MIRA", "sklearn-SGD-pa1"]
}


class PassiveAggressiveClassifierSuite(Predictor, Estimator, Benchmark):
    """PA-I classifiers and MIRA, three epochs without early stopping."""

    param_names = ["representation", "estimator"]
    params = (["dense", "sparse"], list(CLASSIFIERS))

    def setup_cache(self):
        self.fit_all()

    setup_cache.timeout = 600

    def make_data(self, representation, estimator):
        return get_data(representation)

    def make_estimator(self, representation, estimator):
        return CLASSIFIERS[estimator]()

    track_test_score = score_tracker("accuracy")


def _par(**params):
    return PassiveAggressiveRegressor(
        C=1.0,
        epsilon=0.1,
        max_iter=EPOCHS,
        tol=None,
        shuffle=True,
        random_state=RANDOM_STATE,
        **params,
    )


REGRESSORS = {
    "PA-I": lambda: _par(loss="epsilon_insensitive"),
    "PA-II": lambda: _par(loss="squared_epsilon_insensitive"),
    "sklearn-SGD-pa1": lambda: sgd_pa1_regressor(epsilon=0.1),
}


class PassiveAggressiveRegressorSuite(Predictor, Estimator, Benchmark):
    """PA regression (epsilon = 0.1), three epochs without early stopping."""

    param_names = ["representation", "estimator"]
    params = (["dense", "sparse"], list(REGRESSORS))

    def setup_cache(self):
        self.fit_all()

    setup_cache.timeout = 600

    def make_data(self, representation, estimator):
        return get_data(f"regression-{representation}")

    def make_estimator(self, representation, estimator):
        return REGRESSORS[estimator]()

    track_test_score = score_tracker("R2")
