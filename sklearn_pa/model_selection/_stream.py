"""The progressive-validation loop: batches, pipelines, the predict-then-learn
step of each batch and the assembly of its outputs."""

import inspect
import numbers
import warnings
from collections.abc import Iterable

import numpy as np
import scipy.sparse as sp
from sklearn.base import (
    clone,
    is_classifier,
)
from sklearn.exceptions import NotFittedError
from sklearn.pipeline import Pipeline
from sklearn.utils import (
    Bunch,
    _safe_indexing,
    check_consistent_length,
    get_tags,
    indexable,
)
from sklearn.utils.multiclass import unique_labels
from sklearn.utils.validation import check_is_fitted

from .._core.targets import grows_classes
from ._delay import _widest, _with_final, delayed_pass, in_final_columns, label_arrival

_METHODS = ("predict", "decision_function", "predict_proba")

# an implicit predict / partial_fit loop over more samples than this warns
_LOOP_WARNING_SIZE = 1000


def _has_score_protocol(estimator):
    return callable(getattr(estimator, "__sklearn_pa_prequential__", None))


def _has_proba_protocol(estimator):
    """Whether ``__sklearn_pa_prequential__`` can also return the probabilities
    (its ``predict_proba`` keyword)."""
    if not _has_score_protocol(estimator):
        return False
    parameters = inspect.signature(estimator.__sklearn_pa_prequential__).parameters
    return "predict_proba" in parameters


def _scores_to_predictions(estimator, scores):
    """Decision values -> predictions, as ``predict`` maps them."""
    if not is_classifier(estimator):
        return scores
    classes = estimator.classes_
    if scores.ndim == 1:
        pred = classes[(scores > 0).astype(int)]
    else:
        pred = classes[np.argmax(scores, axis=1)]
    return pred


def _batches(n_samples, batch_size):
    for start in range(0, n_samples, batch_size):
        yield slice(start, min(start + batch_size, n_samples))


def _split_pipeline(estimator):
    """(final online learner, function transforming a batch for it).

    A :class:`~sklearn.pipeline.Pipeline` is split into its transformers,
    used as they are (already fitted, or stateless such as
    ``HashingVectorizer``: they are never fitted on the stream), and its last
    step, which must have ``partial_fit``.
    """
    if not isinstance(estimator, Pipeline):
        return estimator, None
    name, final = estimator.steps[-1]
    if final is None or final == "passthrough" or not hasattr(final, "partial_fit"):
        raise TypeError(
            f"The last step {name!r} of the pipeline has no partial_fit; "
            "progressive validation needs an online learner there."
        )
    transformers = []
    for step_name, step in estimator.steps[:-1]:
        if step is None or step == "passthrough":
            continue
        if get_tags(step).requires_fit:
            try:
                check_is_fitted(step)
            except NotFittedError:
                raise ValueError(
                    f"The pipeline step {step_name!r} ({type(step).__name__}) "
                    "is not fitted. Progressive validation learns only the "
                    "last step from the stream: fit the transformers first on "
                    "data that precedes the stream (pipeline[:-1].fit(X_head)), "
                    "or use stateless ones such as HashingVectorizer."
                ) from None
        transformers.append(step)

    def transform(X):
        for step in transformers:
            X = step.transform(X)
        return X

    return final, transform


class _ArrayStream:
    """In-memory arrays cut into consecutive batches."""

    def __init__(self, X, y, sample_weight):
        X, y, sample_weight = indexable(X, y, sample_weight)
        check_consistent_length(X, y, sample_weight)
        if sp.issparse(X):
            X = X.tocsr()
        self.X = X
        self.y = np.asarray(y)
        self.sample_weight = (
            None if sample_weight is None else np.asarray(sample_weight)
        )
        self.n_samples = self.y.shape[0]

    def batches(self, batch_size):
        for part in _batches(self.n_samples, batch_size):
            sw = None if self.sample_weight is None else self.sample_weight[part]
            yield _safe_indexing(self.X, part), self.y[part], sw


def _stream_batches(stream):
    """Check each item of an iterable stream: ``(X, y)`` or ``(X, y, w)``."""
    for n, item in enumerate(stream):
        if not isinstance(item, (tuple, list)) or len(item) not in (2, 3):
            raise ValueError(
                "A stream must yield (X, y) or (X, y, sample_weight) batches; "
                f"batch {n} is a {type(item).__name__}."
            )
        X_batch, y_batch = item[0], item[1]
        sw = item[2] if len(item) == 3 else None
        X_batch, y_batch, sw = indexable(X_batch, y_batch, sw)
        check_consistent_length(X_batch, y_batch, sw)
        yield X_batch, np.asarray(y_batch), sw


