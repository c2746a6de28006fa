"""The epoch adapter of the confidence-weighted family (CW, AROW, SCW and
SCCW): one pass is one call of the second-order kernel over the rows the
epoch driver gives it (:func:`sklearn_pa._core.driver.run_epochs`).  The
estimators are in :mod:`sklearn_pa.second_order._base`."""

import numpy as np
from sklearn.utils.parallel import _get_threadpool_controller

from .._compiled import _second_order
from .._compiled._rules import SecondOrderRule
from .._core import epochs
from .._core._calls import rows_finite, with_index
from .._core._passes import bound_second_order_run
from .._core.batch import call_values, touched_rows
from .._core.driver import EpochAdapter, EpochStats
from .._core.epochs import _EpochAveraging, _RowView
from .._core.rules import check_combination, spec

__all__ = [
    "LOGGED_ENTRIES_MAX",
    "_SecondOrderEpochs",
    "_variances",
    "batch_arrays",
    "logged_per_value",
]

_NO_WEIGHTS = np.ones(0)

#: The most entries a ``partial_fit`` call of a diagonal covariance logs
#: (``logged_per_value`` times its batch's values and rows: a step logs its
#: row's non-zeros and the intercept's entry); a larger batch keeps the
#: rows its features index instead.  A log grows with the rows' non-zeros
#: and the columns each step writes, a copy of rows with their distinct
#: features: on a model of 20 Newsgroups' shape (130,107 features, 20
#: classes; random rows of 80 non-zeros) the log costs less up to about
#: half a million entries (AROW: 1,000-row calls 7.2 → 4.8 ms, 5,000-row
#: calls 33 → 39; CW's support-class rule, which may write every column,
#: 300-row calls 1.8 either way and 1,000-row calls 6.3 → 12.4).
LOGGED_ENTRIES_MAX = 2**19


def _compiled_pass():
    """The compiled pass class of the second-order kernel module, or None
    when the module is a stand-in without one (it then neither binds nor
    logs: a call keeps the rows its batch indexes)."""
    return getattr(_second_order, "SecondOrderPass", None)


def logged_per_value(rule, n_columns, averaging):
    """The most entries a row's step logs per non-zero of the row (and for
    its intercept's entry), for the constraint rule ``rule`` on
    ``n_columns`` weight columns: the mean columns its multiclass mode in
    the registry may write (each with its average when ``averaging``) and
    the covariance blocks.  A mode with no count here raises KeyError."""
    modes = spec(rule, SecondOrderRule).multiclass
    pairs = n_columns - 1
    columns, blocks = {
        None: (1, 1),  # (a regression rule: one column, one block)
        "binary": (1, 1),
        "single": (2, 2),
        "sequential": (2 * pairs, 2 * pairs),
        "support": (n_columns, 1),
    }[modes[0] if modes else None]
    return columns * (2 if averaging else 1) + blocks


