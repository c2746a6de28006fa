"""Checks of a batch, of a learned state and of a split, made before any
weight changes.

Every estimator validates a whole batch, and every learned array the next
kernel call reads or writes, before a kernel runs, so that bad input never
corrupts a model: this module holds the checks they share (the learned
arrays, the sample counter ``t_``, ``warm_start`` shapes, initial weights
and their scores, the intercept's constant feature, sample weights,
canonical CSR input, the early-stopping split) and :func:`atomic_update`,
which puts an estimator back as it was when anything in a block raises.
Each check raises a ``ValueError`` that says what to do, in scikit-learn's
style.
"""

from numbers import Number, Real

import numpy as np
import scipy.sparse as sp
from sklearn.base import is_classifier
from sklearn.model_selection import ShuffleSplit, StratifiedShuffleSplit
from sklearn.utils.extmath import safe_sparse_dot
from sklearn.utils.validation import (
    check_array,
    check_is_fitted,
    validate_data,
)

from .._compiled._scores import value_range
from ..utils._atomic import (
    JOURNAL,
    AtomicBlock,
    estimator_lock,
    locked_read,
)
from . import _calls
from ._calls import (
    KERNEL_DTYPES,
    Batch,
    check_batch,
    check_weights_read,
    lean_rows,
    touched_rows,
)

__all__ = [
    "Batch",
    "ReadsUnderLockMixin",
    "MAX_SAMPLE_COUNT",
    "Journal",
    "atomic_update",
    "call_values",
    "canonical_csr",
    "KERNEL_DTYPES",
    "check_batch",
    "check_batch_sample_weight",
    "check_csr_structure",
    "check_rows",
    "check_initial_scores",
    "check_intercept_scaling",
    "check_sample_count",
    "check_training_scores",
    "check_state_array",
    "fitted_rows",
    "check_validation_split",
    "check_warm_start_classes",
    "check_warm_start_shape",
    "check_weights_read",
    "current_journal",
    "estimator_lock",
    "initial_weights",
    "lean_rows",
    "locked_read",
    "sum_of_squares",
    "sum_of_squares_f64",
    "touched_rows",
    "typical_feature_value",
    "validation_split",
    "weighs_nothing",
]

# Largest sample count a parameter may name (``average``, ``budget``): the
# sample counter ``t_`` is a float64, exact up to 2**53.
MAX_SAMPLE_COUNT = 2**53


class atomic_update(AtomicBlock):  # (lower case: used as a function)
    """Leave ``estimator`` exactly as it was if the block raises.

    Validation only ever assigns attributes, so restoring the attribute
    dictionary restores the fitted state from any error raised before a
    kernel call.  The kernels update the learned arrays in place: before a
    ``partial_fit`` pass the epoch driver asks the family's adapter to save
    the entries that pass may write (the rows of the features the batch
    touches, the intercepts, ...) in the block's :class:`Journal`
    (:func:`current_journal`), and a failed block writes them back.  So an
    exception raised after a kernel pass (a warning turned into an error, an
    overflow, ``KeyboardInterrupt``) restores the model too, at a cost
    proportional to the rows of the batch, never to the model.  A random
    generator is saved in the journal right before the package first draws
    from it in the block (:meth:`Journal.save_generator`: the epoch's
    shuffle, the copies' draws of a Bayes point machine), and a
    ``random_state`` parameter holding a generator right away (scikit-learn's
    splitters draw from it), so that an error raised after a draw leaves the
    generator as it was.

    The block holds the estimator's lock (:func:`estimator_lock`): calls
    from several threads on one estimator run one after the other, so that
    no update is lost.  The lock is taken and given back in compiled code
    (:mod:`sklearn_pa.utils._atomic`), so that an interrupt
    (``KeyboardInterrupt``) at any point of a call never leaves it held.
    """

    __slots__ = ()


