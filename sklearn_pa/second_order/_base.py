"""Confidence-Weighted learners: the shared machinery of CW, AROW and SCW.

The weights are a Gaussian ``N(mu, Sigma)``; each example moves the mean and
shrinks the covariance along the example, less where the model is already
confident.  ``coef_`` and ``intercept_`` are the mean; the covariance is kept
in the compiled kernel's layout (see ``covariance_``).

This module holds ``_GaussianWeightsMixin`` (the covariance, its memory limit
``FULL_COVARIANCE_MAX_BYTES`` and the epochs, shared with the regressors of
``second_order/_regression.py``) and ``_BaseSecondOrder`` (the
classifiers' ``fit`` / ``partial_fit``, the Gaussian margins and the
calibrated ``predict_proba``, whose fit is in ``second_order/_calibration.py``);
``_SecondOrderEpochs``, the epoch adapter of the engine, is in
``second_order/_epochs.py``.  The public
estimators ``ConfidenceWeightedClassifier``, ``AROWClassifier`` and
``SCWClassifier``, with their step rules and docstrings, live in
``sklearn_pa/second_order/_confidence_weighted.py``.
"""

import os
import warnings
from numbers import Real

import numpy as np
import scipy.sparse as sp
from sklearn.base import _fit_context
from sklearn.linear_model._base import LinearClassifierMixin, SparseCoefMixin
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.extmath import safe_sparse_dot
from sklearn.utils.validation import check_is_fitted

from .._compiled import _scores
from .._compiled._rules import SecondOrderRule as R
from .._core._calls import nonnegative, pass_margins, row_variances
from .._core.batch import (
    KERNEL_DTYPES,
    atomic_update,
    call_values,
    canonical_csr,
    check_rows,
    check_training_scores,
    fitted_rows,
    locked_read,
)
from .._core.driver import run_epochs, validation_scorer
from .._core.epochs import _RowView
from .._core.growth import grow_second_order_state, refuse_growing_proba
from .._core.pickled_state import OneOf
from .._core.rules import second_order_kernel_params, spec
from .._core.session import partial_fit_context, session_of
from .._core.state import SecondOrderState
from ..exceptions import NoisyLabelsWarning
from ..linear._base import BaseOnlineLinear, OnlineLinearClassifierMixin
from ._calibration import (
    CALIBRATION_SIZE,
    MARGIN_BLOCKS,
    PROGRESSIVE_DENSE,
    PROGRESSIVE_REFIT,
    fit_calibration,
    gaussian_margin_proba,
)
from ._epochs import _SecondOrderEpochs, batch_arrays

#: Largest full covariance (in bytes) that ``covariance="full"`` allocates;
#: ``None`` means half of the machine's physical memory.
FULL_COVARIANCE_MAX_BYTES = None


def _physical_memory():
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):  # pragma: no cover
        return 8 * 2**30


#: ``covariance_floor``: None, or a variance in (0, 1] (the prior's is 1)
COVARIANCE_FLOOR_CONSTRAINT = [Interval(Real, 0, 1, closed="right"), None]


def _base_constraints():
    return BaseOnlineLinear._constraints(
        "C",
        covariance=[StrOptions({"diagonal", "full"})],
        covariance_floor=COVARIANCE_FLOOR_CONSTRAINT,
        class_weight=[StrOptions({"balanced"}), dict, None],
        new_classes=[StrOptions({"error", "add"})],
    )


