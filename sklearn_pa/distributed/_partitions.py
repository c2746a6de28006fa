"""Partitions: cut the data into blocks, convert and check each block where
it lives, and summarise it (rows, features, labels, the intercept's scale)."""

import sys

import numpy as np
import scipy.sparse as sp

from .._core.batch import check_rows, sum_of_squares


def _to_float_block(X):
    """A partition's features as float64 C-ordered dense or canonical CSR."""
    if hasattr(X, "iloc"):  # a pandas partition of a dask dataframe
        X = X.to_numpy()
    return check_rows(None, X, reset=True, ensure_min_samples=0)


def _to_target_block(y):
    if y is None:
        return None
    if hasattr(y, "to_numpy"):
        y = y.to_numpy()
    y = np.asarray(y)
    if y.ndim == 2 and y.shape[1] == 1:
        y = y.ravel()
    if y.ndim != 1:
        raise ValueError(
            f"y has shape {y.shape}: parameter mixing takes a 1-D y (multilabel "
            "indicator matrices are not supported; train one binary model per "
            "label or use one machine)."
        )
    return y


def _prepare_partition(X, y, index):
    """Convert and check one partition (on the worker that holds it): the
    float64 rows and the 1-D targets, before the classes are known."""
    try:
        X = _to_float_block(cut_rows(X))
        y = _to_target_block(y)
    except ValueError as exc:
        raise ValueError(f"Partition {index}: {exc}") from exc
    if y is not None and y.shape[0] != X.shape[0]:
        raise ValueError(
            f"Partition {index}: X has {X.shape[0]} rows but y has {y.shape[0]}; "
            "chunk X and y along the same row boundaries."
        )
    return X, y


def _summarize_partition(part, index, classifier, unlabeled_marker):
    """Rows, features, labels and the statistics of the intercept's scale."""
    X, y = part
    data = X.data if sp.issparse(X) else X.reshape(-1)
    summary = {
        "n_rows": X.shape[0],
        "n_features": X.shape[1],
        "nnz": int(np.count_nonzero(data)),
        "sumsq": sum_of_squares(data) if data.size else 0.0,
        # (max, -min): no temporary array of absolute values
        "max_abs": max(float(data.max()), -float(data.min())) if data.size else 0.0,
        "labels": None,
    }
    scale = summary["max_abs"]
    summary["sumsq_scaled"] = 0.0
    if data.size and scale > 0 and not 1e-100 < scale < 1e100:
        # the squares would overflow or underflow: sum them scaled
        scaled = data / scale
        summary["sumsq_scaled"] = sum_of_squares(scaled)
    if y is not None and classifier:
        labels = np.unique(y)
        if unlabeled_marker is not None and unlabeled_marker is not False:
            labels = labels[labels != unlabeled_marker]
        summary["labels"] = labels
    elif y is not None:
        try:
            y_float = np.asarray(y, dtype=np.float64)
        except (TypeError, ValueError) as exc:
            raise ValueError(
                f"Partition {index}: y must be numeric for a regressor."
            ) from exc
        if not np.all(np.isfinite(y_float)):
            raise ValueError(
                f"Partition {index}: y contains NaN or infinity; drop or impute "
                "those rows before training."
            )
    return summary


def _typical_value(summaries):
    """``typical_feature_value`` of the whole data from the partitions' sums
    (the same arithmetic as on one machine when the values are moderate)."""
    nnz = sum(s["nnz"] for s in summaries)
    if nnz == 0:
        return 1.0
    scale = max(s["max_abs"] for s in summaries)
    if 1e-100 < scale < 1e100:
        return float(np.sqrt(sum(s["sumsq"] for s in summaries) / nnz))
    total = 0.0
    for s in summaries:
        if s["max_abs"] == 0:
            continue
        if 1e-100 < s["max_abs"] < 1e100:
            total += s["sumsq"] / scale / scale
        else:
            total += s["sumsq_scaled"] * (s["max_abs"] / scale) ** 2
    return float(scale * np.sqrt(total / nnz))


def _blocks_of_dask_array(X, y, index_name="X"):
    import dask.array as da

    if X.ndim != 2:
        raise ValueError(f"{index_name} must be 2-D; got {X.ndim} dimensions.")
    if len(X.chunks[1]) > 1:
        X = X.rechunk({1: -1})
    x_blocks = list(X.to_delayed()[:, 0])
    if y is None:
        return x_blocks, [None] * len(x_blocks)
    if isinstance(y, da.Array):
        unknown = np.isnan(X.chunks[0]).any() or np.isnan(y.chunks[0]).any()
        if not unknown:
            y = y.rechunk((X.chunks[0],) + tuple((-1,) for _ in y.shape[1:]))
        elif y.numblocks[0] != X.numblocks[0]:
            raise ValueError(
                f"X has {X.numblocks[0]} row blocks but y has {y.numblocks[0]}, "
                "and their sizes are unknown (blocks read from files): make X "
                "and y from the same blocks."
            )
        elif len(y.chunks) > 1 and len(y.chunks[1]) > 1:
            y = y.rechunk({1: -1})
        # blocks of unknown sizes are matched block by block; each partition
        # checks that its X and y have the same rows
        y_blocks = list(y.to_delayed().reshape(-1))
    else:
        y = np.asarray(y)
        bounds = np.cumsum((0, *X.chunks[0]))
        y_blocks = [y[bounds[i] : bounds[i + 1]] for i in range(len(x_blocks))]
    if len(y_blocks) != len(x_blocks):
        raise ValueError(
            f"X has {len(x_blocks)} row blocks but y has {len(y_blocks)}; "
            "chunk them alike."
        )
    return x_blocks, y_blocks