class ReadsUnderLockMixin:
    """scikit-learn's test of a fitted estimator and the pickled state,
    read under the estimator's lock (:func:`estimator_lock`), so that a
    call of another thread never changes the attributes while they are
    scanned or copied."""

    def __sklearn_is_fitted__(self):
        """Whether the estimator holds a learned attribute (scikit-learn's
        own test), scanned holding its lock."""
        with estimator_lock(self):
            return any(
                name.endswith("_") and not name.startswith("__") for name in vars(self)
            )

    def __getstate__(self):
        """The pickled state: a copy of the attributes taken holding the
        lock (scikit-learn's is the live dictionary, which pickling then
        scans)."""
        with estimator_lock(self):
            return dict(super().__getstate__())


class Journal(_calls.Journal):
    """The journal of an :func:`atomic_update` block: the pre-images of the
    learned entries a ``partial_fit`` pass may write, to write back if the
    call fails, and the call's own values (``call``).  The compiled
    :class:`sklearn_pa._core._calls.Journal` does the work; this class is
    the one the blocks make (its methods may be wrapped, as a test spies
    on :meth:`save`)."""

    __slots__ = ()


#: (the journal each block keeps)
atomic_update.journal_type = Journal


def call_values():
    """The values of the call in progress in this thread (the ``call``
    dictionary of the innermost :func:`atomic_update` block's
    :class:`Journal`): what one step of a call hands to a later step of the
    same call, such as the variances progressive validation asks the pass
    to record, never kept in the estimator's attributes (a failed or
    interrupted call leaves none behind, and threads never share them).
    Outside a block, a new empty dictionary (nothing is kept)."""
    journal = JOURNAL.get()
    return {} if journal is None else journal.call


def current_journal():
    """The :class:`Journal` of the innermost :func:`atomic_update` block of
    this thread, or None outside one."""
    return JOURNAL.get()


def fitted_rows(estimator, X, *, dtype=np.float64, order=None, attributes=None):
    """``X`` validated for the scores of a fitted ``estimator``:
    ``NotFittedError`` unless it is fitted (``attributes`` as
    ``check_is_fitted`` takes them), then :func:`check_rows` against the
    fitted features, as ``dtype`` C-ordered dense or canonical CSR
    (``order`` is accepted for the callers' sake: the rows are always
    C-ordered)."""
    check_is_fitted(estimator, attributes)
    if isinstance(dtype, str):  # ("numeric": the rows are read as float64)
        dtype = np.float64
    return check_rows(estimator, X, reset=False, dtype=dtype)


def check_state_array(estimator, name, value, shape, *, dtype=np.float64, order="C"):
    """A learned array the next kernel call reads or writes, checked against
    the model's dimensions before any of it is used.

    ``value`` is what the estimator holds as ``name`` (``coef_``, ``center_``,
    ... possibly assigned by the user); ``shape`` is the shape the model's
    dimensions (``n_features_in_``, the number of classes, ...) require
    (axes of length one aside: a 1-D array also stands for a ``(1, n)``
    one).  Returns a writeable array of ``dtype`` and ``shape``, contiguous
    in ``order`` ("F" for a transposed view of a C-contiguous kernel array,
    as ``coef_`` is), a copy unless ``value`` is one already.  Raises
    ``ValueError``, saying what is expected, when the shape, the type or the
    finiteness of ``value`` is wrong, so that a kernel never reads or writes
    outside an array.
    """
    shape = tuple(int(n) for n in shape)
    owner = type(estimator).__name__
    if sp.issparse(value):
        value = value.toarray()
    if np.iscomplexobj(value):
        raise ValueError(f"{name} of {owner} must be real; got a complex array.")
    try:
        array = np.asarray(value, dtype=dtype)
    except (TypeError, ValueError) as exc:
        raise ValueError(
            f"{name} of {owner} must be an array of numbers of shape {shape}; "
            f"got {type(value).__name__}."
        ) from exc
    # a (1, n) array also stands for an (n,) one and the reverse (sparsify()
    # makes a 1-D coef_ a one-row matrix)
    if array.shape != shape and not (
        {array.ndim, len(shape)} == {1, 2}
        and array.size == int(np.prod(shape))
        and (
            array.ndim == 1 and shape[0] == 1 or array.ndim == 2 and array.shape[0] == 1
        )
    ):
        raise ValueError(
            f"{name} of {owner} has shape {array.shape}, but the model needs "
            f"{shape} ({getattr(estimator, 'n_features_in_', '?')} features"
            f"{_classes_phrase(estimator)}). Assign an array of that shape, or "
            "refit with fit to learn a model of another size."
        )
    if array.shape != shape:
        array = array.reshape(shape)
    if array.dtype.kind == "f" and not np.all(np.isfinite(array)):
        raise ValueError(
            f"{name} of {owner} contains NaN or infinity; assign finite values "
            "or refit with fit."
        )
    contiguous = array.flags.c_contiguous if order == "C" else array.flags.f_contiguous
    if not (contiguous and array.flags.writeable):
        array = np.array(array, dtype=dtype, order=order, copy=True)
    return array


