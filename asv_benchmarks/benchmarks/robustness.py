"""Memory of a long sparse stream fed through ``partial_fit``.

A stream of 1,000,000 sparse rows (2^18 features, 20 non-zeros per row) in
batches of 10,000.  ``track_*`` report, from :mod:`tracemalloc`, the peak
memory of one ``partial_fit`` call at the start and at the end of the stream
and their ratio (1.0 means flat); ``peakmem_stream`` is asv's own measure of
the process's peak resident memory over the whole stream.
"""

import os

from sklearn.base import is_classifier

from sklearn_pa import PassiveAggressiveClassifier, PassiveAggressiveRegressor
from sklearn_pa.benchmark import sparse_stream, stream_memory

N_ROWS = 1_000_000
BATCH = 10_000
if os.environ.get("SKLEARN_PA_ASV_SMALL", "0") not in ("", "0"):
    N_ROWS, BATCH = 20_000, 2_000

ESTIMATORS = {
    "PassiveAggressiveClassifier": lambda: PassiveAggressiveClassifier(random_state=0),
    "PassiveAggressiveRegressor": lambda: PassiveAggressiveRegressor(random_state=0),
}


class StreamMemorySuite:
    """One million sparse rows through partial_fit."""

    param_names = ["estimator"]
    params = [list(ESTIMATORS)]

    processes = 1
    timeout = 600
    number = 1
    repeat = 1
    warmup_time = 0

    def setup_cache(self):
        return {
            name: stream_memory(make(), N_ROWS, batch_size=BATCH)
            for name, make in ESTIMATORS.items()
        }

    def track_first_batch_peak(self, results, estimator):
        return float(results[estimator]["peak"][1] / 2**20)

    track_first_batch_peak.unit = "MiB"

    def track_last_batch_peak(self, results, estimator):
        return float(results[estimator]["peak"][-1] / 2**20)

    track_last_batch_peak.unit = "MiB"

    def track_peak_growth(self, results, estimator):
        peak = results[estimator]["peak"]
        return float(peak[len(peak) // 2 :].max() / peak[1:3].max())

    track_peak_growth.unit = "ratio"

    def track_held_growth(self, results, estimator):
        held = results[estimator]["held"]
        return float((held[-1] - held[1]) / 2**10)

    track_held_growth.unit = "KiB"

    def peakmem_stream(self, results, estimator):
        est = ESTIMATORS[estimator]()
        kind = "classifier" if is_classifier(est) else "regressor"
        kw = {"classes": list(range(5))} if kind == "classifier" else {}
        for X, y in sparse_stream(N_ROWS, batch_size=BATCH, kind=kind):
            est.partial_fit(X, y, **kw)
