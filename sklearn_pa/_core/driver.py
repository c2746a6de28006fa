"""The one epoch driver: every estimator of the package trains through it.

An online learner makes passes ("epochs") over its training rows.  What one
pass does is the family's own business (a compiled kernel updating weights,
a covariance, dual coefficients, ...); everything around the passes is the
same for every family and lives here, once:

- the order of the rows (a fresh ``rng.permutation`` of the training rows
  per epoch when ``shuffle``, else their given order);
- the per-epoch statistics (mean loss, updates, mistakes) and the training
  history ``loss_curve_`` / ``validation_scores_`` (named as in
  scikit-learn's ``MLPClassifier``);
- the stopping rule: ``n_iter_no_change`` epochs whose mean loss is not
  ``tol`` below the best so far, or, with ``early_stopping``, whose score on
  the held-out ``validation_fraction`` is not ``tol`` above the best;
- the ``ConvergenceWarning`` when ``max_iter`` epochs ran without meeting
  that rule, the ``RuntimeWarning`` for rows a kernel skipped because their
  values overflowed, and the ``ValueError`` when the learned state is no
  longer finite;
- the ``verbose`` lines (``-- Epoch i/max_iter, Avg. loss: ...``; with
  ``verbose >= 2`` also the updates, mistakes and the adapter's norms;
  ``partial_fit`` prints ``-- partial_fit call n`` instead of an epoch).

A family plugs in with an *adapter*: a small object whose :meth:`~EpochAdapter.run`
makes one pass over the rows it is given and returns an :class:`EpochStats`.
See :class:`EpochAdapter` for the rest of its (optional) methods, and
:func:`run_epochs` for the loop itself.

The adapters, one per family:

- ``_core.epochs._LinearEpochs``: the first-order linear learners (the PA family,
  MIRA, multilabel ranking, the gradient regressors), one compiled epoch,
  one-vs-rest columns that stop one by one, column blocks in threads;
- ``second_order._epochs._SecondOrderEpochs``: CW, AROW, SCW and SCCW;
- ``bayes_point._epochs._BayesPointEpochs``: the copies of the Bayes point
  machine;
- ``kernel._base._KernelEpochs``: kernel PA and its support set;
- ``one_class._one_class._UniclassEpochs``: the one-class PA ball;
- ``sequence._base._SequenceEpochs``: the sequence taggers.

The driver is plain Python, called once per epoch: it never touches a row.
"""

import time
import warnings
from dataclasses import dataclass, field

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from ..utils._shuffle import shuffle_int64
from ._calls import epoch_order as _epoch_order
from ._calls import one_pass as _one_pass
from ._calls import record_history as _record_history
from ._calls import stream_epoch
from .batch import current_journal

__all__ = [
    "EpochAdapter",
    "EpochRun",
    "EpochStats",
    "run_epochs",
    "stream_epoch",
    "validation_scorer",
]

#: The ConvergenceWarning's text, as scikit-learn's SGD estimators word it.
CONVERGENCE_MESSAGE = (
    "Maximum number of iteration reached before convergence. Consider "
    "increasing max_iter to improve the fit."
)

_BIG = float(np.finfo(np.float64).max)


@dataclass(slots=True)
class EpochStats:
    """What one pass over the rows reports to the driver.

    Attributes
    ----------
    loss : ndarray of shape (n_loss,)
        The summed loss of the pass: one entry per one-vs-rest column (each
        column then stops on its own), else one.
    n_updates : int
        Number of (row, model) updates made.
    mistakes : int, default=-1
        Number of mispredicted rows; -1 when the family does not count them
        (regression, one-class).
    n_skipped : int, default=0
        Rows skipped because their squared norm, scores or step were not
        finite; the driver warns about them.
    overflow : bool, default=False
        True when the learned state is no longer finite; the driver raises.
    """

    loss: np.ndarray
    n_updates: int
    mistakes: int = -1
    n_skipped: int = 0
    overflow: bool = False


@dataclass
class EpochRun:
    """What :func:`run_epochs` returns.

    Attributes
    ----------
    n_iter : int
        Number of epochs run.
    t : int
        The sample counter after the last epoch (``t_start`` plus the rows
        of every epoch).
    history : list of float
        Mean loss of each epoch of this run (what ``loss_curve_`` receives,
        or, for ``partial_fit``, what is appended to it); an epoch
        whose loss does not fit in a float64 records the largest float.
    validation_scores : list of float or None
        Validation score after each epoch, with early stopping.
    converged : bool
        Whether the stopping rule ended the run before ``max_iter``.
    """

    n_iter: int
    t: int
    history: list = field(default_factory=list)
    validation_scores: list | None = None
    converged: bool = False


