"""The online-linear base: parameters, fit/partial_fit, epochs, averaging.

Python owns the bookkeeping (validation, classes, shuffling, stopping, the swap
to averaged weights); one call into a compiled kernel runs one epoch.  The
weights live feature-major, ``W[n_features, n_columns]``; ``coef_`` is the
transposed view, in scikit-learn's shape.
"""

import warnings
from contextlib import contextmanager
from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from joblib import Parallel, delayed, effective_n_jobs
from sklearn.base import BaseEstimator, is_classifier
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import ShuffleSplit, StratifiedShuffleSplit
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.extmath import safe_sparse_dot
from sklearn.utils.validation import (
    _check_sample_weight,
    check_is_fitted,
    validate_data,
)

from ._engine import (
    CONVERGENCE_MESSAGE,
    EpochAdapter,
    EpochStats,
    run_epochs,
    validation_scorer,
)
from ._kernels import _first_order
from ._kernels._rules import Rule
from ._state import LinearState
from ._targets import (
    BinaryTargets,
    is_indicator_matrix,
    single_label_targets,
)

__all__ = ["BaseOnlineLinear", "OnlineLinearClassifierMixin", "atomic_update"]

# Largest sample count a parameter may name (``average``, ``budget``): the
# sample counter ``t_`` is a float64, exact up to 2**53.
MAX_SAMPLE_COUNT = 2**53


@contextmanager
def atomic_update(estimator):
    """Leave ``estimator`` exactly as it was if the block raises.

    Validation only ever assigns attributes, and the kernels run after every
    check has passed, so restoring the attribute dictionary restores the
    fitted state from any error raised before a kernel call.  The state of
    every random generator in it is saved too (a few kilobytes), so that an
    error raised after an epoch's shuffle leaves the generator as it was.

    The kernels update the learned arrays in place, and a warning the epoch
    loop issues after a kernel call (rows skipped for overflow, no
    convergence) is an exception when the warnings filter says so (``-W
    error``, pytest's ``filterwarnings = error``).  When it does, a copy of
    every writeable array is taken too, and written back into the same
    arrays on the way out of a failed block (views such as ``coef_`` stay
    views).  Otherwise no copy is made: a stream of ``partial_fit`` calls on
    a large model pays nothing for it.
    """
    saved = dict(estimator.__dict__)
    arrays = []
    if _package_warnings_raise(estimator):
        arrays = [
            (value, value.copy())
            for value in saved.values()
            if isinstance(value, np.ndarray) and value.flags.writeable
        ]
    generators = [
        (value, _generator_state(value))
        for value in saved.values()
        if isinstance(value, (np.random.RandomState, np.random.Generator))
    ]
    try:
        yield
    except BaseException:
        for array, content in arrays:
            array[...] = content
        for generator, state in generators:
            _set_generator_state(generator, state)
        estimator.__dict__.clear()
        estimator.__dict__.update(saved)
        raise


# The warnings an epoch loop may issue after a kernel has written into the
# learned arrays, as (category, a message of that kind).
_LATE_WARNINGS = (
    (
        RuntimeWarning,
        "1 rows were skipped at epoch 1 because their squared norm, scores or "
        "step overflowed; scale the input (StandardScaler, MaxAbsScaler).",
    ),
    (ConvergenceWarning, CONVERGENCE_MESSAGE),
)


def _package_warnings_raise(estimator):
    """Whether the current warnings filter turns a warning of
    :data:`_LATE_WARNINGS`, issued from this module or the estimator's, into
    an exception.  Asked by issuing each one under ``catch_warnings`` with
    nothing shown and nothing recorded."""
    modules = {__name__, "sklearn_pa._engine", type(estimator).__module__}
    once = dict(warnings.onceregistry)
    try:
        with warnings.catch_warnings():
            warnings.showwarning = _show_nothing
            for category, message in _LATE_WARNINGS:
                for module in modules:
                    try:
                        warnings.warn_explicit(
                            message,
                            category,
                            filename=module.replace(".", "/") + ".py",
                            lineno=0,
                            module=module,
                            registry={},
                        )
                    except Warning:
                        return True
    finally:
        warnings.onceregistry.clear()
        warnings.onceregistry.update(once)
    return False


