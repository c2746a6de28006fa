"""Training on a Dask cluster by iterative parameter mixing.

Iterative parameter mixing (McDonald, Hall & Mann, NAACL 2010): the data stay
split in partitions, one per Dask task; at every epoch each partition runs one
epoch of the estimator's own update (its compiled kernel, through
``partial_fit``) starting from the current mixed model, and the driver mixes
the partitions' models into the next one.

This module needs the optional ``dask`` extra (``pip install
"sklearn_pa[dask]"``); the rest of the package never imports Dask.
"""

import copy
import numbers
import time
import warnings

import numpy as np
import scipy.linalg
import scipy.sparse as sp
from sklearn.base import clone, is_classifier
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_array, check_random_state
from sklearn.utils.multiclass import type_of_target, unique_labels

from ._base import BaseOnlineLinear, canonical_csr
from ._bayes_point import OnlineBayesPointClassifier
from ._confidence_weighted import _BaseSecondOrder
from ._kernels._rules import SecondOrderRule
from ._one_class import PassiveAggressiveOneClass

__all__ = ["fit_parameter_mixing", "mix_gaussians"]

_MIXINGS = ("auto", "uniform", "updates", "gaussian")

_UNSUPPORTED_HINT = {
    "KernelPassiveAggressiveClassifier": (
        "a kernel model is a growing set of support vectors, not a weight "
        "vector that can be averaged; approximate the kernel with explicit "
        "features (sklearn.kernel_approximation.Nystroem or RBFSampler) and "
        "train PassiveAggressiveClassifier on them, which is supported"
    ),
    "KernelPassiveAggressiveRegressor": (
        "a kernel model is a growing set of support vectors, not a weight "
        "vector that can be averaged; approximate the kernel with explicit "
        "features (sklearn.kernel_approximation.Nystroem or RBFSampler) and "
        "train PassiveAggressiveRegressor on them, which is supported"
    ),
    "StructuredPerceptron": (
        "sequence taggers take lists of sentences, not rows of a matrix; train "
        "them on one machine, or run several with different seeds and compare "
        "them with joblib's Dask backend"
    ),
    "StructuredPassiveAggressive": (
        "sequence taggers take lists of sentences, not rows of a matrix; train "
        "them on one machine, or run several with different seeds and compare "
        "them with joblib's Dask backend"
    ),
}


# ---------------------------------------------------------------- families
def _family(estimator):
    """'second_order', 'first_order', 'bayes_point' or 'one_class'; raises
    for the estimators parameter mixing does not apply to."""
    if isinstance(estimator, _BaseSecondOrder):
        return "second_order"
    if isinstance(estimator, BaseOnlineLinear):
        return "first_order"
    if isinstance(estimator, OnlineBayesPointClassifier):
        return "bayes_point"
    if isinstance(estimator, PassiveAggressiveOneClass):
        return "one_class"
    name = type(estimator).__name__
    hint = _UNSUPPORTED_HINT.get(
        name,
        "only the linear online estimators of sklearn_pa carry a state that "
        "parameter mixing can average; for any estimator with partial_fit, "
        "dask_ml.wrappers.Incremental streams the blocks of a dask array "
        "through it on one worker at a time",
    )
    raise TypeError(
        f"fit_parameter_mixing does not support {name}: {hint}. See the "
        "'Distributed training' page of the user guide."
    )


def _check_estimator(estimator):
    family = _family(estimator)
    estimator = clone(estimator)
    estimator._validate_params()
    if getattr(estimator, "early_stopping", False):
        raise ValueError(
            "early_stopping=True is not supported by parameter mixing (the "
            "validation split would have to be drawn across partitions); set "
            "early_stopping=False. Training stops after n_epochs epochs, or "
            "when the training loss stops improving by tol if n_epochs=None."
        )
    if getattr(estimator, "class_weight", None) == "balanced":
        raise ValueError(
            "class_weight='balanced' would be computed per partition; compute "
            "the weights on the whole data with "
            "sklearn.utils.class_weight.compute_class_weight('balanced', ...) "
            "and pass them as a dict."
        )
    return family, estimator


# -------------------------------------------------------------- partitions
def _to_float_block(X):
    """A partition's features as float64 C-ordered dense or canonical CSR."""
    if hasattr(X, "iloc"):  # a pandas partition of a dask dataframe
        X = X.to_numpy()
    X = check_array(
        X,
        accept_sparse="csr",
        dtype=np.float64,
        order="C",
        ensure_min_samples=0,
    )
    return canonical_csr(X)


def _to_target_block(y):
    if y is None:
        return None
    if hasattr(y, "to_numpy"):
        y = y.to_numpy()
    y = np.asarray(y)
    if y.ndim == 2 and y.shape[1] == 1:
        y = y.ravel()
    if y.ndim != 1:
        raise ValueError(
            f"y has shape {y.shape}: parameter mixing takes a 1-D y (multilabel "
            "indicator matrices are not supported; train one binary model per "
            "label or use one machine)."
        )
    return y


def _prepare_partition(X, y, index):
    """Convert and check one partition (on the worker that holds it)."""
    try:
        X = _to_float_block(X)
        y = _to_target_block(y)
    except ValueError as exc:
        raise ValueError(f"Partition {index}: {exc}") from exc
    if y is not None and y.shape[0] != X.shape[0]:
        raise ValueError(
            f"Partition {index}: X has {X.shape[0]} rows but y has {y.shape[0]}; "
            "chunk X and y along the same row boundaries."
        )
    return X, y