def check_sample_count(estimator):
    """``estimator.t_`` (samples seen plus one) as an int, refused unless it
    is a whole number >= 1."""
    t = estimator.t_
    if type(t) is float and 1.0 <= t <= MAX_SAMPLE_COUNT and t == int(t):
        return int(t)  # (the counter as the estimator keeps it)
    if not (
        isinstance(t, Real)
        and np.isfinite(t)
        and 1 <= t <= MAX_SAMPLE_COUNT
        and float(t) == int(t)
    ):
        raise ValueError(
            f"t_ of {type(estimator).__name__} must be the number of samples "
            f"seen plus one, a whole number in [1, 2**53]; got {t!r}. Refit "
            "with fit."
        )
    return int(t)


def _classes_phrase(estimator):
    classes = getattr(estimator, "classes_", None)
    if classes is None:
        return ""
    return f", {len(classes)} classes"


def check_warm_start_shape(estimator, name, shape, expected):
    """Refuse ``warm_start`` from a model of another size, as scikit-learn
    does, instead of silently starting over."""
    if tuple(shape) != tuple(expected):
        raise ValueError(
            f"Provided {name} does not match dataset: the model holds {name} of "
            f"shape {tuple(shape)}, this data needs {tuple(expected)}. Set "
            "warm_start=False to start over on data of another shape."
        )


def check_csr_structure(X, n_features=None):
    """Refuse a sparse matrix whose structure would send a reader outside
    its arrays; return ``X`` unchanged.

    A CSR matrix built with ``check=False`` (or whose arrays were assigned)
    is not checked by scipy, and its products, conversions and the compiled
    kernels trust it: an index out of range or an ``indptr`` past the end of
    ``data`` reads or writes outside the arrays.  Checked here, vectorised,
    in O(nnz + n_rows) of ``X`` alone: ``indptr`` has ``n_rows + 1`` entries,
    starts at 0, never decreases and ends at the length of ``data`` and
    ``indices``; every index lies in ``[0, n_features)`` (``X.shape[1]`` by
    default).  A CSC matrix is checked as the CSR matrix of its transpose
    and a COO matrix by the ranges of its rows and columns; dense input and
    other formats are returned at the cost of one type test.  Raises
    ``ValueError`` saying what is wrong and how to build a valid matrix.
    """
    if not sp.issparse(X):
        return X
    fmt = X.format
    if fmt == "csr":
        n_rows = X.shape[0]
        if n_features is None:
            n_features = X.shape[1]
        problem = _compressed_problem(X.indptr, X.indices, X.data, n_rows, n_features)
    elif fmt == "csc":
        problem = _compressed_problem(
            X.indptr, X.indices, X.data, X.shape[1], X.shape[0], ("column", "row")
        )
    elif fmt == "coo":
        problem = _coo_problem(X)
    else:
        return X
    if problem is not None:
        raise ValueError(
            f"X is not a valid {fmt.upper()} matrix: {problem}. Build it with "
            f"scipy.sparse.{fmt}_matrix((data, indices, indptr), shape=...) "
            "without check=False, or call X.check_format() to find the fault."
        )
    return X