class _SecondOrderEpochs(_EpochAveraging, EpochAdapter):
    """The epoch adapter of CW, AROW, SCW and SCCW: one pass is one call of
    the second-order kernel, which updates the mean ``W``, ``b``, the
    covariance ``sigma`` (diagonal or full) and the averaging accumulators
    in place.  An overflow restores ``W``, ``b``, ``U`` and ``bu`` as they
    were before the first epoch."""

    skipped_reason = (
        "their squared norm or scores overflowed; scale the input "
        "(StandardScaler, MaxAbsScaler)."
    )
    overflow_message = (
        "the weights are no longer finite. Scale the input (StandardScaler, "
        "MaxAbsScaler)."
    )

    def __init__(
        self,
        estimator,
        sample_weight,
        W,
        b,
        U,
        bu,
        *,
        sigma,
        rows,
        labels,
        params,
        scores_out=None,
        var_out=None,
        targets=None,
    ):
        est = self.estimator = estimator
        self.scores_out, self.var_out = scores_out, var_out
        self.sample_weight = sample_weight
        self.W, self.b, self.U, self.bu = W, b, U, bu
        self.sigma, self.rows, self.labels, self.params = sigma, rows, labels, params
        self.targets = targets  # (regression: SO_REGRESSION reads them)
        self.reads_targets = targets is not None
        if sigma.ndim == 3:
            self.S_diag, self.S_full = np.zeros((0, 1)), sigma
        else:
            self.S_diag, self.S_full = sigma, np.zeros((0, 1, 1))
        # the arrays as they were, for an overflow outside partial_fit (a
        # partial_fit call journals what its pass writes instead)
        self.backup = None
        self.touched = None  # the rows of sigma the pass writes (None: all)
        self._writes = None  # the write log of a journaled pass (see journal)
        self._per_value = None  # (params, logged_per_value of their rule)
        self.U_ = U if U is not None else np.zeros((0, W.shape[1]))
        self.bu_ = bu if bu is not None else np.zeros(0)
        self.intercept = float(est.intercept_scaling_) if est.fit_intercept else 0.0
        self.avg_start = est._average_start() if U is not None else 0
        # (one set of columns, all learning: for average="epoch")
        self.active = np.ones(W.shape[1], dtype=np.uint8)
        self.avg_start_col = np.full(W.shape[1], self.avg_start, dtype=np.int64)
        # one BLAS call per row on a D x D matrix: threads only add overhead
        # (and oversubscribe a busy machine)
        self.full = sigma.ndim == 3
        self.t_end = 0
        # the compiled pass with what stays the same bound, reused while
        # its arrays, rule and class weights are the same objects
        self._pass = None

    def bind(self, X, y, sample_weight, scores_out=None, *, same_rule=False):
        """Take the validated batch ``X``, ``y``, ``sample_weight`` for the
        next pass of a stream that reuses this adapter (the lean path's
        :class:`~sklearn_pa._core.stream_plan.StreamPlan`; no recorded scores).
        The mean, covariance, averages and class weights stay those of the
        construction; the rule is stated again, unless ``same_rule`` says
        that the parameters and the targets' strategy are those of the last
        batch."""
        est = self.estimator
        self.sample_weight, self.scores_out, self.var_out = sample_weight, None, None
        if same_rule:
            labels, targets = est._targets(y)
            self.rows, self.labels = _RowView(X), labels
            self.targets = targets if self.reads_targets else None
        else:
            self.rows, self.labels, self.targets, self.params = batch_arrays(est, X, y)
        self.backup = self.touched = self._writes = None

    def journal(self, journal, order):
        """Keep, for ``journal``, the pre-images of what the next pass may
        write.  A pass on a diagonal covariance logs each entry of the mean,
        its averages and the covariance just before a step may write it
        (``journal.save_writes``: the few entries of its steps), unless the
        log may exceed :data:`LOGGED_ENTRIES_MAX` entries or its rule may
        rescale the whole covariance.  Otherwise the
        rows of the mean (and averages) and of the diagonal covariance that
        the batch's features index are saved, the intercepts, and a full
        covariance whole (a dense row's update writes all of it)."""
        self.backup = ()
        # a rule that may rescale the whole covariance in this pass (IELLIP
        # early in a stream) writes every row
        # (read on the class: a miss on the estimator would ask its
        # publications, PublishedWhenReadMixin.__getattr__)
        rescales = getattr(type(self.estimator), "_rescales_covariance", None)
        rescales = rescales is not None and rescales(self.estimator)
        if (
            not self.full
            and not rescales
            and type(self).run is _SecondOrderEpochs.run
            and (self.rows.n_values() + order.shape[0]) * self._logged_per_value()
            <= LOGGED_ENTRIES_MAX
            and _compiled_pass() is not None
        ):
            self._writes = journal.save_writes(
                self.estimator, self.W, self.b, self.U_, self.bu_, self.S_diag
            )
            return
        rows = touched_rows(self.rows)
        self.touched = None
        if rows is not None and not rescales:
            self.touched = with_index(rows, self.W.shape[0])
        self._writes = None
        journal.save_weights(self.estimator, rows, self.W, self.b, self.U_, self.bu_)
        journal.save(self.S_diag, self.touched)
        journal.save(self.S_full)

    def _logged_per_value(self):
        """:func:`logged_per_value` of this adapter's rule (kept while the
        rule is the same object)."""
        cached = self._per_value
        if cached is not None and cached[0] is self.params:
            return cached[1]
        per_value = logged_per_value(
            self.params["rule"], self.W.shape[1], self.U is not None
        )
        self._per_value = (self.params, per_value)
        return per_value

    def run(self, order, t):
        est = self.estimator
        loss = np.zeros(1)
        # the margins a call asks its passes to record (the calibration of
        # predict_proba): each row's scores and variances before its update
        margins = call_values().get("margins")
        if margins is not None:
            if self.scores_out is None:
                self.scores_out = np.empty((order.shape[0], self.W.shape[1]))
            if self.var_out is None:
                n_blocks = self.S_full.shape[0] if self.full else self.S_diag.shape[1]
                self.var_out = np.empty((order.shape[0], n_blocks))
        if self.backup is None:
            self.backup = [
                a.copy() for a in (self.W, self.b, self.U, self.bu) if a is not None
            ]
        # (the journal's write log serves this pass only)
        writes, self._writes = self._writes, None
        if self.full:
            with _get_threadpool_controller().limit(limits=1, user_api="blas"):
                result = self._epoch(order, t, loss)
        else:
            result = self._epoch(order, t, loss, writes)
        if writes is not None:
            # (a NaN weight a row read, or a log that could not grow: the
            # call fails and its journal writes the logged entries back)
            epochs.check_writes(est, writes)
        mistakes, n_updates, n_skipped, overflow = result
        if margins is not None:
            n = order.shape[0]
            margins.append((self.scores_out[:n], self.var_out[:n], self.labels, order))
        est._last_epoch_mistakes = (int(mistakes), int(order.shape[0]))
        self.t_end = int(t) + order.shape[0]
        # (only the entries this pass wrote can have overflowed: those it
        # logged, or the rows its batch touches; read in place)
        overflow = bool(overflow)
        if not overflow:
            sigma = self.sigma
            if self.full:
                overflow = not np.all(np.isfinite(sigma))
            elif writes is not None:
                overflow = not writes.written_finite(sigma)
            else:
                overflow = not rows_finite(sigma, self.touched)
        return EpochStats(loss, int(n_updates), int(mistakes), int(n_skipped), overflow)

    def _epoch(self, order, t, loss, writes=None):
        """The compiled pass over the rows ``order`` from the sample count
        ``t``, its loss summed into ``loss``, logging its writes in
        ``writes`` (a write log, or None)."""
        # (a regressor has no class weights; read in the attributes: a miss
        # on the estimator would ask its publications)
        est = self.estimator
        class_weight = est.__dict__.get("_expanded_class_weight", _NO_WEIGHTS)
        bound, made = self._bound_pass(class_weight)
        if bound is not None and not made:
            # (a pass bound before: its run, without the keywords)
            return bound_second_order_run(bound, self, order, int(t), loss, writes)
        return _second_order.epoch(
            self.rows,
            order,
            params=self.params,
            labels=self.labels,
            sample_weight=self.sample_weight,
            class_weight=class_weight,
            W=self.W,
            b=self.b,
            S_diag=self.S_diag,
            S_full=self.S_full,
            U=self.U_,
            bu=self.bu_,
            intercept=self.intercept,
            t0=int(t),
            average_start=int(self.avg_start),
            loss_out=loss,
            scores_out=self.scores_out,
            var_out=self.var_out,
            targets=self.targets,
            bound=bound,
            write_log=writes,
        )

    def _bound_pass(self, class_weight):
        """``(pass, made)``: the
        :class:`~sklearn_pa._compiled._second_order.SecondOrderPass` of this
        adapter's arrays, rule and class weights, made once and reused while
        they are the same objects (None when the kernel module has none),
        and whether it was made now.  A pass made now runs through
        ``_second_order.epoch`` (the kernel's checked entry); a later one
        calls the pass's ``run``
        (:func:`~sklearn_pa._core._passes.bound_second_order_run`)."""
        make = _compiled_pass()
        if make is None:
            return None, True
        made = False
        bound = self._pass
        args = (self.W, self.b, self.S_diag, self.S_full)
        if bound is None or not bound.binds(
            *args, self.params, class_weight, self.intercept
        ):
            bound = self._pass = make(
                *args,
                params=self.params,
                class_weight=class_weight,
                intercept=self.intercept,
            )
            made = True
        return bound, made

    def failed(self):
        # (a journaled partial_fit call is restored by atomic_update)
        arrays = (a for a in (self.W, self.b, self.U, self.bu) if a is not None)
        for saved, a in zip(self.backup or (), arrays):
            a[...] = saved

    def publish(self):
        est = self.estimator
        est.t_ = float(self.t_end) + 1.0
        est._sigma = self.sigma
        est._publish(self.W, self.b, self.U, self.bu)

    def summary(self):
        W, b = self.W, self.b
        return {
            "Norm": f"{np.linalg.norm(W):.2f}",
            "Bias norm": f"{np.linalg.norm(b):.6f}",
            "Mean variance": f"{float(np.mean(_variances(self.sigma))):.6g}",
        }


