"""``python -m sklearn_pa.benchmark --dataset stream-2m``: parameter mixing on
a Dask cluster against the serial fit, on a synthetic sparse stream.

The stream: ``--rows`` rows (2,000,000 by default) of ``2**18`` hashed
features with ``--nnz`` (20) non-zeros each, feature ``j`` drawn with
probability about ``1 / (j + 1)`` (like word frequencies), values
``+-1/sqrt(nnz)``, labelled by the side of a fixed random hyperplane with 5%
of the labels flipped (linearly separable up to that noise).  Each partition
is generated on the worker that keeps it, from its own seed: the driver never
holds the training data.  The serial reference generates the same rows in
this process and calls ``fit``.  Accuracy is measured on 100,000 held-out
rows of the same distribution.  The wall times are those of ``fit`` and of
``fit_parameter_mixing`` (which includes checking the partitions); neither
includes generating the data, and the workers have imported the package
before the clock starts.

Every parameter-mixing row also reports the speed-up over the serial fit
of the same rows, the time inside the partitions' epochs (per epoch the
slowest partition's, summed over the epochs) and the per-epoch overhead (the
epoch's wall time minus that kernel time: scheduling, transfers and the
driver's broadcast and mixing) with the driver's own share of it.

Needs the ``dask`` extra.  ``--scheduler ADDRESS`` runs on an existing
cluster instead of a ``LocalCluster`` of ``--workers`` processes;
``--workers 1 2 4`` runs each number of workers in turn (a fresh
``LocalCluster`` each, the scaling curve); ``--threads`` also runs the
threaded single-machine mode (``n_jobs``) with as many partitions.
"""

import contextlib
import time

import numpy as np
import scipy.sparse as sp

from ._common import build_estimators, check_estimator_names
from ._data import N_FEATURES, TEST_ROWS, block_bounds, make_stream_block
from ._progress import Progress
from ._registry import DEFAULT_ESTIMATORS_BY_DATASET

__all__ = ["dask_stream", "run_stream_dask"]


def dask_stream(n_rows, n_blocks, nnz, seed=0, client=None):
    """The stream as dask arrays whose blocks are generated where computed.

    With a client, block ``i`` is generated and persisted on the ``i``-th
    worker (round-robin over the sorted addresses, the placement
    ``fit_parameter_mixing`` uses), as data read by the workers would be."""
    import dask
    import dask.array as da

    addresses = sorted(client.scheduler_info()["workers"]) if client else []
    bounds = block_bounds(n_rows, n_blocks)
    xs, ys = [], []
    for i in range(n_blocks):
        size = int(bounds[i + 1] - bounds[i])
        block = dask.delayed(make_stream_block, nout=2, pure=True)(
            seed + 1 + i, size, N_FEATURES, nnz
        )
        meta = sp.csr_matrix((0, N_FEATURES))
        X = da.from_delayed(block[0], (size, N_FEATURES), dtype=np.float64, meta=meta)
        y = da.from_delayed(block[1], (size,), dtype=np.int64)
        if addresses:
            X, y = client.persist([X, y], workers=[addresses[i % len(addresses)]])
        xs.append(X)
        ys.append(y)
    return da.concatenate(xs), da.concatenate(ys)


def _warm_up():
    """Import the package on a worker (a one-time cost of a fresh worker)."""
    import sklearn_pa.distributed  # noqa: F401


def _mixing_row(history, elapsed):
    """The timing fields of a parameter-mixing row from its history."""
    n = max(len(history), 1)
    return {
        "wall_time": elapsed,
        "kernel_time": sum(h["kernel_time"] for h in history),
        "overhead_per_epoch": sum(h["overhead"] for h in history) / n,
        "driver_per_epoch": sum(h["driver_time"] for h in history) / n,
    }


