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

Needs the ``dask`` extra.  ``--scheduler ADDRESS`` runs on an existing
cluster instead of a ``LocalCluster`` of ``--workers`` processes.
"""

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


def run_stream_dask(
    n_rows=2_000_000,
    workers=2,
    estimators=None,
    epochs=3,
    nnz=20,
    scheduler=None,
    random_state=0,
    *,
    params=None,
    verbose=False,
):
    """Rows of the comparison: one per (estimator, setting).

    Parameters
    ----------
    n_rows : int, default=2_000_000
        Rows of the stream.
    workers : int, default=2
        Partitions (one per worker of the ``LocalCluster``).
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
    params : dict, default=None
        Hyper-parameters set on every estimator.
    verbose : bool or int, default=False
        As in :func:`~sklearn_pa.benchmark.run_benchmark`.

    Returns
    -------
    rows : list of dict
        ``estimator``, ``training`` (``"serial fit"`` or ``"parameter
        mixing"``), ``workers``, ``wall_time`` (s) and ``accuracy`` on the
        held-out rows.
    """
    from distributed import Client, LocalCluster, futures_of, wait

    from ..distributed import fit_parameter_mixing

    names = list(
        DEFAULT_ESTIMATORS_BY_DATASET["stream-2m"] if estimators is None else estimators
    )
    check_estimator_names(names, "classification")
    build_estimators(names, epochs, random_state, params)  # checks the params
    progress = Progress(2 * len(names), verbose=verbose)
    log = progress.log
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

    def row(name, how, n_workers, elapsed, accuracy):
        return {
            **common,
            "estimator": name,
            "training": how,
            "workers": n_workers,
            "wall_time": elapsed,
            "accuracy": float(accuracy),
        }

    X_test, y_test = make_stream_block(10**6, TEST_ROWS, N_FEATURES, nnz)
    rows = []
    tic = time.perf_counter()
    # the serial reference: the same rows (the workers' blocks), one process
    bounds = block_bounds(n_rows, workers)
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
    for name in names:
        est = build_estimators([name], epochs, random_state, params)[name]
        tic = time.perf_counter()
        est.fit(X, y)
        elapsed = time.perf_counter() - tic
        rows.append(row(name, "serial fit", 1, elapsed, est.score(X_test, y_test)))
        progress.step(f"{name} serial fit")
        log(
            f"  {name}: serial fit {elapsed:.1f} s, accuracy {rows[-1]['accuracy']:.4f}"
        )
    del X, y
    if scheduler is None:
        cluster = LocalCluster(
            n_workers=workers,
            threads_per_worker=1,
            processes=True,
            dashboard_address=":0",
            host="127.0.0.1",
        )
        client = Client(cluster, set_as_default=False)
    else:
        cluster = None
        client = Client(scheduler, set_as_default=False)
    try:
        client.run(_warm_up)
        tic = time.perf_counter()
        Xd, yd = dask_stream(n_rows, workers, nnz, seed=random_state, client=client)
        with client.as_current():
            wait(futures_of([Xd, yd]))
        log(
            f"generated the same rows on {workers} workers in "
            f"{time.perf_counter() - tic:.1f} s"
        )
        for name in names:
            est = build_estimators([name], epochs, random_state, params)[name]
            tic = time.perf_counter()
            model = fit_parameter_mixing(est, Xd, yd, n_epochs=epochs, client=client)
            elapsed = time.perf_counter() - tic
            accuracy = model.score(X_test, y_test)
            rows.append(row(name, "parameter mixing", workers, elapsed, accuracy))
            progress.step(f"{name} parameter mixing")
            log(
                f"  {name}: parameter mixing on {workers} workers {elapsed:.1f} s, "
                f"accuracy {accuracy:.4f}"
            )
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
    return rows
