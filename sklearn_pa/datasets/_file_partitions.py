"""Data files as dask arrays whose blocks are read where they are computed.

Each block of the arrays is one file, or one byte range of a plain
(uncompressed) file: the block owns the lines that start in its range, so
that the ranges together hold every line once.  Nothing is read when the
arrays are made (except the CSV header and, for ``zero_based="auto"``, a
scan of the svmlight files for an index 0); with
:func:`~sklearn_pa.distributed.fit_parameter_mixing` on a Dask cluster each
block is read on the worker that keeps it, and on threads in this process
otherwise.  The row counts of the blocks are unknown until they are read
(``nan`` chunks).
"""

import glob
import io
import numbers
import os

import numpy as np
import scipy.sparse as sp

from ._files import (
    _BLOCK,
    _OPENERS,
    _batches,
    _check_n_features,
    _check_zero_based,
    _csv_spec,
    _CsvParser,
    _open_binary,
    _read_header,
    _scan_zero_based,
    _SvmlightParser,
)

__all__ = ["read_csv_partitions", "read_svmlight_partitions"]

_ROWS_PER_PARSE = 100_000


def _paths(paths):
    """The files: a path, a glob pattern or a list of them, in order."""
    if isinstance(paths, str | os.PathLike):
        paths = [paths]
    found = []
    for p in paths:
        p = os.fspath(p)
        if glob.has_magic(p):
            matched = sorted(glob.glob(p))
            if not matched:
                raise FileNotFoundError(f"No file matches the pattern {p!r}.")
            found += matched
        elif not os.path.isfile(p):
            raise FileNotFoundError(f"No such file: {p!r}.")
        else:
            found.append(p)
    if not found:
        raise ValueError("paths names no file.")
    return found


def _ranges(paths, n_partitions):
    """``(path, start, stop)`` of every block: one per file with
    ``n_partitions=None``; else each plain file cut into byte ranges, about
    ``n_partitions`` in all (a compressed file is one block)."""
    if n_partitions is None:
        return [(p, 0, None) for p in paths]
    if not isinstance(n_partitions, numbers.Integral) or n_partitions < 1:
        raise ValueError(
            f"n_partitions must be a positive integer or None; got {n_partitions!r}."
        )
    sizes = {p: os.path.getsize(p) for p in paths}
    plain = [p for p in paths if os.path.splitext(p)[1].lower() not in _OPENERS]
    total = sum(sizes[p] for p in plain) or 1
    ranges = []
    for p in paths:
        if p not in plain or sizes[p] == 0:
            ranges.append((p, 0, None))
            continue
        k = (
            n_partitions
            if len(paths) == 1
            else max(1, round(n_partitions * sizes[p] / total))
        )
        bounds = np.linspace(0, sizes[p], k + 1).astype(np.int64)
        ranges += [(p, int(a), int(b)) for a, b in zip(bounds[:-1], bounds[1:])]
    return ranges


def _read_range(path, start, stop, skip_header):
    """The bytes of the lines that start in ``[start, stop)`` (the whole file
    when ``stop`` is None) and the offset of the first of them."""
    with _open_binary(path) as (handle, _):
        if stop is None:
            if skip_header:
                handle.readline()
            offset = handle.tell() if skip_header else 0
            return handle.read(), offset
        if start > 0:
            # the line under way at ``start`` belongs to the block before
            handle.seek(start - 1)
            handle.readline()
        elif skip_header:
            handle.readline()
        offset = handle.tell()
        data = handle.read(max(stop - offset, 0))
        if data and not data.endswith(b"\n"):
            data += handle.readline()
        return data, offset


def _first_line(path, offset):
    """The number of the line at byte ``offset`` of ``path``."""
    count = 0
    with _open_binary(path) as (handle, _):
        while offset > 0:
            block = handle.read(min(_BLOCK, offset))
            if not block:
                break
            count += block.count(b"\n")
            offset -= len(block)
    return count + 1


def _read_block(path, start, stop, parse, skip_header, empty):
    """One block of the arrays, read where it is computed: (X, y)."""
    data, offset = _read_range(path, start, stop, skip_header)
    batches = list(
        _batches(
            io.BytesIO(data),
            path,
            parse,
            _ROWS_PER_PARSE,
            first_line=lambda: _first_line(path, offset),
        )
    )
    del data
    if not batches:
        return empty()
    if len(batches) == 1:
        return batches[0]
    Xs, ys = zip(*batches)
    X = sp.vstack(Xs, format="csr") if sp.issparse(Xs[0]) else np.vstack(Xs)
    y = None if ys[0] is None else np.concatenate(ys)
    return X, y