def _summarize_partition(part, index, classifier, unlabeled_marker):
    """Rows, features, labels and the statistics of the intercept's scale."""
    X, y = part
    data = X.data if sp.issparse(X) else X.reshape(-1)
    summary = {
        "n_rows": X.shape[0],
        "n_features": X.shape[1],
        "nnz": int(np.count_nonzero(data)),
        "sumsq": float(np.dot(data, data)) if data.size else 0.0,
        "max_abs": float(np.max(np.abs(data))) if data.size else 0.0,
        "labels": None,
    }
    scale = summary["max_abs"]
    summary["sumsq_scaled"] = 0.0
    if data.size and scale > 0 and not 1e-100 < scale < 1e100:
        # the squares would overflow or underflow: sum them scaled
        scaled = data / scale
        summary["sumsq_scaled"] = float(np.dot(scaled, scaled))
    if y is not None and classifier:
        labels = np.unique(y)
        if unlabeled_marker:
            labels = labels[labels != -1]
        summary["labels"] = labels
    elif y is not None:
        try:
            y_float = np.asarray(y, dtype=np.float64)
        except (TypeError, ValueError) as exc:
            raise ValueError(
                f"Partition {index}: y must be numeric for a regressor."
            ) from exc
        if not np.all(np.isfinite(y_float)):
            raise ValueError(
                f"Partition {index}: y contains NaN or infinity; drop or impute "
                "those rows before training."
            )
    return summary


def _typical_value(summaries):
    """``typical_feature_value`` of the whole data from the partitions' sums
    (the same arithmetic as on one machine when the values are moderate)."""
    nnz = sum(s["nnz"] for s in summaries)
    if nnz == 0:
        return 1.0
    scale = max(s["max_abs"] for s in summaries)
    if 1e-100 < scale < 1e100:
        return float(np.sqrt(sum(s["sumsq"] for s in summaries) / nnz))
    total = 0.0
    for s in summaries:
        if s["max_abs"] == 0:
            continue
        if 1e-100 < s["max_abs"] < 1e100:
            total += s["sumsq"] / scale / scale
        else:
            total += s["sumsq_scaled"] * (s["max_abs"] / scale) ** 2
    return float(scale * np.sqrt(total / nnz))


def _blocks_of_dask_array(X, y, index_name="X"):
    import dask.array as da

    if X.ndim != 2:
        raise ValueError(f"{index_name} must be 2-D; got {X.ndim} dimensions.")
    if len(X.chunks[1]) > 1:
        X = X.rechunk({1: -1})
    x_blocks = list(X.to_delayed()[:, 0])
    if y is None:
        return x_blocks, [None] * len(x_blocks)
    if isinstance(y, da.Array):
        y = y.rechunk((X.chunks[0],) + tuple((-1,) for _ in y.shape[1:]))
        y_blocks = list(y.to_delayed().reshape(-1))
    else:
        y = np.asarray(y)
        bounds = np.cumsum((0, *X.chunks[0]))
        y_blocks = [y[bounds[i] : bounds[i + 1]] for i in range(len(x_blocks))]
    if len(y_blocks) != len(x_blocks):
        raise ValueError(
            f"X has {len(x_blocks)} row blocks but y has {len(y_blocks)}; "
            "chunk them alike."
        )
    return x_blocks, y_blocks


def _split_rows(X, y, n_partitions):
    n = X.shape[0]
    if n_partitions > n:
        raise ValueError(
            f"Cannot split {n} rows into n_partitions={n_partitions} partitions."
        )
    bounds = np.linspace(0, n, n_partitions + 1).astype(int)
    if sp.issparse(X):
        X = X.tocsr()
    x_blocks = [X[bounds[i] : bounds[i + 1]] for i in range(n_partitions)]
    if y is None:
        return x_blocks, [None] * n_partitions
    y = np.asarray(y)
    if y.shape[0] != n:
        raise ValueError(f"X has {n} rows but y has {y.shape[0]}.")
    return x_blocks, [y[bounds[i] : bounds[i + 1]] for i in range(n_partitions)]


def _blocks(X, y, n_partitions, n_workers):
    """(x_blocks, y_blocks, feature_names): delayed objects for dask
    collections, in-memory slices for a plain array."""
    try:
        import dask.array as da
        import dask.dataframe as dd
    except ImportError:  # pragma: no cover - dask is a requirement here
        da = dd = None
    feature_names = None
    if dd is not None and isinstance(X, dd.DataFrame):
        columns = np.asarray(X.columns, dtype=object)
        if all(isinstance(c, str) for c in columns):
            feature_names = columns
        x_blocks = list(X.to_delayed())
        if y is None:
            return x_blocks, [None] * len(x_blocks), feature_names
        if isinstance(y, dd.Series | dd.DataFrame):
            if y.npartitions != X.npartitions:
                raise ValueError(
                    f"X has {X.npartitions} partitions but y has {y.npartitions}; "
                    "split them alike (e.g. y = df[target], X = df[features])."
                )
            y_blocks = list(y.to_delayed())
        else:
            raise TypeError(
                "With a dask DataFrame X, y must be a dask Series with the same "
                "partitions (for instance a column of the same frame)."
            )
        return x_blocks, y_blocks, feature_names
    if da is not None and isinstance(X, da.Array):
        x_blocks, y_blocks = _blocks_of_dask_array(X, y)
        return x_blocks, y_blocks, None
    if hasattr(X, "columns") and hasattr(X, "iloc"):
        columns = np.asarray(X.columns, dtype=object)
        if all(isinstance(c, str) for c in columns):
            feature_names = columns
        X = X.to_numpy()
    if not sp.issparse(X):
        X = np.asarray(X)
    if y is not None and hasattr(y, "to_numpy"):
        y = y.to_numpy()
    if n_partitions is None:
        n_partitions = n_workers
    x_blocks, y_blocks = _split_rows(X, y, int(n_partitions))
    return x_blocks, y_blocks, feature_names


