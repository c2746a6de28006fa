"""Sequence taggers on the CoNLL-2000-like synthetic chunking problem of
``common``, beside CRFsuite's averaged perceptron (skipped when
sklearn-crfsuite is not installed).

The taggers take lists of sentences of per-token feature dicts, so they have
their own data rather than the dense / sparse matrices of the other suites.
``track_test_score`` is the token accuracy.
"""

import importlib.util

import numpy as np

from .common import (
    Benchmark,
    Estimator,
    Predictor,
    get_data,
    registry_estimator,
    score_tracker,
)


class SequenceTaggerSuite(Predictor, Estimator, Benchmark):
    """Structured perceptron and PA (MIRA k-best), three epochs."""

    param_names = ["estimator"]
    params = (
        [
            "crfsuite-AP",
            "StructPerceptron",
            "StructPerceptron-beam2-maxviol",
            "StructMIRA-k3",
        ],
    )

    def setup_cache(self):
        self.fit_all()

    setup_cache.timeout = 600

    def skip_reason(self, estimator):
        if estimator == "crfsuite-AP" and not importlib.util.find_spec(
            "sklearn_crfsuite"
        ):
            return "sklearn-crfsuite is not installed"
        return None

    def make_data(self, estimator):
        return get_data("sequence")

    def make_estimator(self, estimator):
        return registry_estimator(estimator)

    def test_score(self, estimator, X_test, y_test):
        pred = np.concatenate([np.asarray(p) for p in estimator.predict(X_test)])
        true = np.concatenate([np.asarray(t) for t in y_test])
        return np.mean(pred == true)

    track_test_score = score_tracker("token accuracy")