class _GaussianWeightsMixin:
    """The Gaussian weights of the second-order learners, classifiers and
    regressors alike: the covariance (its blocks, its layout, its memory
    limit), its part in the state protocol and the epochs of the compiled
    kernel (``_second_order.pyx``) that move it with the mean.  Listed
    before the other bases."""

    #: the covariance saved (see ``_core/pickled_state.py``): its diagonal,
    #: one column per weight vector, or its full matrices, one per vector
    _state_shapes = {"_sigma": OneOf((("d+1", "g"), ("g", "d+1", "d+1")))}

    # ------------------------------------------------------------ blocks
    def _n_groups(self, rule, n_classes=None):
        """The covariance blocks of the constraint rule ``rule``, as its
        entry in the registry declares them (``blocks``): one per class
        (``n_classes``, by default the fitted classes) or one shared
        block."""
        if spec(rule, R).blocks == "per_class":
            return self.classes_.shape[0] if n_classes is None else n_classes
        return 1

    # ------------------------------------------------------- covariance
    def _covariance_floor(self):
        """The kernel's ``floor`` (``SecondOrderParams``): ``covariance_floor``,
        0 for None (no floor: the kernel writes nothing more).  The floor
        of a full covariance is refused by :func:`batch_arrays`."""
        floor = getattr(self, "covariance_floor", None)
        return 0.0 if floor is None else float(floor)

    def _sigma_shape(self, n_features, n_groups):
        if self.covariance == "full":
            d = n_features + (1 if self.fit_intercept else 0)
            return (n_groups, d, d)
        return (n_features + 1, n_groups)

    def _new_sigma(self, n_features, n_groups):
        shape = self._sigma_shape(n_features, n_groups)
        if self.covariance == "full":
            n_bytes = 8 * int(np.prod(shape, dtype=np.float64))
            limit = FULL_COVARIANCE_MAX_BYTES
            if limit is None:
                limit = _physical_memory() // 2
            if n_bytes > limit:
                raise MemoryError(
                    f"covariance='full' needs {' x '.join(map(str, shape))} "
                    f"doubles ({n_bytes / 2**30:.3g} GiB) for {n_features} "
                    f"features, more than the {limit / 2**30:.3g} GiB allowed. "
                    "Use covariance='diagonal', which needs one variance per "
                    "feature, or reduce the number of features."
                )
            sigma = np.zeros(shape)
            idx = np.arange(shape[1])
            sigma[:, idx, idx] = 1.0
            return sigma
        return np.ones(shape)

    def _state_arrays(self):
        # carried to the next pass (partial_fit, warm_start) with W and b
        call_values()["sigma"] = getattr(self, "_sigma", None)
        return super()._state_arrays()

    @property
    def covariance_(self):
        """The covariance of the weights, per block.

        ``covariance="diagonal"``: ndarray of shape ``(n_blocks, n_features +
        1)``, the variances of the feature weights and, last, of the weight of
        the intercept's constant feature.  ``covariance="full"``: ndarray of
        shape ``(n_blocks, D, D)`` with ``D = n_features + fit_intercept``.
        ``n_blocks`` is the number of classes for the single-constraint and
        sequential multiclass rules (one block per class) and 1 otherwise.
        """
        check_is_fitted(self, "_sigma")
        if self._sigma.ndim == 2:
            return self._sigma.T.copy()
        upper = np.triu(self._sigma)
        return upper + np.triu(upper, 1).transpose(0, 2, 1)

    #: Whether parameter mixing combines the partitions' models as Gaussian
    #: posteriors by default (the state protocol's ``default_mixing``).
    _mixes_as_gaussian = True

    def __sklearn_pa_state__(self):
        """The state protocol of this estimator (used by parameter mixing).

        Returns
        -------
        state : SecondOrderState
            Initialises, prepares blocks for, runs bare epochs on, reads,
            publishes and mixes the learned state of this estimator.
        """
        return SecondOrderState(self)

    # ------------------------------------------------------------ epochs
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
        # progressive validation with predict_proba asks for the variances
        # too (see __sklearn_pa_prequential__)
        call = call_values()
        want_variances = call.pop("record_variances", False)
        rows, labels, targets, params = batch_arrays(self, X, y)
        n_groups = self._n_groups(params["rule"])
        sigma = call.pop("sigma", None)
        shape = self._sigma_shape(X.shape[1], n_groups)
        if sigma is not None and sigma.shape != shape:
            raise ValueError(
                f"The learned covariance has shape {sigma.shape}, but covariance="
                f"{self.covariance!r}, multiclass and fit_intercept now need "
                f"{shape}: one of them changed since it was learned. Set it "
                "back, or refit with fit (warm_start=False)."
            )
        if sigma is None:
            sigma = self._new_sigma(X.shape[1], n_groups)
        elif stopping or not (sigma.flags.writeable and sigma.flags.c_contiguous):
            # fit (warm_start) starts from a copy; a partial_fit call updates
            # the covariance in place, its pass journaled by atomic_update
            sigma = np.array(sigma, dtype=np.float64, order="C")
        var_out = None
        if want_variances and scores_out is not None:
            var_out = np.empty((X.shape[0], n_groups))
            call["recorded_variances"] = var_out
        adapter = self._new_adapter(
            (rows, labels, targets, params),
            sample_weight,
            W,
            b,
            U,
            bu,
            sigma,
            scores_out=scores_out,
            var_out=var_out,
        )
        adapter.averages_zero = stopping and U is not None  # (fit's new ones)
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
        self._sigma = sigma
        if U is not None:
            self._average_from = adapter.avg_start
        return run.n_iter, run.t

    def _stream_adapter(self, X, y, sample_weight, W, b, U, bu):
        """The adapter a later ``partial_fit`` call of the stream reuses
        (:class:`~sklearn_pa._core.stream_plan.StreamPlan`), on the covariance the
        call left; None when the next pass must copy the covariance."""
        sigma = self.__dict__.get("_sigma")
        if sigma is None or not (sigma.flags.writeable and sigma.flags.c_contiguous):
            return None
        batch = batch_arrays(self, X, y)
        return self._new_adapter(batch, sample_weight, W, b, U, bu, sigma)

    def _new_adapter(
        self, batch, sample_weight, W, b, U, bu, sigma, *, scores_out=None, var_out=None
    ):
        """The epoch adapter of a batch (:func:`batch_arrays`: the rows, the
        labels, the targets a regression rule reads instead of labels, the
        rule) on the mean, averages and covariance given."""
        rows, labels, targets, params = batch
        return _SecondOrderEpochs(
            self,
            sample_weight,
            W,
            b,
            U,
            bu,
            sigma=sigma,
            rows=rows,
            labels=labels,
            params=params,
            scores_out=scores_out,
            var_out=var_out,
            targets=targets,
        )

    def _variance(self, X, block=0):
        """``x~^T Sigma x~`` per row, with the covariance of ``block``."""
        sigma = self._sigma
        a = self.intercept_scaling_ if self.fit_intercept else 0.0
        n_features = X.shape[1]
        if sigma.ndim == 2:
            diag = sigma[:, block]
            sq = X.multiply(X) if sp.issparse(X) else X * X
            var = np.asarray(sq @ diag[:n_features]).ravel()
            return var + a * a * diag[n_features]
        upper = np.triu(sigma[block])  # the kernel keeps the upper triangle
        S = upper + np.triu(upper, 1).T
        M = np.asarray(X @ S[:n_features])
        if self.fit_intercept:
            M = M + a * S[n_features]
        if sp.issparse(X):
            var = np.asarray(X.multiply(M[:, :n_features]).sum(axis=1)).ravel()
        else:
            var = np.einsum("ij,ij->i", X, M[:, :n_features])
        if self.fit_intercept:
            var = var + a * M[:, n_features]
        return var


