"""Kernel Passive-Aggressive: the shared machinery of the dual-form learners.

This module holds what ``KernelPassiveAggressiveClassifier`` and
``KernelPassiveAggressiveRegressor`` share: ``_BaseKernelPA`` (the kernel
parameters, the validation of a batch, the support-vector store and its
budget, the prediction in chunks, the state protocol's refusal) and
``_KernelEpochs``, the epoch adapter of the engine that visits the rows in
blocks.  The two public estimators, their targets and their docstrings live in
``sklearn_pa/kernel/_passive_aggressive.py``.

The PA weights are a sum of the examples that triggered a step,
``w = sum_i alpha_i x_i`` (Crammer et al. 2006, eq. 13 of the seeds' notes), so
every inner product can be replaced by a Mercer kernel:
``f(x) = sum_i alpha_i K(x_i, x)``, and ``||x||^2`` in the step by
``K(x, x)``.

The online loop is sequential (each score depends on every earlier step), but
the kernel evaluations need not be: the rows of an epoch are visited in
blocks; for each block, scikit-learn's ``pairwise_kernels`` computes the kernel
between the block and the support vectors alive at its start, and among the
block's own rows (the only support vectors a block can create), and a compiled
loop runs the steps in order from those two matrices.  The block size keeps
both matrices within a fixed memory (about 16 MB).
"""

from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.metrics.pairwise import KERNEL_PARAMS, pairwise_kernels
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, StrOptions

from .._compiled import _kernel_pa
from .._core._calls import finite_inputs
from .._core.batch import (
    MAX_SAMPLE_COUNT,
    ReadsUnderLockMixin,
    atomic_update,
    canonical_csr,
    check_batch,
    check_batch_sample_weight,
    check_csr_structure,
    check_rows,
    check_sample_count,
    check_state_array,
    check_warm_start_classes,
    check_warm_start_shape,
    validation_split,
)
from .._core.driver import EpochAdapter, EpochStats, run_epochs, validation_scorer
from .._core.pickled_state import CheckedStateMixin
from .._core.rules import spec
from .._core.session import remember_call
from ._lean import _PUBLISHED, LeanKernelMixin

# kernel entries held at once by a block (K_RS and K_RR), and by a chunk of
# predictions: 2**21 doubles = 16 MB
_BLOCK_ELEMENTS = 2**21
_MAX_BLOCK_ROWS = 512
_MIN_BLOCK_ROWS = 64

_POLICIES = {"oldest": _kernel_pa.Policy.OLDEST, "smallest": _kernel_pa.Policy.SMALLEST}


def _scaled_variance(X):
    """The variance of every entry of X (as ``X.var()``), as a pair
    ``(scale, scaled_var)`` with ``var = scale**2 * scaled_var`` (``scaled_var``
    is 0 when X is constant): computed on ``X / max|X|``, so that it neither
    overflows nor underflows for entries near the float64 limits."""
    data = X.data if sp.issparse(X) else np.asarray(X).reshape(-1)
    scale = float(np.max(np.abs(data))) if data.size else 0.0
    if scale == 0.0:
        return 1.0, 0.0
    if 1e-100 < scale < 1e100:  # the squares neither overflow nor underflow
        scale = 1.0
    if sp.issparse(X):
        scaled = X / scale
        var = scaled.multiply(scaled).mean() - scaled.mean() ** 2
    else:
        var = np.var(np.asarray(X) / scale)
    return scale, float(max(var, 0.0))