# --------------------------------------------------------------- executors
class _LocalExecutor:
    """Dask's local threaded scheduler: the partitions stay in this process
    and the epochs of the partitions run in threads (the kernels release the
    GIL)."""

    def __init__(self):
        import os

        self.n_workers = os.cpu_count() or 1

    def persist(self, x_blocks, y_blocks):
        import dask

        tasks = [
            dask.delayed(_prepare_partition, pure=False)(xb, yb, i)
            for i, (xb, yb) in enumerate(zip(x_blocks, y_blocks))
        ]
        return list(dask.compute(*tasks, scheduler="threads"))

    def map(self, func, parts, per_part, common):
        import dask

        tasks = [
            dask.delayed(func, pure=False)(part, *args, *common)
            for part, args in zip(parts, per_part)
        ]
        return list(dask.compute(*tasks, scheduler="threads"))

    def broadcast(self, obj):
        return obj

    def release(self, parts):
        pass


class _ClientExecutor:
    """A ``distributed.Client``: the partitions are persisted once, spread
    round-robin over the workers, and stay there across epochs; each epoch
    ships only the model, and a partition's epoch runs where it lives."""

    def __init__(self, client):
        self.client = client
        self.addresses = sorted(client.scheduler_info().get("workers", {}))
        self.n_workers = max(len(self.addresses), 1)
        self.home = {}  # partition key -> worker address

    def _where(self, i):
        if not self.addresses:
            return {}
        return {
            "workers": [self.addresses[i % len(self.addresses)]],
            "allow_other_workers": True,
        }

    def persist(self, x_blocks, y_blocks):
        import dask
        from dask.delayed import Delayed

        client = self.client
        futures = []
        for i, (xb, yb) in enumerate(zip(x_blocks, y_blocks)):
            where = self._where(i)
            if isinstance(xb, Delayed):
                # computed (or moved) once onto its worker
                task = dask.delayed(_prepare_partition, pure=False)(xb, yb, i)
                future = client.compute(task, **where)
            else:
                # hash=False: a content-hashed key would be shared by identical
                # partitions (repeated rows, all-zero blocks), so that one
                # partition's release or move loses another's data
                xb = client.scatter(xb, workers=where.get("workers"), hash=False)
                if yb is not None:
                    yb = client.scatter(yb, workers=where.get("workers"), hash=False)
                future = client.submit(
                    _prepare_partition, xb, yb, i, pure=False, **where
                )
            self.home[future.key] = where
            futures.append(future)
        return futures

    def map(self, func, parts, per_part, common):
        client = self.client
        futures = [
            client.submit(
                func, part, *args, *common, pure=False, **self.home.get(part.key, {})
            )
            for part, args in zip(parts, per_part)
        ]
        try:
            return client.gather(futures)
        finally:
            for future in futures:
                future.release()

    def broadcast(self, obj):
        return self.client.scatter(obj, broadcast=True, hash=False)

    def release(self, parts):
        for part in parts:
            self.home.pop(part.key, None)
            part.release()


def _executor(client):
    if client is None:
        try:
            from distributed import default_client
        except ImportError:
            return _LocalExecutor()
        try:
            client = default_client()
        except ValueError:
            return _LocalExecutor()
    return _ClientExecutor(client)


# ------------------------------------------------------------ worker epoch
def _worker_epoch(part, estimator, rng, classes, family):
    """One epoch of ``estimator``'s own update on one partition."""
    X, y = part
    estimator = copy.deepcopy(estimator)
    estimator._rng = rng
    estimator._epoch_stats = []  # filled by the epoch loop (record_epoch)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        if family == "one_class":
            estimator.partial_fit(X)
        elif is_classifier(estimator):
            estimator.partial_fit(X, y, classes=classes)
        else:
            estimator.partial_fit(X, y)
    (stats,) = estimator.__dict__.pop("_epoch_stats")
    messages = [(str(w.message), w.category) for w in caught]
    return estimator, stats, messages


# ------------------------------------------------------------- init state
def _scale_row(n_features, value):
    """A one-row CSR whose typical feature value is ``value``: lets the
    estimator run its own intercept-scaling check on the global value."""
    return sp.csr_matrix(
        (np.array([value]), np.array([0]), np.array([0, 1])),
        shape=(1, max(n_features, 1)),
    )