class _BaseSecondOrder(
    _GaussianWeightsMixin,
    OnlineLinearClassifierMixin,
    LinearClassifierMixin,
    SparseCoefMixin,
    BaseOnlineLinear,
):
    """Shared machinery of the second-order classifiers.

    Subclasses provide ``_rule()`` (the multiclass ``SecondOrderRule``
    constraint rule) and ``_kernel_params()`` (the step rule and its
    parameters, through :meth:`_second_order_params`).  The covariance is
    extra state beside (W, b): it is created on the first pass, carried over
    by ``partial_fit`` and ``warm_start``, and restored with the mean if a
    pass fails.
    """

    _parameter_constraints: dict = _base_constraints()

    # ------------------------------------------------------------ hooks
    def _second_order_params(self, step, **values):
        """The kernel parameters (``SecondOrderParams`` in
        ``_compiled/_rules_second_order.pxd``): the constraint rule
        (binary with two classes, else ``_rule()``), the step rule ``step``
        and the fields ``values`` the step reads
        (:func:`~sklearn_pa._core.rules.second_order_kernel_params`: ``phi``
        = Phi^-1(eta) of CW and SCW, ``param``, r of AROW or C of SCW,
        ``shrinkage``, IELLIP's c, ...), with the covariance floor that
        every rule reads (``covariance_floor``)."""
        rule = R.SO_BINARY if self.classes_.shape[0] <= 2 else self._rule()
        return second_order_kernel_params(
            rule, step, floor=self._covariance_floor(), **values
        )

    def _grow_extra_state(self, growth):
        """Grow the covariance (:func:`._growth.grow_second_order_state`)."""
        grow_second_order_state(self, growth, self._rule())

    # ------------------------------------------------------------ public
    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, coef_init=None, intercept_init=None, sample_weight=None):
        """Fit the model with up to ``max_iter`` passes over the data.

        The covariance starts at the identity (it is carried over from the
        previous fit with ``warm_start=True``).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training data.
        y : array-like of shape (n_samples,)
            Target labels.
        coef_init : ndarray of shape (n_classes, n_features), default=None
            Initial means (``(1, n_features)`` for two classes).
        intercept_init : ndarray of shape (n_classes,), default=None
            Initial intercepts.
        sample_weight : array-like of shape (n_samples,), default=None
            Per-sample weights; each scales its sample's step (a zero weight
            skips the sample).

        Returns
        -------
        self : object
            Fitted estimator.
        """
        with atomic_update(self):
            self._fit(X, y, coef_init, intercept_init, sample_weight)
            self._record_training_margins(X, y)
        self._warn_if_not_separable()
        return self

    #: Online mistake rate of the last epoch of ``fit`` above which the
    #: estimator warns that the data look noisy (CW only: None elsewhere).
    _noisy_labels_threshold = None

    def _warn_if_not_separable(self):
        threshold = self._noisy_labels_threshold
        mistakes = getattr(self, "_last_epoch_mistakes", None)
        # the first pass counts the mistakes of learning from scratch: only a
        # later epoch says whether the data can be fitted
        if (
            threshold is None
            or mistakes is None
            or mistakes[1] == 0
            or getattr(self, "n_iter_", 0) < 2
        ):
            return
        rate = mistakes[0] / mistakes[1]
        if rate > threshold:
            warnings.warn(
                f"{type(self).__name__} still mispredicted {100 * rate:.0f}% of "
                "the training samples in its last epoch: the labels look noisy "
                "or the classes overlap, where CW's aggressive updates keep "
                "moving the model. Use AROWClassifier or SCWClassifier, made "
                "for label noise, or average=True.",
                NoisyLabelsWarning,
                stacklevel=4,
            )

    @partial_fit_context
    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """Make one pass over a batch, continuing from the current mean and
        covariance.

        The whole batch is validated before any weight moves: on an error the
        estimator is left exactly as it was.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            A batch of training data.
        y : array-like of shape (n_samples,)
            Its labels, all in ``classes``.
        classes : array-like of shape (n_classes,), default=None
            Every label the stream may contain.  Required on the first call,
            optional (but checked) afterwards.  With ``new_classes="add"``:
            optional, labels to add.
        sample_weight : array-like of shape (n_samples,), default=None
            Per-sample weights scaling each sample's step.

        Returns
        -------
        self : object
            Fitted estimator.
        """
        with atomic_update(self):
            # the margins each sample gets before it is learned (held out,
            # as in progressive validation), recorded by the pass itself,
            # calibrate predict_proba
            margins = self._ask_for_margins()
            self._partial_fit_batch(X, y, classes, sample_weight)
            self._record_pass_margins(margins)
            return self

    def __sklearn_pa_prequential__(
        self, X, y, classes=None, sample_weight=None, *, predict_proba=False, then=None
    ):
        """``partial_fit`` on a batch in its given order (no shuffling),
        returning the decision values each sample got just before the model
        learned from it (the protocol of progressive validation, see
        :meth:`BaseOnlineLinear.__sklearn_pa_prequential__`).

        The model is left as ``partial_fit`` leaves it, the margins that
        calibrate ``predict_proba`` included.  With ``predict_proba`` the
        kernel also records each row's variance ``x~^T Sigma x~`` before its
        update, and ``(scores, proba)`` is returned: the probabilities of
        those scores and variances, calibrated on the margins of the samples
        before each row, refitted at intervals (see
        ``_progressive_proba``).
        """
        if predict_proba:
            refuse_growing_proba(self)
        with atomic_update(self):
            fitted = self._is_fitted()
            calibration = getattr(self, "_calibration", None) if fitted else None
            held_out = getattr(self, "_calibration_held_out", True)
            call = call_values()
            call["record_variances"] = bool(predict_proba)
            margins = self._ask_for_margins()
            scores = self._partial_fit_batch(
                X, y, classes, sample_weight, record_scores=True
            )
            call.pop("record_variances", None)
            var = call.pop("recorded_variances", None)
            self._record_pass_margins(margins)
            if scores.shape[1] == 1:
                scores = scores[:, 0]
            if then is not None:
                then(scores)
        if not predict_proba:
            return scores
        var = np.nan_to_num(_row_variances(var, scores))
        classes_idx = np.searchsorted(self.classes_, np.asarray(y))
        proba = self._progressive_proba(
            scores, var, classes_idx, calibration, held_out, fitted
        )
        return scores, proba

    def _is_fitted(self):
        """Whether a model is learned (without computing an average a
        ``partial_fit`` stream left pending, as ``hasattr(self, "coef_")``
        would)."""
        return "coef_" in self.__dict__ or "_average_pending" in self.__dict__

    def _diagonal_variances(self, X, checked=False, *, weights=None):
        """``x~^T Sigma_g x~`` of every row and covariance block ``g``
        ``(n_samples, n_blocks)`` of a diagonal covariance, reading only the
        variances of each row's features (compiled: the squared row scored
        against the variances, ``margin_rows``).  ``checked``: ``X`` passed
        :func:`lean_rows` (canonical already).  With ``weights``
        (:meth:`_lean_weights`), ``(scores, variances)``: the rows' scores
        from the same call."""
        sigma = self._sigma
        a = self.intercept_scaling_ if self.fit_intercept else 0.0
        # (duplicate entries add up before they are squared)
        rows = _RowView(X if checked else canonical_csr(X))
        var = np.empty((X.shape[0], sigma.shape[1]))
        if weights is None:
            _scores.margin_rows(rows, sigma, a * a, var)
            return var
        W, b, U, bu, n_avg = weights
        scores = np.empty((X.shape[0], W.shape[1]))
        _scores.margin_rows(
            rows,
            sigma,
            a * a,
            var,
            W=W,
            b=b,
            U=U,
            bu=bu,
            n_avg=n_avg,
            scores_out=scores,
        )
        return scores, var

    # ------------------------------------------------------ probabilities
    def _margins(self, X, checked=False):
        """(scores, variances) of validated rows: scores of shape (n,) for
        two classes, (n, n_classes) otherwise; one variance per row (the
        mean over the classes' covariance blocks where there are several).
        ``checked``: ``X`` passed :func:`lean_rows` already."""
        # X is validated by the caller: scored here directly, as
        # decision_function would after validating it again (which would warn
        # that a validated array has no feature names); from the weights of
        # the rows' features only when the model is the one it published
        sigma = self._sigma
        if X.dtype == np.float32 and not (checked and sigma.ndim == 2):
            # (a sample of at most CALIBRATION_SIZE rows, or predict_proba's
            # float64 rows): the variances are summed in float64; rows in
            # the kernels' form are read as doubles (the same values) and
            # squared in float64 (_diagonal_variances), without this copy
            X = X.astype(np.float64)
        var = None
        # (rows in the kernels' form: the scores and the variances in one
        # compiled call)
        weights = self._lean_weights() if checked and sigma.ndim == 2 else None
        if weights is not None:
            scores, var = self._diagonal_variances(X, checked, weights=weights)
        else:
            scores = self._lean_scores(X, checked=checked)
        if scores is None:
            X64 = X.astype(np.float64) if X.dtype == np.float32 else X
            scores = np.asarray(safe_sparse_dot(X64, self.coef_.T) + self.intercept_)
        if scores.shape[1] == 1:
            scores = scores.ravel()
        n_blocks = sigma.shape[0] if sigma.ndim == 3 else sigma.shape[1]
        if sigma.ndim == 2:
            if var is None:
                var = self._diagonal_variances(X, checked=checked)
            return scores, _row_variances(var, scores)
        if scores.ndim == 1 or n_blocks != scores.shape[1]:
            var = self._variance(X, 0)
        else:
            # one covariance per class: their mean, so that the probabilities
            # keep the order of the scores (and predict's arg-max)
            var = np.mean([self._variance(X, k) for k in range(n_blocks)], axis=0)
        return scores, nonnegative(var)

    def _ask_for_margins(self):
        """Ask the passes of this call to record each row's margins before
        its update (a list in the call's values that each pass appends
        ``(scores, variances, labels, order)`` to, ``_SecondOrderEpochs.run``),
        when a model is learned already (the first call records none);
        returns the list, or None."""
        if not self._is_fitted():
            return None
        margins = call_values()["margins"] = []
        return margins

    def _record_pass_margins(self, margins):
        """Keep the margins the passes of this call recorded (see
        :meth:`_ask_for_margins`) in the calibration record, as ``_margins``
        states them (the scores of one column as a vector, the variance of
        each row the mean over the classes' blocks where each class has its
        own, :func:`_row_variances`); rows the kernel skipped (NaN) are left
        out (:func:`~sklearn_pa._core._calls.pass_margins`).  A call that added
        classes records none (the margins of its rows are in the columns of
        other classes)."""
        call_values().pop("margins", None)
        if not margins:
            return
        n_columns = self._n_columns()
        for recorded in margins:
            if recorded[0].shape[1] != n_columns:
                return
        for recorded in margins:
            self._record_margins(*pass_margins(*recorded, n_columns=n_columns))

    def _record_training_margins(self, X, y):
        """Calibrate on the training margins of the model ``fit`` returns
        (at most ``CALIBRATION_SIZE`` rows, drawn with a fixed seed; float32
        ``X`` is not copied, only those rows are converted)."""
        X = check_rows(self, X, reset=False, dtype=KERNEL_DTYPES)
        rows = np.arange(X.shape[0])
        if rows.shape[0] > CALIBRATION_SIZE:
            rng = np.random.RandomState(0)
            rows = np.sort(rng.choice(rows, CALIBRATION_SIZE, replace=False))
        idx = np.searchsorted(self.classes_, np.asarray(y)[rows])
        self._calibration = None
        scores, var = self._margins(X[rows])
        check_training_scores(scores)
        self._record_margins(scores, var, idx)
        self._calibration_held_out = False

    def _record_margins(self, scores, var, idx):
        """Keep the latest ``CALIBRATION_SIZE`` (score, variance, class) of
        the samples seen; the record keeps the arrays it is given (callers
        pass new ones).

        The record (``_margin_blocks``) is ``(n_rows, blocks)``, the blocks
        newest last, and a call replaces it, never writes into it (a failed
        call puts it back with the estimator): a call adds its rows as one
        block, and once there are more than ``MARGIN_BLOCKS`` blocks, or
        twice the window's rows, the latest ``CALIBRATION_SIZE`` rows are
        joined into one (a batch of ``CALIBRATION_SIZE`` rows or more
        replaces the record by its latest rows).  A one-row call adds its
        row, and the window is copied once every ``MARGIN_BLOCKS`` calls,
        not at each.  ``_calibration`` reads the record as one array of
        each."""
        record = self.__dict__.get("_margin_blocks")
        new = (scores, var, idx)
        n_new = scores.shape[0]
        if n_new >= CALIBRATION_SIZE:
            # the batch fills the window: its latest rows alone, copied (a
            # view would keep the batch's arrays alive)
            record = (CALIBRATION_SIZE, (_joined((new,)),))
        elif record is not None and record[1][0][0].ndim == scores.ndim:
            n_rows, blocks = record[0] + n_new, (*record[1], new)
            if len(blocks) > MARGIN_BLOCKS or n_rows > 2 * CALIBRATION_SIZE:
                blocks = (_joined(blocks),)
                n_rows = blocks[0][0].shape[0]
            record = (n_rows, blocks)
        else:
            record = (n_new, (new,))
        self._margin_blocks = record
        self._calibration_held_out = True

    @property
    def _calibration(self):
        """The recorded margins ``(scores, variances, classes)`` of the
        latest ``CALIBRATION_SIZE`` samples, oldest first, as new arrays
        (None before any)."""
        record = self.__dict__.get("_margin_blocks")
        return None if record is None else _joined(record[1])

    @_calibration.setter
    def _calibration(self, margins):
        self._margin_blocks = (
            None
            if margins is None
            else (margins[0].shape[0], (tuple(np.array(a) for a in margins),))
        )

    def _fitted_calibration(self):
        """``(c, s2, k)``: ``c`` and ``s2`` maximise the likelihood of the
        recorded margins divided by ``k`` (a power of two near the largest,
        so that any scale of the data works), under the scores' variance
        ``c * v / k**2 + s2`` (``(1, 0, 1)`` without any).

        Training margins (``fit``) are optimistic: only the noise is fitted
        there (``c = 1``), which can soften the probabilities, never sharpen
        them."""
        record = self.__dict__.get("_margin_blocks")
        if record is None:
            return (1.0, 0.0, 1.0)
        # kept in the estimator's session, so that predict_proba writes
        # nothing to the model (threads may share it); valid while the
        # recorded margins are the same object (a call replaces the tuple)
        session = session_of(self)
        cached = session.calibration
        if cached is not None and cached[0] is record:
            return cached[1]
        calibration = _joined(record[1])
        if calibration[0].shape[0] == 0:
            fitted = (1.0, 0.0, 1.0)
        else:
            fitted = fit_calibration(*calibration, self._calibration_held_out)
        with session.lock:  # (a read writes its session holding the lock)
            if self.__dict__.get("_margin_blocks") is record:
                session.calibration = (record, fitted)
        return fitted

    def _progressive_proba(
        self, scores, var, classes_idx, calibration, held_out, fitted
    ):
        """The probabilities of the rows of a compiled pass from their
        pre-update ``scores`` and variances ``var``, as the per-sample loop
        would give them: the calibration of row ``i`` is fitted to the
        margins of the latest ``CALIBRATION_SIZE`` samples before it (those
        recorded before the batch, ``calibration``, then the batch's own
        rows, each with the score and variance it had before its update),
        refitted before each row while fewer than ``PROGRESSIVE_DENSE``
        margins are recorded and then every ``PROGRESSIVE_REFIT`` rows, not
        after every row.  ``calibration`` is the model's recorded ``(scores, variances,
        classes)`` before the batch (or None), ``held_out`` whether they
        were held out (``partial_fit``) or training margins (``fit``), and
        ``fitted`` whether the model had learned before the batch
        (``partial_fit`` records no margin for the first sample it
        learns)."""
        n = scores.shape[0]
        valid = ~(np.isnan(scores) if scores.ndim == 1 else np.isnan(scores[:, 0]))
        scored = valid.copy()
        if not fitted:
            valid[:1] = False
        if calibration is not None and calibration[0].ndim != scores.ndim:
            calibration = None
        # a refit before each row while the window holds few margins
        n_prior = 0 if calibration is None else calibration[0].shape[0]
        dense = min(n, max(0, PROGRESSIVE_DENSE - n_prior))
        bounds = list(range(dense)) + list(range(dense, n, PROGRESSIVE_REFIT)) + [n]
        proba = np.full((n, self.classes_.shape[0]), np.nan)
        for start, stop in zip(bounds[:-1], bounds[1:]):
            mine = np.flatnonzero(valid[:start])[-CALIBRATION_SIZE:]
            parts = [(scores[mine], var[mine], classes_idx[mine])]
            if calibration is not None and mine.shape[0] < CALIBRATION_SIZE:
                parts.insert(0, calibration)
            window = [np.concatenate(a)[-CALIBRATION_SIZE:] for a in zip(*parts)]
            if window[0].shape[0] == 0:
                c, s2, k = 1.0, 0.0, 1.0
            else:
                own = mine.shape[0] > 0
                c, s2, k = fit_calibration(*window, held_out or own)
            rows = slice(start, stop)
            with np.errstate(over="ignore", under="ignore"):
                proba[rows] = gaussian_margin_proba(
                    np.nan_to_num(scores[rows]) / k, c * (var[rows] / k / k), s2
                )
        proba[~scored] = np.nan
        return proba

    @locked_read
    def predict_proba(self, X):
        r"""Probability of each class under the Gaussian margin model.

        The weights ``w ~ N(mu, Sigma)`` make the score of a sample a
        Gaussian of mean :math:`m = \mu^\top x` and variance
        :math:`v = x^\top \Sigma x`.  A scale :math:`c` of that variance and
        a noise of variance :math:`s^2` are fitted by maximum likelihood to
        the margins the model gave the samples it learned (the latest 1000):
        after ``partial_fit``, each sample's margins *before* it was learned,
        as the pass that learned it computed them (held out, as in
        progressive validation), fitting both; after ``fit``, the training
        margins of the fitted model, which are optimistic, so that only the
        noise is fitted (:math:`c = 1`: it can soften the probabilities, not
        sharpen them).
        For two classes the positive class has probability

        .. math:: P(y = 1 \mid x) = \Phi\left(\frac{m}{\sqrt{c v + s^2}}\right),

        :math:`\Phi` the standard normal CDF; with more classes the
        probabilities are the softmax of the scores :math:`m_k / \sqrt{c v +
        s^2}`, :math:`v` the mean of the classes' variances where each class
        has its own covariance (so that the most probable class is the one
        ``predict`` returns).  Without the noise
        (:math:`s^2 = 0`) the covariance shrinks as the model learns and the
        probabilities saturate at 0 and 1; the fitted noise keeps them
        calibrated.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Samples.

        Returns
        -------
        proba : ndarray of shape (n_samples, n_classes)
            Probability of each class of ``classes_``.
        """
        X = fitted_rows(self, X, order="C")
        # (validated: C-ordered float64, canonical CSR, the kernels' form)
        scores, var = self._margins(X, checked=True)
        if self.classes_.shape[0] == 1:  # one class met so far: certain
            return np.ones((X.shape[0], 1))
        c, s2, k = self._fitted_calibration()
        with np.errstate(over="ignore", under="ignore"):
            return gaussian_margin_proba(scores / k, c * (var / k / k), s2)

    @locked_read
    def predict_log_proba(self, X):
        """Logarithm of :meth:`predict_proba`.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Samples.

        Returns
        -------
        log_proba : ndarray of shape (n_samples, n_classes)
            Log-probability of each class of ``classes_``.
        """
        with np.errstate(divide="ignore"):
            return np.log(self.predict_proba(X))


def _joined(blocks):
    """The latest ``CALIBRATION_SIZE`` entries of the margin blocks, one new
    array of each of scores, variances and classes."""
    return tuple(
        np.concatenate([block[j] for block in blocks])[-CALIBRATION_SIZE:].copy()
        if len(blocks) > 1
        else blocks[0][j][-CALIBRATION_SIZE:].copy()
        for j in range(3)
    )


def _row_variances(var, scores):
    """One variance per row from the covariance blocks' ``(n, G)``
    variances: the mean over the blocks where each column of ``scores`` has
    its own (so that the probabilities keep the order of the scores, and
    predict's arg-max), else the first block's; negative ones (rounding)
    set to 0 (:func:`~sklearn_pa._core._calls.row_variances`)."""
    return row_variances(var, 1 if scores.ndim == 1 else scores.shape[1])
