"""Memory of a long stream: peak traced memory of ``partial_fit`` over batches.

An online learner must not grow with the stream: after the first batches, the
memory a ``partial_fit`` call needs (its batch, the validation copies, the
model) stays flat however many rows went before.  :func:`stream_memory`
measures that with :mod:`tracemalloc` (numpy reports its buffers to it), and
``python -m sklearn_pa.benchmark --stream`` prints it for every estimator.
"""

import time
import tracemalloc

import numpy as np
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.utils import get_tags

__all__ = ["main_stream", "sparse_stream", "stream_memory"]


def sparse_stream(
    n_rows,
    *,
    batch_size=10_000,
    n_features=2**18,
    nnz=20,
    n_classes=5,
    kind="classifier",
    random_state=0,
):
    """Yield ``(X, y)`` batches of a synthetic sparse stream, made on the fly.

    Each row has ``nnz`` non-zeros at random columns (hashed-text-like), with
    a planted linear target so that the learners keep updating.

    Parameters
    ----------
    n_rows : int
        Total number of rows.
    batch_size : int, default=10_000
        Rows per batch (the last batch may be shorter).
    n_features : int, default=2**18
        Width of the CSR batches.
    nnz : int, default=20
        Non-zeros per row.
    n_classes : int, default=5
        Number of classes (``kind="classifier"``).
    kind : {"classifier", "regressor", "outlier_detector"}, default="classifier"
        What ``y`` holds: labels, real targets, or ``None``.
    random_state : int, default=0
        Seed of the stream.

    Yields
    ------
    X : scipy.sparse.csr_matrix of shape (batch, n_features)
    y : ndarray of shape (batch,) or None
    """
    rng = np.random.default_rng(random_state)
    planted = rng.normal(size=(n_features, n_classes))
    done = 0
    while done < n_rows:
        m = min(batch_size, n_rows - done)
        indices = rng.integers(0, n_features, size=m * nnz, dtype=np.int32)
        data = rng.normal(size=m * nnz) / np.sqrt(nnz)
        indptr = np.arange(0, (m + 1) * nnz, nnz, dtype=np.int32)
        X = sp.csr_matrix((data, indices, indptr), shape=(m, n_features))
        X.sum_duplicates()  # canonical, as a vectorizer's output
        scores = (X @ planted) if kind != "outlier_detector" else None
        if kind == "classifier":
            y = np.argmax(scores, axis=1)
        elif kind == "regressor":
            y = scores[:, 0]
        else:
            y = None
        done += m
        yield X, y


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


def report_stream(estimators, n_rows, batch_size=10_000):
    """Print the stream memory of each ``(name, estimator)``; one line each."""
    print(
        f"Streaming {n_rows:,} sparse rows (2^18 features, 20 non-zeros) in "
        f"batches of {batch_size:,}"
    )
    header = (
        f"{'estimator':<34}{'first peak MiB':>15}{'max peak MiB':>14}"
        f"{'held MiB':>10}{'growth':>8}{'time s':>8}"
    )
    print(header)
    print("-" * len(header))
    for name, est in estimators:
        res = stream_memory(est, n_rows, batch_size=batch_size)
        first = res["peak"][0] / 2**20
        peak = res["peak"].max() / 2**20
        growth = res["peak"][len(res["peak"]) // 2 :].max() / res["peak"][:2].max()
        print(
            f"{name:<34}{first:>15.2f}{peak:>14.2f}"
            f"{res['held'][-1] / 2**20:>10.2f}{growth:>8.3f}{res['seconds']:>8.1f}",
            flush=True,
        )


def main_stream(n_rows):
    """``python -m sklearn_pa.benchmark --stream [ROWS]``: every public
    estimator with ``partial_fit`` and sparse input."""
    from .utils import all_estimators

    estimators = []
    for name, Estimator in all_estimators():
        est = Estimator()
        if hasattr(est, "partial_fit") and get_tags(est).input_tags.sparse:
            params = est.get_params()
            est.set_params(**({"random_state": 0} if "random_state" in params else {}))
            estimators.append((name, est))
    report_stream(estimators, n_rows)
    return 0