def _initial_model(family, estimator, n_features, classes, scale, random_state):
    """The estimator as the first ``partial_fit`` call would leave it before
    its first update, with the classes and the intercept's scale of the
    whole data."""
    est = estimator
    zero_row = sp.csr_matrix((1, n_features))
    if family == "one_class":
        est._check_bound()
        est._validate_batch(zero_row, None, reset=True)
        w, extra = est._initial_state(n_features)
        est._rng = random_state
        est._learned = est._learn()
        est.n_iter_ = 0
        est.t_ = 1.0
        est._publish(w, extra)
        return est
    if family == "bayes_point":
        base = est._make_base()
        est._validate_batch(zero_row, classes[:1], None, reset=True)
        base = est._prepare_classes(
            base,
            classes,
            np.zeros(classes.shape[0], dtype=bool),
            classes,
            first_call=True,
            fitting=False,
        )
        est._check_rule(base)
        n_columns = 1 if base.classes_.shape[0] == 2 else base.classes_.shape[0]
        est.classes_ = base.classes_
        est._class_weight = base._expanded_class_weight
        est._start(base, _scale_row(n_features, scale), n_columns)
        if base.fit_intercept and base.intercept_scaling == "auto":
            est.intercept_scaling_ = scale
            base.intercept_scaling_ = scale
        est._rng = random_state
        est.n_iter_ = 0
        est._publish()
        return est
    y0 = classes[:1] if classes is not None else np.zeros(1)
    est._validate_batch(zero_row, y0, None, reset=True)
    if classes is not None:
        est._prepare_targets(classes, classes=classes, first_call=True, fitting=False)
    else:
        est._prepare_targets(y0, classes=None, first_call=True, fitting=False)
    est._set_intercept_scaling(_scale_row(n_features, scale))
    if getattr(est, "intercept_scaling", None) == "auto":
        est.intercept_scaling_ = scale
    n_columns = est._n_columns()
    W, b = est._allocate(n_features, n_columns, None, None)
    if family == "second_order":
        rule = SecondOrderRule.SO_BINARY if est.classes_.shape[0] == 2 else est._rule()
        est._sigma = est._new_sigma(n_features, est._n_groups(rule))
    est._rng = random_state
    est.t_ = 1.0
    est.n_iter_ = 0
    est._publish(W, b)
    return est


# ------------------------------------------------------------------ mixing
def _weights(stats, mixing):
    k = len(stats)
    if mixing == "updates":
        updates = np.array([s[0] for s in stats], dtype=np.float64)
        if updates.sum() > 0:
            return updates / updates.sum()
    return np.full(k, 1.0 / k)


def _linear(arrays, weights):
    out = weights[0] * arrays[0]
    for w, a in zip(weights[1:], arrays[1:]):
        out = out + w * a
    return out


def _symmetric_from_upper(S):
    upper = np.triu(S)
    return upper + np.triu(upper, 1).T


def _check_gaussians(mean0, cov0, means, covs, diagonal):
    """The arguments of :func:`mix_gaussians` as float64 arrays, refused
    with a clear message unless every mean is finite and every covariance
    is a finite positive variance vector (``diagonal``) or a finite
    symmetric positive definite matrix of the right shape."""
    mean0 = np.asarray(mean0, dtype=np.float64)
    cov0 = np.asarray(cov0, dtype=np.float64)
    means = [np.asarray(m, dtype=np.float64) for m in means]
    covs = [np.asarray(c, dtype=np.float64) for c in covs]
    if len(means) == 0 or len(means) != len(covs):
        raise ValueError(
            f"mix_gaussians needs one covariance per mean and at least one "
            f"partition; got {len(means)} means and {len(covs)} covariances."
        )
    d = mean0.shape[0] if mean0.ndim else 0
    want_cov = (d,) if diagonal else (d, d)
    for name, arrays, shape in (
        ("mean", [mean0] + means, mean0.shape),
        ("covariance", [cov0] + covs, want_cov),
    ):
        for i, a in enumerate(arrays):
            which = "of the prior" if i == 0 else f"of partition {i - 1}"
            if mean0.ndim not in (1, 2) or a.shape != shape:
                raise ValueError(
                    f"The {name} {which} has shape {a.shape}; expected {shape} "
                    f"(the prior mean has shape {mean0.shape}, diagonal="
                    f"{diagonal})."
                )
            if not np.all(np.isfinite(a)):
                raise ValueError(f"The {name} {which} contains NaN or infinity.")
    for i, c in enumerate([cov0] + covs):
        which = "of the prior" if i == 0 else f"of partition {i - 1}"
        if diagonal:
            if np.any(c <= 0):
                raise ValueError(
                    f"The variances {which} must be positive (a zero variance "
                    "has no precision); got a minimum of "
                    f"{float(np.min(c)):g}."
                )
            continue
        scale = float(np.max(np.abs(c))) if c.size else 0.0
        if np.max(np.abs(c - c.T), initial=0.0) > 1e-8 * scale:
            raise ValueError(
                f"The covariance {which} is not symmetric; pass a symmetric "
                "positive definite matrix (e.g. 0.5 * (S + S.T))."
            )
        try:
            scipy.linalg.cho_factor(c, lower=False)
        except np.linalg.LinAlgError as exc:
            raise ValueError(
                f"The covariance {which} is not positive definite (it is "
                "singular or has a negative eigenvalue); a Gaussian posterior "
                "has a positive definite covariance."
            ) from exc
    return mean0, cov0, means, covs