def _compressed_problem(indptr, indices, data, n_rows, n_cols, names=("row", "column")):
    """What is wrong with the arrays of a compressed matrix of ``n_rows``
    major and ``n_cols`` minor entries, or None."""
    row, column = names
    for name, array in (("indptr", indptr), ("indices", indices)):
        if array.ndim != 1 or array.dtype.kind not in "iu":
            return f"{name} must be a 1-D array of integers, not {array.dtype}"
    if data.ndim != 1:
        return "data must be a 1-D array"
    if indptr.shape[0] != n_rows + 1:
        return (
            f"indptr has {indptr.shape[0]} entries, but {n_rows} {row}s need "
            f"{n_rows + 1}"
        )
    nnz = data.shape[0]
    first, last = int(indptr[0]), int(indptr[-1])
    if first != 0 or last != nnz or indices.shape[0] != nnz:
        return (
            f"indptr runs from {first} to {last}, but it must run from 0 to the "
            f"length of data ({nnz}) and of indices ({indices.shape[0]})"
        )
    if n_rows > 1:
        steps = np.diff(indptr)
        if np.any(steps < 0):
            bad = int(np.flatnonzero(steps < 0)[0])
            return f"indptr decreases at {row} {bad}"
    if nnz:
        # one pass: a negative index is a huge one read as unsigned
        unsigned = indices.view(_UNSIGNED[indices.dtype.itemsize])
        if int(unsigned.max()) >= n_cols:
            bad = indices[(indices < 0) | (indices >= n_cols)][0]
            return f"a {column} index ({bad}) lies outside [0, {n_cols})"
    return None


_UNSIGNED = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}


def _coo_problem(X):
    """What is wrong with the coordinates of a COO matrix, or None."""
    coords = getattr(X, "coords", None) or (X.row, X.col)
    n = X.data.shape[0]
    for axis, (name, index) in enumerate(zip(("row", "column"), coords)):
        if index.ndim != 1 or index.shape[0] != n or index.dtype.kind not in "iu":
            return f"the {name} indices must be 1-D integers, one per entry of data"
        if n and (index.min() < 0 or index.max() >= X.shape[axis]):
            return f"a {name} index lies outside [0, {X.shape[axis]})"
    return None


def check_warm_start_classes(estimator, previous):
    """Refuse ``warm_start`` from a model of other classes (``previous``,
    the ``classes_`` before this fit; None for an unfitted model or a
    regressor): its weights belong to other labels."""
    current = getattr(estimator, "classes_", None)
    if previous is None or current is None:
        return
    if not np.array_equal(np.asarray(previous), np.asarray(current)):
        raise ValueError(
            f"Provided classes_ does not match dataset: the model has classes "
            f"{np.asarray(previous).tolist()!r}, y has "
            f"{np.asarray(current).tolist()!r}. Set warm_start=False to start "
            "over with other classes."
        )


def canonical_csr(X):
    """``X`` with duplicate CSR entries summed, on a copy (dense and canonical
    input are returned as they are).  Float32 entries are summed in float64,
    as on the float64 conversion of the matrix (the copy is then float64).

    Duplicate entries add up, as in scipy; summing them first makes each
    feature appear once in a row's squared norm and in the kernels' updates
    (``sum_duplicates`` also sorts the indices).  Entries that are finite
    alone but sum to infinity are refused.
    """
    if sp.issparse(X) and not X.has_canonical_format:
        X = X.astype(np.float64) if X.dtype == np.float32 else X.copy()
        with np.errstate(over="ignore", invalid="ignore"):
            X.sum_duplicates()
        if not np.all(np.isfinite(X.data)):
            raise ValueError(
                "X contains duplicate entries (the same row and column given "
                "twice) whose sum is infinity or NaN; sum them yourself in a "
                "scale that does not overflow (StandardScaler, MaxAbsScaler), "
                "or call X.sum_duplicates() and check the result."
            )
    return X


_CSR_TYPES = (sp.csr_matrix, sp.csr_array)


#: ``y`` not given to :func:`check_rows`
_NO_Y = object()