def _check_kernel_values(est, X, K_RR, K_RS):
    """Refuse a kernel with a NaN value, or ``K(x, x)`` negative or zero
    for a non-zero row ``x``: every step divides by it, so such rows could
    never move the model (a fit would end with no support vector, or NaN
    decisions, silently).  ``+inf`` (overflow on huge input) is left to the
    kernel, which skips the row with a warning."""
    for K in (K_RR, K_RS):
        if K is not None and np.isnan(K).any():
            raise ValueError(
                f"The kernel (kernel={est.kernel!r}) gives NaN values; a "
                "kernel must give numbers for every pair of samples. Check the "
                "kernel function or its parameters."
            )
    kxx = np.diag(K_RR)
    bad = kxx < 0
    if not bad.any():
        zero = kxx == 0
        if not zero.any():
            return
        nonzero = X.getnnz(axis=1) > 0 if sp.issparse(X) else np.any(X != 0, axis=1)
        bad = zero & nonzero
        if not bad.any():
            return
    value = float(kxx[np.flatnonzero(bad)[0]])
    raise ValueError(
        f"The kernel gives K(x, x) = {value!r} for a non-zero sample; the PA "
        "step divides by K(x, x), which must be positive (a Mercer kernel, "
        f"kernel={est.kernel!r}, parameters {pairwise_params(est)!r}). "
        "Change the kernel or its parameters (e.g. coef0, gamma)."
    )


def _stacks_as_is(sv):
    """Whether ``_stack(sv, <no row>)`` is a copy of ``sv`` of its own type
    and index dtype (a dense array, or a canonical ``csr_matrix`` with
    int32 indices), so that ``sv`` itself may stand for it."""
    if type(sv) is np.ndarray:
        return sv.dtype == np.float64 and sv.flags.c_contiguous
    return (
        type(sv) is sp.csr_matrix
        and sv.dtype == np.float64
        and sv.indices.dtype == np.int32
        and sv.indptr.dtype == np.int32
        and sv.has_canonical_format
    )