def _arrays(ranges, read, n_features, x_meta, y_meta):
    """Dask arrays over the blocks ``read(path, start, stop)``; ``y`` is None
    when ``y_meta`` is."""
    import dask
    import dask.array as da

    xs, ys = [], []
    for path, start, stop in ranges:
        # not pure: a file read again is read again (it may have changed)
        block = dask.delayed(read, nout=2, pure=False)(path, start, stop)
        xs.append(
            da.from_delayed(
                block[0], (np.nan, n_features), dtype=x_meta.dtype, meta=x_meta
            )
        )
        if y_meta is not None:
            ys.append(
                da.from_delayed(block[1], (np.nan,), dtype=y_meta.dtype, meta=y_meta)
            )
    X = da.concatenate(xs)
    return X, (da.concatenate(ys) if ys else None)


class _SvmlightBlock:
    """Reads one block of svmlight files (a picklable callable); ``auto``:
    ``zero_based`` was decided from ``"auto"``."""

    def __init__(self, n_features, dtype, zero_based, auto=False):
        self.n_features, self.dtype, self.zero_based = n_features, dtype, zero_based
        self.auto = auto

    def _empty(self):
        X = sp.csr_matrix((0, self.n_features), dtype=self.dtype)
        return X, np.empty(0)

    def __call__(self, path, start, stop):
        parse = _SvmlightParser(
            self.n_features, self.dtype, self.zero_based, auto=self.auto
        )
        return _read_block(path, start, stop, parse, False, self._empty)


def _decide_zero_based(paths):
    """``zero_based="auto"`` for the files ``paths`` as scikit-learn's
    ``load_svmlight_files`` decides it: one-based only where every file
    holds a feature index and none is 0."""
    for path in paths:
        with _open_binary(path) as (handle, _):
            if _scan_zero_based(handle) is True:
                return True
    return False


def read_svmlight_partitions(
    paths,
    n_features,
    *,
    n_partitions=None,
    dtype=np.float64,
    zero_based="auto",
):
    """svmlight / LIBSVM files as dask arrays, one block per file or byte range.

    The blocks are read where they are computed: with
    :func:`~sklearn_pa.distributed.fit_parameter_mixing` on a Dask cluster,
    each on the worker that keeps it as a partition, so that the driver
    never holds the data.

    Parameters
    ----------
    paths : str, os.PathLike, or list of them
        The files, or glob patterns (``"data/part-*.svm"``).  Files ending
        in ``.gz``, ``.bz2`` or ``.xz`` are decompressed (one block each).
    n_features : int
        Number of features of the data (the largest feature index plus one,
        in zero-based terms).
    n_partitions : int, default=None
        ``None``: one block per file.  An integer: the plain files are cut
        into byte ranges, about ``n_partitions`` blocks in all, each file
        into a share proportional to its size (a block holds the lines that
        start in its range).
    dtype : numpy dtype, default=np.float64
        Dtype of ``X``'s values.
    zero_based : bool or "auto", default="auto"
        Whether the feature indices start at 0 (``True``) or at 1
        (``False``).  ``"auto"`` is decided here, the same for every block,
        as :func:`~sklearn.datasets.load_svmlight_files` decides it:
        one-based unless an index of a file is 0 (or, as there, a file
        holds no feature index at all).  The files are scanned when the
        arrays are made, a fast pass over their bytes; pass ``zero_based``
        to skip it.

    Returns
    -------
    X : dask array of shape (n_samples, n_features)
        Blocks of CSR matrices; their numbers of rows are unknown (``nan``)
        until read.
    y : dask array of shape (n_samples,)
        The targets, in blocks of the same rows (float64).

    Raises
    ------
    FileNotFoundError
        For a path or pattern that names no file.
    ValueError
        When a block is read, for a line that does not parse: the message
        names the file and the line number.

    See Also
    --------
    iter_svmlight_file : The same files in batches, in this process.
    read_csv_partitions : The same for CSV files.

    Examples
    --------
    >>> import os, tempfile
    >>> from sklearn_pa import PassiveAggressiveClassifier
    >>> from sklearn_pa.datasets import read_svmlight_partitions
    >>> from sklearn_pa.distributed import fit_parameter_mixing
    >>> path = os.path.join(tempfile.mkdtemp(), "train.svm")
    >>> with open(path, "w") as f:
    ...     _ = f.write("1 1:1.0 2:0.5\\n-1 2:1.0 3:1.0\\n" * 50)
    >>> X, y = read_svmlight_partitions(path, n_features=3, n_partitions=2)
    >>> X.numblocks
    (2, 1)
    >>> model = fit_parameter_mixing(
    ...     PassiveAggressiveClassifier(random_state=0), X, y, n_epochs=2,
    ...     n_jobs=2)
    >>> model.n_features_in_
    3
    """
    n_features = _check_n_features(n_features)
    zero_based = _check_zero_based(zero_based)
    paths = _paths(paths)
    auto = zero_based == "auto"
    if auto:
        zero_based = _decide_zero_based(paths)
    read = _SvmlightBlock(n_features, dtype, zero_based, auto)
    x_meta = sp.csr_matrix((0, n_features), dtype=dtype)
    return _arrays(_ranges(paths, n_partitions), read, n_features, x_meta, np.empty(0))