def check_rows(estimator, X, y=_NO_Y, *, reset, dtype=np.float64, **kwargs):
    """The one check of a batch's rows, whatever reads them: ``fit``,
    ``partial_fit``, the scoring methods, every family, the partitions of
    parameter mixing.

    Returns ``X`` (or ``(X, y)`` when ``y`` is given) as the kernels read
    it: C-ordered dense or canonical CSR (duplicate entries summed once,
    here, so that every target kind and every family learns and scores the
    same rows), of a dtype of ``dtype``, finite, with the fitted number of
    features (and names) unless ``reset``.  The first branch is the cheap
    one: rows of a fitted estimator that are already in the kernels' form
    (:func:`lean_rows`) are taken in O(their size), with no copy; any other
    input goes through the structure check of a sparse matrix
    (:func:`check_csr_structure`), scikit-learn's validation
    (``validate_data``, or ``check_array`` for ``estimator=None``) and
    :func:`canonical_csr`, which give the errors they always gave.

    Parameters
    ----------
    estimator : estimator instance or None
        The estimator the rows are for (``n_features_in_`` and
        ``feature_names_in_`` are set with ``reset``, checked otherwise);
        None for rows of no estimator (a partition).
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
        The rows.
    y : array-like, optional
        The targets, validated with the rows when given.
    reset : bool
        Whether the rows set the estimator's features (``fit``, a first
        ``partial_fit``) rather than being checked against them.
    dtype : dtype or list of dtypes, default=np.float64
        The dtypes the rows may keep, the first one the dtype anything else
        is converted to.
    **kwargs : dict
        Further keywords of scikit-learn's validation (``y_numeric``,
        ``multi_output``, ``ensure_min_samples``, ...).

    Returns
    -------
    X : ndarray or scipy.sparse.csr_matrix
        The checked rows.
    y : ndarray
        The checked targets, when ``y`` is given.
    """
    if y is _NO_Y and not reset and not kwargs and estimator is not None:
        values = estimator.__dict__
        n_features = values.get("n_features_in_")
        if n_features is not None and "feature_names_in_" not in values:
            dtypes = tuple(dtype) if isinstance(dtype, (list, tuple)) else (dtype,)
            lean = lean_rows(X, n_features, tuple(map(np.dtype, dtypes)))
            if lean is not None:
                return lean
    check_csr_structure(X)
    options = dict(accept_sparse="csr", dtype=dtype, order="C", **kwargs)
    if estimator is None:
        return canonical_csr(check_array(X, **options))
    if y is _NO_Y:
        return canonical_csr(validate_data(estimator, X, reset=reset, **options))
    X, y = validate_data(estimator, X, y, reset=reset, **options)
    return canonical_csr(X), y


def check_batch_sample_weight(
    sample_weight, X, role="it multiplies C for each sample", *, all_zero=False
):
    """Per-sample weights of a batch as float64, refused (before any update)
    unless finite and non-negative; ``role`` says what a weight does.  All
    zero weights are refused (as scikit-learn does) unless ``all_zero``
    (a later ``partial_fit`` batch, then a no-op: :func:`weighs_nothing`).

    The checks and messages are those of scikit-learn's private
    ``_check_sample_weight`` of 1.9, written here on its public
    ``check_array``: that function changes between the versions the package
    supports (1.7 and 1.8 have no ``allow_all_zero_weights``, and accept
    all-zero weights)."""
    n_samples = X.shape[0]
    if sample_weight is None:
        sample_weight = np.ones(n_samples)
    elif isinstance(sample_weight, Number):
        sample_weight = np.full(n_samples, sample_weight, dtype=np.float64)
    else:
        sample_weight = check_array(
            sample_weight,
            accept_sparse=False,
            ensure_2d=False,
            dtype=np.float64,
            order="C",
            input_name="sample_weight",
        )
        if sample_weight.ndim != 1:
            raise ValueError(
                "Sample weights must be 1D array or scalar, got "
                f"{sample_weight.ndim}D array. Expected either a scalar value "
                f"or a 1D array of length {n_samples}."
            )
        if sample_weight.shape != (n_samples,):
            raise ValueError(
                f"sample_weight.shape == {sample_weight.shape}, expected "
                f"{(n_samples,)}!"
            )
    if not all_zero and np.all(sample_weight == 0):
        raise ValueError("Sample weights must contain at least one non-zero number.")
    if not np.all(np.isfinite(sample_weight)) or np.any(sample_weight < 0):
        raise ValueError(f"sample_weight must be finite and non-negative; {role}.")
    return sample_weight


