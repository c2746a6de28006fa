"""Memory of a long stream: peak traced memory of ``partial_fit`` over batches.

An online learner must not grow with the stream: after the first batches, the
memory a ``partial_fit`` call needs (its batch, the validation copies, the
model) stays flat however many rows went before.  :func:`stream_memory`
measures that with :mod:`tracemalloc` (numpy reports its buffers to it), and
``python -m sklearn_pa.benchmark --dataset stream-memory`` prints it for every
public estimator with ``partial_fit`` and sparse input (named by class,
``--estimators PassiveAggressiveClassifier ...`` to choose).
"""

import time
import tracemalloc

import numpy as np
from sklearn.base import clone
from sklearn.utils import get_tags

from ._data import sparse_stream
from ._progress import Progress

__all__ = ["run_stream_memory", "stream_estimators", "stream_memory"]


def stream_memory(estimator, n_rows, *, batch_size=10_000, **stream_params):
    """Stream ``n_rows`` sparse rows through ``estimator.partial_fit``.

    Returns, for every batch, the peak traced memory during its
    ``partial_fit`` call and the memory still held after it, both relative to
    the memory held before the first call (the batch generator's own arrays
    are not counted).

    Parameters
    ----------
    estimator : estimator with ``partial_fit``
        Cloned before use.
    n_rows : int
        Rows to stream.
    batch_size : int, default=10_000
        Rows per ``partial_fit`` call.
    **stream_params
        Passed to :func:`sparse_stream`.

    Returns
    -------
    result : dict
        ``rows``, ``batches``, ``peak`` and ``held`` (arrays of bytes, one
        entry per batch) and ``seconds`` (time in ``partial_fit``).
    """
    est = clone(estimator)
    kind = get_tags(est).estimator_type or "classifier"
    n_classes = stream_params.setdefault("n_classes", 5)
    fit_kw = {"classes": np.arange(n_classes)} if kind == "classifier" else {}
    peaks, held = [], []
    seconds = 0.0
    was_tracing = tracemalloc.is_tracing()
    if not was_tracing:
        tracemalloc.start()
    try:
        base = None
        for X, y in sparse_stream(
            n_rows, batch_size=batch_size, kind=kind, **stream_params
        ):
            before, _ = tracemalloc.get_traced_memory()
            # the batch itself is the caller's memory, not the learner's
            batch_bytes = X.data.nbytes + X.indices.nbytes + X.indptr.nbytes
            batch_bytes += 0 if y is None else y.nbytes
            if base is None:
                base = before - batch_bytes
            tracemalloc.reset_peak()
            tic = time.perf_counter()
            if y is None:
                est.partial_fit(X)
            else:
                est.partial_fit(X, y, **fit_kw)
            seconds += time.perf_counter() - tic
            current, peak = tracemalloc.get_traced_memory()
            peaks.append(peak - batch_bytes - base)
            held.append(current - batch_bytes - base)
            del X, y
    finally:
        if not was_tracing:
            tracemalloc.stop()
    return {
        "rows": n_rows,
        "batches": len(peaks),
        "peak": np.asarray(peaks),
        "held": np.asarray(held),
        "seconds": seconds,
    }


def stream_estimators():
    """Every public estimator with ``partial_fit`` and sparse input, with its
    default hyper-parameters (``random_state=0``): class name -> estimator."""
    from ..utils import all_estimators

    estimators = {}
    for name, Estimator in all_estimators():
        est = Estimator()
        if hasattr(est, "partial_fit") and get_tags(est).input_tags.sparse:
            params = est.get_params()
            est.set_params(**({"random_state": 0} if "random_state" in params else {}))
            estimators[name] = est
    return estimators


def run_stream_memory(names=None, n_rows=1_000_000, batch_size=10_000, verbose=False):
    """Stream ``n_rows`` sparse rows (2^18 features, 20 non-zeros) through each
    estimator's ``partial_fit``; one row of memory figures per estimator.

    Parameters
    ----------
    names : list of str, default=None
        Class names from :func:`stream_estimators` (all when None).
    n_rows : int, default=1_000_000
        Rows streamed.
    batch_size : int, default=10_000
        Rows per ``partial_fit`` call.
    verbose : bool or int, default=False
        As in :func:`~sklearn_pa.benchmark.run_benchmark`.

    Returns
    -------
    rows : list of dict
        ``first_peak_mib``, ``max_peak_mib``, ``held_mib`` (after the last
        batch), ``growth`` (largest peak of the second half over that of the
        first two batches) and ``seconds`` in ``partial_fit``.
    """
    available = stream_estimators()
    names = list(available if names is None else names)
    unknown = [n for n in names if n not in available]
    if unknown:
        raise ValueError(
            f"Unknown estimator name(s): {', '.join(unknown)}. The stream-memory "
            "protocol names estimators by class; available: "
            f"{', '.join(available)}."
        )
    progress = Progress(len(names), verbose=verbose)
    progress.log(
        f"Streaming {n_rows:,} sparse rows (2^18 features, 20 non-zeros) in "
        f"batches of {batch_size:,}"
    )
    rows = []
    for name in names:
        res = stream_memory(available[name], n_rows, batch_size=batch_size)
        peaks = res["peak"]
        row = {
            "task": "stream-memory",
            "dataset": "stream-memory",
            "estimator": name,
            "n_rows": n_rows,
            "batch_size": batch_size,
            "first_peak_mib": peaks[0] / 2**20,
            "max_peak_mib": peaks.max() / 2**20,
            "held_mib": res["held"][-1] / 2**20,
            "growth": peaks[len(peaks) // 2 :].max() / peaks[:2].max(),
            "seconds": res["seconds"],
        }
        rows.append(row)
        progress.step(name)
        progress.log(
            f"  {name}: max peak {row['max_peak_mib']:.2f} MiB, growth "
            f"{row['growth']:.3f}, {row['seconds']:.1f} s"
        )
    return rows