class _KernelEpochs(EpochAdapter):
    """The epoch adapter of kernel PA: one pass goes over the rows in
    blocks; per block, the kernel values against the current support set
    are computed in Python (one ``pairwise_kernels`` call) and the
    compiled ``_kernel_pa.block`` makes the updates, growing, and within a
    ``budget`` shrinking, the support set held in the slot arrays.

    ``scores_out`` ``(n_rows, n_columns)``, when not None, receives each
    row's scores before its update (progressive validation): the block
    leaves them in ``F``, whose row ``p`` the kernel only ever updates for
    the steps of earlier rows."""

    skipped_reason = (
        "their kernel values or scores were not finite; scale the input "
        "(StandardScaler) or change the kernel parameters."
    )
    overflow_message = (
        "the dual coefficients are no longer finite. Scale the input "
        "(StandardScaler) or lower C."
    )

    def __init__(self, estimator, **arrays):
        self.estimator = estimator
        self.__dict__.update(arrays)
        self.last = (-1, 0, 0)  # mistakes, updates, removed of the last pass
        self.t_end = 0

    def journal(self, journal, order):
        """Nothing to save: a call builds its slot arrays anew from the
        published support set, which the pass never writes."""

    def run(self, order, t):
        est = self.estimator
        (X, old_sv, n_old, n_cols, labels, targets, sample_weight) = (
            self.X,
            self.old_sv,
            self.n_old,
            self.n_cols,
            self.labels,
            self.targets,
            self.sample_weight,
        )
        (alpha, alive, kdiag, stamp, row_slot, src_row, pos_S, pos_R) = (
            self.alpha,
            self.alive,
            self.kdiag,
            self.stamp,
            self.row_slot,
            self.src_row,
            self.pos_S,
            self.pos_R,
        )
        (alive_list, alive_pos, counters, budget, policy) = (
            self.alive_list,
            self.alive_pos,
            self.counters,
            self.budget,
            self.policy,
        )
        params = self.params
        n = order.shape[0]
        loss = np.zeros(1)
        mistakes = updates = skipped = removed = 0
        start = 0
        while start < n:
            n_alive = int(counters[1])
            # K(R, R) costs |R| kernel values per row and K(R, S) |S|: keep
            # |R| near |S| (at least 64 rows, so that per-block overhead
            # stays small), and both matrices within _BLOCK_ELEMENTS
            size = min(_MAX_BLOCK_ROWS, max(_MIN_BLOCK_ROWS, n_alive))
            size = max(1, min(size, _BLOCK_ELEMENTS // (n_alive + size)))
            rows = order[start : start + size]
            first, start = start, start + rows.shape[0]
            XR = X[rows]
            S = np.sort(alive_list[:n_alive])
            old = S[S < n_old]
            new = S[S >= n_old]
            parts = []
            # (the rows and the support set were checked before the pass)
            with finite_inputs():
                if old.shape[0]:
                    kept = old_sv if old.shape[0] == n_old else old_sv[old]
                    parts.append(est._kernel(XR, kept))
                if new.shape[0]:
                    parts.append(est._kernel(XR, X[src_row[new]]))
                K_RR = est._kernel(XR, XR)
            if parts:
                K_RS = parts[0] if len(parts) == 1 else np.hstack(parts)
                F = np.ascontiguousarray(K_RS @ alpha[S])
            else:
                K_RS = np.zeros((rows.shape[0], 1))
                F = np.zeros((rows.shape[0], n_cols))
            pos_S[S] = np.arange(S.shape[0])
            _check_kernel_values(est, XR, K_RR, K_RS if parts else None)
            m, u, s, r = _kernel_pa.block(
                K_RS,
                K_RR,
                F,
                rows,
                params=params,
                labels=labels,
                targets=targets,
                sample_weight=sample_weight,
                alpha=alpha,
                alive=alive,
                kdiag=kdiag,
                stamp=stamp,
                row_slot=row_slot,
                src_row=src_row,
                pos_S=pos_S,
                pos_R=pos_R,
                alive_list=alive_list,
                alive_pos=alive_pos,
                counters=counters,
                budget=budget,
                policy=policy,
                loss_out=loss,
            )
            pos_S[S] = -1  # O(|S|) reset, not O(cap) per block
            if self.scores_out is not None:
                # F holds each row's scores as the kernel met them; the rows
                # it skipped (kernel values or scores not finite) are NaN
                F_rows = F[: rows.shape[0]]
                finite = np.isfinite(np.diag(K_RR)) & np.all(np.isfinite(F_rows), 1)
                self.scores_out[first:start] = np.where(finite[:, None], F_rows, np.nan)
            mistakes, updates = mistakes + m, updates + u
            skipped, removed = skipped + s, removed + r
        if spec(params["rule"]).y == "values":
            mistakes = -1
        self.last = (mistakes, updates, removed)
        self.t_end = int(t) + n
        return EpochStats(
            loss,
            int(updates),
            int(mistakes),
            int(skipped),
            not np.all(np.isfinite(alpha)),
        )

    def state(self):
        """The learned state after the passes so far: the live support
        vectors and their dual coefficients."""
        X, old_sv, n_old = self.X, self.old_sv, self.n_old
        alpha, stamp, kdiag = self.alpha, self.stamp, self.kdiag
        src_row, alive_list, counters = self.src_row, self.alive_list, self.counters
        est = self.estimator
        keep = np.sort(alive_list[: int(counters[1])])
        old_keep, new_keep = keep[keep < n_old], keep[keep >= n_old]
        kept_old = old_sv if old_keep.shape[0] == n_old else old_sv[old_keep]
        if kept_old is old_sv and new_keep.shape[0] == 0 and _stacks_as_is(old_sv):
            sv = old_sv  # unchanged: what stacking nothing under it would copy
        elif n_old:
            sv = est._stack(kept_old, X[src_row[new_keep]])
        else:
            sv = X[src_row[new_keep]]
        state = {
            "sv": sv,
            "alpha": np.ascontiguousarray(alpha[keep]),
            "stamp": stamp[keep],
            "kdiag": kdiag[keep],
            "next_stamp": int(counters[2]),
        }
        return state

    def publish(self):
        est = self.estimator
        est.t_ = float(self.t_end) + 1.0
        est._publish(self.state())

    def summary(self):
        return {
            "Support vectors": int(self.counters[1]),
            "Removed": int(self.last[2]),
        }


class _BaseKernelPA(
    CheckedStateMixin, LeanKernelMixin, ReadsUnderLockMixin, BaseEstimator
):
    """Shared machinery: kernel parameters, the block loop, the support set."""

    #: the support set saved (see ``_core/pickled_state.py``): ``s``
    #: support vectors, ``k`` rows of dual coefficients
    _state_shapes = {
        "support_vectors_": ("s", "d"),
        "dual_coef_": ("k", "s"),
        "_sv_kdiag": ("s",),
        "_sv_stamp": ("s",),
        "_expanded_class_weight": ("c",),
    }

    _parameter_constraints: dict = {
        "C": [Interval(Real, 0, np.inf, closed="right")],
        "kernel": [StrOptions(set(KERNEL_PARAMS)), callable],
        "gamma": [
            Interval(Real, 0, None, closed="left"),
            StrOptions({"scale", "auto"}),
        ],
        "degree": [Interval(Integral, 0, None, closed="left"), None],
        "coef0": [Interval(Real, None, None, closed="neither"), None],
        "kernel_params": [dict, None],
        "budget": [Interval(Integral, 1, MAX_SAMPLE_COUNT, closed="both"), None],
        "budget_policy": [StrOptions(set(_POLICIES))],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "tol": [Interval(Real, None, None, closed="neither"), None],
        "early_stopping": ["boolean"],
        "validation_fraction": [Interval(Real, 0, 1, closed="neither")],
        "n_iter_no_change": [Interval(Integral, 1, None, closed="left")],
        "shuffle": ["boolean"],
        "verbose": ["verbose"],
        "random_state": ["random_state"],
        "warm_start": ["boolean"],
    }

    # ------------------------------------------------------------- kernel
    def _set_gamma(self, X):
        """The numeric gamma, from the first batch for "scale" (as SVC)."""
        if self.gamma == "scale":
            # X.var() = scale**2 * scaled_var, without forming scale**2
            scale, scaled_var = _scaled_variance(X)
            if scaled_var <= 0:
                self._gamma = 1.0
            else:
                with np.errstate(over="ignore", under="ignore"):
                    gamma = 1.0 / (X.shape[1] * scaled_var) / scale / scale
                if not (np.isfinite(gamma) and gamma >= np.finfo(np.float64).tiny):
                    raise ValueError(
                        f"gamma='scale' is 1 / (n_features * X.var()), and X's "
                        f"entries (up to {scale:g} in magnitude) make X.var() "
                        "overflow float64, where every kernel value would be "
                        "lost. Scale the input (StandardScaler, MaxAbsScaler) "
                        "or pass a numeric gamma."
                    )
                self._gamma = float(gamma)
        elif self.gamma == "auto":
            self._gamma = 1.0 / X.shape[1]
        else:
            self._gamma = float(self.gamma)

    def _check_kernel_args(self):
        if callable(self.kernel) and (
            not isinstance(self.gamma, str)
            or self.coef0 is not None
            or self.degree is not None
        ):
            raise ValueError(
                "gamma, coef0 and degree apply to the named kernels only "
                "(leave them at their defaults); with a callable kernel pass "
                "its parameters in kernel_params."
            )
        if not callable(self.kernel):
            # the named kernels' own parameters are validated as parameters
            # of this estimator (as in SVC): they may not bypass that here
            named = set(self.kernel_params or {}) & {"gamma", "degree", "coef0"}
            if named:
                raise ValueError(
                    f"Pass {sorted(named)} as parameters of "
                    f"{type(self).__name__} (e.g. degree=2), not in "
                    f"kernel_params, with kernel={self.kernel!r}."
                )
            # anything else would be dropped without a word (a typo)
            unknown = set(self.kernel_params or {}) - set(KERNEL_PARAMS[self.kernel])
            if unknown:
                raise ValueError(
                    f"kernel_params holds {sorted(unknown)}, which "
                    f"kernel={self.kernel!r} does not take; its parameters are "
                    f"{sorted(KERNEL_PARAMS[self.kernel])}, passed as parameters "
                    f"of {type(self).__name__}."
                )

    def _kernel_params(self):
        """The step rule and its parameters, as the kernel reads them
        (``RuleParams`` in ``_compiled/_rules_linear.pxd``)."""
        return {
            "rule": int(self._rule()),
            "slack": int(self._slack()),
            "C": float(self.C),
            "epsilon": float(getattr(self, "epsilon", 0.0)),
            "margin": 0.0,
            "learning_rate": 0.0,
            "total_weight": 0.0,
        }

    def _kernel(self, A, B):
        K = pairwise_kernels(
            A, B, metric=self.kernel, filter_params=True, **pairwise_params(self)
        )
        return np.ascontiguousarray(K, dtype=np.float64)

    # ----------------------------------------------------------- validation
    def _validate_batch(self, X, y, sample_weight, reset):
        self._check_kernel_args()
        X, y = check_rows(
            self, X, y, reset=reset, y_numeric=not isinstance(self, ClassifierMixin)
        )
        # (all-zero weights: refused by fit, a no-op on a later batch)
        sample_weight = check_batch_sample_weight(sample_weight, X, all_zero=not reset)
        return X, y, sample_weight

    def _score_for_stopping(self, X, y, sample_weight):
        return self.score(X, y, sample_weight=sample_weight)

    # ---------------------------------------------------------- the state
    def _empty_state(self, X, n_cols):
        return {
            "sv": X[:0].copy(),
            "alpha": np.zeros((0, n_cols)),
            "stamp": np.zeros(0, dtype=np.int64),
            "kdiag": np.zeros(0),
            "next_stamp": 0,
        }

    def _current_state(self):
        """The support set to continue from, each array checked against
        ``n_features_in_``, the number of columns and the number of support
        vectors (a user may have assigned any of them)."""
        sv = self.support_vectors_
        if not (sp.issparse(sv) or isinstance(sv, np.ndarray)) or sv.ndim != 2:
            raise ValueError(
                "support_vectors_ must be a 2-D array or CSR matrix of shape "
                f"(n_SV, {self.n_features_in_}); refit with fit."
            )
        n_sv = sv.shape[0]
        if sp.issparse(sv):
            try:
                sv = canonical_csr(check_csr_structure(sv).tocsr())
            except ValueError as exc:
                raise ValueError(
                    f"support_vectors_ is not a valid sparse matrix ({exc}); "
                    "refit with fit."
                ) from exc
            data = sv.data
        else:
            data = sv
        check_state_array(self, "support_vectors_", data, data.shape)
        sv = sv if sp.issparse(sv) else np.ascontiguousarray(sv, dtype=np.float64)
        if sv.shape[1] != self.n_features_in_:
            raise ValueError(
                f"support_vectors_ of {type(self).__name__} has {sv.shape[1]} "
                f"features, but the model has n_features_in_="
                f"{self.n_features_in_}. Assign support vectors of that width, "
                "or refit with fit."
            )
        alpha = check_state_array(
            self, "dual_coef_", self.dual_coef_, (self._n_columns(), n_sv), order="F"
        ).T
        stamp = check_state_array(
            self, "the support vectors' stamps", self._sv_stamp, (n_sv,), dtype=np.int64
        )
        kdiag = check_state_array(
            self, "the support vectors' norms", self._sv_kdiag, (n_sv,)
        )
        return {
            "sv": sv,
            "alpha": np.ascontiguousarray(alpha),
            "stamp": stamp,
            "kdiag": kdiag,
            "next_stamp": self._next_stamp,
        }

    def _publish(self, state):
        self.support_vectors_ = state["sv"]
        self.dual_coef_ = np.ascontiguousarray(state["alpha"].T)
        self._sv_stamp = state["stamp"]
        self._sv_kdiag = state["kdiag"]
        self._next_stamp = state["next_stamp"]

    def _enforce_budget(self, state):
        """Shrink a support set larger than ``budget`` (a lowered budget)."""
        n = state["alpha"].shape[0]
        if self.budget is None or n <= self.budget:
            return state
        if self.budget_policy == "oldest":
            value = state["stamp"].astype(np.float64)
        else:
            value = np.linalg.norm(state["alpha"], axis=1) * np.sqrt(
                np.maximum(state["kdiag"], 0.0)
            )
        keep = np.sort(np.argsort(-value, kind="stable")[: self.budget])
        return {
            "sv": state["sv"][keep],
            "alpha": state["alpha"][keep],
            "stamp": state["stamp"][keep],
            "kdiag": state["kdiag"][keep],
            "next_stamp": state["next_stamp"],
        }

    @staticmethod
    def _stack(old, new):
        if sp.issparse(old) or sp.issparse(new):
            return sp.vstack([sp.csr_matrix(old), sp.csr_matrix(new)], format="csr")
        return np.vstack([old, new])

    def _as_storage(self, X, like):
        """``X`` in the storage format of ``like`` (dense or CSR)."""
        if sp.issparse(like) and not sp.issparse(X):
            return sp.csr_matrix(X)
        if not sp.issparse(like) and sp.issparse(X):
            return X.toarray()
        return X

    # -------------------------------------------------------------- epochs
    def _run(
        self,
        X,
        labels,
        targets,
        sample_weight,
        state,
        *,
        max_iter,
        rng,
        stopping,
        t_start,
        train_idx=None,
        validation=None,
        scores_out=None,
    ):
        """Run up to ``max_iter`` epochs over the rows ``train_idx`` of X
        (all by default) through the epoch driver; returns (state, n_iter,
        t).  ``validation`` scores the published model for early
        stopping; ``scores_out`` (one epoch, no shuffling) receives each
        row's scores before its update."""
        state = self._enforce_budget(state)
        X = self._as_storage(X, state["sv"]) if state["sv"].shape[0] else X
        old_sv = state["sv"]
        n, n_old = X.shape[0], state["alpha"].shape[0]
        n_cols = state["alpha"].shape[1]
        cap = n_old + n
        alpha = np.zeros((cap, n_cols))
        alpha[:n_old] = state["alpha"]
        alive = np.zeros(cap, dtype=np.uint8)
        alive[:n_old] = 1
        kdiag = np.zeros(cap)
        kdiag[:n_old] = state["kdiag"]
        stamp = np.zeros(cap, dtype=np.int64)
        stamp[:n_old] = state["stamp"]
        row_slot = np.full(n, -1, dtype=np.int64)
        src_row = np.full(cap, -1, dtype=np.int64)
        pos_R = np.full(cap, -1, dtype=np.int64)
        alive_list = np.zeros(cap, dtype=np.int64)
        alive_list[:n_old] = np.arange(n_old)
        alive_pos = np.zeros(cap, dtype=np.int64)
        alive_pos[:n_old] = np.arange(n_old)
        counters = np.array([n_old, n_old, state["next_stamp"]], dtype=np.int64)
        pos_S = np.full(cap, -1, dtype=np.int64)  # per slot: column in K_RS
        budget = -1 if self.budget is None else int(self.budget)
        policy = int(_POLICIES[self.budget_policy])
        adapter = _KernelEpochs(
            self,
            X=X,
            old_sv=old_sv,
            n_old=n_old,
            n_cols=n_cols,
            labels=labels,
            targets=targets,
            sample_weight=sample_weight,
            alpha=alpha,
            alive=alive,
            kdiag=kdiag,
            stamp=stamp,
            row_slot=row_slot,
            src_row=src_row,
            pos_S=pos_S,
            pos_R=pos_R,
            alive_list=alive_list,
            alive_pos=alive_pos,
            counters=counters,
            budget=budget,
            policy=policy,
            params=self._kernel_params(),
            scores_out=scores_out,
        )
        run = run_epochs(
            self,
            adapter,
            train_idx=np.arange(n) if train_idx is None else train_idx,
            max_iter=max_iter,
            rng=rng,
            shuffle=self.shuffle and scores_out is None,
            stopping=stopping,
            validation=validation,
            t_start=t_start,
            partial_fit=not stopping,
        )
        n_iter, t = run.n_iter, run.t
        state = adapter.state()
        return state, n_iter, t

    def _fit(self, X, y, sample_weight):
        previous = self.__dict__.get("classes_")
        X, y, sample_weight = check_batch(
            self, X, y, None, sample_weight, first_call=True, fitting=True
        )
        self._set_gamma(X)
        n_cols = self._n_columns()
        if self.warm_start and hasattr(self, "dual_coef_"):
            # as scikit-learn: continuing from a model of another size, or
            # of other classes, is an error, not a silent restart
            check_warm_start_shape(
                self,
                "support_vectors_ and dual_coef_",
                (np.shape(self.dual_coef_)[0], self.support_vectors_.shape[1]),
                (n_cols, X.shape[1]),
            )
            check_warm_start_classes(self, previous)
            state = self._current_state()
        else:
            state = self._empty_state(X, n_cols)
        rng = check_random_state(self.random_state)
        train_idx, val_idx = validation_split(self, y, sample_weight)
        validation = None
        if val_idx is not None:
            validation = validation_scorer(self, X, y, sample_weight, val_idx)
        labels, targets = self._targets(y)
        sample_weight = self._effective_sample_weight(y, sample_weight)
        state, n_iter, t = self._run(
            X,
            labels,
            targets,
            sample_weight,
            state,
            max_iter=self.max_iter,
            rng=rng,
            stopping=True,
            t_start=0,
            train_idx=train_idx,
            validation=validation,
        )
        self._rng = rng
        self.n_iter_ = n_iter
        self.t_ = float(t) + 1.0
        self._publish(state)
        remember_call(self, _PUBLISHED)
        return self

    def _partial_fit(self, X, y, classes, sample_weight, *, record_scores=False):
        """One pass over a batch; returns ``self``, or, with
        ``record_scores``, the ``(n_samples, n_columns)`` scores each row got
        before its update (see ``__sklearn_pa_prequential__``).

        The batch is checked once (:func:`~sklearn_pa._core.batch.check_batch`):
        a later call whose parameters and published support set are those
        of the last call, on a batch in the kernels' form, is checked in
        O(the batch) and continues from the published state as it is."""
        first_call = not hasattr(self, "dual_coef_")
        batch = check_batch(self, X, y, classes, sample_weight, first_call)
        X, y, sample_weight = batch
        if not first_call and batch.weighs_nothing:
            # a no-op (with record_scores: the scores of the model as it is)
            return self._decision(X) if record_scores else self
        if first_call:
            self._set_gamma(X)
            state = self._empty_state(X, self._n_columns())
            self._rng = check_random_state(self.random_state)
            t_start = 0
        else:
            validated = batch.snapshot is not None
            state = self._current_state() if validated else self._published_state()
            t_start = check_sample_count(self) - 1
        scores = self._learn_batch(
            X, y, sample_weight, state, t_start, record_scores=record_scores
        )
        remember_call(self, _PUBLISHED, validated=batch.snapshot is not None)
        return scores if record_scores else self

    def _learn_batch(self, X, y, sample_weight, state, t_start, *, record_scores=False):
        """One pass over the validated batch from ``state``; publishes the
        new support set.  Returns the scores of each row before its update
        with ``record_scores``, else None."""
        labels, targets = self._targets(y)
        sample_weight = self._effective_sample_weight(y, sample_weight)
        scores_out = None
        if record_scores:
            scores_out = np.empty((X.shape[0], state["alpha"].shape[1]))
        state, n_iter, t = self._run(
            X,
            labels,
            targets,
            sample_weight,
            state,
            max_iter=1,
            rng=self._rng,
            stopping=False,
            t_start=t_start,
            scores_out=scores_out,
        )
        self.n_iter_ = n_iter
        self.t_ = float(t) + 1.0
        self._publish(state)
        return scores_out

    def _partial_fit_batch(self, X, y, classes, sample_weight, *, record_scores=False):
        """``_partial_fit``; a classifier that adds classes as they come
        learns a batch in segments (``GrowingClassesMixin``)."""
        return self._partial_fit(
            X, y, classes, sample_weight, record_scores=record_scores
        )

    def __sklearn_pa_prequential__(
        self, X, y, classes=None, sample_weight=None, *, then=None
    ):
        """``partial_fit`` on a batch in its given order (no shuffling),
        returning the decision values (``predict`` for the regressor) each
        sample got just before the model learned from it.

        The protocol of progressive validation (see
        :meth:`BaseOnlineLinear.__sklearn_pa_prequential__`): the same validation,
        atomicity and effect on the model as ``partial_fit`` with
        ``shuffle=False``.  The compiled block pass keeps each row's scores
        as it meets them (the kernel expansion of the support vectors alive
        then), so no row is scored twice.  Returns an ndarray of shape
        ``(n_samples,)`` with one output column, else ``(n_samples,
        n_classes)``; NaN where a row was skipped.
        """
        with atomic_update(self):
            args = (classes,) if isinstance(self, ClassifierMixin) else (None,)
            scores = self._partial_fit_batch(
                X, y, *args, sample_weight, record_scores=True
            )
            if scores.shape[1] == 1:
                scores = scores[:, 0]
            if then is not None:
                then(scores)
        return scores

    def _effective_sample_weight(self, y, sample_weight):
        return sample_weight

    def _expansion(self, X):
        """``sum_i alpha_i K(x_i, x)`` for the rows of the validated ``X``,
        in chunks of bounded memory."""
        sv, alpha = self.support_vectors_, self.dual_coef_.T
        out = np.zeros((X.shape[0], alpha.shape[1]))
        if sv.shape[0] == 0:
            return out
        chunk = max(1, _BLOCK_ELEMENTS // sv.shape[0])
        for start in range(0, X.shape[0], chunk):
            stop = min(start + chunk, X.shape[0])
            out[start:stop] = self._kernel(X[start:stop], sv) @ alpha
        return out

    def __sklearn_pa_state__(self):
        """Refuse the state protocol: this model cannot be mixed.

        Raises
        ------
        TypeError
            Always, saying what to use instead.
        """
        raise TypeError(
            f"parameter mixing does not support {type(self).__name__}: "
            "a kernel model is a growing set of support vectors, not a weight "
            "vector that can be averaged; approximate the kernel with explicit "
            "features (sklearn.kernel_approximation.Nystroem or RBFSampler) and "
            f"train {type(self).__name__.replace('Kernel', '')} on them, which "
            "is supported."
        )

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags


def pairwise_params(estimator):
    """The keyword arguments of ``pairwise_kernels`` for the kernel of a
    kernel model (``kernel_params`` and the named parameters its kernel
    takes, ``gamma`` as fitted): what the model evaluates, and what
    :mod:`sklearn_pa.onnx` writes into a graph."""
    params = dict(estimator.kernel_params or {})
    if not callable(estimator.kernel):
        for name in KERNEL_PARAMS[estimator.kernel]:
            value = estimator._gamma if name == "gamma" else getattr(estimator, name)
            if value is not None:
                params[name] = value
    return params
