"""The validated ``X`` as the kernels read it, and the epoch adapter of the
first-order linear learners.

:class:`_RowView` holds a float64 (or float32) dense or CSR matrix as the
arrays every kernel takes (one loop serves both layouts).
:class:`_LinearEpochs` makes one pass of the PA family, MIRA, multilabel
ranking and the gradient regressors over the rows the epoch driver
(:func:`sklearn_pa._core.driver.run_epochs`) gives it: one call of
``_first_order.epoch`` (or the estimator's ``_kernel_epoch``), one-vs-rest
columns that stop one by one, column blocks in threads.  The estimators
that use it are in :mod:`sklearn_pa.linear._base`.
"""

import numpy as np
from joblib import Parallel, delayed, effective_n_jobs

from .._compiled import _first_order
from ._calls import RowView as _RowView
from ._calls import check_writes
from ._passes import bound_first_order_run
from .batch import touched_rows
from .driver import EpochAdapter, EpochStats
from .rules import spec

__all__ = ["_LinearEpochs", "_RowView"]


#: The most values (non-zeros, or entries of dense rows) of a batch whose
#: pass logs its writes: each row's step may write its values in every
#: column it moves, so a log grows with the rows, while the rows of the
#: weights the batch indexes grow with its distinct features only.  On a
#: model of 20 columns, a batch of about 100 rows of 100 non-zeros is where
#: copying the rows starts to cost less (``SmallBatchLatencySuite`` of
#: ``asv_benchmarks/benchmarks/latency.py`` times both sides).
LOGGED_VALUES_MAX = 8192


class _EpochAveraging:
    """``average="epoch"`` for an adapter with the lazy accumulators ``U``,
    ``bu`` (``None`` without averaging), the arrays ``U_``, ``bu_`` the
    kernel is given (empty: no averaging), ``avg_start`` (the first
    averaged step), ``active`` and ``avg_start_col`` (per column).

    Before each epoch of ``fit`` that may end the run, the accumulators of
    the columns still learning restart from zero and the average starts at
    the epoch's first step: ``coef_`` is then the average of the last
    epoch's iterates.  An epoch that cannot end the run (one of the first
    ``max_iter - 1`` with ``tol=None``) is not averaged at all, which saves
    the accumulators' updates.  A ``partial_fit`` stream never restarts.
    ``averages_zero`` says that ``U`` and ``bu`` hold zeros (``fit`` hands
    over new ones): the first restart then leaves them alone, instead of
    writing 8 bytes per weight (and faulting in the pages of a new ``U``)."""

    averages_zero = False

    def start_epoch(self, t, may_end):
        if self.U is None or not isinstance(self.estimator.average, str):
            return
        if not may_end:
            self.U_, self.bu_ = self.U[:0], self.bu[:0]
            return
        active = self.active.astype(bool)
        if self.averages_zero:
            self.averages_zero = False  # this epoch writes into them
        elif active.all():
            self.U.fill(0.0)
            self.bu.fill(0.0)
        else:
            self.U[:, active] = 0.0
            self.bu[active] = 0.0
        self.avg_start = int(t) + 1
        self.avg_start_col[active] = self.avg_start
        self.U_, self.bu_ = self.U, self.bu