class EpochAdapter:
    """Base class of the family adapters: one pass over rows, and a few hooks.

    A subclass implements :meth:`run`; the other methods have defaults.  An
    adapter holds whatever its kernel needs (the row view, the labels, the
    learned arrays it updates in place) and is built once per ``fit`` or
    ``partial_fit`` call.

    Attributes
    ----------
    n_loss : int
        Length of :attr:`EpochStats.loss` (the number of one-vs-rest columns
        when each stops on its own, else 1).
    skipped_reason : str
        Completes the skipped-row warning: "N rows were skipped at epoch i
        because <skipped_reason>".
    overflow_message : str
        Completes the overflow error: "Floating-point overflow at epoch i:
        <overflow_message>".
    """

    n_loss = 1
    skipped_reason = (
        "their squared norm, scores or step overflowed; scale the input "
        "(StandardScaler, MaxAbsScaler)."
    )
    overflow_message = (
        "the weights are no longer finite. Scale the input (StandardScaler, "
        "MaxAbsScaler) or lower C."
    )

    def run(self, order, t):
        """Make one pass over the rows ``order`` (int64 indices), the sample
        counter being ``t`` before the first of them; return an
        :class:`EpochStats`."""
        raise NotImplementedError

    def start_epoch(self, t, may_end):
        """Called before each epoch of a run that is not a ``partial_fit``
        call (``fit``, the rounds of parameter mixing), the sample counter
        being ``t``; ``may_end`` says whether the run may end with this
        epoch (it is the last of ``max_iter``, or the stopping rule may stop
        after it; always true with early stopping, whose validation scores
        the published state after every epoch).  ``average="epoch"``
        restarts its average here, and skips the averaging of an epoch that
        cannot be the last."""

    def publish(self):
        """Expose the current state as the estimator's fitted attributes
        (the driver calls it before scoring the validation split)."""

    def summary(self):
        """Extra ``name: value`` items for the ``verbose >= 2`` line (norms,
        bias, number of support vectors, ...).  A ``"T"`` item replaces the
        driver's sample count (a tagger counts tokens, not sequences)."""
        return {}

    def freeze(self, columns):
        """Stop updating the one-vs-rest columns where ``columns`` (bool,
        shape ``(n_loss,)``) is true; called after each epoch of ``fit``
        with every column whose loss stopped improving.  Returns whether
        every column is now frozen (the run then ends)."""
        return bool(np.all(columns))

    def failed(self):
        """Called before the overflow error is raised: undo what must not
        survive it (the estimator's state is restored by the caller)."""

    def journal(self, journal, order):
        """Save in ``journal`` (a :class:`~sklearn_pa._core.batch.Journal`)
        every learned entry the pass over the rows ``order`` may write,
        before it runs: the driver calls it in a ``partial_fit`` call, whose
        failure (an overflow, a warning turned into an error,
        ``KeyboardInterrupt``) then writes them back.  Save only what the
        rows can reach (the rows of a feature-major array that the batch's
        features index), so that the call costs what its rows cost; a pass
        whose kernel logs each entry before writing it takes a write log
        instead (``journal.save_writes``, as the first-order adapter does),
        which costs what its steps write.  An
        adapter that does not say what it writes cannot be journaled: this
        default refuses, so that no family silently loses its atomicity."""
        raise NotImplementedError(
            f"{type(self).__name__} does not say which learned entries a pass "
            "writes (EpochAdapter.journal)."
        )


def validation_scorer(estimator, X, y, sample_weight, val_idx):
    """A function scoring ``estimator`` on the held-out rows ``val_idx``.

    It calls ``estimator._score_for_stopping`` (accuracy for a classifier,
    R^2 for a regressor, token accuracy for a sequence tagger, unless the
    estimator says otherwise).  ``X`` is the validated array: the feature
    names of a DataFrame the estimator was fitted on are set aside while
    scoring, so that it does not warn that ``X`` has none.  ``X`` may also
    be a list of sequences and ``y`` a list of label sequences (the
    taggers): ``val_idx`` then picks whole sequences, and ``sample_weight``
    may be None.
    """
    if isinstance(X, list):
        X_val, y_val = [X[i] for i in val_idx], [y[i] for i in val_idx]
        w_val = None if sample_weight is None else sample_weight[val_idx]
    else:
        X_val, y_val, w_val = X[val_idx], y[val_idx], sample_weight[val_idx]

    def score():
        names = estimator.__dict__.pop("feature_names_in_", None)
        try:
            return float(estimator._score_for_stopping(X_val, y_val, w_val))
        finally:
            if names is not None:
                estimator.feature_names_in_ = names

    return score