def weighs_nothing(sample_weight, given=True):
    """Whether a validated batch's ``sample_weight`` (``given``: passed by
    the caller) is all zeros on at least one row: the batch is then a no-op
    on every path (scikit-learn refuses it in ``fit``; a stream gets such
    batches when it weighs its rows)."""
    return given and sample_weight.shape[0] > 0 and not sample_weight.any()


def typical_feature_value(X):
    """Root mean square of the non-zero entries of X (1.0 when there are none):
    the ``intercept_scaling="auto"`` constant, so that the intercept's feature
    is as large as a typical feature of the data."""
    data = X.data if sp.issparse(X) else np.asarray(X).reshape(-1)
    if data.dtype == np.float64:
        # the count and the extremes in one compiled pass (max |x| without
        # an |data| copy: three passes were a noticeable part of a fit's
        # set-up on large sparse data)
        n_nonzero, largest, smallest = value_range(np.ascontiguousarray(data))
    else:
        n_nonzero = np.count_nonzero(data)
        largest = smallest = 0.0
        if n_nonzero:
            largest, smallest = np.max(data), np.min(data)
    if n_nonzero == 0:
        return 1.0
    scale = max(float(largest), -float(smallest))
    if data.dtype == np.float32:
        # squares summed in float64, as on the float64 conversion of X (a
        # float32 |x| is below 1e39, its square finite in float64)
        return float(np.sqrt(sum_of_squares_f64(data) / n_nonzero))
    if 1e-100 < scale < 1e100:  # the squares neither overflow nor underflow
        return float(np.sqrt(sum_of_squares(data) / n_nonzero))
    return float(scale * np.sqrt(sum_of_squares(data / scale) / n_nonzero))


def sum_of_squares(a):
    """``sum(a ** 2)`` of a 1-D array without BLAS.

    ``np.dot`` would run OpenBLAS's threads, which then spin for a while
    beside the single-threaded epochs that follow a fit's set-up; where two
    cores share their execution units that slowed a fit on 20 Newsgroups by
    a sixth.  ``einsum`` sums in one thread, without a temporary array."""
    return float(np.einsum("i,i->", a, a))


def sum_of_squares_f64(a):
    """:func:`sum_of_squares` of a float32 array in float64: the sum of the
    float64 conversion of ``a``, to the last bit, from einsum's buffered
    casts (no float64 copy of ``a``)."""
    return float(np.einsum("i,i->", a, a, dtype=np.float64))


def initial_weights(n_features, n_columns, coef_init, intercept_init, *, coef_shape):
    """New state arrays ``(W, b)``, feature-major: ``W`` of shape
    ``(n_features, n_columns)`` and ``b`` of shape ``(n_columns,)``.

    Zeros, or ``coef_init`` (``(n_columns, n_features)``, or any array of
    that many entries with at most two axes, such as a regressor's
    ``(n_features,)``) and ``intercept_init`` (``(n_columns,)``), refused
    unless their shape fits and their entries are finite.  ``coef_shape``
    is the shape of the estimator's ``coef_``, named in the error message.
    """
    W = np.zeros((n_features, n_columns), dtype=np.float64)
    b = np.zeros(n_columns, dtype=np.float64)
    if coef_init is not None:
        coef_init = np.asarray(coef_init, dtype=np.float64)
        expected = (n_columns, n_features)
        if (
            coef_init.size != n_columns * n_features
            or (coef_init.ndim == 2 and coef_init.shape != expected)
            or coef_init.ndim > 2
        ):
            raise ValueError(
                f"coef_init has shape {coef_init.shape}; expected {coef_shape}."
            )
        if not np.all(np.isfinite(coef_init)):
            raise ValueError("coef_init contains NaN or infinity.")
        W[:] = coef_init.reshape(expected).T
    if intercept_init is not None:
        intercept_init = np.atleast_1d(np.asarray(intercept_init, dtype=np.float64))
        if intercept_init.shape != (n_columns,):
            raise ValueError(
                f"intercept_init has shape {intercept_init.shape}; expected "
                f"({n_columns},)."
            )
        if not np.all(np.isfinite(intercept_init)):
            raise ValueError("intercept_init contains NaN or infinity.")
        b[:] = intercept_init
    return W, b


