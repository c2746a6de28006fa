"""Fit and predict time, peak memory and accuracy of the Confidence-Weighted
family (CW, AROW, SCW), dense and sparse, beside scikit-learn's one-vs-rest
PA-I (``SGDClassifier(learning_rate="pa1")``) in the same suite.

Full-covariance SCCW runs on the USPS-like dense problem only: its kernel is
one BLAS ``dsymv`` and one ``dsyr`` per row on an ``(n_features,
n_features)`` matrix per class, so its time should follow the BLAS, not the
interpreter; on the 20 Newsgroups-like sparse problem (100 000 features, 20
classes) those matrices would take 20 * 100000**2 * 8 bytes = 1.6 TB, so the
combination is skipped.  The diagonal variants run on both.
"""

from .common import (
    Benchmark,
    Estimator,
    Predictor,
    get_data,
    registry_estimator,
    score_tracker,
)

#: Names of the benchmark command's registry (``SCCW`` is the full
#: covariance, ``SCCWD`` the diagonal one).
CW_ESTIMATORS = ["SCCW", "SCCWD", "CW-k1", "AROW", "SCW-I", "sklearn-SGD-pa1"]


class ConfidenceWeightedSuite(Predictor, Estimator, Benchmark):
    """Second-order classifiers, three epochs without early stopping."""

    param_names = ["representation", "estimator"]
    params = (["dense", "sparse"], CW_ESTIMATORS)

    def setup_cache(self):
        self.fit_all()

    setup_cache.timeout = 600

    def skip_reason(self, representation, estimator):
        if representation == "sparse" and estimator == "SCCW":
            return (
                "full covariance on 100000 sparse features would need a "
                "(n_features, n_features) matrix per class"
            )
        return None

    def make_data(self, representation, estimator):
        return get_data(representation)

    def make_estimator(self, representation, estimator):
        return registry_estimator(estimator)

    track_test_score = score_tracker("accuracy")
