"""Per-call latency: one ``partial_fit`` and one ``predict`` on a single row
of a model already learning (the 20 Newsgroups-like sparse problem of
``common``: 100,000 features, 20 classes), beside scikit-learn's
``SGDClassifier(learning_rate="pa1").partial_fit``.

A call on one row must cost what the row costs, not the size of the model:
the model learns 100 rows first, then every timed call takes the next row of
a stream.  asv times many calls per sample (``number``), so that a call of a
few tens of microseconds is measured, not the timer.
"""

import itertools
import timeit

import numpy as np
from sklearn.linear_model import SGDClassifier

from sklearn_pa import (
    AROWClassifier,
    ConfidenceWeightedClassifier,
    PassiveAggressiveClassifier,
    PassiveAggressiveRegressor,
)

from .common import RANDOM_STATE, get_data

LEARNERS = {
    "PA-default": lambda: PassiveAggressiveClassifier(random_state=RANDOM_STATE),
    "PA-unaveraged": lambda: PassiveAggressiveClassifier(
        average=False, random_state=RANDOM_STATE
    ),
    "AROW": lambda: AROWClassifier(random_state=RANDOM_STATE),
    "CW": lambda: ConfidenceWeightedClassifier(random_state=RANDOM_STATE),
    "PA-regressor": lambda: PassiveAggressiveRegressor(random_state=RANDOM_STATE),
    "sklearn-SGD-pa1": lambda: SGDClassifier(
        loss="hinge",
        penalty=None,
        learning_rate="pa1",
        eta0=1.0,
        random_state=RANDOM_STATE,
    ),
}


class _CallTiming:
    """asv's settings for calls of microseconds to milliseconds: many calls
    a sample, one process."""

    timer = timeit.default_timer
    processes = 1
    number = 200
    repeat = (3, 10, 20.0)
    warmup_time = 0.1
    timeout = 300


class OneRowLatencySuite(_CallTiming):
    """Time of one ``partial_fit`` and one ``predict`` call on one row."""

    param_names = ["estimator"]
    params = (list(LEARNERS),)

    def setup(self, estimator):
        X, _, y, _ = get_data("sparse")
        self.regression = estimator == "PA-regressor"
        if self.regression:
            y = (np.asarray(y) % 2) * 2.0 - 1.0
        self.model = LEARNERS[estimator]()
        if self.regression:
            self.model.partial_fit(X[:100], y[:100])
        else:
            self.model.partial_fit(X[:100], y[:100], classes=np.unique(y))
        rows = [(X[i : i + 1], y[i : i + 1]) for i in range(100, X.shape[0])]
        self.stream = itertools.cycle(rows)

    def time_partial_fit_one_row(self, estimator):
        X, y = next(self.stream)
        self.model.partial_fit(X, y)

    def time_predict_one_row(self, estimator):
        X, _ = next(self.stream)
        self.model.predict(X)


class SmallBatchLatencySuite(_CallTiming):
    """Time of one ``partial_fit`` call on a batch of a few rows, around the
    size where a call's journal switches from the write log of the
    first-order pass (the entries its steps write) to the rows of the
    weights the batch indexes (``LOGGED_VALUES_MAX`` values, in
    ``sklearn_pa/_core/epochs.py``): both sides of it should cost about a
    row of a 1000-row call each."""

    param_names = ["estimator", "rows"]
    params = (["PA-default", "PA-unaveraged"], [1, 10, 50, 100, 400])
    number = 20  # (a call of up to a few milliseconds)

    def setup(self, estimator, rows):
        X, _, y, _ = get_data("sparse")
        self.model = LEARNERS[estimator]()
        self.model.partial_fit(X[:100], y[:100], classes=np.unique(y))
        n = X.shape[0]
        # (the rows after the first 100, taken in turn; on a small data set
        # a batch wraps around)
        starts = range(100, 100 + 20 * rows, rows)
        batches = []
        for start in starts:
            index = np.arange(start, start + rows) % n
            batches.append((X[index], np.asarray(y)[index]))
        self.stream = itertools.cycle(batches)

    def time_partial_fit(self, estimator, rows):
        X, y = next(self.stream)
        self.model.partial_fit(X, y)