def _show_nothing(*args, **kwargs):
    pass


def _generator_state(generator):
    if isinstance(generator, np.random.RandomState):
        return generator.get_state(legacy=False)
    return generator.bit_generator.state


def _set_generator_state(generator, state):
    if isinstance(generator, np.random.RandomState):
        generator.set_state(state)
    else:
        generator.bit_generator.state = state


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
    if not (isinstance(t, Real) and np.isfinite(t) and t >= 1 and float(t) == int(t)):
        raise ValueError(
            f"t_ of {type(estimator).__name__} must be the number of samples "
            f"seen plus one, a whole number >= 1; got {t!r}. Refit with fit."
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


def canonical_csr(X):
    """``X`` with duplicate CSR entries summed, on a copy (dense and canonical
    input are returned as they are).

    Duplicate entries add up, as in scipy; summing them first makes each
    feature appear once in a row's squared norm and in the kernels' updates
    (``sum_duplicates`` also sorts the indices).
    """
    if sp.issparse(X) and not X.has_canonical_format:
        X = X.copy()
        X.sum_duplicates()
    return X


def check_batch_sample_weight(sample_weight, X, role="it multiplies C for each sample"):
    """Per-sample weights of a batch as float64, refused (before any update)
    unless finite and non-negative; ``role`` says what a weight does."""
    sample_weight = _check_sample_weight(sample_weight, X, dtype=np.float64)
    if not np.all(np.isfinite(sample_weight)) or np.any(sample_weight < 0):
        raise ValueError(f"sample_weight must be finite and non-negative; {role}.")
    return sample_weight


def typical_feature_value(X):
    """Root mean square of the non-zero entries of X (1.0 when there are none):
    the ``intercept_scaling="auto"`` constant, so that the intercept's feature
    is as large as a typical feature of the data."""
    data = X.data if sp.issparse(X) else np.asarray(X).reshape(-1)
    n_nonzero = np.count_nonzero(data)
    if n_nonzero == 0:
        return 1.0
    scale = float(np.max(np.abs(data)))
    if 1e-100 < scale < 1e100:  # the squares neither overflow nor underflow
        return float(np.sqrt(np.dot(data, data) / n_nonzero))
    scaled = data / scale
    return float(scale * np.sqrt(np.dot(scaled, scaled) / n_nonzero))


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


class _RowView:
    """The kernel's view of a validated float64 dense or CSR matrix."""

    __slots__ = ("data", "dense", "indices", "indptr", "n_features")

    def __init__(self, X):
        if sp.issparse(X):
            X = X.tocsr() if X.format != "csr" else X
            idx_dtype = np.int64 if X.indices.dtype == np.int64 else np.int32
            if X.indptr.dtype != X.indices.dtype:
                idx_dtype = np.int64
            self.data = np.ascontiguousarray(X.data, dtype=np.float64)
            self.indices = np.ascontiguousarray(X.indices, dtype=idx_dtype)
            self.indptr = np.ascontiguousarray(X.indptr, dtype=idx_dtype)
            self.dense = False
        else:
            n_features = X.shape[1]
            idx_dtype = np.int32 if n_features < np.iinfo(np.int32).max else np.int64
            self.data = np.ascontiguousarray(X, dtype=np.float64).reshape(-1)
            self.indices = np.arange(max(n_features, 1), dtype=idx_dtype)
            self.indptr = np.zeros(1, dtype=idx_dtype)
            self.dense = True
        self.n_features = X.shape[1]
        if self.data.shape[0] == 0:
            # the kernels take the address of element 0
            self.data = np.zeros(1)
            self.indices = np.zeros(1, dtype=self.indptr.dtype)


class _LinearEpochs(EpochAdapter):
    """The epoch adapter of the first-order linear learners (PA family,
    gradient regressors): one pass is one ``_kernel_epoch`` call, split over
    column blocks run in threads for one-vs-rest with ``n_jobs``.

    It updates ``W``, ``b`` (and the averaging accumulators ``U``, ``bu``)
    in place.  One-vs-rest columns stop on their own (``n_loss`` is the
    number of columns): a frozen column is ``active == 0`` for the kernel
    and remembers in ``t_stop`` the sample count at which it froze.
    """

    def __init__(self, estimator, X, y, sample_weight, W, b, U, bu, scores_out):
        est = self.estimator = estimator
        self.X, self.y, self.sample_weight = X, y, sample_weight
        self.W, self.b, self.U, self.bu = W, b, U, bu
        self.scores_out = scores_out
        self.rows = _RowView(X)
        self.labels, self.targets = est._targets(y)
        n_columns = self.n_columns = W.shape[1]
        self.weight_pos, self.weight_neg, self.margins = est._kernel_extras(n_columns)
        label_arrays = est._kernel_label_arrays(y)
        if scores_out is not None and U is not None:
            label_arrays = dict(label_arrays, score_average=True)
        self.label_arrays = label_arrays
        self.params = est._kernel_params()
        self.ovr = self.params["rule"] == Rule.OVR
        self.n_loss = n_columns if self.ovr else 1
        self.active = np.ones(n_columns, dtype=np.uint8)
        self.t_stop = np.full(n_columns, -1, dtype=np.int64)  # when a column froze
        self.intercept_sq = est.intercept_scaling_**2 if est.fit_intercept else 0.0
        self.avg_start = est._average_start() if U is not None else 0
        self.U_ = U if U is not None else np.zeros((0, n_columns))
        self.bu_ = bu if bu is not None else np.zeros(0)
        n_jobs = effective_n_jobs(getattr(est, "n_jobs", None)) if self.ovr else 1
        self.n_jobs = max(1, min(n_jobs, n_columns))
        self.t_end = 0

    def run(self, order, t):
        est = self.estimator
        loss = np.zeros(self.n_loss)
        n_columns, n_jobs = self.n_columns, self.n_jobs

        def run(c0, c1):
            return est._kernel_epoch(
                self.rows,
                order,
                self.W,
                self.b,
                self.U_,
                self.bu_,
                params=self.params,
                labels=self.labels,
                targets=self.targets,
                sample_weight=self.sample_weight,
                weight_pos=self.weight_pos,
                weight_neg=self.weight_neg,
                margins=self.margins,
                active=self.active,
                intercept_sq=self.intercept_sq,
                t0=int(t),
                average_start=int(self.avg_start),
                loss_out=loss,
                col_start=c0,
                col_stop=c1,
                scores_out=self.scores_out,
                **self.label_arrays,
            )

        if n_jobs > 1:
            bounds = np.linspace(0, n_columns, n_jobs + 1).astype(int)
            results = Parallel(n_jobs=n_jobs, prefer="threads")(
                delayed(run)(bounds[j], bounds[j + 1]) for j in range(n_jobs)
            )
            mistakes = -1
            n_updates = sum(r[1] for r in results)
            n_skipped = max(r[2] for r in results)
            overflow = any(r[3] for r in results)
        else:
            mistakes, n_updates, n_skipped, overflow = run(0, n_columns)
        self.t_end = int(t) + order.shape[0]
        return EpochStats(loss, int(n_updates), int(mistakes), int(n_skipped), overflow)

    def publish(self):
        est = self.estimator
        est.t_ = float(self.t_end) + 1.0
        est._publish(self.W, self.b, self.U, self.bu)

    def summary(self):
        W, b = self.W, self.b
        bias = (
            {"Bias": f"{float(b[0]):.6f}"}
            if b.size == 1
            else {"Bias norm": f"{np.linalg.norm(b):.6f}"}
        )
        return {
            "Norm": f"{np.linalg.norm(W):.2f}",
            "NNZs": int(np.count_nonzero(W)),
            **bias,
        }

    def freeze(self, columns):
        self.t_stop[columns & (self.active == 1)] = self.t_end
        self.active[columns] = 0
        return not self.active.any()

    def rescale_averages(self, t):
        """A one-vs-rest column that converged early is averaged over its own
        steps, as an independent binary model would be: rescale its lazy
        accumulator so that ``W - U / (t - start + 1)`` gives that average."""
        U, bu = self.U, self.bu
        if U is None:
            return
        t_stop, avg_start = self.t_stop, self.avg_start
        n_avg = t - avg_start + 1
        for k in np.flatnonzero((t_stop >= 0) & (t_stop < t)):
            n_avg_k = t_stop[k] - avg_start + 1
            if n_avg_k >= 1:
                U[:, k] *= n_avg / n_avg_k
                bu[k] *= n_avg / n_avg_k


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
    if not np.any(sample_weight[idx_val]):
        raise ValueError(
            "The sample weights of the validation set are all zero; use a "
            "different random_state."
        )
    return idx_train, idx_val


class BaseOnlineLinear(BaseEstimator):
    """Shared machinery of the first-order online linear estimators.

    Subclasses provide ``_rule()``, ``_slack()`` (or their own
    ``_kernel_params()``: the rule and its parameters, as the kernel reads
    them), ``_targets(y)`` and the estimator-specific parameters; this class
    runs the epochs.
    """

    _parameter_constraints: dict = {
        "C": [Interval(Real, 0, np.inf, closed="right")],
        "fit_intercept": ["boolean"],
        "intercept_scaling": [
            Interval(Real, 0, None, closed="neither"),
            StrOptions({"auto"}),
        ],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "tol": [Interval(Real, None, None, closed="neither"), None],
        "early_stopping": ["boolean"],
        "validation_fraction": [Interval(Real, 0, 1, closed="neither")],
        "n_iter_no_change": [Interval(Integral, 1, None, closed="left")],
        "shuffle": ["boolean"],
        "verbose": ["verbose"],
        "random_state": ["random_state"],
        "warm_start": ["boolean"],
        "average": [
            Interval(Integral, 0, MAX_SAMPLE_COUNT, closed="right"),
            "boolean",
        ],
    }

    def __getstate__(self):
        state = super().__getstate__()
        # coef_ is a view of this buffer: pickle the average once, as coef_
        state.pop("_average_coef_buffer", None)
        return state

    # ------------------------------------------------------------------ state
    def _state_arrays(self):
        """(W, b) the kernel updates in place: the standard (non-averaged)
        weights, feature-major.  Built from the public attributes, so a user
        who assigns ``coef_`` continues from it; whatever is assigned is
        checked against ``n_features_in_`` and the number of classes first
        (:func:`check_state_array`)."""
        n_features, n_columns = self.n_features_in_, self._n_columns()
        if self._averaging_state():
            names = ("coef_ (standard weights)", "intercept_ (standard)")
            coef, intercept = self._standard_coef, self._standard_intercept
        else:
            names = ("coef_", "intercept_")
            coef, intercept = self.coef_, self.intercept_
        coef = check_state_array(self, names[0], coef, self._coef_shape(), order="F")
        intercept = check_state_array(self, names[1], np.ravel(intercept), (n_columns,))
        W = coef.reshape(n_columns, n_features).T
        if not W.flags.c_contiguous:  # a (1, n) coef_ given as a 1-D one
            W = np.ascontiguousarray(W)
        return W, intercept

    def _coef_shape(self):
        """The shape of ``coef_``: (n_columns, n_features), or what the
        estimator makes of it (a regressor's ``(n_features,)``)."""
        shape = (self._n_columns(), self.n_features_in_)
        return self._shape_coef(np.empty(shape)).shape

    def _averaging_state(self):
        return getattr(self, "_average_accum", None) is not None

    def _average_start(self):
        return 1 if self.average is True else int(self.average)

    def _publish(self, W, b, U=None, bu=None):
        """Expose the kernel state as coef_ / intercept_ (averaged if asked)."""
        if U is None:
            self._average_coef_buffer = None
            self._average_accum = self._average_intercept_accum = None
            self._standard_coef = self._standard_intercept = None
            self.coef_ = self._shape_coef(W.T)
            self.intercept_ = b
            return
        self._average_accum, self._average_intercept_accum = U, bu
        self._standard_coef, self._standard_intercept = self._shape_coef(W.T), b
        n_avg = self.t_ - self._average_start()  # averaged steps so far
        if n_avg >= 1:
            # W - U / n_avg, written into the (D, K) array of the previous
            # average when there is one (a stream of partial_fit calls then
            # allocates nothing); coef_ is its transposed view, as in the
            # unaveraged case, where coef_ is a view of W
            avg = self.__dict__.get("_average_coef_buffer")
            if avg is None or avg.shape != W.shape:
                avg = np.empty_like(W)
            np.multiply(U, -1.0 / n_avg, out=avg)
            avg += W
            self._average_coef_buffer = avg
            self.coef_ = self._shape_coef(avg.T)
            self.intercept_ = b - bu / n_avg
        else:
            self.coef_ = self._shape_coef(W.copy().T)
            self.intercept_ = b.copy()

    def _shape_coef(self, coef):
        return coef

    # -------------------------------------------------------------- hooks
    def _rule(self):
        raise NotImplementedError

    def _slack(self):
        raise NotImplementedError

    def _n_columns(self):
        return 1

    def _kernel_extras(self, n_columns):
        """(weight_pos, weight_neg, margins) for the kernel."""
        one = np.ones(n_columns)
        return one, one, np.ones((1, 1))

    def _kernel_label_arrays(self, y):
        """Extra label arrays for the kernel (multilabel rows); none by default."""
        return {}

    def _score_for_stopping(self, X, y, sample_weight):
        return self.score(X, y, sample_weight=sample_weight)

    def _kernel_params(self):
        """The step rule and its parameters, as the kernel reads them: a dict
        with the keys of ``RuleParams`` (``_kernels/_rules.pxd``): ``rule``,
        ``slack``, ``C`` (the step bound), ``epsilon`` (the insensitive
        zone of the regression loss), ``margin`` (MIRA's beta),
        ``learning_rate`` (the gradient rules) and ``total_weight`` (EG+-).
        An estimator overrides this one method to state its own."""
        return {
            "rule": int(self._rule()),
            "slack": int(self._slack()),
            "C": float(self.C),
            "epsilon": 0.0,
            "margin": 0.0,
            "learning_rate": 0.0,
            "total_weight": 0.0,
        }

    def _kernel_epoch(self, rows, order, W, b, U, bu, **kwargs):
        """One compiled epoch: ``_first_order.epoch`` (the row view, the
        order, the state arrays, the rest by keyword).  Estimators whose
        update has another shape (the multiplicative rules) route it to
        their own kernel."""
        return _first_order.epoch(rows, order, W, b, U, bu, **kwargs)

    # ------------------------------------------------------------ fitting
    def _validate_batch(self, X, y, sample_weight, reset):
        X, y = validate_data(
            self,
            X,
            y,
            accept_sparse="csr",
            dtype=np.float64,
            order="C",
            reset=reset,
            y_numeric=not is_classifier(self),
            multi_output=False,
        )
        X = canonical_csr(X)
        sample_weight = check_batch_sample_weight(sample_weight, X)
        return X, y, sample_weight

    def _set_intercept_scaling(self, X):
        if self.intercept_scaling == "auto":
            value = typical_feature_value(X)
        else:
            value = float(self.intercept_scaling)
        # the kernel adds value**2 to every row's squared norm: it must stay
        # finite for a row of n_features entries as large as the constant
        if self.fit_intercept and not (
            0.0 < value and value * value * (X.shape[1] + 1) < np.finfo(np.float64).max
        ):
            raise ValueError(
                f"The intercept's constant feature would be {value:g} "
                f"(intercept_scaling={self.intercept_scaling!r}); its square must "
                "be a finite positive number. Scale the input (StandardScaler, "
                "MaxAbsScaler) or pass a moderate intercept_scaling."
            )
        self.intercept_scaling_ = value

    def _allocate(self, n_features, n_columns, coef_init, intercept_init):
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
                    f"coef_init has shape {coef_init.shape}; expected "
                    f"{self._shape_coef(np.empty(expected)).shape}."
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

    def _check_initial_scores(self, X, W, b):
        """Refuse ``coef_init`` / ``intercept_init`` whose decision values on
        the training data are not finite (finite but huge entries such as
        1e308 overflow in ``w . x``): the model would start, and stay,
        non-finite."""
        with np.errstate(over="ignore", invalid="ignore"):
            scores = safe_sparse_dot(X, W) + b
        if not np.all(np.isfinite(scores)):
            raise ValueError(
                "coef_init and intercept_init give non-finite decision values "
                "on X (their products with the samples overflow); pass smaller "
                "initial weights or scale the input (StandardScaler, "
                "MaxAbsScaler)."
            )

    def _validation_split(self, y, sample_weight):
        return validation_split(self, y, sample_weight)

    def _run(
        self,
        X,
        y,
        sample_weight,
        W,
        b,
        U,
        bu,
        *,
        max_iter,
        train_idx,
        val_idx,
        rng,
        stopping,
        t_start,
        scores_out=None,
    ):
        """Run up to ``max_iter`` epochs through the epoch driver
        (:func:`sklearn_pa._engine.run_epochs`); returns (n_iter, t_end).

        ``stopping`` is true in ``fit`` (the stopping rule applies) and false
        in ``partial_fit`` (one epoch).  ``scores_out`` (one epoch, no
        shuffling) receives each row's scores computed before the update on
        it: those of the averaged model when averaging (the model
        ``predict`` uses), else of the current iterate."""
        adapter = _LinearEpochs(self, X, y, sample_weight, W, b, U, bu, scores_out)
        validation = None
        if stopping and self.early_stopping:
            validation = validation_scorer(self, X, y, sample_weight, val_idx)
        run = run_epochs(
            self,
            adapter,
            train_idx=train_idx,
            max_iter=max_iter,
            rng=rng,
            shuffle=self.shuffle and scores_out is None,
            stopping=stopping,
            validation=validation,
            t_start=t_start,
            partial_fit=not stopping,
        )
        adapter.rescale_averages(run.t)
        return run.n_iter, run.t

    def _fit(self, X, y, coef_init, intercept_init, sample_weight):
        X, y, sample_weight = self._validate_batch(X, y, sample_weight, reset=True)
        self._prepare_targets(y, classes=None, first_call=True, fitting=True)
        n_columns = self._n_columns()
        warm = False
        if self.warm_start and hasattr(self, "coef_") and coef_init is None:
            # as scikit-learn: continuing from a model of another size is an
            # error, not a silent restart
            check_warm_start_shape(
                self, "coef_", np.shape(self.coef_), self._coef_shape()
            )
            W0, b0 = self._state_arrays()
            # (an empty W0: no state of this kind to continue from, e.g.
            # weights learned with another update rule; fit starts over)
            if W0.shape[0] == X.shape[1]:
                coef_init, intercept_init = W0.T, b0
                warm = True
        if not (warm and hasattr(self, "intercept_scaling_")):
            self._set_intercept_scaling(X)
        W, b = self._allocate(X.shape[1], n_columns, coef_init, intercept_init)
        if not warm and (coef_init is not None or intercept_init is not None):
            self._check_initial_scores(X, W, b)
        train_idx, val_idx = self._validation_split(y, sample_weight)
        U = np.zeros_like(W) if self.average else None
        bu = np.zeros_like(b) if self.average else None
        rng = check_random_state(self.random_state)
        n_iter, t = self._run(
            X,
            y,
            sample_weight,
            W,
            b,
            U,
            bu,
            max_iter=self.max_iter,
            train_idx=train_idx,
            val_idx=val_idx,
            rng=rng,
            stopping=True,
            t_start=0,
        )
        self._rng = rng
        self.n_iter_ = n_iter
        self.t_ = float(t) + 1.0
        self._publish(W, b, U, bu)
        return self

    def _partial_fit(self, X, y, classes, sample_weight, *, record_scores=False):
        # scikit-learn skips parameter validation on later partial_fit calls;
        # a parameter changed mid-stream must be refused before any update too
        self._validate_params()
        first_call = not hasattr(self, "coef_")
        X, y, sample_weight = self._validate_batch(
            X, y, sample_weight, reset=first_call
        )
        self._prepare_targets(y, classes=classes, first_call=first_call, fitting=False)
        n_columns = self._n_columns()
        if first_call:
            W, b = self._allocate(X.shape[1], n_columns, None, None)
            U = np.zeros_like(W) if self.average else None
            bu = np.zeros_like(b) if self.average else None
            self._rng = check_random_state(self.random_state)
            self._set_intercept_scaling(X)
            t_start = 0
        else:
            W, b = self._state_arrays()
            if self.average:
                if self._averaging_state():
                    U = check_state_array(
                        self, "the averaging state", self._average_accum, W.shape
                    )
                    bu = check_state_array(
                        self,
                        "the averaging state",
                        self._average_intercept_accum,
                        b.shape,
                    )
                else:
                    U, bu = np.zeros_like(W), np.zeros_like(b)
            else:
                U = bu = None
            t_start = check_sample_count(self) - 1
        scores_out = None
        if record_scores:
            scores_out = np.empty((X.shape[0], n_columns), dtype=np.float64)
        n_iter, t = self._run(
            X,
            y,
            sample_weight,
            W,
            b,
            U,
            bu,
            max_iter=1,
            train_idx=np.arange(X.shape[0]),
            val_idx=None,
            rng=self._rng,
            stopping=False,
            t_start=t_start,
            scores_out=scores_out,
        )
        self.n_iter_ = n_iter
        self.t_ = float(t) + 1.0
        self._publish(W, b, U, bu)
        if record_scores:
            return scores_out
        return self

    def _partial_fit_scores(self, X, y, classes=None, sample_weight=None):
        """``partial_fit`` on a batch in its given order (no shuffling),
        returning the decision values each sample got just before the model
        learned from it.

        This is the private protocol of progressive validation
        (:func:`sklearn_pa.model_selection.progressive_val_predict`): one
        kernel pass per batch instead of a predict / learn loop per sample.
        Any estimator may implement it with this contract:

        - same validation, atomicity and effect on the model as
          ``partial_fit(X, y[, classes], sample_weight=...)`` without
          shuffling;
        - returns an ndarray of shape ``(n_samples,)`` (regression, binary
          classification: the sign picks ``classes_[1]``) or
          ``(n_samples, n_classes)`` (multiclass, argmax) of the scores
          ``decision_function`` (or ``predict`` for a regressor) would have
          given each row right before its own update; NaN where the kernel
          skipped a row;
        - raises ``NotImplementedError`` before touching the model when its
          current configuration cannot provide those scores, so the caller
          falls back to predict / ``partial_fit``.

        With ``average`` the kernel records the averaged model's scores (the
        model ``predict`` uses), computed before each update from the lazy
        averaging accumulators.
        """
        with atomic_update(self):
            args = (classes,) if is_classifier(self) else (None,)
            scores = self._partial_fit(X, y, *args, sample_weight, record_scores=True)
        if scores.shape[1] == 1:
            return scores[:, 0]
        return scores

    def _check_fitted_weights(self):
        check_is_fitted(self, ["coef_", "intercept_"])

    def __sklearn_pa_state__(self):
        """The state protocol of this estimator (used by parameter mixing).

        Returns
        -------
        state : LinearState
            Initialises, prepares blocks for, runs bare epochs on, reads,
            publishes and mixes the learned state of this estimator.
        """
        return LinearState(self, epochs=_LinearEpochs)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags


class OnlineLinearClassifierMixin:
    """Classes, class weights and label encoding for the classifiers.

    The form of the targets is one strategy object of :mod:`._targets`
    (binary, multiclass, multilabel), chosen on the first batch of a ``fit``
    or of a ``partial_fit`` stream and kept in ``_target_strategy``; every
    target-dependent hook below asks it.  An estimator that accepts a
    multilabel indicator ``y`` lists :class:`~._targets.MultilabelTargets` in
    ``_target_kinds``.
    """

    # the strategy families this estimator accepts, besides single-label y
    _target_kinds = ()

    def _target_kind_of(self, y):
        """The strategy family that reads a new batch ``y``."""
        if is_indicator_matrix(y):
            for kind in self._target_kinds:
                if kind.multi_output:
                    return kind
        return BinaryTargets

    def _validate_batch(self, X, y, sample_weight, reset):
        kind = self._target_kind_of(y)
        if not reset:
            self._target_strategy.check_form(kind, self.classes_)
        if not kind.multi_output:
            return super()._validate_batch(X, y, sample_weight, reset)
        X, y = kind.validate(self, X, y, reset=reset)
        sample_weight = check_batch_sample_weight(sample_weight, X)
        return X, y, sample_weight

    def _prepare_targets(self, y, *, classes, first_call, fitting):
        if first_call or fitting:
            strategy, classes_, cw = self._target_kind_of(y).start(
                self, y, classes=classes, fitting=fitting
            )
        else:
            strategy = self._target_strategy
            classes_ = self.classes_
            cw = strategy.check(self, y, classes=classes)
        self._adopt_targets(classes_, cw, strategy)

    def _adopt_targets(self, classes, class_weight, strategy=None):
        """Set the classes, the class weights and the target strategy (the
        single-label one of ``classes`` when none is given), as a fitted
        model or a meta-estimator handing its classes to a copy has them."""
        self.classes_ = classes
        self._expanded_class_weight = class_weight
        self._target_strategy = (
            single_label_targets(classes) if strategy is None else strategy
        )

    def _targets(self, y):
        return self._target_strategy.encode(self.classes_, y)

    def _n_columns(self):
        return self._target_strategy.n_columns(self.classes_)

    def _shape_coef(self, coef):
        return coef

    def _kernel_extras(self, n_columns):
        return self._target_strategy.kernel_weights(
            self._expanded_class_weight, self.classes_, n_columns, self._rule()
        )

    def _kernel_label_arrays(self, y):
        return self._target_strategy.label_arrays(y)

    def _validation_split(self, y, sample_weight):
        if not self.early_stopping:
            return np.arange(y.shape[0]), None
        idx_train, idx_val = self._target_strategy.validation_split(
            y,
            validation_fraction=self.validation_fraction,
            random_state=self.random_state,
        )
        return check_validation_split(self, idx_train, idx_val, sample_weight)

    def predict(self, X):
        """Predict class labels, or the relevant labels of a multilabel model.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Samples.

        Returns
        -------
        y_pred : ndarray of shape (n_samples,) or (n_samples, n_labels)
            Class labels; for a model fitted on a multilabel indicator ``y``,
            the indicator matrix of the labels whose score is above the
            learned threshold 0.
        """
        scores = self.decision_function(X)
        return self._target_strategy.predict(self.classes_, scores)
