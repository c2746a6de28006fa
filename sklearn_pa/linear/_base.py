"""The online-linear base: parameters, fit/partial_fit, epochs, averaging.

Python owns the bookkeeping (validation, classes, shuffling, stopping, the swap
to averaged weights); one call into a compiled kernel runs one epoch.  The
weights live feature-major, ``W[n_features, n_columns]``; ``coef_`` is the
transposed view, in scikit-learn's shape.

Reading order: :mod:`sklearn_pa._core.epochs` (``_RowView``, the validated
``X`` as the kernels read it, and ``_LinearEpochs``, this family's epoch
adapter, driven by :func:`sklearn_pa._core.driver.run_epochs`, which owns
shuffling, stopping, warnings, verbose output and the training history), then
:class:`BaseOnlineLinear`
(shared parameters, ``_fit`` / ``_partial_fit``), then
:class:`OnlineLinearClassifierMixin` (classes, class weights, label encoding
through a target strategy of :mod:`sklearn_pa._core.targets`).

The hooks an estimator provides:

- ``_kernel_params()``: the update rule and its parameters, as the kernel
  reads them (``_rule()`` reads the rule from it);
- ``_prepare_targets``, ``_targets``, ``_n_columns``, ``_shape_coef``,
  ``_kernel_extras``, ``_kernel_label_arrays``: the form of ``y`` (a
  regressor defines them; the classifiers take the mixin's);
- ``_kernel_epoch``: the compiled pass, when not ``_first_order.epoch``;
- ``_allocate``, ``_state_arrays``, ``_publish``, ``_set_intercept_scaling``:
  the state, when it is not one weight column per output (the
  multiplicative regressors keep a pair of positive vectors).

The checks made before any weight changes and :func:`atomic_update` (which
the public ``fit`` / ``partial_fit`` wrap around ``_fit`` / ``_partial_fit``)
are in :mod:`sklearn_pa._core.batch`.
"""

from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, is_classifier
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from .._compiled import _first_order
from .._compiled._rules import Rule
from .._core.batch import (
    KERNEL_DTYPES,
    MAX_SAMPLE_COUNT,
    ReadsUnderLockMixin,
    atomic_update,
    check_batch,
    check_batch_sample_weight,
    check_csr_structure,
    check_initial_scores,
    check_intercept_scaling,
    check_rows,
    check_sample_count,
    check_state_array,
    check_validation_split,
    check_warm_start_classes,
    check_warm_start_shape,
    initial_weights,
    locked_read,
    typical_feature_value,
    validation_split,
)
from .._core.driver import (
    run_epochs,
    validation_scorer,
)
from .._core.epochs import _LinearEpochs
from .._core.estimator import ClassifierPartialFitMixin, PublicFitMixin
from .._core.growth import GrowingClassesMixin
from .._core.pickled_state import CheckedStateMixin, Items
from .._core.publication import AveragedPublicationMixin
from .._core.session import (
    LeanCallsMixin,
    LeanLabelsMixin,
    session_of,
)
from .._core.state import LinearState
from .._core.stream_plan import stream_call
from .._core.targets import (
    BinaryTargets,
    added_classes,
    grows_classes,
    is_indicator_matrix,
    single_label_targets,
)

__all__ = [
    "BaseOnlineLinear",
    "OnlineLinearClassifierMixin",
    "adopt_weights",
    "atomic_update",
]