class RowRange:
    """Rows ``start:stop`` of a CSR matrix ``X``, cut where the partition
    is prepared (:func:`_prepare_partition`): in its own thread for the
    threaded mode, on the driver before a block is sent to a worker, so
    that the driver does no work per row before the partitions start."""

    __slots__ = ("X", "start", "stop")

    def __init__(self, X, start, stop):
        self.X, self.start, self.stop = X, start, stop

    def block(self):
        """The rows as a CSR matrix (:func:`_row_block`)."""
        return _row_block(self.X, self.start, self.stop)


def cut_rows(block):
    """``block`` as a matrix: a :class:`RowRange` cut, anything else as
    it is."""
    return block.block() if isinstance(block, RowRange) else block


def _row_block(X, start, stop):
    """Rows ``start:stop`` of a dense array or a CSR matrix, as views of its
    arrays (the index pointers shifted: a new array of ``stop - start + 1``
    entries).  The CSR arrays are set on an empty matrix of the block's
    shape: scipy's constructor copies the values of a block smaller than
    half of the matrix (``prune``), and a slice copies and checks every
    block.  Whether the block is canonical is found when first asked, on
    its own indices."""
    if not sp.issparse(X):
        return X[start:stop]
    first, last = X.indptr[start], X.indptr[stop]
    block = sp.csr_matrix((stop - start, X.shape[1]), dtype=X.dtype)
    block.data, block.indices = X.data[first:last], X.indices[first:last]
    block.indptr = X.indptr[start : stop + 1] - first
    return block


def _split_rows(X, y, n_partitions):
    n = X.shape[0]
    if n_partitions > n:
        raise ValueError(
            f"Cannot split {n} rows into n_partitions={n_partitions} partitions."
        )
    bounds = np.linspace(0, n, n_partitions + 1).astype(int)
    if sp.issparse(X):
        X = X.tocsr()
        x_blocks = [RowRange(X, bounds[i], bounds[i + 1]) for i in range(n_partitions)]
    else:  # (a view)
        x_blocks = [X[bounds[i] : bounds[i + 1]] for i in range(n_partitions)]
    if y is None:
        return x_blocks, [None] * n_partitions
    y = np.asarray(y)
    if y.shape[0] != n:
        raise ValueError(f"X has {n} rows but y has {y.shape[0]}.")
    return x_blocks, [y[bounds[i] : bounds[i + 1]] for i in range(n_partitions)]


def _blocks(X, y, n_partitions, n_workers):
    """(x_blocks, y_blocks, feature_names): delayed objects for dask
    collections, in-memory slices for a plain array."""
    # a dask collection means dask is imported already: no import (seconds)
    # for the plain arrays of the threaded mode
    da = sys.modules.get("dask.array")
    dd = sys.modules.get("dask.dataframe")
    feature_names = None
    if dd is not None and isinstance(X, dd.DataFrame):
        columns = np.asarray(X.columns, dtype=object)
        if all(isinstance(c, str) for c in columns):
            feature_names = columns
        x_blocks = list(X.to_delayed())
        if y is None:
            return x_blocks, [None] * len(x_blocks), feature_names
        if isinstance(y, dd.Series | dd.DataFrame):
            if y.npartitions != X.npartitions:
                raise ValueError(
                    f"X has {X.npartitions} partitions but y has {y.npartitions}; "
                    "split them alike (e.g. y = df[target], X = df[features])."
                )
            y_blocks = list(y.to_delayed())
        else:
            raise TypeError(
                "With a dask DataFrame X, y must be a dask Series with the same "
                "partitions (for instance a column of the same frame)."
            )
        return x_blocks, y_blocks, feature_names
    if da is not None and isinstance(X, da.Array):
        x_blocks, y_blocks = _blocks_of_dask_array(X, y)
        return x_blocks, y_blocks, None
    if hasattr(X, "columns") and hasattr(X, "iloc"):
        columns = np.asarray(X.columns, dtype=object)
        if all(isinstance(c, str) for c in columns):
            feature_names = columns
        X = X.to_numpy()
    if not sp.issparse(X):
        X = np.asarray(X)
    if y is not None and hasattr(y, "to_numpy"):
        y = y.to_numpy()
    if n_partitions is None:
        n_partitions = n_workers
    x_blocks, y_blocks = _split_rows(X, y, int(n_partitions))
    return x_blocks, y_blocks, feature_names