def mix_gaussians(mean0, cov0, means, covs, *, diagonal):
    r"""Combine Gaussian posteriors that started from the same prior.

    Each of :math:`k` partitions started from the prior
    :math:`\mathcal{N}(\mu_0, \Sigma_0)` (``mean0``, ``cov0``) and moved it
    with its own, disjoint, data to :math:`\mathcal{N}(\mu_i, \Sigma_i)`
    (``means[i]``, ``covs[i]``).  In information form (precision
    :math:`P = \Sigma^{-1}`, information vector :math:`h = P \mu`) each
    partition *added* :math:`P_i - P_0` and :math:`h_i - h_0` to the prior; the
    combination adds every partition's gain once and counts the shared prior
    once:

    .. math::

        P = P_0 + \sum_i (P_i - P_0), \qquad
        h = h_0 + \sum_i (h_i - h_0), \qquad
        \mu = P^{-1} h

    (the product of the :math:`k` posteriors would count the prior :math:`k`
    times).  With one partition the result is that partition's Gaussian
    (returned as it is: the two inversions would lose
    :math:`\operatorname{cond}(\Sigma) \, \epsilon` of relative accuracy,
    :math:`\epsilon` the machine epsilon, which is also the accuracy of the
    combination of several partitions; full covariances of Confidence-Weighted
    models can reach condition numbers of :math:`10^{13}`).  A gain
    :math:`\sum_i (P_i - P_0)` that is not positive semi-definite in floating
    point is projected onto the positive semi-definite cone (negative variances
    gains clipped to zero, or negative eigenvalues for a full matrix), so
    the combined covariance is always symmetric positive definite.

    Parameters
    ----------
    mean0 : ndarray of shape (d,) or (d, m)
        Mean of the shared prior (``m`` columns sharing the covariance, as in
        a matrix-normal model).
    cov0 : ndarray of shape (d,) or (d, d)
        Its covariance: the variances (``diagonal=True``) or the full matrix.
    means : list of ndarray like ``mean0``
        The partitions' means.
    covs : list of ndarray like ``cov0``
        The partitions' covariances.
    diagonal : bool
        Whether the covariances are diagonal (given as vectors of variances).

    Returns
    -------
    mean : ndarray like ``mean0``
        The combined mean.
    cov : ndarray like ``cov0``
        The combined covariance (symmetric positive definite).

    Raises
    ------
    ValueError
        If a mean or covariance is not finite, has the wrong shape, or a
        covariance is not positive (zero variances) or, for full matrices,
        not symmetric positive definite.

    Examples
    --------
    Two partitions each halve the variance of a scalar weight that started
    at :math:`\mathcal{N}(0, 1)`: each gained a precision of 1, and
    information :math:`2 \cdot 1` and :math:`2 \cdot 3`; together, precision
    :math:`1 + 1 + 1 = 3` and information :math:`0 + 2 + 6 = 8`:

    >>> import numpy as np
    >>> from sklearn_pa.distributed import mix_gaussians
    >>> mean, var = mix_gaussians(
    ...     np.zeros(1), np.ones(1), [np.array([1.0]), np.array([3.0])],
    ...     [np.array([0.5]), np.array([0.5])], diagonal=True)
    >>> mean, var
    (array([2.66666667]), array([0.33333333]))
    """
    mean0, cov0, means, covs = _check_gaussians(mean0, cov0, means, covs, diagonal)
    k = len(means)
    if k == 1:
        # the formula's exact value; computing it would lose
        # cond(cov) * eps to the two inversions
        return np.array(means[0], dtype=np.float64), np.array(covs[0], dtype=np.float64)
    if diagonal:
        P0 = 1.0 / np.asarray(cov0, dtype=np.float64)
        Ps = [1.0 / np.asarray(c, dtype=np.float64) for c in covs]
        gain = np.maximum(sum(Ps) - k * P0, 0.0)
        P = P0 + gain

        def col(v):  # a precision vector against a mean of one or more columns
            return v if np.ndim(mean0) == 1 else v[:, None]

        h = (1 - k) * col(P0) * mean0
        for Pi, m in zip(Ps, means):
            h = h + col(Pi) * m
        return h / col(P), 1.0 / P
    cov0 = np.asarray(cov0, dtype=np.float64)
    d = cov0.shape[0]
    eye = np.eye(d)

    def precision(cov):
        factor = scipy.linalg.cho_factor(cov, lower=False, check_finite=True)
        P = scipy.linalg.cho_solve(factor, eye)
        return 0.5 * (P + P.T)

    P0 = precision(cov0)
    Ps = [precision(np.asarray(c, dtype=np.float64)) for c in covs]
    gain = sum(Ps) - k * P0
    gain = 0.5 * (gain + gain.T)
    P = P0 + gain
    try:
        factor = scipy.linalg.cho_factor(P, lower=False)
    except np.linalg.LinAlgError:
        eigval, eigvec = np.linalg.eigh(gain)
        gain = (eigvec * np.maximum(eigval, 0.0)) @ eigvec.T
        P = P0 + 0.5 * (gain + gain.T)
        factor = scipy.linalg.cho_factor(P, lower=False)
    h = (1 - k) * (P0 @ mean0)
    for Pi, m in zip(Ps, means):
        h = h + Pi @ m
    mean = scipy.linalg.cho_solve(factor, h)
    cov = scipy.linalg.cho_solve(factor, eye)
    return mean, 0.5 * (cov + cov.T)


def _stacked_mean(W, b, cols, full, fit_intercept, a):
    """The mean vector(s) the covariance refers to: the feature weights and,
    last, the weight of the intercept's constant feature (``b / a`` in the
    full covariance, whose last coordinate is that feature; the diagonal
    keeps the intercept's own variance, and mixing a coordinate alone does
    not depend on its scale)."""
    if full and fit_intercept:
        return np.vstack([W[:, cols], b[cols][None, :] / a])
    if full:
        return W[:, cols]
    return np.vstack([W[:, cols], b[cols][None, :]])


