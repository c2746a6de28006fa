"""``python -m sklearn_pa.benchmark --dataset stream-file``: a svmlight file
streamed through ``partial_fit`` in constant memory, against
:func:`~sklearn.datasets.load_svmlight_file` followed by ``fit``.

The benchmark writes the file itself, into a temporary folder removed
afterwards: ``--rows`` rows (1,000,000 by default; ``--rows 4000000`` is the
4 M-row file of the scaling targets) of the ``stream-2m`` distribution
(``2**18`` hashed features, 20 non-zeros a row, labels from a hidden
hyperplane with 5% flipped), written a block at a time.  Then, for every
estimator, each of two ways of learning from it runs in a fresh process, so
that each reports its own peak resident memory:

- ``stream from file``: :func:`~sklearn_pa.datasets.iter_svmlight_file`
  batches of 10,000 rows through ``partial_fit``, ``--epochs`` passes over
  the file (read again for each);
- ``load + fit``: the whole file read by ``load_svmlight_file``, then
  ``fit`` with ``max_iter=--epochs``.

Reported: the time reading (parsing) and learning, the wall time, the peak
resident memory of the process while it learns and its growth over the
memory the process held before reading (the interpreter and the imported
packages; on Linux the peak is reset there, elsewhere it is the peak since
the process started), and the accuracy on 100,000 held-out rows.
"""

import multiprocessing
import os
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor

import numpy as np

from ._common import build_estimators, check_estimator_names
from ._data import N_FEATURES, TEST_ROWS, block_bounds, make_stream_block
from ._progress import Progress

__all__ = ["run_stream_file", "write_stream_file"]

_BATCH_SIZE = 10_000
_BLOCK_ROWS = 100_000