class _LinearEpochs(_EpochAveraging, EpochAdapter):
    """The epoch adapter of the first-order linear learners (PA family,
    gradient regressors): one pass is one ``_kernel_epoch`` call, split over
    column blocks run in threads for one-vs-rest with ``n_jobs``.

    It updates ``W``, ``b`` (and the averaging accumulators ``U``, ``bu``)
    in place.  One-vs-rest columns stop on their own (``n_loss`` is the
    number of columns): a frozen column is ``active == 0`` for the kernel
    and remembers in ``t_stop`` the sample count at which it froze.

    Everything the kernel reads is gathered once, at construction, from the
    estimator's hooks: ``_targets(y)`` (labels and regression targets),
    ``_kernel_extras`` (class weights, margins), ``_kernel_label_arrays``
    (multilabel rows), ``_kernel_params()`` (the rule) and
    ``_average_start()``; each epoch then only calls ``_kernel_epoch``.

    ``X``, ``y``, ``sample_weight`` are the validated batch; ``W``
    ``(n_features, n_columns)``, ``b`` ``(n_columns,)`` and the accumulators
    ``U``, ``bu`` (``None`` without averaging) are updated in place;
    ``scores_out`` ``(n_samples, n_columns)``, when given, receives each
    row's scores before its update (progressive validation).
    """

    def __init__(self, estimator, X, y, sample_weight, W, b, U, bu, scores_out):
        est = self.estimator = estimator
        self.W, self.b, self.U, self.bu = W, b, U, bu
        n_columns = self.n_columns = W.shape[1]
        self.weight_pos, self.weight_neg, self.margins = est._kernel_extras(n_columns)
        self.weight_step = est._kernel_weight_step()
        self.bind(X, y, sample_weight, scores_out)
        self.ovr = spec(self.params["rule"]).one_vs_rest
        self.n_loss = n_columns if self.ovr else 1
        self.active = np.ones(n_columns, dtype=np.uint8)
        self.t_stop = np.full(n_columns, -1, dtype=np.int64)  # when a column froze
        self.intercept_sq = est.intercept_scaling_**2 if est.fit_intercept else 0.0
        self.avg_start = est._average_start() if U is not None else 0
        self.avg_start_col = np.full(n_columns, self.avg_start, dtype=np.int64)
        self._bound = None  # (see _first_order_pass)
        self._writes = None  # (see journal)
        self.U_ = U if U is not None else np.zeros((0, n_columns))
        self.bu_ = bu if bu is not None else np.zeros(0)
        n_jobs = effective_n_jobs(getattr(est, "n_jobs", None)) if self.ovr else 1
        self.n_jobs = max(1, min(n_jobs, n_columns))
        self.t_end = 0

    def bind(self, X, y, sample_weight, scores_out=None, *, same_rule=False):
        """Take the validated batch ``X``, ``y``, ``sample_weight`` (and
        ``scores_out``) for the next passes: what an adapter reads per batch,
        so that a stream of ``partial_fit`` calls reuses one adapter (the
        lean path's :class:`~sklearn_pa._core.stream_plan.StreamPlan`).  The
        weights, the class weights and the averaging start stay those of
        the construction; the rule is stated again, unless ``same_rule``
        says that the parameters and the targets' strategy are those of the
        last batch and ``y`` holds single labels or values (no label
        arrays)."""
        est = self.estimator
        self.X, self.y, self.sample_weight = X, y, sample_weight
        self.scores_out = scores_out
        self.rows = _RowView(X)
        self.labels, self.targets = est._targets(y)
        if same_rule and scores_out is None:
            return
        label_arrays = est._kernel_label_arrays(y)
        if scores_out is not None and self.U is not None:
            label_arrays = dict(label_arrays, score_average=True)
        if self.weight_step:
            label_arrays = dict(label_arrays, weight_step=True)
        self.label_arrays = label_arrays
        self.params = est._kernel_params()

    def run(self, order, t):
        """One compiled pass over the rows ``order``, the sample counter
        starting at ``t``; returns its :class:`~sklearn_pa._core.driver.EpochStats`.

        With one-vs-rest and ``n_jobs > 1`` the columns are split into
        ``n_jobs`` blocks run in threads (the kernel releases the GIL); the
        mistakes are then not counted."""
        est = self.estimator
        loss = np.zeros(self.n_loss)
        n_columns, n_jobs = self.n_columns, self.n_jobs
        t, avg_start = int(t), int(self.avg_start)
        t_end = t + order.shape[0]
        # (the write log the journal made for this pass: see journal)
        writes, self._writes = self._writes, None
        made = True
        bound = {}
        if self._calls_first_order():
            # the compiled epoch itself when the class's hook only calls it,
            # with what stays the same between passes bound once
            kernel = _first_order.epoch
            pass_, made = self._first_order_pass()
            bound = {"bound": pass_, "write_log": writes}
        else:
            kernel = est._kernel_epoch

        if not made and n_jobs == 1:
            # (a pass bound before, in this thread: its run, without the
            # keywords, and without the closure the general case needs)
            result = bound_first_order_run(
                pass_, self, order, t, avg_start, loss, 0, n_columns, writes
            )
        else:

            def run(c0, c1):
                if not made:
                    # (a pass bound before, in threads over columns)
                    return bound_first_order_run(
                        pass_, self, order, t, avg_start, loss, c0, c1, writes
                    )
                return kernel(
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
                    t0=t,
                    average_start=avg_start,
                    loss_out=loss,
                    col_start=c0,
                    col_stop=c1,
                    scores_out=self.scores_out,
                    **self.label_arrays,
                    **bound,
                )

            if n_jobs > 1:
                bounds = np.linspace(0, n_columns, n_jobs + 1).astype(int)
                results = Parallel(n_jobs=n_jobs, prefer="threads")(
                    delayed(run)(bounds[j], bounds[j + 1]) for j in range(n_jobs)
                )
                return self._stats(
                    (
                        -1,
                        sum(r[1] for r in results),
                        max(r[2] for r in results),
                        any(r[3] for r in results),
                    ),
                    loss,
                    t_end,
                )
            result = run(0, n_columns)
        if writes is not None:
            check_writes(est, writes)
        return self._stats(result, loss, t_end)

    def _calls_first_order(self):
        """Whether the passes run the compiled first-order epoch itself (the
        estimator's ``_kernel_epoch`` only calls it)."""
        est = self.estimator
        return "_kernel_epoch" not in est.__dict__ and getattr(
            type(est)._kernel_epoch, "calls_first_order", False
        )

    def _stats(self, result, loss, t_end):
        """The :class:`~sklearn_pa._core.driver.EpochStats` of a pass that
        returned ``result`` (mistakes, updates, skipped rows, overflow) and
        wrote ``loss``, the sample counter ending at ``t_end``."""
        mistakes, n_updates, n_skipped, overflow = result
        self.t_end = t_end
        return EpochStats(loss, int(n_updates), int(mistakes), int(n_skipped), overflow)

    def _first_order_pass(self):
        """``(pass, made)``: the
        :class:`~sklearn_pa._compiled._first_order.FirstOrderPass` of this
        adapter's weights, rule and column arrays, and whether it was made
        now, because the one kept does not bind them
        (``FirstOrderPass.binds``: parameter mixing hands a copy of an
        adapter new weights and columns, :meth:`bind` states the rule
        again).  A pass made now runs through ``_first_order.epoch`` (the
        kernel's checked entry); a later one calls the pass's ``run``
        (:func:`~sklearn_pa._core._passes.bound_first_order_run`)."""
        made = False
        bound = self._bound
        weight_step = bool(self.weight_step)
        if bound is None or not bound.binds(
            self.W,
            self.b,
            self.params,
            self.weight_pos,
            self.weight_neg,
            self.margins,
            self.active,
            self.intercept_sq,
            weight_step,
        ):
            bound = self._bound = _first_order.FirstOrderPass(
                self.W,
                self.b,
                params=self.params,
                weight_pos=self.weight_pos,
                weight_neg=self.weight_neg,
                margins=self.margins,
                active=self.active,
                intercept_sq=self.intercept_sq,
                weight_step=weight_step,
            )
            made = True
        return bound, made

    def journal(self, journal, order):
        """Keep, for ``journal``, the pre-images of what the next pass may
        write.  A pass of the compiled first-order epoch in one thread logs
        each entry it writes just before writing it (``journal.save_writes``:
        the few entries of its steps, read in cache); any other saves the
        rows of ``W`` (and ``U``) of the features the batch touches, and
        ``b`` (and ``bu``) whole: a batch of more than
        :data:`LOGGED_VALUES_MAX` values, or a pass in threads over columns
        (each thread writes its own), keeps those rows."""
        est = self.estimator
        # (a subclass whose passes are its own saves what they may write)
        runs_here = type(self).run is _LinearEpochs.run
        if (
            runs_here
            and self.n_jobs == 1
            and self.rows.n_values() <= LOGGED_VALUES_MAX
            and self._calls_first_order()
        ):
            self._writes = journal.save_writes(est, self.W, self.b, self.U_, self.bu_)
            return
        self._writes = None
        journal.save_weights(
            est, touched_rows(self.rows), self.W, self.b, self.U_, self.bu_
        )

    def publish(self):
        """Set ``t_`` and the public ``coef_`` / ``intercept_`` from the
        arrays (the validation score of early stopping reads them)."""
        est = self.estimator
        est.t_ = float(self.t_end) + 1.0
        est._publish(self.W, self.b, self.U, self.bu)

    def summary(self):
        """The weight norm, non-zero count and bias for ``verbose >= 2``."""
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
        """Stop updating the one-vs-rest ``columns`` (a boolean mask) that
        converged; returns whether every column is now frozen."""
        self.t_stop[columns & (self.active == 1)] = self.t_end
        self.active[columns] = 0
        return not self.active.any()

    def rescale_averages(self, t):
        """A one-vs-rest column that converged early is averaged over its own
        steps, as an independent binary model would be: rescale its lazy
        accumulator so that ``W - U / (t - start + 1)`` gives that average
        (with ``average="epoch"``, the average of its own last epoch)."""
        U, bu = self.U, self.bu
        if U is None or self.active.all():
            return  # (no column froze: each has the common average)
        t_stop, avg_start = self.t_stop, self.avg_start
        n_avg = t - avg_start + 1
        for k in np.flatnonzero((t_stop >= 0) & (t_stop < t)):
            n_avg_k = t_stop[k] - self.avg_start_col[k] + 1
            if n_avg_k >= 1:
                U[:, k] *= n_avg / n_avg_k
                bu[k] *= n_avg / n_avg_k