def _mix_second_order_gaussian(est0, results):
    """Gaussian mixing of the means and covariances, per covariance block."""
    W0, b0 = est0._state_arrays()
    est0.__dict__.pop("_sigma_work", None)
    sigma0 = est0._sigma
    states = []
    for r in results:
        W, b = r._state_arrays()
        r.__dict__.pop("_sigma_work", None)
        states.append((W, b, r._sigma))
    a = est0.intercept_scaling_ if est0.fit_intercept else 0.0
    n_features, n_columns = W0.shape
    W = np.empty_like(W0)
    b = np.empty_like(b0)
    sigma = np.empty_like(sigma0)
    full = sigma0.ndim == 3
    n_groups = sigma0.shape[0] if full else sigma0.shape[1]
    for g in range(n_groups):
        cols = [g] if n_groups == n_columns else list(range(n_columns))
        m0 = _stacked_mean(W0, b0, cols, full, est0.fit_intercept, a)
        means = [
            _stacked_mean(Wi, bi, cols, full, est0.fit_intercept, a)
            for Wi, bi, _ in states
        ]
        if full:
            c0 = _symmetric_from_upper(sigma0[g])
            covs = [_symmetric_from_upper(s[g]) for _, _, s in states]
        else:
            c0 = sigma0[:, g]
            covs = [s[:, g] for _, _, s in states]
        m, c = mix_gaussians(m0, c0, means, covs, diagonal=not full)
        W[:, cols] = m[:n_features]
        if full and est0.fit_intercept:
            b[cols] = m[n_features] * a
        elif not full:
            b[cols] = m[n_features]
        else:
            b[cols] = b0[cols]
        if full:
            sigma[g] = c
        else:
            sigma[:, g] = c
    return W, b, sigma


def _mix_averages(est0, results, weights, W, b, t_new):
    """The lazy-average accumulators that make the published average equal
    the weighted mix of the partitions' averages."""
    if not all(r._averaging_state() for r in results):
        return None, None
    avg = _linear([np.asarray(r.coef_, dtype=np.float64).T for r in results], weights)
    avg = avg.reshape(W.shape)
    avg_b = _linear([np.atleast_1d(r.intercept_) for r in results], weights)
    n_avg = t_new - est0._average_start()
    if n_avg < 1:
        return np.zeros_like(W), np.zeros_like(b)
    return n_avg * (W - avg), n_avg * (b - avg_b)


def _mix(family, est0, results, stats, mixing):
    """The next mixed model (a new object; ``est0`` is the previous one)."""
    weights = _weights(stats, mixing)
    k = len(results)
    mixed = copy.copy(est0)
    mixed.__dict__.pop("_average_coef_buffer", None)
    t0 = float(est0.t_)
    t_new = t0 + sum(float(r.t_) - t0 for r in results)
    mixed.t_ = t_new
    mixed._rng = None
    if family == "one_class":
        center = _linear([r.center_ for r in results], weights)
        extra = _linear([r._extra for r in results], weights)
        # epsilon="auto": each worker measured the radius on its first block
        mixed._radius = float(_linear([r._radius for r in results], weights))
        mixed._publish(np.ascontiguousarray(center), extra)
        return mixed
    if family == "bayes_point":
        mixed._W = np.ascontiguousarray(_linear([r._W for r in results], weights))
        mixed._b = _linear([r._b for r in results], weights)
        n0 = est0.n_mistakes_
        mixed.n_mistakes_ = n0 + sum(r.n_mistakes_ - n0 for r in results)
        mixed._publish()
        return mixed
    if family == "second_order" and mixing == "gaussian":
        W, b, sigma = _mix_second_order_gaussian(est0, results)
        weights = np.full(k, 1.0 / k)  # for the averages
    else:
        pairs = [r._state_arrays() for r in results]
        W = _linear([p[0] for p in pairs], weights)
        b = _linear([p[1] for p in pairs], weights)
        if family == "second_order":
            for r in results:
                r.__dict__.pop("_sigma_work", None)
            sigma = _linear([r._sigma for r in results], weights)
    W = np.ascontiguousarray(W)
    if family == "second_order":
        mixed._sigma = sigma
        est0.__dict__.pop("_sigma_work", None)
    U, bu = (None, None)
    if getattr(est0, "average", False):
        U, bu = _mix_averages(est0, results, weights, W, b, t_new)
    mixed._publish(W, b, U, bu)
    return mixed


def _partition_rngs(random_state, k):
    """One random generator per partition; the first is the one a serial
    ``fit`` would use, so that one partition reproduces it exactly."""
    if random_state is None:
        return [np.random.RandomState() for _ in range(k)]
    if isinstance(random_state, numbers.Integral):
        seeds = np.random.SeedSequence(int(random_state)).spawn(k)
        return [check_random_state(int(random_state))] + [
            np.random.RandomState(s.generate_state(1)[0]) for s in seeds[1:]
        ]
    first = copy.deepcopy(check_random_state(random_state))
    return [first] + [
        np.random.RandomState(random_state.randint(np.iinfo(np.int32).max))
        for _ in range(k - 1)
    ]


