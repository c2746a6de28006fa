"""``python -m sklearn_pa.benchmark --dataset 20newsgroups-dtype`` and
``--dataset stream-4m-dtype``: fit time and peak memory of float32 input
against float64 input.

The first-order kernel (PA, MIRA, the gradient regressors), the second-order
one (CW, AROW, SCW) and the scoring of ``predict`` read float32 rows as they
are, each value converted to a double as it is read: the model is the one
learned from the float64 conversion of ``X``, without that conversion's copy.
This protocol measures what that saves.  For each estimator and each dtype it
fits a clone twice on the same rows, converted to the dtype beforehand (the
conversion is not measured): once timed, once with :mod:`tracemalloc`
tracing (numpy reports its buffers to it), whose peak above the memory held
before the call is the fit's peak memory, ``X`` itself not counted (as the
stream-memory protocol counts a ``partial_fit`` call's).  A third setting,
``float32->float64``, converts the float32 rows to float64 inside the
measured call: what a fit on float32 rows cost before the kernels read them
(and still costs for the kernels that read float64 rows only).  It also
reports the bytes of ``X`` in each dtype, the accuracy on the test rows and
the largest difference between each model's ``coef_`` and the one learned
from the float64 rows (float32 rows round the values: close, not equal).

The data: 20 Newsgroups' training and test subsets (CSR, 130107 features),
or ``--rows`` rows (4,000,000 by default) of the hashed binary stream of
``stream-2m`` (``2**18`` features, ``--nnz`` non-zeros per row, labels from
a hidden hyperplane with 5% flipped), made in this process, with 100,000
held-out rows.
"""

import gc
import time
import tracemalloc

import numpy as np
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.metrics import accuracy_score

from ._common import build_estimators, check_estimator_names
from ._data import N_FEATURES, TEST_ROWS, block_bounds, make_stream_block
from ._progress import Progress

__all__ = ["fit_cost", "run_input_dtype", "stream_rows"]

#: The settings compared, the reference first: the input dtype, and whether
#: the fit converts float32 rows to float64 first (what every kernel did
#: before it read float32 rows, and what the kernels that read float64 rows
#: only still do: the conversion is timed and traced with the fit).
DTYPES = ("float64", "float32", "float32->float64")

#: Rows of the stream generated per block (bounds the generator's memory).
_BLOCK_ROWS = 500_000