def _check_inputs(estimator, X, y, sample_weight, batch_size):
    if batch_size is not None and (
        not isinstance(batch_size, numbers.Integral) or batch_size < 1
    ):
        raise ValueError(f"batch_size must be a positive int; got {batch_size!r}.")
    final, transform = _split_pipeline(estimator)
    if not hasattr(final, "partial_fit"):
        raise TypeError(
            f"{type(final).__name__} has no partial_fit; progressive "
            "validation needs an online learner."
        )
    if y is not None:
        return final, transform, _ArrayStream(X, y, sample_weight)
    if sp.issparse(X) or isinstance(X, np.ndarray) or hasattr(X, "__array__"):
        raise ValueError(
            "y is None: X must then be a stream, an iterable of (X, y) or "
            "(X, y, sample_weight) batches. Pass y with in-memory arrays."
        )
    if not isinstance(X, Iterable):
        raise TypeError(
            "X must be array-like (with y) or an iterable of (X, y) batches; "
            f"got {type(X).__name__}."
        )
    if sample_weight is not None:
        raise ValueError(
            "sample_weight applies to arrays; a stream carries its weights "
            "as the third item of each batch."
        )
    if batch_size is not None:
        raise ValueError(
            "batch_size applies to arrays; a stream is learned in the batches "
            "it yields."
        )
    return final, transform, X


def _progressive(
    estimator,
    X,
    y,
    *,
    classes,
    sample_weight,
    batch_size,
    responses,
    delay=None,
):
    """The predict-then-learn pass; returns a Bunch with each response of
    ``responses`` per sample, ``y``, ``sample_weight``, ``predicted`` and
    the fitted ``estimator``."""
    final, transform, stream = _check_inputs(estimator, X, y, sample_weight, batch_size)
    arrays = isinstance(stream, _ArrayStream)
    est = clone(final)
    classifier = is_classifier(est)
    growing = classifier and grows_classes(est)
    fit_kwargs = {}
    if classifier and not (growing and classes is None):
        if classes is None and not arrays:
            raise ValueError(
                "classes must be given for a classifier on a stream: the list "
                "of every label the stream may contain, e.g. "
                "classes=np.unique(y_all); or use a learner that adds classes "
                "as they come (new_classes='add')."
            )
        fit_kwargs["classes"] = unique_labels(stream.y if classes is None else classes)
    if delay is not None and not (isinstance(delay, numbers.Integral) and delay == 0):
        if not arrays:
            raise ValueError(
                "delay applies to arrays X, y (the label arrival times are "
                "per row); pass the stream's arrays."
            )
        if batch_size is not None:
            raise ValueError(
                "delay and batch_size cannot be combined: with a delay the "
                "learner is called as the labels arrive."
            )
        arrival = label_arrival(delay, stream.n_samples)
        return delayed_pass(
            est,
            transform,
            stream,
            arrival,
            fit_kwargs,
            responses,
            fast=_has_score_protocol(est),
            pipeline=estimator if transform is not None else None,
        )

    def prepare(X_batch):
        return X_batch if transform is None else transform(X_batch)

    def learn_kwargs(sw):
        return fit_kwargs if sw is None else dict(fit_kwargs, sample_weight=sw)

    if arrays:
        n_first = batch_size or max(stream.n_samples, 1)
        batches = stream.batches(n_first)
    else:
        batches = _stream_batches(stream)
    ys, weights, outputs, predicted = [], [], {r: [] for r in responses}, []
    # the compiled path: one kernel pass per batch records each sample's
    # score before the model learns from it (averaged models included)
    want_proba = "predict_proba" in responses
    fast = _has_proba_protocol(est) if want_proba else _has_score_protocol(est)
    pending = None
    if fast:
        proba_kwargs = {"predict_proba": True} if want_proba else {}
        batches = iter(batches)
        first = next(batches, None)
        for X_batch, y_batch, sw in _first_sample_apart(first, batches):
            try:
                scores = est.__sklearn_pa_prequential__(
                    prepare(X_batch), y_batch, **learn_kwargs(sw), **proba_kwargs
                )
            except NotImplementedError:
                if ys:  # the protocol refused mid-stream: not a valid protocol
                    raise
                fast = False
                pending = first
                est = clone(final)
                break
            if want_proba:
                scores, proba = scores
                outputs["predict_proba"].append(np.asarray(proba))
            scores = np.asarray(scores)
            ys.append(y_batch)
            weights.append(sw)
            skipped = np.isnan(scores) if scores.ndim == 1 else np.isnan(scores[:, 0])
            predicted.append(~skipped)
            if "decision_function" in responses:
                # (classes that grow: in the columns of the classes then)
                outputs["decision_function"].append(
                    (scores, est.classes_) if growing else scores
                )
            if "predict" in responses:
                if classifier:
                    outputs["predict"].append(
                        _scores_to_predictions(est, np.nan_to_num(scores))
                    )
                else:
                    outputs["predict"].append(scores)
    if not fast:
        if arrays:
            if batch_size is None and stream.n_samples > _LOOP_WARNING_SIZE:
                warnings.warn(
                    f"{type(final).__name__} is evaluated by a predict / "
                    f"partial_fit loop over {stream.n_samples} single samples "
                    f"(no compiled pass records its {sorted(responses)} before "
                    "each update). Pass batch_size to learn in batches, faster "
                    "but predicting a whole batch before learning it.",
                    UserWarning,
                    stacklevel=3,
                )
            batches = stream.batches(batch_size or 1)
        elif pending is not None:
            batches = _chain_first(pending, batches)
        fitted = False
        for X_batch, y_batch, sw in batches:
            X_batch = prepare(X_batch)
            n_part = y_batch.shape[0]
            for r in responses:
                if fitted:
                    method = r
                    if r == "decision_function" and not classifier:
                        method = "predict"
                    value = np.asarray(getattr(est, method)(X_batch))
                    if growing:  # in the columns of the final classes
                        value = (value, est.classes_)
                    outputs[r].append(value)
                else:
                    outputs[r].append(None)
            predicted.append(np.full(n_part, fitted))
            ys.append(y_batch)
            weights.append(sw)
            est.partial_fit(X_batch, y_batch, **learn_kwargs(sw))
            fitted = True
    if growing:
        for r in responses:
            outputs[r] = [
                p
                if p is None or not isinstance(p, tuple)
                else in_final_columns(*p, r, est.classes_, est)
                for p in outputs[r]
            ]
    y_all = np.concatenate(ys) if ys else np.empty(0)
    n_samples = y_all.shape[0]
    if any(w is not None for w in weights):
        weights = [
            np.ones(len(b)) if w is None else np.asarray(w, dtype=float)
            for w, b in zip(weights, ys)
        ]
        sw_all = np.concatenate(weights)
    else:
        sw_all = None
    result = Bunch(
        y=y_all,
        sample_weight=sw_all,
        predicted=np.concatenate(predicted) if predicted else np.empty(0, bool),
        estimator=_with_final(estimator if transform is not None else None, est),
        final=est,
    )
    sizes = [b.shape[0] for b in ys]
    for r in responses:
        result[r] = _assemble(outputs[r], sizes, n_samples)
    return result