def run_stream_dask(
    n_rows=2_000_000,
    workers=2,
    estimators=None,
    epochs=3,
    nnz=20,
    scheduler=None,
    random_state=0,
    *,
    threads=False,
    params=None,
    verbose=False,
):
    """Rows of the comparison: one per (estimator, setting, workers).

    Parameters
    ----------
    n_rows : int, default=2_000_000
        Rows of the stream.
    workers : int or list of int, default=2
        Partitions (one per worker of the ``LocalCluster``); a list runs
        every number of workers in turn (a scaling curve), each against the
        serial fit of the same rows.
    estimators : list of str, default=None
        Classifiers of the registry (``PA-I`` and ``AROW`` when None).
    epochs : int, default=3
        Passes of the serial fit and of parameter mixing.
    nnz : int, default=20
        Non-zeros per row.
    scheduler : str, default=None
        Address of a running Dask scheduler (a ``LocalCluster`` when None).
    random_state : int, default=0
        Seed of the stream and of the estimators.
    threads : bool, default=False
        Also run parameter mixing on threads of this process (no Dask), with
        as many partitions and threads as workers.
    params : dict, default=None
        Hyper-parameters set on every estimator.
    verbose : bool or int, default=False
        As in :func:`~sklearn_pa.benchmark.run_benchmark`.

    Returns
    -------
    rows : list of dict
        ``estimator``, ``training`` (``"serial fit"``, ``"parameter
        mixing"`` on Dask or ``"mixing on threads"``), ``workers``,
        ``wall_time`` (s), ``speedup`` (the serial fit's wall time over this
        one's), ``kernel_time`` (s, summed over the epochs: the slowest
        partition's epoch where it ran), ``overhead_per_epoch`` (s, the
        epoch's wall time minus that kernel time, averaged over the epochs),
        ``driver_per_epoch`` (s, the driver's own work per epoch) and
        ``accuracy`` on the held-out rows.
    """
    names = list(
        DEFAULT_ESTIMATORS_BY_DATASET["stream-2m"] if estimators is None else estimators
    )
    counts = [int(workers)] if np.isscalar(workers) else [int(w) for w in workers]
    check_estimator_names(names, "classification")
    build_estimators(names, epochs, random_state, params)  # checks the params
    progress = Progress((2 + bool(threads)) * len(names) * len(counts), verbose=verbose)
    common = {
        "task": "stream-dask",
        "dataset": "stream-2m",
        "n_rows": n_rows,
        "n_features": N_FEATURES,
        "nnz": nnz,
        "epochs": epochs,
        "random_state": random_state,
        "n_test": TEST_ROWS,
    }
    nan = float("nan")

    def row(name, how, n_workers, timing, accuracy, serial):
        return {
            **common,
            "estimator": name,
            "training": how,
            "workers": n_workers,
            "wall_time": timing["wall_time"],
            "speedup": serial / timing["wall_time"],
            "kernel_time": timing.get("kernel_time", nan),
            "overhead_per_epoch": timing.get("overhead_per_epoch", nan),
            "driver_per_epoch": timing.get("driver_per_epoch", nan),
            "accuracy": float(accuracy),
        }

    X_test, y_test = make_stream_block(10**6, TEST_ROWS, N_FEATURES, nnz)
    rows = []
    for n_workers in counts:
        with _client(scheduler, n_workers) as client:
            rows += _run_workers(
                client,
                n_workers,
                names,
                (n_rows, nnz, epochs, random_state, params, threads),
                (X_test, y_test),
                row,
                progress,
            )
    return rows


@contextlib.contextmanager
def _client(scheduler, n_workers):
    """A client of the running scheduler, or of a fresh ``LocalCluster`` of
    ``n_workers`` single-threaded worker processes, the package imported on
    every worker before the clock starts."""
    from distributed import Client, LocalCluster

    cluster = None
    if scheduler is None:
        cluster = LocalCluster(
            n_workers=n_workers,
            threads_per_worker=1,
            processes=True,
            dashboard_address=":0",
            host="127.0.0.1",
        )
        client = Client(cluster, set_as_default=False)
    else:
        client = Client(scheduler, set_as_default=False)
    try:
        client.run(_warm_up)
        yield client
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


