"""Fit time and peak memory of float32 input against float64 input.

``InputDtypeSuite``: the default ``PassiveAggressiveClassifier`` and AROW
fitted (3 epochs) on the same rows as float64 and as float32: 20 Newsgroups'
training subset (as ``newsgroups``; skipped without the data) and 500,000
rows of the hashed binary stream of ``python -m sklearn_pa.benchmark
--dataset stream-2m``.  The kernels read float32 rows as they are (the model
is the one of the float64 conversion), so a float32 fit makes no float64
copy of ``X``: ``peakmem_fit`` (the process's peak resident memory, the data
included) tracks that, ``time_fit`` what reading half the bytes per value
saves.  ``python -m sklearn_pa.benchmark --dataset 20newsgroups-dtype`` (or
``stream-4m-dtype``) reports the same with the fit's own traced peak.  With
``SKLEARN_PA_ASV_SMALL=1`` the stream has 2,000 rows and 20 Newsgroups its
first 300 documents (the synthetic sparse problem of ``common`` without the
data).
"""

import numpy as np

from .common import SMALL, Benchmark, get_data
from .newsgroups import _newsgroups

STREAM_ROWS = 2_000 if SMALL else 500_000


def _rows(dataset):
    """(X, y) of the data set, float64, or None without the data."""
    if dataset == "stream":
        from sklearn_pa.benchmark._input_dtype import stream_rows

        return stream_rows(STREAM_ROWS)
    split = _newsgroups()
    if split is None and SMALL:
        split = get_data("sparse")
    return None if split is None else (split[0], split[2])


class InputDtypeSuite(Benchmark):
    """fit on float64 and on float32 rows."""

    param_names = ["dataset", "estimator", "dtype"]
    params = (
        ["20newsgroups", "stream"],
        ["PA-default", "AROW"],
        ["float64", "float32"],
    )
    timeout = 600

    def setup(self, dataset, estimator, dtype):
        from sklearn_pa.benchmark import REGISTRY

        rows = _rows(dataset)
        if rows is None:
            raise NotImplementedError(
                "20 Newsgroups not found under $SKLEARN_PA_DATA/sklearn"
            )
        X, self.y = rows
        self.X = X.astype(np.dtype(dtype))
        self.estimator = REGISTRY[estimator].factory(3, 0)

    def time_fit(self, dataset, estimator, dtype):
        self.estimator.fit(self.X, self.y)

    def peakmem_fit(self, dataset, estimator, dtype):
        self.estimator.fit(self.X, self.y)
