"""Kernel Passive-Aggressive classifier and regressor (dual form, with a budget).

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
from sklearn.base import (
    BaseEstimator,
    ClassifierMixin,
    RegressorMixin,
    _fit_context,
)
from sklearn.metrics.pairwise import KERNEL_PARAMS, pairwise_kernels
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.multiclass import type_of_target, unique_labels
from sklearn.utils.validation import (
    check_is_fitted,
    validate_data,
)

from ._engine import EpochAdapter, EpochStats, run_epochs, validation_scorer
from ._kernels import _kernel_pa
from ._kernels._rules import Rule, Slack
from ._targets import checked_class_weight
from ._validation import (
    MAX_SAMPLE_COUNT,
    atomic_update,
    canonical_csr,
    check_batch_sample_weight,
    check_sample_count,
    check_state_array,
    check_warm_start_shape,
    validation_split,
)
from .utils._probability import NoProbabilityMixin

__all__ = ["KernelPassiveAggressiveClassifier", "KernelPassiveAggressiveRegressor"]

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


class _KernelEpochs(EpochAdapter):
    """The epoch adapter of kernel PA: one pass goes over the rows in
    blocks; per block, the kernel values against the current support set
    are computed in Python (one ``pairwise_kernels`` call) and the
    compiled ``_kernel_pa.block`` makes the updates, growing, and within a
    ``budget`` shrinking, the support set held in the slot arrays."""

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
            start += rows.shape[0]
            XR = X[rows]
            S = np.sort(alive_list[:n_alive])
            old = S[S < n_old]
            new = S[S >= n_old]
            parts = []
            if old.shape[0]:
                parts.append(
                    est._kernel(XR, old_sv if old.shape[0] == n_old else old_sv[old])
                )
            if new.shape[0]:
                parts.append(est._kernel(XR, X[src_row[new]]))
            if parts:
                K_RS = parts[0] if len(parts) == 1 else np.hstack(parts)
                F = np.ascontiguousarray(K_RS @ alpha[S])
            else:
                K_RS = np.zeros((rows.shape[0], 1))
                F = np.zeros((rows.shape[0], n_cols))
            pos_S[S] = np.arange(S.shape[0])
            K_RR = est._kernel(XR, XR)
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
            mistakes, updates = mistakes + m, updates + u
            skipped, removed = skipped + s, removed + r
        if params["rule"] == Rule.REGRESSION:
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
        sv = (
            est._stack(kept_old, X[src_row[new_keep]])
            if n_old
            else X[src_row[new_keep]]
        )
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


class _BaseKernelPA(BaseEstimator):
    """Shared machinery: kernel parameters, the block loop, the support set."""

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

    def _kernel_params(self):
        """The step rule and its parameters, as the kernel reads them
        (``RuleParams`` in ``_kernels/_rules.pxd``)."""
        return {
            "rule": int(self._rule()),
            "slack": int(self._slack()),
            "C": float(self.C),
            "epsilon": float(getattr(self, "epsilon", 0.0)),
            "margin": 0.0,
            "learning_rate": 0.0,
            "total_weight": 0.0,
        }

    def _pairwise_params(self):
        """The keyword arguments of ``pairwise_kernels`` for ``kernel``."""
        params = dict(self.kernel_params or {})
        if not callable(self.kernel):
            for name in KERNEL_PARAMS[self.kernel]:
                value = self._gamma if name == "gamma" else getattr(self, name)
                if value is not None:
                    params[name] = value
        return params

    def _kernel(self, A, B):
        K = pairwise_kernels(
            A, B, metric=self.kernel, filter_params=True, **self._pairwise_params()
        )
        return np.ascontiguousarray(K, dtype=np.float64)

    # ----------------------------------------------------------- validation
    def _validate_batch(self, X, y, sample_weight, reset):
        X, y = validate_data(
            self,
            X,
            y,
            accept_sparse="csr",
            dtype=np.float64,
            order="C",
            reset=reset,
            y_numeric=not isinstance(self, ClassifierMixin),
        )
        X = canonical_csr(X)
        sample_weight = check_batch_sample_weight(sample_weight, X)
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
            sv = canonical_csr(sv.tocsr())
            data = sv.data
            if sv.nnz and (sv.indices.min() < 0 or sv.indices.max() >= sv.shape[1]):
                raise ValueError("support_vectors_ has column indices out of range.")
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
    ):
        """Run up to ``max_iter`` epochs over the rows ``train_idx`` of X
        (all by default) through the epoch driver; returns (state, n_iter,
        t).  ``validation`` scores the published model for early
        stopping."""
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
        )
        run = run_epochs(
            self,
            adapter,
            train_idx=np.arange(n) if train_idx is None else train_idx,
            max_iter=max_iter,
            rng=rng,
            shuffle=self.shuffle,
            stopping=stopping,
            validation=validation,
            t_start=t_start,
            partial_fit=not stopping,
        )
        n_iter, t = run.n_iter, run.t
        state = adapter.state()
        return state, n_iter, t

    def _fit(self, X, y, sample_weight):
        self._check_kernel_args()
        X, y, sample_weight = self._validate_batch(X, y, sample_weight, reset=True)
        self._prepare_targets(y, classes=None, first_call=True, fitting=True)
        self._set_gamma(X)
        n_cols = self._n_columns()
        if self.warm_start and hasattr(self, "dual_coef_"):
            # as scikit-learn: continuing from a model of another size is an
            # error, not a silent restart
            check_warm_start_shape(
                self,
                "support_vectors_ and dual_coef_",
                (np.shape(self.dual_coef_)[0], self.support_vectors_.shape[1]),
                (n_cols, X.shape[1]),
            )
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
        return self

    def _partial_fit(self, X, y, classes, sample_weight):
        self._validate_params()
        self._check_kernel_args()
        first_call = not hasattr(self, "dual_coef_")
        X, y, sample_weight = self._validate_batch(
            X, y, sample_weight, reset=first_call
        )
        self._prepare_targets(y, classes=classes, first_call=first_call, fitting=False)
        if first_call:
            self._set_gamma(X)
            state = self._empty_state(X, self._n_columns())
            self._rng = check_random_state(self.random_state)
            t_start = 0
        else:
            state = self._current_state()
            t_start = check_sample_count(self) - 1
        labels, targets = self._targets(y)
        sample_weight = self._effective_sample_weight(y, sample_weight)
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
        )
        self.n_iter_ = n_iter
        self.t_ = float(t) + 1.0
        self._publish(state)
        return self

    def _effective_sample_weight(self, y, sample_weight):
        return sample_weight

    def _decision(self, X):
        check_is_fitted(self)
        X = validate_data(self, X, accept_sparse="csr", dtype=np.float64, reset=False)
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


_COMMON_PARAMS_DOC = r"""
    kernel : str or callable, default="rbf"
        A kernel of :func:`sklearn.metrics.pairwise.pairwise_kernels`
        ("linear", "poly", "rbf", "sigmoid", "laplacian", "chi2",
        "additive_chi2", "cosine"), or a callable ``k(x, y) -> float``, which
        is evaluated pair by pair (slow).
    gamma : float, "scale" or "auto", default="scale"
        Kernel coefficient of "rbf", "laplacian", "poly", "sigmoid", "chi2",
        as in :class:`~sklearn.svm.SVC`: "scale" uses
        ``1 / (n_features * X.var())`` of the first batch, "auto"
        ``1 / n_features``.  Ignored by the other kernels.
    degree : int, default=None
        Degree of the "poly" kernel (``None``: 3).
    coef0 : float, default=None
        Constant term of the "poly" and "sigmoid" kernels (``None``: 1).
    kernel_params : dict, default=None
        Further parameters of the kernel (of a callable kernel).
    budget : int, default=None
        Maximum number of support vectors.  When a step would exceed it, one
        support vector is removed (``budget_policy``), so memory and the cost
        of a prediction stay bounded on a long stream.  ``None`` keeps every
        support vector.
    budget_policy : {"oldest", "smallest"}, default="smallest"
        Which support vector the budget removes: the one created first, or
        the one whose term of the model is the smallest,
        :math:`\|\alpha_i\| \sqrt{K(x_i, x_i)}` (the norm of
        :math:`\alpha_i \phi(x_i)`).
        The sample just updated is never removed.
    max_iter : int, default=5
        Maximum number of passes over the training data in ``fit`` (each
        pass costs one kernel row per sample against the support vectors).
        ``partial_fit`` always makes one pass.
    tol : float or None, default=None
        Stop when the average online loss of an epoch is not below
        ``best_loss - tol`` for ``n_iter_no_change`` consecutive epochs (or,
        with ``early_stopping``, when the validation score does not exceed
        ``best_score + tol``).  ``None`` runs ``max_iter`` epochs.
    early_stopping : bool, default=False
        Hold out ``validation_fraction`` of the training data (stratified
        for a classifier) and stop when its score (accuracy, or R^2 for
        the regressor) stops improving.  ``fit`` only.
    validation_fraction : float, default=0.1
        Fraction of the training data held out for early stopping.
    n_iter_no_change : int, default=5
        Number of epochs with no improvement to wait before stopping.
    shuffle : bool, default=True
        Whether to shuffle the training data before each epoch.
    verbose : int, default=0
        If positive, print one line per epoch (``Epoch i/max_iter``, average
        loss, validation score, time; ``partial_fit`` prints ``partial_fit
        call n``).  From 2 on the line adds the mistakes, updates, support
        vectors, removals and samples seen.
    random_state : int, RandomState instance or None, default=None
        Seeds the shuffling.
    warm_start : bool, default=False
        Whether ``fit`` continues from the previous support vectors."""


class KernelPassiveAggressiveClassifier(
    NoProbabilityMixin, ClassifierMixin, _BaseKernelPA
):
    """Kernel Passive-Aggressive classifier (dual form, optional budget).

    The decision function is :math:`f(x) = \\sum_i \\alpha_i K(x_i, x)` over the
    support vectors :math:`x_i` (the samples that took a step).  Each step is
    the PA step of :class:`PassiveAggressiveClassifier` in the kernel's
    feature space, :math:`\\|x\\|^2` becoming :math:`K(x, x)`: the new sample's
    coefficient is :math:`y \\tau` with :math:`\\tau = \\ell / K(x, x)` (PA,
    ``C=np.inf``; :math:`\\ell` the loss),
    :math:`\\tau = \\min(C, \\ell / K(x, x))` (PA-I, ``loss="hinge"``) or
    :math:`\\tau = \\ell / (K(x, x) + 1 / (2C))` (PA-II,
    ``loss="squared_hinge"``).  With more than two classes the model keeps one
    coefficient per class and support vector, and each step enforces the
    margin against the highest-scoring wrong class (the max-loss rule):
    :math:`+\\tau` for the true class, :math:`-\\tau` for that rival, with
    :math:`K(x, x)` doubled.

    With ``kernel="linear"`` the model is exactly
    ``PassiveAggressiveClassifier(multiclass="max_loss", fit_intercept=False)``
    written in its dual form.  There is no separate intercept: use a kernel
    with a constant term (``"poly"`` with ``coef0``) or centre the data.

    Parameters
    ----------
    C : float, default=1.0
        Aggressiveness: the bound on the step (PA-I) or the inverse weight
        of the squared slack (PA-II).  ``np.inf`` gives plain PA.
    loss : {"hinge", "squared_hinge"}, default="hinge"
        ``"hinge"`` is PA-I, ``"squared_hinge"`` is PA-II.
    {common}
    class_weight : dict, "balanced" or None, default=None
        Weights per class; they multiply ``C`` for the samples of that class,
        as in :class:`PassiveAggressiveClassifier`.  ``"balanced"`` is
        computed from ``y`` in ``fit`` and refused by ``partial_fit``.

    Attributes
    ----------
    support_vectors_ : ndarray or CSR matrix of shape (n_SV, n_features)
        The support vectors, dense or CSR as the training data.
    dual_coef_ : ndarray of shape (1, n_SV) if n_classes == 2 else \
            (n_classes, n_SV)
        Their coefficients ``alpha``.
    classes_ : ndarray of shape (n_classes,)
        The class labels.
    n_features_in_ : int
        Number of features seen during ``fit``.
    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Names of features seen during ``fit``, when ``X`` has string column
        names.
    n_iter_ : int
        Number of epochs run by the last ``fit`` (1 after ``partial_fit``).
    loss_curve_ : list of float
        Mean training loss of each epoch of the last ``fit``; each
        ``partial_fit`` call appends the mean loss of its pass.
    t_ : float
        Number of samples seen (over all epochs and calls) plus one.

    See Also
    --------
    PassiveAggressiveClassifier : The linear (primal) form.
    KernelPassiveAggressiveRegressor : Kernel PA for regression.

    References
    ----------
    .. [1] K. Crammer, O. Dekel, J. Keshet, S. Shalev-Shwartz and Y. Singer,
       "Online Passive-Aggressive Algorithms", JMLR 7, 2006.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_pa import KernelPassiveAggressiveClassifier
    >>> rng = np.random.RandomState(0)
    >>> X = rng.uniform(-1, 1, size=(400, 2))
    >>> y = np.sign(X[:, 0] * X[:, 1])  # XOR: no linear model separates it
    >>> clf = KernelPassiveAggressiveClassifier(gamma=2.0)
    >>> clf.fit(X, y).score(X, y) > 0.9
    True
    """

    _parameter_constraints: dict = {
        **_BaseKernelPA._parameter_constraints,
        "loss": [StrOptions({"hinge", "squared_hinge"})],
        "class_weight": [StrOptions({"balanced"}), dict, None],
    }

    def __init__(
        self,
        *,
        C=1.0,
        loss="hinge",
        kernel="rbf",
        gamma="scale",
        degree=None,
        coef0=None,
        kernel_params=None,
        budget=None,
        budget_policy="smallest",
        max_iter=5,
        tol=None,
        early_stopping=False,
        validation_fraction=0.1,
        n_iter_no_change=5,
        shuffle=True,
        verbose=0,
        random_state=None,
        warm_start=False,
        class_weight=None,
    ):
        self.C = C
        self.loss = loss
        self.class_weight = class_weight
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.kernel_params = kernel_params
        self.budget = budget
        self.budget_policy = budget_policy
        self.max_iter = max_iter
        self.tol = tol
        self.early_stopping = early_stopping
        self.validation_fraction = validation_fraction
        self.n_iter_no_change = n_iter_no_change
        self.shuffle = shuffle
        self.verbose = verbose
        self.random_state = random_state
        self.warm_start = warm_start

    def _rule(self):
        return Rule.BINARY if self.classes_.shape[0] == 2 else Rule.MAX_LOSS

    def _slack(self):
        return Slack.HINGE if self.loss == "hinge" else Slack.SQUARED_HINGE

    def _n_columns(self):
        n_classes = self.classes_.shape[0]
        return 1 if n_classes == 2 else n_classes

    def _prepare_targets(self, y, *, classes, first_call, fitting):
        kind = type_of_target(y)
        if kind not in ("binary", "multiclass"):
            raise ValueError(
                f"Unknown label type: {kind!r}. This estimator takes binary or "
                "multiclass targets."
            )
        if fitting:
            classes_ = unique_labels(y)
        elif first_call:
            if classes is None:
                raise ValueError(
                    "classes must be passed on the first call to partial_fit: "
                    "the list of every label the stream may contain, e.g. "
                    "classes=np.unique(y_all)."
                )
            classes_ = unique_labels(classes)
        else:
            classes_ = self.classes_
            if classes is not None and not np.array_equal(
                classes_, unique_labels(classes)
            ):
                raise ValueError(
                    f"classes={classes!r} is not the same as on the first call to "
                    f"partial_fit, which was {classes_!r}."
                )
        if classes_.shape[0] < 2:
            raise ValueError(
                "The number of classes has to be greater than one; got "
                f"{classes_.shape[0]} class."
            )
        unknown = np.setdiff1d(np.unique(y), classes_)
        if unknown.size:
            raise ValueError(
                f"y contains labels {unknown.tolist()!r} that are not in classes "
                f"{classes_.tolist()!r}."
            )
        if self.class_weight == "balanced" and not fitting:
            raise ValueError(
                "class_weight='balanced' is not supported by partial_fit: the "
                "class frequencies of the whole stream are unknown. Compute "
                "weights on a representative sample with "
                "sklearn.utils.compute_class_weight('balanced', ...) and pass "
                "them as a dict."
            )
        weights = checked_class_weight(self.class_weight, classes_, y)
        self.classes_ = classes_
        self._expanded_class_weight = np.ascontiguousarray(weights, dtype=np.float64)

    def _effective_sample_weight(self, y, sample_weight):
        # a class weight multiplies C for the samples of its class, as in
        # PassiveAggressiveClassifier: fold it into the per-sample multiplier
        labels = np.searchsorted(self.classes_, y)
        return np.ascontiguousarray(
            sample_weight * self._expanded_class_weight[labels], dtype=np.float64
        )

    def _targets(self, y):
        labels = np.searchsorted(self.classes_, y).astype(np.int32)
        return np.ascontiguousarray(labels), np.zeros(1)

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, sample_weight=None):
        """Fit the model with up to ``max_iter`` passes over the data.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training data.
        y : array-like of shape (n_samples,)
            Target labels.
        sample_weight : array-like of shape (n_samples,), default=None
            Per-sample weights; each multiplies ``C`` for its sample (a zero
            weight skips the sample).

        Returns
        -------
        self : object
            Fitted estimator.
        """
        with atomic_update(self):
            return self._fit(X, y, sample_weight)

    @_fit_context(prefer_skip_nested_validation=True)
    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """Make one pass over a batch, continuing from the current model.

        The whole batch is validated before any coefficient moves: on an
        error the estimator is left exactly as it was.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            A batch of training data.
        y : array-like of shape (n_samples,)
            Its labels, all in ``classes``.
        classes : array-like of shape (n_classes,), default=None
            Every label the stream may contain.  Required on the first call,
            optional (but checked) afterwards.
        sample_weight : array-like of shape (n_samples,), default=None
            Per-sample weights multiplying ``C``.

        Returns
        -------
        self : object
            Fitted estimator.
        """
        with atomic_update(self):
            return self._partial_fit(X, y, classes, sample_weight)

    def decision_function(self, X):
        """The kernel expansion ``sum_i alpha_i K(x_i, x)``.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Samples.

        Returns
        -------
        scores : ndarray of shape (n_samples,) or (n_samples, n_classes)
            One score per sample for two classes (positive means
            ``classes_[1]``), one per class otherwise.
        """
        scores = self._decision(X)
        return scores.ravel() if scores.shape[1] == 1 else scores

    def predict(self, X):
        """Predict class labels.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Samples.

        Returns
        -------
        y : ndarray of shape (n_samples,)
            Predicted labels.
        """
        scores = self.decision_function(X)
        if scores.ndim == 1:
            return self.classes_[(scores > 0).astype(int)]
        return self.classes_[np.argmax(scores, axis=1)]


class KernelPassiveAggressiveRegressor(RegressorMixin, _BaseKernelPA):
    """Kernel Passive-Aggressive regressor (epsilon-insensitive, dual form).

    The prediction is :math:`f(x) = \\sum_i \\alpha_i K(x_i, x)` over the support
    vectors.  On a sample predicted more than ``epsilon`` away from its
    target the new coefficient is :math:`\\operatorname{sign}(y - f(x)) \\, \\tau`
    with the step of :class:`PassiveAggressiveRegressor` and :math:`\\|x\\|^2`
    replaced by :math:`K(x, x)`: :math:`\\tau = \\ell / K(x, x)` (PA,
    ``C=np.inf``; :math:`\\ell` the loss), :math:`\\tau = \\min(C, \\ell / K(x, x))`
    (PA-I) or :math:`\\tau = \\ell / (K(x, x) + 1 / (2C))` (PA-II).  With
    ``kernel="linear"`` it is exactly
    ``PassiveAggressiveRegressor(fit_intercept=False)`` in dual form.

    Parameters
    ----------
    C : float, default=1.0
        Aggressiveness (maximum step for PA-I, inverse damping for PA-II);
        ``np.inf`` gives plain PA.
    loss : {"epsilon_insensitive", "squared_epsilon_insensitive"}, \
            default="epsilon_insensitive"
        PA-I or PA-II.
    epsilon : float, default=0.1
        Width of the insensitive zone: errors smaller than this are ignored.
    {common}

    Attributes
    ----------
    support_vectors_ : ndarray or CSR matrix of shape (n_SV, n_features)
        The support vectors, dense or CSR as the training data.
    dual_coef_ : ndarray of shape (1, n_SV)
        Their coefficients ``alpha``.
    n_features_in_ : int
        Number of features seen during ``fit``.
    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Names of features seen during ``fit``, when ``X`` has string column
        names.
    n_iter_ : int
        Number of epochs run by the last ``fit`` (1 after ``partial_fit``).
    loss_curve_ : list of float
        Mean training loss of each epoch of the last ``fit``; each
        ``partial_fit`` call appends the mean loss of its pass.
    t_ : float
        Number of samples seen plus one.

    See Also
    --------
    PassiveAggressiveRegressor : The linear (primal) form.
    KernelPassiveAggressiveClassifier : Kernel PA for classification.

    References
    ----------
    .. [1] K. Crammer, O. Dekel, J. Keshet, S. Shalev-Shwartz and Y. Singer,
       "Online Passive-Aggressive Algorithms", JMLR 7, 2006.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_pa import KernelPassiveAggressiveRegressor
    >>> rng = np.random.RandomState(0)
    >>> X = rng.uniform(-3, 3, size=(300, 1))
    >>> y = np.sin(X).ravel()
    >>> reg = KernelPassiveAggressiveRegressor(gamma=1.0, epsilon=0.01)
    >>> reg.fit(X, y).score(X, y) > 0.95
    True
    """

    _parameter_constraints: dict = {
        **_BaseKernelPA._parameter_constraints,
        "loss": [StrOptions({"epsilon_insensitive", "squared_epsilon_insensitive"})],
        "epsilon": [Interval(Real, 0, None, closed="left")],
    }

    def __init__(
        self,
        *,
        C=1.0,
        loss="epsilon_insensitive",
        epsilon=0.1,
        kernel="rbf",
        gamma="scale",
        degree=None,
        coef0=None,
        kernel_params=None,
        budget=None,
        budget_policy="smallest",
        max_iter=5,
        tol=None,
        early_stopping=False,
        validation_fraction=0.1,
        n_iter_no_change=5,
        shuffle=True,
        verbose=0,
        random_state=None,
        warm_start=False,
    ):
        self.C = C
        self.loss = loss
        self.epsilon = epsilon
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.kernel_params = kernel_params
        self.budget = budget
        self.budget_policy = budget_policy
        self.max_iter = max_iter
        self.tol = tol
        self.early_stopping = early_stopping
        self.validation_fraction = validation_fraction
        self.n_iter_no_change = n_iter_no_change
        self.shuffle = shuffle
        self.verbose = verbose
        self.random_state = random_state
        self.warm_start = warm_start

    def _rule(self):
        return Rule.REGRESSION

    def _slack(self):
        if self.loss == "epsilon_insensitive":
            return Slack.HINGE
        return Slack.SQUARED_HINGE

    def _n_columns(self):
        return 1

    def _prepare_targets(self, y, *, classes, first_call, fitting):
        pass

    def _targets(self, y):
        return np.zeros(1, dtype=np.int32), np.ascontiguousarray(y, dtype=np.float64)

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, sample_weight=None):
        """Fit the model with up to ``max_iter`` passes over the data.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training data.
        y : array-like of shape (n_samples,)
            Target values.
        sample_weight : array-like of shape (n_samples,), default=None
            Per-sample weights multiplying ``C``.

        Returns
        -------
        self : object
            Fitted estimator.
        """
        with atomic_update(self):
            return self._fit(X, y, sample_weight)

    @_fit_context(prefer_skip_nested_validation=True)
    def partial_fit(self, X, y, sample_weight=None):
        """Make one pass over a batch, continuing from the current model.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            A batch of training data.
        y : array-like of shape (n_samples,)
            Its targets.
        sample_weight : array-like of shape (n_samples,), default=None
            Per-sample weights multiplying ``C``.

        Returns
        -------
        self : object
            Fitted estimator.
        """
        with atomic_update(self):
            return self._partial_fit(X, y, None, sample_weight)

    def predict(self, X):
        """Predict targets.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Samples.

        Returns
        -------
        y : ndarray of shape (n_samples,)
            Predicted values.
        """
        return self._decision(X).ravel()


KernelPassiveAggressiveClassifier.__doc__ = (
    KernelPassiveAggressiveClassifier.__doc__.replace(
        "    {common}", _COMMON_PARAMS_DOC.strip("\n")
    )
)
KernelPassiveAggressiveRegressor.__doc__ = (
    KernelPassiveAggressiveRegressor.__doc__.replace(
        "    {common}", _COMMON_PARAMS_DOC.strip("\n")
    )
)