def _run_workers(client, n_workers, names, settings, test, row, progress):
    """The serial fit, parameter mixing on ``n_workers`` Dask workers and,
    with ``threads``, on as many threads, of the same rows."""
    from distributed import futures_of, wait

    from ..distributed import fit_parameter_mixing

    n_rows, nnz, epochs, random_state, params, threads = settings
    log = progress.log
    X_test, y_test = test
    rows = []
    tic = time.perf_counter()
    # the serial reference: the same rows (the workers' blocks), one process
    bounds = block_bounds(n_rows, n_workers)
    blocks = [
        make_stream_block(random_state + 1 + i, int(b - a), N_FEATURES, nnz)
        for i, (a, b) in enumerate(zip(bounds[:-1], bounds[1:]))
    ]
    X = sp.vstack([b[0] for b in blocks], format="csr")
    y = np.concatenate([b[1] for b in blocks])
    del blocks
    log(
        f"generated {X.shape[0]} x {X.shape[1]} serially in "
        f"{time.perf_counter() - tic:.1f} s ({X.nnz / X.shape[0]:.1f} nnz/row)"
    )
    serial = {}
    for name in names:
        est = build_estimators([name], epochs, random_state, params)[name]
        tic = time.perf_counter()
        est.fit(X, y)
        serial[name] = time.perf_counter() - tic
        timing = {"wall_time": serial[name]}
        rows.append(
            row(name, "serial fit", 1, timing, est.score(X_test, y_test), serial[name])
        )
        progress.step(f"{name} serial fit")
        log(
            f"  {name}: serial fit {serial[name]:.1f} s, accuracy "
            f"{rows[-1]['accuracy']:.4f}"
        )
    if threads:
        for name in names:
            est = build_estimators([name], epochs, random_state, params)[name]
            tic = time.perf_counter()
            model, history = fit_parameter_mixing(
                est,
                X,
                y,
                n_epochs=epochs,
                n_partitions=n_workers,
                n_jobs=n_workers,
                return_history=True,
            )
            timing = _mixing_row(history, time.perf_counter() - tic)
            accuracy = model.score(X_test, y_test)
            rows.append(
                row(
                    name, "mixing on threads", n_workers, timing, accuracy, serial[name]
                )
            )
            progress.step(f"{name} mixing on threads")
            log(
                f"  {name}: parameter mixing on {n_workers} threads "
                f"{timing['wall_time']:.1f} s, accuracy {accuracy:.4f}"
            )
    del X, y
    tic = time.perf_counter()
    Xd, yd = dask_stream(n_rows, n_workers, nnz, seed=random_state, client=client)
    with client.as_current():
        wait(futures_of([Xd, yd]))
    log(
        f"generated the same rows on {n_workers} workers in "
        f"{time.perf_counter() - tic:.1f} s"
    )
    for name in names:
        est = build_estimators([name], epochs, random_state, params)[name]
        tic = time.perf_counter()
        model, history = fit_parameter_mixing(
            est, Xd, yd, n_epochs=epochs, client=client, return_history=True
        )
        timing = _mixing_row(history, time.perf_counter() - tic)
        accuracy = model.score(X_test, y_test)
        rows.append(
            row(name, "parameter mixing", n_workers, timing, accuracy, serial[name])
        )
        progress.step(f"{name} parameter mixing")
        log(
            f"  {name}: parameter mixing on {n_workers} workers "
            f"{timing['wall_time']:.1f} s, accuracy {accuracy:.4f}"
        )
    del Xd, yd
    return rows


def n_worker_counts(rows):
    """The numbers of workers the parameter mixing of a run used."""
    return len({row["workers"] for row in rows if row["training"] != "serial fit"})


def plot_scaling(rows, path, Figure, title):
    """The scaling curve of a stream-dask run over several numbers of
    workers: the speed-up over the serial fit of each way of mixing, and
    the ideal linear speed-up."""
    fig = Figure(figsize=(6, 4.5))
    ax = fig.subplots()
    mixed = [row for row in rows if row["training"] != "serial fit"]
    workers = sorted({row["workers"] for row in mixed})
    ax.plot(workers, workers, color="0.6", linestyle="--", label="linear")
    for name in dict.fromkeys(row["estimator"] for row in mixed):
        for how in dict.fromkeys(row["training"] for row in mixed):
            points = sorted(
                (row["workers"], row["speedup"])
                for row in mixed
                if row["estimator"] == name and row["training"] == how
            )
            if points:
                x, y = zip(*points)
                ax.plot(x, y, marker="o", label=f"{name} {how}")
    ax.set_xlabel("workers (partitions)")
    ax.set_ylabel("speed-up over the serial fit")
    ax.set_xticks(workers)
    ax.legend(loc="best", fontsize=8)
    ax.set_title(title, fontsize=8, wrap=True)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