def _permutation(rng, idx):
    """``rng.permutation(idx)``, the row order of an epoch, as int64.

    For a :class:`numpy.random.RandomState` (what
    :func:`sklearn.utils.check_random_state` returns) the shuffle runs
    without the GIL (``utils/_shuffle.pyx``), drawing the same numbers from
    the same generator: the order and the generator's state afterwards are
    those of ``rng.permutation(idx)``.  numpy's own shuffle holds the GIL
    for its whole loop, so that the threads of parameter mixing, which
    start their epochs together, would draw their orders one after the
    other before their compiled passes (which release the GIL) begin.
    """
    idx = np.asarray(idx)
    bit_generator = getattr(rng, "_bit_generator", None)
    legacy = type(rng) is np.random.RandomState and bit_generator is not None
    if legacy and idx.ndim == 1:
        order = np.array(idx, dtype=np.int64)  # a copy, shuffled in place
        shuffle_int64(bit_generator, order)
        return order
    return rng.permutation(idx)


def run_epochs(
    estimator,
    adapter,
    *,
    train_idx,
    max_iter,
    rng,
    shuffle,
    stopping,
    validation=None,
    t_start=0,
    n_rows_per_epoch=None,
    partial_fit=False,
    warn_convergence=None,
):
    """Run up to ``max_iter`` epochs of ``adapter`` over ``train_idx``.

    Parameters
    ----------
    estimator : estimator
        The estimator being trained.  The driver reads its ``tol``,
        ``n_iter_no_change``, ``early_stopping`` and ``verbose`` (each
        optional) and writes its training history, ``loss_curve_`` and,
        when it has an ``early_stopping`` parameter, ``validation_scores_``
        (``None`` unless early stopping ran).
    adapter : EpochAdapter
        The family's pass over rows.
    train_idx : ndarray of int
        The training rows.  Each epoch passes over ``rng.permutation(train_idx)``
        when ``shuffle``, else over ``train_idx`` in its order.
    max_iter : int
        The most epochs to run.
    rng : numpy.random.RandomState or None
        The generator of the permutations (only used when ``shuffle``).
    shuffle : bool
        Whether each epoch visits the rows in a fresh random order.
    stopping : bool
        Whether the stopping rule applies (``fit``); ``partial_fit`` runs its
        one epoch with ``stopping=False``.
    validation : callable or None, default=None
        With early stopping, returns the score of the published state on the
        validation split (see :func:`validation_scorer`).
    t_start : int, default=0
        The sample counter before the first epoch.
    n_rows_per_epoch : int, default=None
        The divisor of the mean loss and of the mistake rate (default: the
        number of training rows).
    partial_fit : bool, default=False
        A ``partial_fit`` call: its loss is appended to ``loss_curve_`` (a
        ``fit`` starts a new history) and the verbose line says
        ``partial_fit call n``.
    warn_convergence : bool, default=None
        Whether to issue the ``ConvergenceWarning`` when ``max_iter`` epochs
        ran without the stopping rule ending the run (default: when
        ``stopping`` and ``tol`` is not None).

    Returns
    -------
    run : EpochRun
        The number of epochs, the sample counter after them and the
        history.
    """
    est = estimator
    verbose = int(getattr(est, "verbose", 0) or 0)
    journal = current_journal()
    if (
        partial_fit
        and max_iter == 1
        and not (stopping or verbose or validation is not None or warn_convergence)
        and n_rows_per_epoch is None
        and journal is not None
        and "_epoch_stats" not in est.__dict__
    ):
        # the common case of a stream, written once for the lean path too
        t, mean_loss = stream_epoch(
            est, adapter, train_idx, t_start, rng, shuffle, journal
        )
        return EpochRun(n_iter=1, t=t, history=[mean_loss], validation_scores=None)
    tol = getattr(est, "tol", None)
    n_iter_no_change = getattr(est, "n_iter_no_change", 1)
    early = bool(stopping and getattr(est, "early_stopping", False))
    n_train = int(train_idx.shape[0])
    n_rows = n_train if n_rows_per_epoch is None else int(n_rows_per_epoch)
    n_loss = int(adapter.n_loss)

    history = []  # this run's epochs
    if partial_fit:
        call = int(est.__dict__.get("_n_partial_fit_calls", 0)) + 1
    else:
        call = 0
    scores = [] if early else None
    run = EpochRun(n_iter=0, t=int(t_start), history=history, validation_scores=scores)

    if stopping:
        best = np.full(n_loss, np.inf)
        no_improve = np.zeros(n_loss, dtype=np.int64)
    best_score, score_no_improve = -np.inf, 0
    per_column = n_loss > 1 and not early
    tic = time.perf_counter()
    # inside atomic_update (journal): the generator is saved before its
    # first draw, and in a partial_fit call what the pass writes, to be
    # written back if the call fails

    for epoch in range(max_iter):
        order = _epoch_order(
            rng, train_idx, shuffle, None if journal is None else journal.save_generator
        )
        if not partial_fit:
            may_end = (
                early
                or epoch == max_iter - 1
                or (
                    stopping
                    and tol is not None
                    and int(no_improve.max()) + 1 >= n_iter_no_change
                )
            )
            adapter.start_epoch(run.t, may_end)
        stats, loss, mean_loss = _one_pass(
            est,
            adapter,
            order,
            run.t,
            journal if partial_fit else None,
            n_rows,
            epoch + 1,
        )
        run.n_iter = epoch + 1
        run.t += n_train
        objective = loss / max(n_rows, 1)
        history.append(mean_loss)

        val_score = None
        if early:
            adapter.publish()
            val_score = validation()
            scores.append(val_score)

        if verbose:
            _print_line(
                adapter,
                verbose,
                epoch=run.n_iter,
                max_iter=max_iter,
                call=call,
                objective=mean_loss,
                stats=stats,
                n_rows=n_rows,
                t=run.t,
                val_score=val_score,
                elapsed=time.perf_counter() - tic,
            )
        if not stopping:
            continue
        if early:
            if tol is not None and val_score < best_score + tol:
                score_no_improve += 1
            else:
                score_no_improve = 0
            best_score = max(best_score, val_score)
            stopped = np.full(n_loss, score_no_improve >= n_iter_no_change)
        else:
            if tol is not None:
                worse = objective > best - tol
                no_improve = np.where(worse, no_improve + 1, 0)
            best = np.minimum(best, objective)
            stopped = no_improve >= n_iter_no_change
        done = adapter.freeze(stopped) if per_column else bool(stopped.all())
        if done:
            run.converged = True
            if verbose:
                print(
                    f"Convergence after {run.n_iter} epochs took "
                    f"{time.perf_counter() - tic:.2f} seconds",
                    flush=True,
                )
            break

    _record_history(est, history, scores, journal, partial_fit)
    if warn_convergence is None:
        warn_convergence = stopping and tol is not None
    if warn_convergence and run.n_iter == max_iter:
        warnings.warn(CONVERGENCE_MESSAGE, ConvergenceWarning)
    return run