def batch_arrays(estimator, X, y):
    """``(rows, labels, targets, params)`` of a validated batch, as the
    second-order kernel reads them: the row view, the class indices, the
    regression targets (None unless the rule reads them) and the rule.

    The rule, the step and the estimator's ``covariance`` are checked
    against what the registry declares of them
    (:func:`~sklearn_pa._core.rules.check_combination`) before any compiled
    call: a refusal names the estimator's parameter and its accepted
    values; so is a ``covariance_floor`` with ``covariance="full"``
    (refused)."""
    labels, targets = estimator._targets(y)
    params = estimator._kernel_params()
    rule_spec, _ = check_combination(
        "second_order",
        {"rule": params["rule"], "step": params["step"]},
        covariance=estimator.covariance,
        owner=type(estimator).__name__,
    )
    if params["floor"] > 0.0 and estimator.covariance == "full":
        raise ValueError(
            f"{type(estimator).__name__} cannot run covariance_floor="
            f"{estimator.covariance_floor!r} with covariance='full': the floor is "
            "a lower bound on the eigenvalues of the covariance, which for a full "
            "covariance needs an eigendecomposition (O(D^3)) at every update. "
            "Use covariance='diagonal' (whose eigenvalues are its entries, "
            "floored at O(non-zeros) per row), or covariance_floor=None."
        )
    if rule_spec.y != "values":
        targets = None
    return _RowView(X), labels, targets, params


def _variances(sigma):
    """The variances (the diagonal of each covariance block)."""
    if sigma.ndim == 3:
        return np.diagonal(sigma, axis1=1, axis2=2)
    return sigma