def write_stream_file(path, n_rows, *, nnz=20, random_state=0):
    """Write ``n_rows`` rows of the synthetic stream to a svmlight file.

    The rows are generated and written a block of 100,000 at a time (the
    memory held is one block's).

    Parameters
    ----------
    path : str or os.PathLike
        The file to write (zero-based feature indices).
    n_rows : int
        Rows to write.
    nnz : int, default=20
        Non-zeros a row.
    random_state : int, default=0
        Seed of the blocks (block ``i`` is generated from seed
        ``random_state + 1 + i``).

    Returns
    -------
    n_bytes : int
        The size of the file.
    """
    from sklearn.datasets import dump_svmlight_file

    n_blocks = max(1, -(-n_rows // _BLOCK_ROWS))
    bounds = block_bounds(n_rows, n_blocks)
    with open(path, "wb") as f:
        for i in range(n_blocks):
            X, y = make_stream_block(
                random_state + 1 + i, int(bounds[i + 1] - bounds[i]), N_FEATURES, nnz
            )
            dump_svmlight_file(X, y, f, zero_based=True)
    return os.path.getsize(path)


def _peak_rss():
    """The peak resident memory of this process in bytes: since the last
    :func:`_reset_peak` on Linux (``VmHWM``), since it started elsewhere
    (NaN where the platform does not report it)."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return float(line.split()[1]) * 1024
    except OSError:
        pass
    try:
        import resource
    except ImportError:  # Windows
        return float("nan")
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    # kilobytes on Linux, bytes on macOS
    return float(peak if sys.platform == "darwin" else peak * 1024)


def _reset_peak():
    """Start the peak resident memory afresh (Linux: the imports' transient
    memory is not the learner's) and return the resident memory now."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
    except OSError:
        pass
    return _peak_rss()


def _learn(how, path, name, epochs, random_state, params):
    """One way of learning from the file, in a fresh process: the fitted
    estimator and the figures."""
    from sklearn.datasets import load_svmlight_file

    from ..datasets import iter_svmlight_file

    est = build_estimators([name], epochs, random_state, params)[name]
    start_rss = _reset_peak()
    read = learn = 0.0
    tic = time.perf_counter()
    if how == "stream from file":
        classes = np.array([0.0, 1.0])
        for _ in range(epochs):
            batches = iter_svmlight_file(
                path, N_FEATURES, batch_size=_BATCH_SIZE, zero_based=True
            )
            while True:
                t0 = time.perf_counter()
                batch = next(batches, None)
                t1 = time.perf_counter()
                read += t1 - t0
                if batch is None:
                    break
                est.partial_fit(*batch, classes=classes)
                learn += time.perf_counter() - t1
                del batch
    else:
        X, y = load_svmlight_file(path, n_features=N_FEATURES, zero_based=True)
        read = time.perf_counter() - tic
        est.fit(X, y)
        learn = time.perf_counter() - tic - read
        del X, y
    wall = time.perf_counter() - tic
    peak = _peak_rss()
    return est, {
        "read_time": read,
        "fit_time": learn,
        "wall_time": wall,
        "peak_rss_mib": peak / 2**20,
        "rss_growth_mib": (peak - start_rss) / 2**20,
    }


def _in_fresh_process(*args):
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=1, mp_context=context) as pool:
        return pool.submit(_learn, *args).result()


def run_stream_file(
    n_rows=1_000_000,
    estimators=None,
    epochs=1,
    random_state=0,
    *,
    params=None,
    verbose=False,
):
    """Rows of the comparison: two per estimator (streamed, loaded).

    Parameters
    ----------
    n_rows : int, default=1_000_000
        Rows of the file written.
    estimators : list of str, default=None
        Classifiers of the registry (``PA-I`` when None).
    epochs : int, default=1
        Passes over the data of each way of learning.
    random_state : int, default=0
        Seed of the file's rows and of the estimators.
    params : dict, default=None
        Hyper-parameters set on every estimator.
    verbose : bool or int, default=False
        As in :func:`~sklearn_pa.benchmark.run_benchmark`.

    Returns
    -------
    rows : list of dict
        ``estimator``, ``training`` (``"stream from file"`` or ``"load +
        fit"``), ``n_rows``, ``file_mib``, ``read_time`` (s, parsing),
        ``fit_time`` (s, ``partial_fit`` or ``fit``), ``wall_time`` (s),
        ``peak_rss_mib`` (the process's peak resident memory),
        ``rss_growth_mib`` (that peak over the memory held before reading)
        and ``accuracy`` on the held-out rows.
    """
    names = list(["PA-I"] if estimators is None else estimators)
    check_estimator_names(names, "classification")
    build_estimators(names, epochs, random_state, params)  # checks the params
    progress = Progress(2 * len(names), verbose=verbose)
    X_test, y_test = make_stream_block(10**6, TEST_ROWS, N_FEATURES, 20)
    rows = []
    with tempfile.TemporaryDirectory(prefix="sklearn_pa_stream_file_") as folder:
        path = os.path.join(folder, "stream.svm")
        tic = time.perf_counter()
        n_bytes = write_stream_file(path, n_rows, random_state=random_state)
        progress.log(
            f"wrote {n_rows:,} rows ({n_bytes / 2**20:.0f} MiB) in "
            f"{time.perf_counter() - tic:.1f} s"
        )
        for name in names:
            for how in ("stream from file", "load + fit"):
                est, figures = _in_fresh_process(
                    how, path, name, epochs, random_state, params
                )
                rows.append(
                    {
                        "task": "stream-file",
                        "dataset": "stream-file",
                        "estimator": name,
                        "training": how,
                        "n_rows": n_rows,
                        "file_mib": n_bytes / 2**20,
                        "epochs": epochs,
                        "batch_size": _BATCH_SIZE,
                        **figures,
                        "accuracy": float(est.score(X_test, y_test)),
                        "n_test": TEST_ROWS,
                    }
                )
                progress.step(f"{name} {how}")
                progress.log(
                    f"  {name}, {how}: {figures['wall_time']:.1f} s, peak RSS "
                    f"{figures['peak_rss_mib']:.0f} MiB"
                )
    return rows