#: The most entries ``partial_fit`` calls keep in ``loss_curve_``: a call
#: that finds it full first drops its older half, so a stream of any length
#: runs in constant memory (a ``fit`` of ``max_iter`` epochs writes its own
#: history whole).
LOSS_CURVE_MAX_LENGTH = 10_000


def _room_in_curve(estimator, curve, n_new):
    """``curve`` (the estimator's ``loss_curve_``), or, when ``n_new`` more
    entries would make it longer than :data:`LOSS_CURVE_MAX_LENGTH`, a new
    list of its newest entries, at most half the bound, made the
    estimator's ``loss_curve_``.  The old list is left as it was (a
    failed call puts it back, with the estimator's other attributes), and
    the copy is made once per half-bound calls: O(1) per call."""
    if len(curve) + n_new <= LOSS_CURVE_MAX_LENGTH:
        return curve
    keep = max(LOSS_CURVE_MAX_LENGTH // 2 - n_new, 0)
    curve = curve[len(curve) - keep :] if keep else []
    estimator.loss_curve_ = curve
    return curve


def _format(value):
    if isinstance(value, str):
        return value
    if isinstance(value, (bool, int, np.integer)):
        return str(int(value))
    return f"{float(value):.6g}"


def _print_line(
    adapter,
    verbose,
    *,
    epoch,
    max_iter,
    call,
    objective,
    stats,
    n_rows,
    t,
    val_score,
    elapsed,
):
    head = f"-- partial_fit call {call}" if call else f"-- Epoch {epoch}/{max_iter}"
    parts = [head, f"Avg. loss: {objective:.6f}"]
    if val_score is not None:
        parts.append(f"Validation score: {val_score:.6f}")
    if verbose >= 2:
        if stats.mistakes >= 0:
            parts.append(f"Mistakes: {int(stats.mistakes)}/{n_rows}")
        parts.append(f"Updates: {int(stats.n_updates)}")
        summary = adapter.summary()
        parts += [f"{name}: {_format(v)}" for name, v in summary.items()]
        if "T" not in summary:  # an adapter may count samples its own way
            parts.append(f"T: {t}")
    parts.append(f"Time: {elapsed:.2f} s")
    print(", ".join(parts), flush=True)