# ------------------------------------------------------------------ public
def fit_parameter_mixing(
    estimator,
    X,
    y=None,
    *,
    classes=None,
    n_epochs=None,
    mixing="auto",
    n_partitions=None,
    client=None,
    verbose=0,
):
    """Fit a linear online estimator on partitioned data by iterative
    parameter mixing.

    At every epoch each partition runs one epoch of the estimator's own
    update (``partial_fit`` with its compiled kernel) starting from the
    current mixed model, on the Dask worker that holds the partition; the
    driver then mixes the partitions' models into the next mixed model
    (McDonald, Hall & Mann, 2010).  The partitions are converted, checked
    and persisted on the workers once; each epoch ships only the model.

    Parameters
    ----------
    estimator : estimator instance
        A linear online estimator of this package:
        :class:`~sklearn_pa.PassiveAggressiveClassifier`,
        :class:`~sklearn_pa.PassiveAggressiveRegressor`,
        :class:`~sklearn_pa.MIRAClassifier`,
        :class:`~sklearn_pa.ConfidenceWeightedClassifier`,
        :class:`~sklearn_pa.AROWClassifier`, :class:`~sklearn_pa.SCWClassifier`,
        :class:`~sklearn_pa.GradientDescentRegressor`,
        :class:`~sklearn_pa.ExponentiatedGradientRegressor`,
        :class:`~sklearn_pa.ErrorProportionalRegressor`,
        :class:`~sklearn_pa.OnlineBayesPointClassifier` or
        :class:`~sklearn_pa.PassiveAggressiveOneClass`.  It is cloned; its
        parameters are used as they are, except ``max_iter`` (see
        ``n_epochs``).  The kernel PA models and the sequence taggers are
        refused with a ``TypeError`` saying what to use instead.
    X : dask array, dask DataFrame, array-like or sparse matrix
        Training data.  A dask array is split along its row chunks (its
        blocks may be scipy CSR matrices); a dask DataFrame along its
        partitions; anything else is cut into ``n_partitions`` contiguous
        blocks of rows (shuffle first if the rows are sorted by label).
    y : dask array, dask Series or array-like of shape (n_samples,), default=None
        Targets, partitioned like ``X``; ``None`` for
        :class:`~sklearn_pa.PassiveAggressiveOneClass`.  ``-1`` marks an
        unlabeled row for :class:`~sklearn_pa.OnlineBayesPointClassifier`.
    classes : array-like of shape (n_classes,), default=None
        Every class label.  ``None`` computes them once from ``y`` (one pass
        over the partitions) so that every partition has the same
        ``classes_``; given, a partition holding another label is an error.
    n_epochs : int, default=None
        Number of mixing epochs (passes over the data).  ``None`` runs up to
        the estimator's ``max_iter`` epochs and stops, as ``fit`` does, when
        the training loss summed over the partitions has not improved by
        ``tol`` for ``n_iter_no_change`` epochs (``tol=None``: all
        ``max_iter`` epochs).
    mixing : {"auto", "uniform", "updates", "gaussian"}, default="auto"
        How the partitions' models are combined. ``"uniform"``: the plain
        average. ``"updates"``: an average weighted by each partition's
        number of updates in the epoch (uniform if there were none).
        ``"gaussian"`` (Confidence-Weighted, AROW and SCW only): the
        Gaussians over the weights are combined in information form, adding
        each partition's gain in precision to the shared prior (see
        :func:`mix_gaussians`).  ``"auto"`` is ``"gaussian"`` for those
        models and ``"uniform"`` otherwise.
    n_partitions : int, default=None
        Number of partitions a plain array is cut into; ``None`` is the
        number of Dask workers (of threads for the local scheduler).
        Ignored for dask collections, which carry their own partitions.
    client : distributed.Client, default=None
        Where to run. ``None`` uses the current default Dask client if there
        is one, else Dask's local threaded scheduler in this process.  A
        cluster is never started here.
    verbose : int, default=0
        Print one line per epoch.

    Returns
    -------
    estimator : estimator instance
        A fitted clone of ``estimator``, of the same class, whose
        ``predict``, ``partial_fit`` etc. work as after a serial ``fit``.
        ``n_iter_`` is the number of epochs and ``t_`` counts the rows seen
        by every partition.

    Raises
    ------
    ValueError
        On invalid data in any partition (NaN or infinity, inconsistent
        numbers of features, labels outside ``classes``) or parameters; the
        whole data are checked before the first epoch.
    TypeError
        For an estimator parameter mixing does not apply to.

    Notes
    -----
    With a single partition the result is the model of the serial ``fit``
    with ``max_iter=n_epochs`` and ``tol=None`` (same random state).  With
    several, the mixed model is not the serial one; for the perceptron
    update on separable data, iterative parameter mixing still stops making
    updates after finitely many epochs, with a bound on the mixing-weighted
    number of updates equal to the serial perceptron's (McDonald et al.,
    Theorem 3).  On 20 Newsgroups the accuracy is within a point of the
    serial model's.  Models with
    ``average=True`` mix their current weights and, separately, their
    averaged weights (with the same weights; uniform for ``"gaussian"``).

    References
    ----------
    R. McDonald, K. Hall and G. Mann, "Distributed Training Strategies for
    the Structured Perceptron", NAACL 2010.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.datasets import make_classification
    >>> from sklearn_pa import PassiveAggressiveClassifier
    >>> from sklearn_pa.distributed import fit_parameter_mixing
    >>> X, y = make_classification(n_samples=400, random_state=0)
    >>> model = fit_parameter_mixing(
    ...     PassiveAggressiveClassifier(random_state=0), X, y,
    ...     n_epochs=3, n_partitions=2)
    >>> type(model).__name__, model.n_iter_
    ('PassiveAggressiveClassifier', 3)
    >>> bool(model.score(X, y) > 0.8)
    True

    On a cluster, connect a client first (the rest is unchanged):

    >>> from distributed import Client  # doctest: +SKIP
    >>> client = Client("tcp://scheduler:8786")  # doctest: +SKIP
    """
    if mixing not in _MIXINGS:
        raise ValueError(f"mixing must be one of {_MIXINGS}; got {mixing!r}.")
    if n_epochs is not None and (
        not isinstance(n_epochs, numbers.Integral) or n_epochs < 1
    ):
        raise ValueError(
            f"n_epochs must be a positive integer or None; got {n_epochs!r}."
        )
    if n_partitions is not None and (
        not isinstance(n_partitions, numbers.Integral) or n_partitions < 1
    ):
        raise ValueError(
            f"n_partitions must be a positive integer or None; got {n_partitions!r}."
        )
    family, est = _check_estimator(estimator)
    if mixing == "auto":
        mixing = "gaussian" if family == "second_order" else "uniform"
    if mixing == "gaussian" and family != "second_order":
        raise ValueError(
            "mixing='gaussian' combines the Gaussians of ConfidenceWeighted"
            f"Classifier, AROWClassifier and SCWClassifier; {type(est).__name__} "
            "has no covariance. Use mixing='uniform' or 'updates'."
        )
    classifier = is_classifier(est)
    if family == "one_class":
        y = None
    elif y is None:
        raise ValueError(f"{type(est).__name__} needs y.")

    executor = _executor(client)
    x_blocks, y_blocks, feature_names = _blocks(X, y, n_partitions, executor.n_workers)
    parts = executor.persist(x_blocks, y_blocks)
    try:
        return _fit_parts(
            executor,
            parts,
            family,
            est,
            classifier,
            classes,
            n_epochs,
            mixing,
            feature_names,
            verbose,
        )
    finally:
        executor.release(parts)