def _chain_first(first, rest):
    yield first
    yield from rest


def _first_sample_apart(first, rest):
    """The batches of the compiled pass: the first sample alone, then the
    rest of the first batch, then the other batches.

    A learner sets its data-dependent constants from its first call
    (``intercept_scaling="auto"``, kernel PA's ``gamma="scale"``); learning
    the first sample alone sets them from the only sample seen when the
    first update happens, so that no score depends on a later sample nor on
    the batch size."""
    if first is None:
        return
    X_batch, y_batch, sw = first
    if y_batch.shape[0] > 1:
        head, tail = slice(0, 1), slice(1, y_batch.shape[0])
        for part in (head, tail):
            yield (
                _safe_indexing(X_batch, part),
                y_batch[part],
                None if sw is None else np.asarray(sw)[part],
            )
    else:
        yield first
    yield from rest


def _assemble(parts, sizes, n_samples):
    """Concatenate per-batch outputs; unpredicted batches (None) are NaN for
    floating outputs, a placeholder label otherwise."""
    template = next((p for p in parts if p is not None), None)
    if template is None:
        return np.full(n_samples, np.nan)
    if all(p is not None for p in parts):
        return np.concatenate(parts)
    # (the widest of the parts: labels of every length fit, 'yes' after 'no')
    dtype = _widest(p.dtype for p in parts if p is not None)
    fill = np.nan if dtype.kind in "fc" else template.flat[0]
    dtype = dtype if dtype.kind not in "iub" else float
    return np.concatenate(
        [
            np.asarray(p, dtype=dtype)
            if p is not None
            else np.full((n,) + template.shape[1:], fill, dtype=dtype)
            for p, n in zip(parts, sizes)
        ]
    )