class BaseOnlineLinear(
    CheckedStateMixin,
    PublicFitMixin,
    AveragedPublicationMixin,
    LeanCallsMixin,
    ReadsUnderLockMixin,
    BaseEstimator,
):
    """Shared machinery of the first-order online linear estimators.

    Subclasses provide ``_rule()``, ``_slack()`` (or their own
    ``_kernel_params()``: the rule and its parameters, as the kernel reads
    them), ``_targets(y)`` and the estimator-specific parameters; this class
    runs the epochs.

    The public ``fit`` calls ``_fit`` and ``partial_fit`` calls
    ``_partial_fit``, each inside
    :func:`~sklearn_pa._core.batch.atomic_update`
    (:class:`~sklearn_pa._core.estimator.PublicFitMixin`: a subclass documents
    them through its ``_fit_doc``).  Both go the same way:

    1. ``_validate_batch``: the whole batch (``X``, ``y``, ``sample_weight``)
       is checked and converted before anything else;
    2. ``_prepare_targets``: classes and class weights (a no-op for a
       regressor);
    3. the state: ``_allocate`` (new model, ``coef_init``) or
       ``_state_arrays`` (``warm_start``, later ``partial_fit`` calls), with
       the averaging accumulators ``U``, ``bu`` when ``average`` is set;
    4. ``_run``: the epochs, through :class:`_LinearEpochs` and
       :func:`sklearn_pa._core.driver.run_epochs`;
    5. ``_publish``: ``coef_``, ``intercept_`` (averaged when asked), with
       ``t_`` (samples seen plus one) and ``n_iter_``.

    The parameter constraints here are those every subclass shares; a
    subclass adds its own (and may drop ``C``).
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
            StrOptions({"epoch"}),
        ],
    }

    @classmethod
    def _constraints(cls, *without, **extra):
        """The parameter constraints above without the names ``without``, then
        ``extra``: how a subclass that drops a shared parameter (``C``) states
        its own."""
        shared = BaseOnlineLinear._parameter_constraints
        return {
            **{key: value for key, value in shared.items() if key not in without},
            **extra,
        }

    # the epoch adapter (``_LinearEpochs``, or a subclass of it for a family
    # whose kernel moves more than the rows' features: ``linear/_scaled.py``)
    _epoch_adapter_class = _LinearEpochs

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
        trusted = self._trusted_state(coef, intercept)
        if trusted is not None:
            return trusted[2], trusted[3]
        coef = check_state_array(self, names[0], coef, self._coef_shape(), order="F")
        intercept = check_state_array(self, names[1], np.ravel(intercept), (n_columns,))
        W = coef.reshape(n_columns, n_features).T
        if not W.flags.c_contiguous:  # a (1, n) coef_ given as a 1-D one
            W = np.ascontiguousarray(W)
        return W, intercept

    def _stream_adapter(self, X, y, sample_weight, W, b, U, bu):
        """The epoch adapter a later ``partial_fit`` call of the stream
        reuses (:class:`~sklearn_pa._core.stream_plan.StreamPlan`), on the arrays
        the call published; None when the stream's configuration needs a
        new one every call (columns in threads)."""
        adapter = _LinearEpochs(self, X, y, sample_weight, W, b, U, bu, None)
        return adapter if adapter.n_jobs == 1 else None

    def _coef_shape(self):
        """The shape of ``coef_``: (n_columns, n_features), or what the
        estimator makes of it (a regressor's ``(n_features,)``)."""
        shape = (self._n_columns(), self.n_features_in_)
        return self._shape_coef(np.empty(shape)).shape

    def _shape_coef(self, coef):
        """``coef_`` in the estimator's shape from the ``(n_columns,
        n_features)`` array: unchanged here, flattened by a regressor."""
        return coef

    # -------------------------------------------------------------- hooks
    def _rule(self):
        """The update rule (a ``Rule``) that ``_kernel_params()`` states."""
        return Rule(self._kernel_params()["rule"])

    def _n_columns(self):
        """Hook: the number of weight columns the kernel updates (1 for a
        regressor; classes, labels or a weight pair for others)."""
        return 1

    def _kernel_extras(self, n_columns):
        """Hook: ``(weight_pos, weight_neg, margins)`` for the kernel: the
        class weights of a positive and of a negative example per column, and
        the matrix of required margins between classes; all ones here."""
        one = np.ones(n_columns)
        return one, one, np.ones((1, 1))

    def _input_dtypes(self):
        """Hook: the dtypes of ``X`` the kernel reads as they are, the first
        one the dtype anything else is converted to: float64 and float32
        (the first-order kernel reads float32 rows as doubles, without a
        float64 copy of ``X``)."""
        return KERNEL_DTYPES

    def _kernel_weight_step(self):
        """Hook: whether the sample and class weights multiply the step
        (scikit-learn's weighting, the kernel's ``weight_step``) instead of
        ``C``; no by default."""
        return False

    def _kernel_label_arrays(self, y):
        """Extra label arrays for the kernel (multilabel rows); none by default."""
        return {}

    def _score_for_stopping(self, X, y, sample_weight):
        """The score early stopping maximises on the validation rows
        (``score``: accuracy or R^2); an estimator may override it."""
        return self.score(X, y, sample_weight=sample_weight)

    def _kernel_params(self):
        """Hook: the step rule and its parameters, as the kernel reads them:
        a dict with the keys of ``RuleParams`` (``_compiled/_rules_linear.pxd``):
        ``rule``, ``slack``, ``C`` (the step bound), ``epsilon`` (the
        insensitive zone of the regression loss), ``margin`` (MIRA's beta),
        ``learning_rate`` (the gradient rules) and ``total_weight`` (EG+-),
        made by :func:`~sklearn_pa._core.rules.linear_params`.  The one place
        an estimator states its rule: ``_rule()`` reads it from here."""
        raise NotImplementedError

    def _kernel_epoch(self, rows, order, W, b, U, bu, **kwargs):
        """One compiled epoch: ``_first_order.epoch`` (the row view, the
        order, the state arrays, the rest by keyword).  Estimators whose
        update has another shape (the multiplicative rules) route it to
        their own kernel.

        Returns ``(mistakes, n_updates, n_skipped, overflow)``: the kernel
        writes the summed loss into ``loss_out`` and updates ``W``, ``b``,
        ``U``, ``bu`` in place."""
        return _first_order.epoch(rows, order, W, b, U, bu, **kwargs)

    # the hook only calls the first-order epoch: the adapter calls it directly
    _kernel_epoch.calls_first_order = True

    # ------------------------------------------------------------ fitting
    def _validate_batch(self, X, y, sample_weight, reset):
        """Validate a whole batch before any weight moves: ``X`` as float64
        (float32 kept, :meth:`_input_dtypes`) C-ordered dense or canonical
        CSR (``reset`` sets ``n_features_in_``, otherwise it is checked),
        ``y`` numeric for a regressor, ``sample_weight`` finite and
        non-negative.  Returns ``(X, y, sample_weight)``."""
        X, y = check_rows(
            self,
            X,
            y,
            reset=reset,
            dtype=self._input_dtypes(),
            y_numeric=not is_classifier(self),
            multi_output=False,
        )
        return self._finish_batch(X, y, sample_weight, reset)

    def _finish_batch(self, X, y, sample_weight, reset):
        """The part of a batch's validation every target kind shares, once
        ``X`` and ``y`` passed :func:`check_rows` (duplicate CSR entries
        summed there, so that every target kind learns from the same rows):
        ``sample_weight`` finite and non-negative, the estimator's own check
        of the rows.  Returns ``(X, y, sample_weight)``."""
        # (all-zero weights: refused by fit, a no-op on a later batch)
        sample_weight = check_batch_sample_weight(sample_weight, X, all_zero=not reset)
        self._check_rows(X)
        return X, y, sample_weight

    def _set_intercept_scaling(self, X):
        """Set ``intercept_scaling_``, the value of the constant feature the
        intercept is learned on (``"auto"``: the RMS of the non-zero entries
        of ``X``), refusing one whose square would overflow a row's norm."""
        if self.intercept_scaling == "auto":
            value = typical_feature_value(X)
        else:
            value = float(self.intercept_scaling)
        check_intercept_scaling(self, value, X.shape[1])
        self.intercept_scaling_ = value

    def _allocate(self, n_features, n_columns, coef_init, intercept_init):
        """New state arrays ``(W, b)`` of shape ``(n_features, n_columns)``
        and ``(n_columns,)``: zeros, or ``coef_init`` / ``intercept_init``
        after checking their shape and finiteness.  A subclass with another
        state (the multiplicative regressors) overrides it."""
        coef_shape = self._shape_coef(np.empty((n_columns, n_features))).shape
        return initial_weights(
            n_features, n_columns, coef_init, intercept_init, coef_shape=coef_shape
        )

    def _validation_split(self, y, sample_weight):
        """``(train_idx, val_idx)`` of a ``fit``: a held-out
        ``validation_fraction`` with ``early_stopping``, else all rows and
        ``None``."""
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
        (:func:`sklearn_pa._core.driver.run_epochs`); returns (n_iter, t_end).

        ``stopping`` is true in ``fit`` (the stopping rule applies) and false
        in ``partial_fit`` (one epoch).  ``scores_out`` (one epoch, no
        shuffling) receives each row's scores computed before the update on
        it: those of the averaged model when averaging (the model
        ``predict`` uses), else of the current iterate."""
        adapter = self._epoch_adapter_class(
            self, X, y, sample_weight, W, b, U, bu, scores_out
        )
        # (fit hands over new accumulators, all zeros)
        adapter.averages_zero = stopping and U is not None
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
        if U is not None:
            self._average_from = adapter.avg_start
        return run.n_iter, run.t

    def _fit(self, X, y, coef_init, intercept_init, sample_weight):
        """Train from scratch (or from the current weights with
        ``warm_start``) for up to ``max_iter`` epochs; returns ``self``.

        ``coef_init`` / ``intercept_init`` start the weights; with
        ``warm_start`` the current standard weights do, when the data has as
        many features (a model of another shape is refused).  The public
        ``fit`` calls it inside ``atomic_update``."""
        previous = self.__dict__.get("classes_")
        X, y, sample_weight = check_batch(
            self, X, y, None, sample_weight, first_call=True, fitting=True
        )
        n_columns = self._n_columns()
        warm = False
        if self.warm_start and hasattr(self, "coef_") and coef_init is None:
            # as scikit-learn: continuing from a model of another size, or
            # of other classes, is an error, not a silent restart
            check_warm_start_shape(
                self, "coef_", np.shape(self.coef_), self._coef_shape()
            )
            check_warm_start_classes(self, previous)
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
            check_initial_scores(X, W, b)
        train_idx, val_idx = self._validation_split(y, sample_weight)
        U = np.zeros_like(W) if self.average else None
        bu = np.zeros_like(b) if self.average else None
        self._average_from = 1  # average="epoch" moves it to the last epoch
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
        """One unstopped epoch over a batch, continuing from the current
        state (the first call allocates it); returns ``self``, or, with
        ``record_scores``, the ``(n_samples, n_columns)`` scores each row got
        before its update (see ``__sklearn_pa_prequential__``).

        The parameters are validated whenever they changed since the last
        call (a parameter changed mid-stream is refused before any update),
        assigned learned arrays are checked against the model's dimensions,
        and the sample counter continues from ``t_``.  A later call whose
        parameters did not change and whose batch is in the kernels' form
        is checked in O(batch) and reuses the set-up of the previous call:
        no work proportional to the model
        (:func:`~sklearn_pa._core.stream_plan.stream_call`, the one path of
        every call).  The public ``partial_fit`` calls it inside
        ``atomic_update``."""
        return stream_call(self, X, y, classes, sample_weight, record_scores)

    def _stream_state(self, X, first_call):
        """``(W, b, U, bu, t_start)``: the kernel arrays a ``partial_fit``
        call on the validated rows ``X`` continues from and the sample count
        before it.  The first call allocates them (and sets the generator,
        the intercept's constant feature and the averaging start); a later
        one finds the arrays behind the published ``coef_`` (those the
        estimator published itself are trusted in O(1), assigned ones are
        checked) and checks ``t_``."""
        if first_call:
            W, b = self._allocate(X.shape[1], self._n_columns(), None, None)
            U = np.zeros_like(W) if self.average else None
            bu = np.zeros_like(b) if self.average else None
            self._rng = check_random_state(self.random_state)
            self._set_intercept_scaling(X)
            self._average_from = 1
            return W, b, U, bu, 0
        W, b = self._state_arrays()
        trusted = session_of(self).kernel_state
        if (
            self.average
            and trusted is not None
            and trusted[2] is W
            and (
                trusted[4] is self._average_accum
                and trusted[5] is self._average_intercept_accum
                and trusted[4] is not None
            )
        ):
            # the accumulators published beside W: no check needed
            U, bu = trusted[4], trusted[5]
        elif self.average:
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
        if self.average and not self._averaging_state():
            # average="epoch": a stream averages from its first step
            self._average_from = t_start + 1
        return W, b, U, bu, t_start

    def _pass_from(
        self, X, y, sample_weight, state, *, t_start, rng, lazy, scores_out=None
    ):
        """One unstopped pass over validated rows from the kernel state
        ``state`` (``W``, ``b``, ``U``, ``bu``, updated in place) at the
        sample count ``t_start``: what a ``partial_fit`` call runs once its
        batch and state are checked, and what parameter mixing runs on a
        partition (``_core/state.py``).  Sets ``n_iter_`` and ``t_`` and
        publishes the state (``lazy``: an average is formed when read);
        ``scores_out`` receives each row's scores before its update."""
        W, b, U, bu = state
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
            rng=rng,
            stopping=False,
            t_start=t_start,
            scores_out=scores_out,
        )
        self.n_iter_ = n_iter
        self.t_ = float(t) + 1.0
        self._publish(W, b, U, bu, lazy=lazy)

    def _weightless_batch(self, X, record_scores):
        """A later batch whose sample weights are all zero, validated: a
        no-op (nothing moves, neither the weights nor ``t_`` nor the
        average), as a batch of no rows; with ``record_scores``, the scores
        of the model as it is."""
        if not record_scores:
            return self
        scores = self.decision_function(X) if X.shape[0] else np.empty((0, 1))
        return scores.reshape(X.shape[0], -1)

    def _partial_fit_batch(self, X, y, classes, sample_weight, *, record_scores=False):
        """What the public ``partial_fit`` runs inside ``atomic_update``:
        ``_partial_fit``, or, for a classifier that adds classes as they
        come, ``_partial_fit`` on the segments of a batch that meets new
        labels (see ``OnlineLinearClassifierMixin._partial_fit_batch``)."""
        return self._partial_fit(
            X, y, classes, sample_weight, record_scores=record_scores
        )

    def __sklearn_pa_prequential__(
        self, X, y, classes=None, sample_weight=None, *, then=None
    ):
        """``partial_fit`` on a batch in its given order (no shuffling),
        returning the decision values each sample got just before the model
        learned from it.

        This is the package's prequential protocol, named as the state
        protocol (``__sklearn_pa_state__``) is, since the services call it
        on every family's learners: progressive validation
        (:func:`sklearn_pa.model_selection.progressive_val_predict`) and
        online calibration (:class:`~sklearn_pa.OnlineCalibratedClassifier`)
        make one kernel pass per batch instead of a predict / learn loop per
        sample.  Any estimator may implement it with this contract:

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
          falls back to predict / ``partial_fit``;
        - optionally takes a keyword ``predict_proba`` and then returns
          ``(scores, proba)``, the class probabilities of each row before its
          update as well (the confidence-weighted family,
          ``second_order/_base.py``);
        - takes a keyword ``then``: a function called with the scores inside
          the call's atomic block, after the pass (an online calibration
          learns from them there: if it raises, the model is left as it was,
          and a call that returns has done both).

        With ``average`` the kernel records the averaged model's scores (the
        model ``predict`` uses), computed before each update from the lazy
        averaging accumulators.
        """
        with atomic_update(self):
            args = (classes,) if is_classifier(self) else (None,)
            scores = self._partial_fit_batch(
                X, y, *args, sample_weight, record_scores=True
            )
            scores = self._recorded_scores(scores)
            if then is not None:
                then(scores)
        return scores

    def _recorded_scores(self, scores):
        """The scores the prequential protocol returns, from the
        ``(n_samples, n_columns)`` ones the pass recorded: one column as a
        vector."""
        return scores[:, 0] if scores.shape[1] == 1 else scores

    def _check_fitted_weights(self):
        """Raise ``NotFittedError`` unless ``coef_`` and ``intercept_`` are
        set."""
        check_is_fitted(self, ["coef_", "intercept_"])

    def __sklearn_pa_state__(self):
        """The state protocol of this estimator (used by parameter mixing).

        Returns
        -------
        state : LinearState
            Initialises, prepares blocks for, runs bare epochs on, reads,
            publishes and mixes the learned state of this estimator.
        """
        return LinearState(self, epochs=self._epoch_adapter_class)

    def __sklearn_tags__(self):
        """scikit-learn's tags: sparse input is accepted."""
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags


class OnlineLinearClassifierMixin(
    ClassifierPartialFitMixin, GrowingClassesMixin, LeanLabelsMixin
):
    """Classes, class weights and label encoding for the classifiers.

    The form of the targets is one strategy object of :mod:`._targets`
    (binary, multiclass, multilabel), chosen on the first batch of a ``fit``
    or of a ``partial_fit`` stream and kept in ``_target_strategy``; every
    target-dependent hook below asks it.  An estimator that accepts a
    multilabel indicator ``y`` lists :class:`~._targets.MultilabelTargets` in
    ``_target_kinds``.
    """

    #: the arrays a classifier saves (see ``_core/pickled_state.py``): ``k``
    #: rows of weights, one for two classes
    _state_shapes = {
        "coef_": ("k", "d"),
        "intercept_": ("k",),
        "_standard_coef": ("k", "d"),
        "_standard_intercept": ("k",),
        "_average_accum": ("d", "k"),
        "_average_intercept_accum": ("k",),
        "_published_average": Items((("k", "d"), ("k",))),
        "_expanded_class_weight": ("c",),
        "_cost_margins": ("c", "c"),
    }

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
        """The base class's batch validation, with ``y`` read by its target
        strategy: a multilabel indicator matrix is validated by
        :class:`~._targets.MultilabelTargets` (when the estimator accepts
        it); on a later batch the form of ``y`` must be the model's."""
        kind = self._target_kind_of(y)
        if not reset:
            self._target_strategy.check_form(kind, self.classes_)
        if not kind.multi_output:
            return super()._validate_batch(X, y, sample_weight, reset)
        X, y = kind.validate(self, X, y, reset=reset)
        return self._finish_batch(X, y, sample_weight, reset)

    def _prepare_targets(self, y, *, classes, first_call, fitting):
        """Choose the target strategy, the classes and the class weights
        (on a ``fit`` or the first ``partial_fit``), or check a later batch's
        labels against them; then adopt them (``_adopt_targets``).  With
        ``new_classes="add"``, a later batch's labels that are not in
        ``classes_`` are added first (``_grow_classes``)."""
        if first_call or fitting:
            strategy, classes_, cw = self._target_kind_of(y).start(
                self, y, classes=classes, fitting=fitting
            )
        else:
            if grows_classes(self) and not self._target_strategy.multi_output:
                new = added_classes(self.classes_, y, classes)
                if new.size:
                    self._grow_classes(np.union1d(self.classes_, new))
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
        """``(labels, targets)`` for the kernel: the int32 class index of
        each row and a dummy float64 array (no regression targets)."""
        return self._target_strategy.encode(self.classes_, y)

    def _n_columns(self):
        """One weight column per class (one for two classes)."""
        return self._target_strategy.n_columns(self.classes_)

    def _shape_coef(self, coef):
        """``coef_`` keeps the ``(n_columns, n_features)`` shape."""
        return coef

    def _kernel_extras(self, n_columns):
        """The class weights and margins of the target strategy."""
        return self._target_strategy.kernel_weights(
            self._expanded_class_weight, self.classes_, n_columns, self._rule()
        )

    def _kernel_label_arrays(self, y):
        """The multilabel rows as CSR arrays; none for single-label ``y``."""
        return self._target_strategy.label_arrays(y)

    def _validation_split(self, y, sample_weight):
        """The early-stopping split of the target strategy (stratified for
        single-label ``y``), checked by
        :func:`~sklearn_pa._core.batch.check_validation_split`."""
        if not self.early_stopping:
            return np.arange(y.shape[0]), None
        idx_train, idx_val = self._target_strategy.validation_split(
            y,
            validation_fraction=self.validation_fraction,
            random_state=self.random_state,
        )
        return check_validation_split(self, idx_train, idx_val, sample_weight)

    @locked_read
    def decision_function(self, X):
        """Confidence scores: the signed score of ``classes_[1]`` (two
        classes) or of each class.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Samples.

        Returns
        -------
        scores : ndarray of shape (n_samples,) or (n_samples, n_classes)
            ``X @ coef_.T + intercept_``; a 1-D array for two classes.
        """
        scores = self._lean_scores(X)
        if scores is None:
            # a CSR matrix is checked first: scipy's product trusts its
            # structure
            return super().decision_function(check_csr_structure(X))
        return scores[:, 0] if scores.shape[1] == 1 else scores

    @locked_read
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


def adopt_weights(estimator, coef, intercept, t, average=None):
    """Make ``coef`` / ``intercept`` (the standard weights, in the shape of
    ``coef_``) the fitted state of ``estimator`` after ``t - 1`` samples,
    and, with ``average`` (a pair: the averaged coef and intercept of those
    samples), the average a later ``partial_fit`` continues.  The estimator
    must be fitted (its targets chosen); the random stream of a later
    ``partial_fit`` starts from ``random_state``.

    The one way in for weights learned elsewhere
    (:mod:`sklearn_pa.migration` adopts scikit-learn's): it writes the
    family's private state, so it lives with the family."""
    n_features, n_columns = estimator.n_features_in_, estimator._n_columns()
    coef = np.asarray(coef, dtype=np.float64).reshape(n_columns, n_features)
    W = np.ascontiguousarray(coef.T)
    b = np.array(np.ravel(intercept), dtype=np.float64)
    estimator.t_ = float(t)
    estimator._rng = check_random_state(estimator.random_state)
    if not estimator.average:
        estimator._publish(W, b)
        return
    n_avg = estimator.t_ - estimator._average_start()
    U, bu = np.zeros_like(W), np.zeros_like(b)
    if average is not None and n_avg >= 1:
        avg_coef = np.asarray(average[0], dtype=np.float64)
        avg_coef = avg_coef.reshape(n_columns, n_features).T
        U = np.ascontiguousarray(n_avg * (W - avg_coef))
        bu = n_avg * (b - np.ravel(average[1]))
    estimator._publish(W, b, U, bu)
