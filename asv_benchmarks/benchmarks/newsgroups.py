"""Fit time and test accuracy on the real 20 Newsgroups, five epochs.

- ``Newsgroups20Suite``: scikit-learn's vectorized ``bydate`` split
  (11314 x 130107 tf-idf rows, 20 classes), the default
  ``PassiveAggressiveClassifier`` (support classes, the last epoch
  averaged), the same rule unaveraged, the max-loss rule and
  scikit-learn's one-vs-rest PA-I (``SGDClassifier(learning_rate="pa1")``),
  5 epochs without early stopping: the measurement behind the fit-time target
  of the first-order kernel on text (``python -m sklearn_pa.benchmark
  --dataset 20newsgroups --epochs 5``).
- ``ScoringLoopSuite``: the same fit of the default classifier with the
  first-order kernel's two row-scoring loops (``_compiled/_score_rows.h``):
  the portable one and the AVX2 one (skipped on a processor without AVX2).
  Both give the same model to the last bit; this tracks what the second
  one saves.

The data are read with :func:`sklearn.datasets.fetch_20newsgroups_vectorized`
from ``$SKLEARN_PA_DATA/sklearn`` (else scikit-learn's default data home),
never downloaded; without them the suite is skipped.  With
``SKLEARN_PA_ASV_SMALL=1`` it runs on the first 300 training and 100 test
documents, or on the synthetic sparse problem of ``common`` when the data
are not there.
"""

import os
from pathlib import Path

from .common import SMALL, Benchmark, Estimator, get_data, score_tracker

EPOCHS_20NG = 5

_data = {}


def _newsgroups():
    """(X_train, X_test, y_train, y_test), or None without the data."""
    if "split" not in _data:
        from sklearn.datasets import fetch_20newsgroups_vectorized

        home = os.environ.get("SKLEARN_PA_DATA")
        data_home = str(Path(home) / "sklearn") if home else None
        try:
            train, test = (
                fetch_20newsgroups_vectorized(
                    subset=subset, data_home=data_home, download_if_missing=False
                )
                for subset in ("train", "test")
            )
        except OSError:
            _data["split"] = None
        else:
            _data["split"] = (train.data, test.data, train.target, test.target)
    split = _data["split"]
    if split is not None and SMALL:
        X_train, X_test, y_train, y_test = split
        split = (X_train[:300], X_test[:100], y_train[:300], y_test[:100])
    return split


def _registered(name):
    """The benchmark registry's estimator, with five epochs."""
    from sklearn_pa.benchmark import REGISTRY

    return REGISTRY[name].factory(EPOCHS_20NG, 0)


#: asv name -> benchmark registry name (defined once, in the registry)
CLASSIFIERS = {
    "PA-default": "PA-default",
    "SPA-I": "SPA-I",
    "PA-I-maxloss": "PA-I-maxloss",
    "sklearn-SGD-pa1": "sklearn-SGD-pa1",
}


class Newsgroups20Suite(Estimator, Benchmark):
    """20 Newsgroups, fit on train and score on test, five epochs."""

    param_names = ["estimator"]
    params = (list(CLASSIFIERS),)

    def setup_cache(self):
        self.fit_all()

    setup_cache.timeout = 600

    def skip_reason(self, estimator):
        if _newsgroups() is None and not SMALL:
            return "20 Newsgroups not found under $SKLEARN_PA_DATA/sklearn"
        return None

    def make_data(self, estimator):
        split = _newsgroups()
        return split if split is not None else get_data("sparse")

    def make_estimator(self, estimator):
        return _registered(CLASSIFIERS[estimator])

    track_test_score = score_tracker("accuracy")


class ScoringLoopSuite(Benchmark):
    """The default classifier's fit on 20 Newsgroups with either scoring
    loop of the first-order kernel."""

    param_names = ["scoring_loop"]
    params = (["portable", "avx2"],)

    def setup(self, scoring_loop):
        from sklearn_pa._compiled import _first_order

        if scoring_loop == "avx2" and not _first_order._simd_available():
            raise NotImplementedError("this processor has no AVX2")
        split = _newsgroups()
        if split is None and not SMALL:
            raise NotImplementedError(
                "20 Newsgroups not found under $SKLEARN_PA_DATA/sklearn"
            )
        self.X_train, _, self.y_train, _ = (
            split if split is not None else get_data("sparse")
        )
        self.estimator = _registered(CLASSIFIERS["PA-default"])
        self._previous = _first_order._set_simd(scoring_loop == "avx2")

    def teardown(self, scoring_loop):
        from sklearn_pa._compiled import _first_order

        _first_order._set_simd(getattr(self, "_previous", True))

    def time_fit(self, scoring_loop):
        self.estimator.fit(self.X_train, self.y_train)