def stream_rows(n_rows, nnz=20, random_state=0):
    """``(X, y)``: ``n_rows`` rows of the ``stream-2m`` generator, made in
    blocks of at most 500,000 rows (block ``i`` from seed
    ``random_state + 1 + i``), stacked into one CSR matrix."""
    n_blocks = max(1, -(-n_rows // _BLOCK_ROWS))
    bounds = block_bounds(n_rows, n_blocks)
    blocks = [
        make_stream_block(random_state + 1 + i, int(b - a), N_FEATURES, nnz)
        for i, (a, b) in enumerate(zip(bounds[:-1], bounds[1:]))
    ]
    X = sp.vstack([b[0] for b in blocks], format="csr")
    y = np.concatenate([b[1] for b in blocks])
    return X, y


def _nbytes(X):
    if sp.issparse(X):
        return X.data.nbytes + X.indices.nbytes + X.indptr.nbytes
    return X.nbytes


def fit_cost(estimator, X, y, convert=False):
    """``(seconds, peak bytes, fitted)`` of ``fit`` on ``X``, ``y``.

    A clone is fitted twice: timed without tracing, then with
    :mod:`tracemalloc` tracing, whose peak above the memory held before the
    call is returned (what the fit allocates beyond ``X``: validation
    copies, the model, the kernel's buffers).  With ``convert``, ``X`` is
    converted to float64 inside the measured call.  Returns the traced
    fit's estimator."""

    def fit(est):
        est.fit(X.astype(np.float64) if convert else X, y)

    gc.collect()
    est = clone(estimator)
    tic = time.perf_counter()
    fit(est)
    seconds = time.perf_counter() - tic
    del est
    gc.collect()
    est = clone(estimator)
    was_tracing = tracemalloc.is_tracing()
    if not was_tracing:
        tracemalloc.start()
    try:
        before, _ = tracemalloc.get_traced_memory()
        tracemalloc.reset_peak()
        fit(est)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        if not was_tracing:
            tracemalloc.stop()
    return seconds, peak - before, est


def run_input_dtype(
    data,
    names,
    *,
    epochs=3,
    random_state=0,
    params=None,
    verbose=False,
):
    """Rows of the comparison: one per (estimator, dtype).

    Parameters
    ----------
    data : Bunch
        ``name``, the training rows ``X``, ``y`` and the test rows
        ``X_test``, ``y_test`` (from
        :func:`~sklearn_pa.benchmark.load_dataset`, or the stream's).
    names : list of str
        Registry names of classifiers.
    epochs : int, default=3
        Passes over the training rows.
    random_state : int, default=0
        Seed of the estimators.
    params : dict, default=None
        Hyper-parameters set on every estimator.
    verbose : bool or int, default=False
        As in :func:`~sklearn_pa.benchmark.run_benchmark`.

    Returns
    -------
    rows : list of dict
        ``task`` (``"input-dtype"``), ``dataset``, ``estimator``, ``dtype``
        (a setting of :data:`DTYPES`), ``n_samples``, ``n_features``,
        ``nnz``, ``epochs``, ``x_mib`` (the bytes of ``X`` in that dtype),
        ``fit_time`` (s), ``peak_mib`` (the fit's peak traced memory beyond
        ``X``), ``accuracy`` on the test
        rows and ``coef_diff`` (the largest absolute difference from the
        float64 model's ``coef_``).
    """
    check_estimator_names(names, "classification")
    estimators = build_estimators(names, epochs, random_state, params)
    progress = Progress(len(names) * len(DTYPES), verbose=verbose)
    X, y = data.X, data.y
    progress.log(
        f"{data.name}: {X.shape[0]} x {X.shape[1]} "
        f"({'CSR' if sp.issparse(X) else 'dense'}), {epochs} epochs"
    )
    rows = []
    for setting in DTYPES:
        dtype = setting.split("->")[0]
        Xd = X.astype(dtype) if X.dtype != dtype else X
        X_test = data.X_test.astype(dtype)
        for name in names:
            seconds, peak, est = fit_cost(estimators[name], Xd, y, "->" in setting)
            reference = next(
                (r["_coef"] for r in rows if r["estimator"] == name), est.coef_
            )
            rows.append(
                {
                    "task": "input-dtype",
                    "dataset": data.name,
                    "estimator": name,
                    "dtype": setting,
                    "n_samples": X.shape[0],
                    "n_features": X.shape[1],
                    "nnz": int(X.nnz) if sp.issparse(X) else int(np.prod(X.shape)),
                    "epochs": epochs,
                    "x_mib": _nbytes(Xd) / 2**20,
                    "fit_time": seconds,
                    "peak_mib": peak / 2**20,
                    "accuracy": float(accuracy_score(data.y_test, est.predict(X_test))),
                    "coef_diff": float(np.max(np.abs(est.coef_ - reference))),
                    "_coef": est.coef_,
                }
            )
            progress.step(f"{name} {setting}")
            progress.log(
                f"{name} {setting}: fit {seconds:.2f} s, peak "
                f"{peak / 2**20:.1f} MiB beyond X ({_nbytes(Xd) / 2**20:.0f} MiB)"
            )
            del est
        del Xd, X_test
    for row in rows:
        del row["_coef"]
    return rows


def load_stream(n_rows, nnz=20, random_state=0):
    """The ``stream-4m-dtype`` data: ``n_rows`` training rows and 100,000
    held-out rows of the ``stream-2m`` generator, as a Bunch."""
    from sklearn.utils import Bunch

    X, y = stream_rows(n_rows, nnz, random_state)
    X_test, y_test = make_stream_block(10**6, TEST_ROWS, N_FEATURES, nnz)
    return Bunch(name="stream-4m-dtype", X=X, y=y, X_test=X_test, y_test=y_test)


def input_dtype_title(rows):
    """The table's title."""
    first = rows[0]
    return (
        f"{first['dataset']}: {first['n_samples']:,} x {first['n_features']:,} "
        f"({first['nnz']:,} non-zeros), {first['epochs']} epoch(s); fit time "
        "and peak traced memory of fit beyond X, float32 against float64 input"
    )


def input_dtype_cells(rows):
    """Header and body of the text table."""
    header = [
        "estimator",
        "dtype",
        "X (MiB)",
        "fit (s)",
        "peak beyond X (MiB)",
        "accuracy",
        "max abs(coef - coef64)",
    ]
    body = [
        [
            row["estimator"],
            row["dtype"],
            f"{row['x_mib']:.0f}",
            f"{row['fit_time']:.2f}",
            f"{row['peak_mib']:.1f}",
            f"{row['accuracy']:.4f}",
            f"{row['coef_diff']:.3g}",
        ]
        for row in rows
    ]
    return header, body