def check_initial_scores(X, W, b):
    """Refuse ``coef_init`` / ``intercept_init`` whose decision values on
    the training data are not finite (finite but huge entries such as
    1e308 overflow in ``w . x``): the model would start, and stay,
    non-finite.  ``W`` is feature-major, ``(n_features, n_columns)``."""
    # float32 rows: a block at a time, so that the product's float64
    # conversion of X is at most a block
    step = X.shape[0] if X.dtype != np.float32 else 4096
    finite = True
    with np.errstate(over="ignore", invalid="ignore"):
        for start in range(0, X.shape[0], max(step, 1)):
            block = X if step >= X.shape[0] else X[start : start + step]
            scores = safe_sparse_dot(block, W) + b
            finite = finite and bool(np.all(np.isfinite(scores)))
    if not finite:
        raise ValueError(
            "coef_init and intercept_init give non-finite decision values "
            "on X (their products with the samples overflow); pass smaller "
            "initial weights or scale the input (StandardScaler, "
            "MaxAbsScaler)."
        )


def check_training_scores(scores):
    """Refuse a fitted model whose decision values on (a sample of) its
    training data are not finite: its weights grew until the products
    overflow (huge sample weights), where ``partial_fit`` refuses the batch
    that overflows them."""
    if not np.all(np.isfinite(scores)):
        raise ValueError(
            "The fitted model's decision values on its training data are not "
            "finite: its weights grew until their products with the samples "
            "overflow. Use smaller sample weights, or scale the input "
            "(StandardScaler, MaxAbsScaler)."
        )


def check_intercept_scaling(estimator, value, n_features):
    """Refuse an intercept constant ``value`` (the ``intercept_scaling_``
    about to be set) whose square would not stay finite when the kernel adds
    it to the squared norm of a row of ``n_features`` entries as large."""
    if estimator.fit_intercept and not (
        0.0 < value and value * value * (n_features + 1) < np.finfo(np.float64).max
    ):
        raise ValueError(
            f"The intercept's constant feature would be {value:g} "
            f"(intercept_scaling={estimator.intercept_scaling!r}); its square must "
            "be a finite positive number. Scale the input (StandardScaler, "
            "MaxAbsScaler) or pass a moderate intercept_scaling."
        )


def validation_split(estimator, y, sample_weight):
    """(train_idx, val_idx) of a ``fit`` with ``early_stopping``: a
    ``validation_fraction`` held out (stratified for a classifier, seeded
    by ``random_state``); (all rows, None) without early stopping."""
    n_samples = y.shape[0]
    if not estimator.early_stopping:
        return np.arange(n_samples), None
    splitter = StratifiedShuffleSplit if is_classifier(estimator) else ShuffleSplit
    cv = splitter(
        test_size=estimator.validation_fraction, random_state=estimator.random_state
    )
    idx_train, idx_val = next(cv.split(np.zeros((n_samples, 1)), y))
    return check_validation_split(estimator, idx_train, idx_val, sample_weight)


def check_validation_split(estimator, idx_train, idx_val, sample_weight):
    """Refuse an early-stopping split with an empty side or a validation
    set of zero weight; returns ``(idx_train, idx_val)``."""
    if idx_train.shape[0] == 0 or idx_val.shape[0] == 0:
        raise ValueError(
            f"Splitting {idx_train.shape[0] + idx_val.shape[0]} samples with "
            f"validation_fraction={estimator.validation_fraction!r} leaves an "
            "empty training or validation set; change validation_fraction, add "
            "samples, or set early_stopping=False."
        )
    if idx_val.shape[0] < 2 and not is_classifier(estimator):
        raise ValueError(
            f"Splitting {idx_train.shape[0] + idx_val.shape[0]} samples with "
            f"validation_fraction={estimator.validation_fraction!r} leaves "
            f"{idx_val.shape[0]} validation sample, where the validation "
            "score (R^2) is not defined; it needs at least 2. Raise "
            "validation_fraction, add samples, or set early_stopping=False."
        )
    if not np.any(sample_weight[idx_val]):
        raise ValueError(
            "The sample weights of the validation set are all zero; use a "
            "different random_state."
        )
    return idx_train, idx_val
