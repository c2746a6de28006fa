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

import argparse
import functools
import time

import numpy as np
import scipy.sparse as sp

N_FEATURES = 2**18
NOISE = 0.05
TEST_ROWS = 100_000
DEFAULT_ESTIMATORS = ("PA-I", "AROW")


@functools.lru_cache(maxsize=2)
def _hyperplane(n_features):
    """The hidden weights: frequent features (small indices) weigh more, as
    in hashed text."""
    w = np.random.RandomState(12345).randn(n_features)
    return w / np.sqrt(1.0 + np.arange(n_features) / 64.0)


def make_stream_block(seed, n_rows, n_features=N_FEATURES, nnz=20):
    """One block of the synthetic stream: (CSR X, y in {0, 1}).

    Feature ``j`` is drawn with probability about ``1 / (j + 1)`` (a
    log-uniform index, like word frequencies), with value ``+-1/sqrt(nnz)``;
    the label is the side of the hidden hyperplane, flipped with
    probability 5%."""
    rng = np.random.RandomState(seed)
    log_index = rng.uniform(0.0, np.log(n_features), size=(n_rows, nnz))
    indices = np.minimum(np.exp(log_index).astype(np.int64) - 1, n_features - 1)
    indices.sort(axis=1)
    data = rng.choice((-1.0, 1.0), size=(n_rows, nnz)) / np.sqrt(nnz)
    indptr = np.arange(0, n_rows * nnz + 1, nnz, dtype=np.int64)
    X = sp.csr_matrix(
        (data.reshape(-1), indices.reshape(-1), indptr), shape=(n_rows, n_features)
    )
    X.sum_duplicates()
    y = (X @ _hyperplane(n_features) > 0).astype(np.int64)
    flip = rng.random_sample(n_rows) < NOISE
    y[flip] = 1 - y[flip]
    return X, y


def _block_bounds(n_rows, n_blocks):
    return np.linspace(0, n_rows, n_blocks + 1).astype(int)


def dask_stream(n_rows, n_blocks, nnz, seed=0, client=None):
    """The stream as dask arrays whose blocks are generated where computed.

    With a client, block ``i`` is generated and persisted on the ``i``-th
    worker (round-robin over the sorted addresses, the placement
    ``fit_parameter_mixing`` uses), as data read by the workers would be."""
    import dask
    import dask.array as da

    addresses = sorted(client.scheduler_info()["workers"]) if client else []
    bounds = _block_bounds(n_rows, n_blocks)
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


def run(
    n_rows,
    workers,
    estimators,
    epochs,
    nnz,
    scheduler=None,
    random_state=0,
    log=print,
):
    """Rows of the comparison: one per (estimator, setting)."""
    from distributed import Client, LocalCluster, futures_of, wait

    from .benchmark import ESTIMATORS
    from .distributed import fit_parameter_mixing

    X_test, y_test = make_stream_block(10**6, TEST_ROWS, N_FEATURES, nnz)
    rows = []
    tic = time.perf_counter()
    # the serial reference: the same rows (the workers' blocks), one process
    blocks = [
        make_stream_block(random_state + 1 + i, int(b - a), N_FEATURES, nnz)
        for i, (a, b) in enumerate(
            zip(
                _block_bounds(n_rows, workers)[:-1],
                _block_bounds(n_rows, workers)[1:],
            )
        )
    ]
    X = sp.vstack([b[0] for b in blocks], format="csr")
    y = np.concatenate([b[1] for b in blocks])
    del blocks
    log(
        f"generated {X.shape[0]} x {X.shape[1]} serially in "
        f"{time.perf_counter() - tic:.1f} s ({X.nnz / X.shape[0]:.1f} nnz/row)"
    )
    for name in estimators:
        est = ESTIMATORS[name](epochs, random_state)
        tic = time.perf_counter()
        est.fit(X, y)
        elapsed = time.perf_counter() - tic
        rows.append((name, "serial fit", 1, elapsed, est.score(X_test, y_test)))
        log(f"{name}: serial fit {elapsed:.1f} s, accuracy {rows[-1][4]:.4f}")
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
        for name in estimators:
            est = ESTIMATORS[name](epochs, random_state)
            tic = time.perf_counter()
            model = fit_parameter_mixing(est, Xd, yd, n_epochs=epochs, client=client)
            elapsed = time.perf_counter() - tic
            accuracy = model.score(X_test, y_test)
            rows.append((name, "parameter mixing", workers, elapsed, accuracy))
            log(
                f"{name}: parameter mixing on {workers} workers {elapsed:.1f} s, "
                f"accuracy {accuracy:.4f}"
            )
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
    return rows


def format_rows(rows, n_rows, epochs, nnz):
    head = (
        f"stream-2m: {n_rows} x {N_FEATURES} sparse rows ({nnz} non-zeros), "
        f"{epochs} epochs, accuracy on {TEST_ROWS} held-out rows"
    )
    lines = [head, f"{'estimator':<10} {'training':<18} {'workers':>7} "
             f"{'wall time (s)':>13} {'accuracy':>9}"]  # fmt: skip
    for name, how, workers, elapsed, accuracy in rows:
        lines.append(
            f"{name:<10} {how:<18} {workers:>7} {elapsed:>13.1f} {accuracy:>9.4f}"
        )
    return "\n".join(lines)


def main(argv=None):
    """Command line of ``--dataset stream-2m``.

    Parameters
    ----------
    argv : list of str, default=None
        Arguments without the program name.

    Returns
    -------
    status : int
        0 on success.
    """
    parser = argparse.ArgumentParser(
        prog="python -m sklearn_pa.benchmark --dataset stream-2m",
        description=(
            "Parameter mixing on a Dask cluster against the serial fit, on a "
            "synthetic sparse stream (needs the dask extra)."
        ),
    )
    parser.add_argument("--dataset", choices=("stream-2m",), default="stream-2m")
    parser.add_argument("--rows", type=int, default=2_000_000)
    parser.add_argument("--nnz", type=int, default=20)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument(
        "--estimators", nargs="+", metavar="NAME", default=list(DEFAULT_ESTIMATORS)
    )
    parser.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        default=None,
        help="address of a running Dask scheduler (default: a LocalCluster)",
    )
    parser.add_argument("--random-state", type=int, default=0)
    args = parser.parse_args(argv)
    from .benchmark import ESTIMATORS

    unknown = [n for n in args.estimators if n not in ESTIMATORS]
    if unknown:
        parser.error(
            f"unknown estimators {unknown}; see python -m sklearn_pa.benchmark -h"
        )
    if args.rows < args.workers or args.workers < 1 or args.epochs < 1:
        parser.error("--rows must be at least --workers, which must be positive")
    try:
        import distributed  # noqa: F401
    except ImportError:
        parser.error(
            'this benchmark needs the dask extra: pip install "sklearn_pa[dask]"'
        )
    rows = run(
        args.rows,
        args.workers,
        args.estimators,
        args.epochs,
        args.nnz,
        scheduler=args.scheduler,
        random_state=args.random_state,
        log=lambda message: print(message, flush=True),
    )
    print(format_rows(rows, args.rows, args.epochs, args.nnz), flush=True)
    return 0