def _fit_parts(
    executor, parts, family, est, classifier, classes, n_epochs, mixing, names, verbose
):
    k = len(parts)
    unlabeled = family == "bayes_point"
    summaries = executor.map(
        _summarize_partition,
        parts,
        [(i,) for i in range(k)],
        (classifier, unlabeled),
    )
    n_features = {s["n_features"] for s in summaries}
    if len(n_features) > 1:
        raise ValueError(
            f"The partitions have different numbers of features {sorted(n_features)}; "
            "every block of X must have all the columns."
        )
    n_features = n_features.pop()
    if classifier:
        labelled = [s["labels"] for s in summaries if s["labels"].size]
        if not labelled:
            raise ValueError(
                "y has no labeled sample (-1 marks an unlabeled one); parameter "
                "mixing needs labeled samples of at least two classes."
            )
        if classes is None:
            classes = unique_labels(*labelled)
        else:
            classes = unique_labels(np.asarray(classes))
            for i, s in enumerate(summaries):
                unknown = np.setdiff1d(s["labels"], classes)
                if unknown.size:
                    raise ValueError(
                        f"Partition {i}: y contains labels {unknown.tolist()!r} "
                        f"that are not in classes {classes.tolist()!r}."
                    )
        if type_of_target(classes) not in ("binary", "multiclass"):
            raise ValueError(
                f"Unknown label type: {type_of_target(classes)!r}; parameter mixing "
                "takes binary or multiclass targets."
            )
    else:
        classes = None
    # an empty partition has nothing to contribute to the mix
    parts = [p for p, s in zip(parts, summaries) if s["n_rows"] > 0]
    summaries = [s for s in summaries if s["n_rows"] > 0]
    if not parts:
        raise ValueError("X has no rows.")
    k = len(parts)
    scale = _typical_value(summaries)
    random_state = getattr(est, "random_state", None)
    rngs = _partition_rngs(random_state, k)
    est = _initial_model(family, est, n_features, classes, scale, rngs[0])
    max_epochs = n_epochs if n_epochs is not None else est.max_iter
    stopping = n_epochs is None and est.tol is not None
    best, no_improve = np.inf, 0
    tic = time.perf_counter()
    n_iter = 0
    for epoch in range(max_epochs):
        shipped = copy.copy(est)
        shipped._rng = None
        handle = executor.broadcast(shipped)
        results = executor.map(
            _worker_epoch,
            parts,
            [(handle, rng) for rng in rngs],
            (classes, family),
        )
        models = [r[0] for r in results]
        stats = [r[1] for r in results]
        for _, _, messages in results:
            for message, category in messages:
                warnings.warn(message, category, stacklevel=2)
        rngs = [m._rng for m in models]
        est = _mix(family, est, models, stats, mixing)
        del handle
        n_iter = epoch + 1
        est.n_iter_ = n_iter
        objective = sum(s[1] for s in stats) / max(sum(s[2] for s in stats), 1)
        if verbose:
            print(
                f"-- Epoch {n_iter}, Partitions: {k}, Avg. loss: {objective:.6f}, "
                f"Updates: {sum(s[0] for s in stats)}, T: {int(est.t_) - 1}, "
                f"Time: {time.perf_counter() - tic:.2f} s",
                flush=True,
            )
        if stopping:
            no_improve = no_improve + 1 if objective > best - est.tol else 0
            best = min(best, objective)
            if no_improve >= est.n_iter_no_change:
                break
    est._rng = rngs[0]
    if stopping and n_iter == max_epochs:
        warnings.warn(
            "Maximum number of iteration reached before convergence. Consider "
            "increasing max_iter to improve the fit.",
            ConvergenceWarning,
        )
    if names is not None:
        est.feature_names_in_ = names
    return est