class _CsvBlock:
    """Reads one block of CSV files (a picklable callable)."""

    def __init__(self, spec, header):
        self.spec, self.header = spec, header

    def _empty(self):
        s = self.spec
        X = np.empty((0, s["n_features"]), dtype=s["dtype"])
        if s["text"]:
            X = sp.csr_matrix(X)
        y = None if s["target"] is None else np.empty(0, dtype=_y_dtype(s))
        return X, y

    def __call__(self, path, start, stop):
        parse = _CsvParser(self.spec)
        X, y = _read_block(path, start, stop, parse, self.header, self._empty)
        if y is not None:
            y = y.astype(_y_dtype(self.spec), copy=False)
        return X, y


def _y_dtype(spec):
    """The dtype of the target blocks: ``target_dtype``, except that
    strings (of a length no block can know before the others are read) are
    held as objects."""
    dtype = np.dtype(spec["target_dtype"])
    return np.dtype(object) if dtype.kind in "USO" else dtype


def read_csv_partitions(
    paths,
    *,
    target_column,
    text_columns=None,
    hasher=None,
    header=True,
    delimiter=",",
    n_partitions=None,
    dtype=np.float64,
    target_dtype=np.float64,
    encoding="utf-8",
):
    """CSV files as dask arrays, one block per file or byte range.

    The blocks are read where they are computed (see
    :func:`read_svmlight_partitions`); the columns are those of
    :func:`iter_csv_file`, named by the first file's header.

    Parameters
    ----------
    paths : str, os.PathLike, or list of them
        The files, or glob patterns.  Every file has the same columns (and,
        with ``header=True``, its own header line).  Files ending in
        ``.gz``, ``.bz2`` or ``.xz`` are decompressed (one block each).
    target_column : str, int or None
        As in :func:`iter_csv_file`; ``None``: no ``y``.
    text_columns : list of str or int, default=None
        As in :func:`iter_csv_file`.
    hasher : HashingVectorizer or FeatureHasher, default=None
        As in :func:`iter_csv_file`.
    header : bool, default=True
        Whether the first line of every file names the columns.
    delimiter : str, default=","
        The field separator.
    n_partitions : int, default=None
        As in :func:`read_svmlight_partitions`.
    dtype : numpy dtype, default=np.float64
        Dtype of ``X``.
    target_dtype : dtype, default=np.float64
        Dtype of ``y``; string targets (``str``, ``bytes``) come as an
        array of dtype object holding them whole (a block cannot know the
        length of the other blocks' strings).
    encoding : str, default="utf-8"
        Encoding of the files.

    Returns
    -------
    X : dask array of shape (n_samples, n_features)
        Dense blocks, or CSR blocks when there are text columns; their
        numbers of rows are unknown (``nan``) until read.
    y : dask array of shape (n_samples,) or None
        The targets, in blocks of the same rows.

    See Also
    --------
    iter_csv_file : The same files in batches, in this process.

    Examples
    --------
    >>> import os, tempfile
    >>> from sklearn_pa.datasets import read_csv_partitions
    >>> path = os.path.join(tempfile.mkdtemp(), "train.csv")
    >>> with open(path, "w") as f:
    ...     _ = f.write("a,b,label\\n" + "1.0,0.5,1\\n-1.0,2.0,0\\n" * 50)
    >>> X, y = read_csv_partitions(path, target_column="label", n_partitions=2)
    >>> X.numblocks, X.compute().shape
    ((2, 1), (100, 2))
    """
    paths = _paths(paths)
    options = {
        "delimiter": delimiter,
        "dtype": dtype,
        "target_dtype": target_dtype,
        "encoding": encoding,
    }
    with _open_binary(paths[0]) as (handle, name):
        names, _, _ = _read_header(handle, header, options, name)
    if names is None:
        raise ValueError(f"{paths[0]} is empty: its first line must name the columns.")
    spec = _csv_spec(names, target_column, text_columns, hasher, options)
    read = _CsvBlock(spec, header)
    x_meta = np.empty((0, spec["n_features"]), dtype=dtype)
    if spec["text"]:
        x_meta = sp.csr_matrix(x_meta)
    y_meta = None if spec["target"] is None else np.empty(0, dtype=_y_dtype(spec))
    ranges = _ranges(paths, n_partitions)
    return _arrays(ranges, read, spec["n_features"], x_meta, y_meta)
