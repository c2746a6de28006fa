"""Progressive (prequential) validation of online learners, and the search
of a learning rate on it.

Each sample of a stream is first predicted by the model learned from the
samples before it, then learned: the online evaluation of the online
learning literature (cumulative loss, online mistakes), and river's
``evaluate.progressive_val_score``.  Every prediction is made on a sample
the model has not seen, so the whole stream is a test set and a training set
at once.
"""

import copy
import numbers
import warnings
from collections.abc import Iterable

import numpy as np
import scipy.sparse as sp
from sklearn.base import (
    BaseEstimator,
    ClassifierMixin,
    RegressorMixin,
    clone,
    is_classifier,
)
from sklearn.exceptions import NotFittedError
from sklearn.metrics import get_scorer
from sklearn.pipeline import Pipeline
from sklearn.utils import (
    Bunch,
    _safe_indexing,
    check_consistent_length,
    get_tags,
    indexable,
)
from sklearn.utils.metaestimators import available_if
from sklearn.utils.multiclass import unique_labels
from sklearn.utils.validation import check_is_fitted

try:  # the class of the objects that get_scorer and make_scorer return
    from sklearn.metrics._scorer import _BaseScorer
except ImportError:  # pragma: no cover
    _BaseScorer = ()

__all__ = [
    "progressive_val_predict",
    "progressive_val_score",
    "search_learning_rate",
]

_METHODS = ("predict", "decision_function", "predict_proba")

# an implicit predict / partial_fit loop over more samples than this warns
_LOOP_WARNING_SIZE = 1000


def _has_score_protocol(estimator):
    return callable(getattr(estimator, "_partial_fit_scores", None))


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


def _with_final(pipeline, final):
    """The pipeline with its last step replaced by the fitted learner."""
    if pipeline is None:
        return final
    out = copy.copy(pipeline)
    out.steps = list(pipeline.steps[:-1]) + [(pipeline.steps[-1][0], final)]
    return out


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


def _progressive(estimator, X, y, *, classes, sample_weight, batch_size, responses):
    """The predict-then-learn pass; returns a Bunch with each response of
    ``responses`` per sample, ``y``, ``sample_weight``, ``predicted`` and
    the fitted ``estimator``."""
    final, transform, stream = _check_inputs(estimator, X, y, sample_weight, batch_size)
    arrays = isinstance(stream, _ArrayStream)
    est = clone(final)
    classifier = is_classifier(est)
    fit_kwargs = {}
    if classifier:
        if classes is None and not arrays:
            raise ValueError(
                "classes must be given for a classifier on a stream: the list "
                "of every label the stream may contain, e.g. "
                "classes=np.unique(y_all)."
            )
        fit_kwargs["classes"] = unique_labels(stream.y if classes is None else classes)

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
    fast = _has_score_protocol(est) and "predict_proba" not in responses
    pending = None
    if fast:
        for X_batch, y_batch, sw in batches:
            try:
                scores = est._partial_fit_scores(
                    prepare(X_batch), y_batch, **learn_kwargs(sw)
                )
            except NotImplementedError:
                if ys:  # the protocol refused mid-stream: not a valid protocol
                    raise
                fast = False
                pending = (X_batch, y_batch, sw)
                est = clone(final)
                break
            scores = np.asarray(scores)
            ys.append(y_batch)
            weights.append(sw)
            skipped = np.isnan(scores) if scores.ndim == 1 else np.isnan(scores[:, 0])
            predicted.append(~skipped)
            if "decision_function" in responses:
                outputs["decision_function"].append(scores)
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
                    outputs[r].append(np.asarray(getattr(est, method)(X_batch)))
                else:
                    outputs[r].append(None)
            predicted.append(np.full(n_part, fitted))
            ys.append(y_batch)
            weights.append(sw)
            est.partial_fit(X_batch, y_batch, **learn_kwargs(sw))
            fitted = True
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


def _assemble(parts, sizes, n_samples):
    """Concatenate per-batch outputs; unpredicted batches (None) are NaN for
    floating outputs, a placeholder label otherwise."""
    template = next((p for p in parts if p is not None), None)
    if template is None:
        return np.full(n_samples, np.nan)
    if all(p is not None for p in parts):
        return np.concatenate(parts)
    fill = np.nan if template.dtype.kind in "fc" else template.flat[0]
    dtype = template.dtype if template.dtype.kind not in "iub" else float
    return np.concatenate(
        [
            np.asarray(p, dtype=dtype)
            if p is not None
            else np.full((n,) + template.shape[1:], fill, dtype=dtype)
            for p, n in zip(parts, sizes)
        ]
    )


def progressive_val_predict(
    estimator,
    X,
    y=None,
    *,
    classes=None,
    sample_weight=None,
    batch_size=None,
    method="predict",
    return_estimator=False,
):
    """Predict each sample of a stream, then learn from it.

    The samples are visited in their given order (no shuffling): sample
    ``i`` is predicted by ``estimator`` after ``partial_fit`` on samples
    ``0 .. i-1`` only.  ``estimator`` is cloned first and left untouched.

    The stream is either in-memory arrays ``X, y`` or, with ``y=None``, an
    iterable ``X`` of ``(X_batch, y_batch)`` (or ``(X_batch, y_batch,
    sample_weight_batch)``) batches, such as a generator reading from disk:
    it is read once, one batch at a time.  ``estimator`` may be a
    :class:`~sklearn.pipeline.Pipeline` whose last step has
    ``partial_fit``: its transformers are used as they are (stateless, such
    as :class:`~sklearn.feature_extraction.text.HashingVectorizer`, or fitted
    beforehand on data that precedes the stream) and only the last step
    learns.

    The estimators of this package take the fast path: their private method
    ``_partial_fit_scores(X, y[, classes], sample_weight)`` makes one
    compiled pass over a batch that records each sample's score just before
    learning from it (the averaged model's score with ``average``), so the
    result is exactly the per-sample predict-then-learn loop whatever the
    batches.  Any other estimator with ``partial_fit`` (and this package's
    for ``method="predict_proba"``, or where the kernel records no scores)
    falls back to a loop of ``predict`` then ``partial_fit`` per batch:
    within a batch the model does not learn between predictions, so only
    batches of one sample (the default on arrays) are exact, and the first
    batch, which an unfitted estimator cannot predict, is learned without
    being predicted (``predicted`` is False there).  That loop warns on
    arrays of more than 1000 samples without ``batch_size``.  The package's
    estimators predict the first sample with their initial model (zero
    weights; uniform weights for EG+-), as the online learning literature
    counts it.

    Parameters
    ----------
    estimator : estimator object implementing ``partial_fit``, or Pipeline
        The online learner, or a pipeline ending with one.  The learner is
        cloned; a pipeline's transformers are used as they are.
    X : {array-like, sparse matrix} of shape (n_samples, n_features) or \
            iterable of (X_batch, y_batch) batches
        The stream, in time order: arrays (with ``y``), or, with ``y=None``,
        an iterable of batches, each ``(X_batch, y_batch)`` or ``(X_batch,
        y_batch, sample_weight_batch)``.
    y : array-like of shape (n_samples,), default=None
        The targets of arrays ``X``; None when ``X`` is a stream of
        batches.
    classes : array-like of shape (n_classes,), default=None
        For a classifier, every label of the stream; ``None`` uses the
        labels of ``y`` (required for a stream of batches).
    sample_weight : array-like of shape (n_samples,), default=None
        Passed to ``partial_fit`` (arrays only: a stream's batches carry
        their own).
    batch_size : int, default=None
        Number of samples per call on arrays.  ``None`` means the whole
        stream in one kernel pass on the fast path, and 1 on the fallback.
        Not used with a stream, which is learned in the batches it yields.
    method : {"predict", "decision_function", "predict_proba"}, \
            default="predict"
        What to record: the predictions, the raw decision values (fast
        path: the kernel's scores; fallback: ``decision_function``, or
        ``predict`` for a regressor), or the class probabilities (always
        the fallback loop).
    return_estimator : bool, default=False
        Whether to return the estimator fitted on the whole stream as well.

    Returns
    -------
    predictions : ndarray of shape (n_samples,) or (n_samples, n_classes)
        The online prediction of each sample.  Samples that could not be
        predicted (the first batch on the fallback; rows the kernel skipped
        because their scores were not finite) are NaN for regressors and
        decision values, and the masked entries of ``predicted`` below for
        class predictions.
    predicted : ndarray of bool of shape (n_samples,)
        Which samples were predicted.
    estimator : estimator object
        The fitted clone (a pipeline: the same transformers and the fitted
        last step), only if ``return_estimator``.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_pa import PassiveAggressiveRegressor
    >>> from sklearn_pa.model_selection import progressive_val_predict
    >>> X = np.arange(10.0).reshape(-1, 1)
    >>> reg = PassiveAggressiveRegressor(C=np.inf, epsilon=0.0, fit_intercept=False)
    >>> y_pred, predicted = progressive_val_predict(reg, X, 2 * X[:, 0])
    >>> y_pred[:4], bool(predicted.all())  # learned exactly from x = 1 on
    (array([0., 0., 4., 6.]), True)
    """
    if method not in _METHODS:
        raise ValueError(f"method must be one of {_METHODS}; got {method!r}.")
    result = _progressive(
        estimator,
        X,
        y,
        classes=classes,
        sample_weight=sample_weight,
        batch_size=batch_size,
        responses=(method,),
    )
    if return_estimator:
        return result[method], result.predicted, result.estimator
    return result[method], result.predicted


class _ReplayMixin:
    """Replays recorded online responses to a scikit-learn scorer: its
    ``X`` is the array of the indices of the samples to score."""

    def __init__(self, responses, classes=None):
        self.responses = responses
        self.classes = classes

    def fit(self, X, y=None):  # pragma: no cover - never fitted
        return self

    def _replay(self, name, X):
        return self.responses[name][np.asarray(X, dtype=np.intp)]

    def predict(self, X):
        return self._replay("predict", X)

    @available_if(lambda self: "decision_function" in self.responses)
    def decision_function(self, X):
        return self._replay("decision_function", X)

    @available_if(lambda self: "predict_proba" in self.responses)
    def predict_proba(self, X):
        return self._replay("predict_proba", X)


class _ReplayClassifier(_ReplayMixin, ClassifierMixin, BaseEstimator):
    @property
    def classes_(self):
        return self.classes


class _ReplayRegressor(_ReplayMixin, RegressorMixin, BaseEstimator):
    pass


def _scorer_response(scorer, final):
    """The response a scorer reads from a classifier: the first of its
    ``response_method`` that the learner has."""
    methods = getattr(scorer, "_response_method", "predict")
    if isinstance(methods, str):
        methods = (methods,)
    for method in methods:
        if method == "predict" or hasattr(final, method):
            return method
    raise ValueError(
        f"The scoring {scorer!r} needs {' or '.join(methods)}, which "
        f"{type(final).__name__} does not provide."
    )


def _resolve_scoring(scoring, classifier):
    """(kind, callable, name): kind "scorer" for scikit-learn scorers
    (names and ``make_scorer`` objects), "metric" for a callable
    ``metric(y_true, y_pred)``."""
    if scoring is None:
        scoring = "accuracy" if classifier else "neg_mean_squared_error"
    if isinstance(scoring, str):
        try:
            scorer = get_scorer(scoring)
        except ValueError:
            raise ValueError(
                f"scoring={scoring!r} is not a scikit-learn scorer name; use "
                "one of sklearn.metrics.get_scorer_names(), a scorer made with "
                "sklearn.metrics.make_scorer, or a callable "
                "metric(y_true, y_pred) for which greater is better."
            ) from None
        return "scorer", scorer, scoring
    if isinstance(scoring, _BaseScorer):
        return "scorer", scoring, repr(scoring)
    if callable(scoring):
        return "metric", scoring, getattr(scoring, "__name__", "score")
    raise ValueError(
        f"scoring must be a string, a scorer or a callable; got {scoring!r}."
    )


def progressive_val_score(
    estimator,
    X,
    y=None,
    *,
    scoring=None,
    classes=None,
    sample_weight=None,
    batch_size=None,
    return_curve=False,
    return_estimator=False,
):
    """Score an online learner by predicting each sample before learning it.

    The score of the online predictions made as in
    :func:`progressive_val_predict`: by default, for a regressor the mean
    squared online error (negated, so that greater is better), for a
    classifier the online accuracy (one minus the online mistake rate).  With
    ``return_curve=True`` it also returns the cumulative loss after each
    sample: the cumulative square loss of a regressor, the cumulative number
    of mistakes of a classifier, the quantities the online learning
    literature bounds and the curve one plots.

    The stream is arrays ``X, y`` or, with ``y=None``, an iterable of
    ``(X_batch, y_batch)`` batches read once (a generator reading from
    disk); ``estimator`` may be a :class:`~sklearn.pipeline.Pipeline` whose
    last step has ``partial_fit`` (see :func:`progressive_val_predict`).
    The estimators of this package, averaged or not, are evaluated in one
    compiled pass per batch; other estimators, and scorers that need
    ``predict_proba``, through a ``predict`` / ``partial_fit`` loop that is
    exact only with batches of one sample.

    Parameters
    ----------
    estimator : estimator object implementing ``partial_fit``, or Pipeline
        The online learner, or a pipeline ending with one.  The learner is
        cloned; a pipeline's transformers are used as they are.
    X : {array-like, sparse matrix} of shape (n_samples, n_features) or \
            iterable of (X_batch, y_batch) batches
        The stream, in time order: arrays (with ``y``), or, with ``y=None``,
        an iterable of batches, each ``(X_batch, y_batch)`` or ``(X_batch,
        y_batch, sample_weight_batch)``.
    y : array-like of shape (n_samples,), default=None
        The targets of arrays ``X``; None when ``X`` is a stream of
        batches.
    scoring : str, callable or None, default=None
        Any scikit-learn scorer: a name of
        :func:`sklearn.metrics.get_scorer_names` (``"f1_macro"``,
        ``"roc_auc"``, ``"neg_log_loss"``, ...) or an object made with
        :func:`sklearn.metrics.make_scorer`, applied to the online responses
        of the predicted samples (the decision values for ``"roc_auc"``, the
        probabilities of a loop of ``predict_proba`` / ``partial_fit`` for
        ``"neg_log_loss"``); or a callable ``metric(y_true, y_pred)`` for
        which greater is better, applied to the online predictions.  None
        means ``"accuracy"`` for a classifier and
        ``"neg_mean_squared_error"`` for a regressor.
    classes : array-like of shape (n_classes,), default=None
        For a classifier, every label of the stream; ``None`` uses ``y``'s
        (required for a stream of batches).
    sample_weight : array-like of shape (n_samples,), default=None
        Passed to ``partial_fit`` and to the scorer (arrays only: a stream's
        batches carry their own).
    batch_size : int, default=None
        See :func:`progressive_val_predict`.
    return_curve : bool, default=False
        Whether to return the cumulative-loss curve and the predictions.
    return_estimator : bool, default=False
        Whether to return the estimator fitted on the whole stream.

    Returns
    -------
    score : float or Bunch
        The score alone, or, if ``return_curve`` or ``return_estimator``, a
        :class:`~sklearn.utils.Bunch` with ``score``, ``scoring`` (its name),
        ``n_predicted``, and, if ``return_curve``, ``cumulative_loss``
        (ndarray of shape (n_samples,): square loss or mistakes summed up
        to and including each sample; samples that were not predicted add
        nothing), ``loss`` (``"squared_error"`` or ``"mistakes"``),
        ``predictions`` and ``y`` (the targets, in stream order);
        ``estimator`` if ``return_estimator``.

    See Also
    --------
    progressive_val_predict : The online predictions themselves.

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from sklearn_pa import PassiveAggressiveClassifier
    >>> from sklearn_pa.model_selection import progressive_val_score
    >>> X, y = make_classification(n_samples=500, random_state=0)
    >>> result = progressive_val_score(
    ...     PassiveAggressiveClassifier(average=True), X, y, return_curve=True)
    >>> 0.5 < result.score < 1.0
    True
    >>> int(result.cumulative_loss[-1]) == round((1 - result.score) * 500)
    True

    A stream of batches, scored by any scikit-learn scorer:

    >>> stream = ((X[i : i + 100], y[i : i + 100]) for i in range(0, 500, 100))
    >>> f1 = progressive_val_score(
    ...     PassiveAggressiveClassifier(), stream, classes=[0, 1],
    ...     scoring="f1_macro")
    >>> 0.5 < f1 < 1.0
    True
    """
    final, _ = _split_pipeline(estimator)
    classifier = is_classifier(final)
    kind, func, name = _resolve_scoring(scoring, classifier)
    response = "predict"
    if kind == "scorer":
        response = _scorer_response(func, clone(final))
    responses = ("predict",) if response == "predict" else ("predict", response)
    result = _progressive(
        estimator,
        X,
        y,
        classes=classes,
        sample_weight=sample_weight,
        batch_size=batch_size,
        responses=responses,
    )
    y_pred, predicted, y = result.predict, result.predicted, result.y
    if not np.any(predicted):
        raise ValueError(
            "No sample was predicted: the stream is a single batch of a "
            "foreign estimator. Use a smaller batch_size, or more batches."
        )
    sw = result.sample_weight
    metric_kwargs = {} if sw is None else {"sample_weight": sw[predicted]}
    if kind == "scorer":
        recorded = {r: result[r] for r in responses}
        if classifier:
            replay = _ReplayClassifier(recorded, result.final.classes_)
        else:
            replay = _ReplayRegressor(recorded)
        index = np.flatnonzero(predicted)
        score = float(func(replay, index, y[predicted], **metric_kwargs))
    else:
        score = float(func(y[predicted], y_pred[predicted], **metric_kwargs))
    if not (return_curve or return_estimator):
        return score
    out = Bunch(score=score, scoring=name, n_predicted=int(np.sum(predicted)))
    if return_curve:
        if classifier:
            per_sample = (y_pred != y) & predicted
            out.loss = "mistakes"
        else:
            per_sample = np.where(
                predicted, (y - np.where(predicted, y_pred, 0)) ** 2, 0
            )
            out.loss = "squared_error"
        out.cumulative_loss = np.cumsum(per_sample.astype(float))
        out.predictions = y_pred
        out.y = y
    if return_estimator:
        out.estimator = result.estimator
    return out


_GOLDEN = (np.sqrt(5.0) - 1.0) / 2.0  # 0.618...


def search_learning_rate(
    estimator,
    X,
    y,
    *,
    param_name,
    bounds,
    method="bisection",
    n_iter=16,
    n_scan=0,
    log_scale=True,
    delta=1e-3,
    classes=None,
    sample_weight=None,
):
    """Find the learning rate (or ``C``) minimising the cumulative online loss.

    The seed's experiments (Nakamura et al.) tune each learner's rate on the
    stream itself: assuming the cumulative loss is a convex function of the
    rate with a minimum, a bisection halves the bracket by the sign of the
    loss's slope, measured by a small step ``delta``.  Each evaluation is one
    progressive validation pass (:func:`progressive_val_score`): every sample
    is predicted by the model learned from the samples before it, then
    learned.  The loss is the cumulative square loss of a regressor, or the
    cumulative number of mistakes of a classifier.

    Parameters
    ----------
    estimator : estimator object implementing ``partial_fit``
        The online learner, any estimator :func:`progressive_val_score`
        takes.  It is cloned for every evaluation.
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
        The stream, in time order.
    y : array-like of shape (n_samples,)
        Its targets.
    param_name : str
        The parameter searched, e.g. ``"eta"`` or ``"C"`` (a
        ``Pipeline`` takes ``"step__param"``).
    bounds : tuple of two floats
        The bracket ``(low, high)``, ``0 < low < high`` with ``log_scale``.
    method : {"bisection", "golden"}, default="bisection"
        ``"bisection"``: the seed's search; each of the ``n_iter`` steps
        evaluates the loss at the middle ``m`` of the bracket and at
        ``m + delta`` (two passes) and keeps the half the slope points to.
        ``"golden"``: golden-section search, one pass per step, for a
        unimodal loss; it needs no ``delta``, so it also suits a loss that
        is piecewise constant (mistake counts).
    n_iter : int, default=16
        Number of steps; the bracket shrinks by 2 (bisection) or 1.618
        (golden) per step.
    n_scan : int, default=0
        If at least 3, first evaluate ``n_scan`` evenly spaced values over
        ``bounds`` and search only between the neighbours of the best one.
        This guards against a loss that is not convex over the whole bracket
        (a learner that diverges beyond some rate).
    log_scale : bool, default=True
        Search ``log(value)`` (rates spanning several orders of magnitude)
        rather than ``value``; ``delta`` is then a relative step.
    delta : float, default=1e-3
        The step of the slope measurement of ``"bisection"``, in the search
        scale.
    classes : array-like of shape (n_classes,), default=None
        For a classifier, every label of the stream.
    sample_weight : array-like of shape (n_samples,), default=None
        Passed to ``partial_fit``.

    Returns
    -------
    result : :class:`~sklearn.utils.Bunch`
        ``best_value`` (the value chosen: the middle of the final bracket
        for ``"bisection"``, the best value evaluated for ``"golden"``),
        ``best_loss`` (its cumulative loss), ``cumulative_loss`` (ndarray of
        shape (n_samples,), the curve of the chosen value over the stream),
        ``param_values`` and ``losses`` (every value evaluated, in the
        order tried, with its final cumulative loss: the search's curve),
        ``loss`` (``"squared_error"`` or ``"mistakes"``) and
        ``n_evaluations``.

    See Also
    --------
    progressive_val_score : One evaluation.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_pa import GradientDescentRegressor
    >>> from sklearn_pa.model_selection import search_learning_rate
    >>> rng = np.random.RandomState(0)
    >>> X = rng.normal(size=(300, 5))
    >>> y = X @ rng.normal(size=5) + 0.3 * rng.normal(size=300)
    >>> result = search_learning_rate(
    ...     GradientDescentRegressor(shuffle=False), X, y,
    ...     param_name="eta", bounds=(1e-3, 1.0), n_iter=12)
    >>> round(result.best_value, 2)
    0.18
    >>> result.n_evaluations  # two passes per step, and the chosen value
    25
    >>> result.cumulative_loss.shape
    (300,)
    """
    if method not in ("bisection", "golden"):
        raise ValueError(f"method must be 'bisection' or 'golden'; got {method!r}.")
    params = estimator.get_params()
    if param_name not in params:
        raise ValueError(
            f"{type(estimator).__name__} has no parameter {param_name!r}; its "
            f"parameters are {sorted(params)!r}."
        )
    try:
        low, high = (float(v) for v in bounds)
    except (TypeError, ValueError) as exc:
        raise ValueError(
            f"bounds must be a pair of numbers (low, high); got {bounds!r}."
        ) from exc
    if not (np.isfinite(low) and np.isfinite(high) and low < high):
        raise ValueError(f"bounds must be finite with low < high; got ({low}, {high}).")
    if log_scale and low <= 0.0:
        raise ValueError(
            f"With log_scale=True the bounds must be positive; got low={low}. "
            "Pass a positive lower bound, or log_scale=False."
        )
    for name, value, least in (("n_iter", n_iter, 0), ("n_scan", n_scan, 0)):
        if not isinstance(value, numbers.Integral) or value < least:
            raise ValueError(f"{name} must be an integer >= {least}; got {value!r}.")
    if not (isinstance(delta, numbers.Real) and delta > 0):
        raise ValueError(f"delta must be a positive number; got {delta!r}.")

    to_value = np.exp if log_scale else (lambda u: u)
    lo, hi = (np.log(low), np.log(high)) if log_scale else (low, high)
    values, losses = [], []
    curves = {}

    def evaluate(u):
        value = float(to_value(u))
        result = progressive_val_score(
            clone(estimator).set_params(**{param_name: value}),
            X,
            y,
            classes=classes,
            sample_weight=sample_weight,
            return_curve=True,
        )
        loss = float(result.cumulative_loss[-1])
        values.append(value)
        losses.append(loss)
        curves[value] = (result.cumulative_loss, result.loss)
        return loss

    if n_scan >= 3:
        grid = np.linspace(lo, hi, n_scan)
        best = int(np.argmin([evaluate(u) for u in grid]))
        lo, hi = grid[max(best - 1, 0)], grid[min(best + 1, n_scan - 1)]

    if method == "bisection":
        for _ in range(n_iter):
            mid = 0.5 * (lo + hi)
            if evaluate(mid + delta) > evaluate(mid):
                hi = mid
            else:
                lo = mid
        chosen = float(to_value(0.5 * (lo + hi)))
        if chosen not in curves:
            evaluate(0.5 * (lo + hi))
    else:
        a, b = lo, hi
        c = b - _GOLDEN * (b - a)
        d = a + _GOLDEN * (b - a)
        fc, fd = evaluate(c), evaluate(d)
        for _ in range(n_iter):
            if fc <= fd:
                b, d, fd = d, c, fc
                c = b - _GOLDEN * (b - a)
                fc = evaluate(c)
            else:
                a, c, fc = c, d, fd
                d = a + _GOLDEN * (b - a)
                fd = evaluate(d)
        chosen = values[int(np.argmin(losses))]

    cumulative, loss_name = curves[chosen]
    return Bunch(
        best_value=chosen,
        best_loss=float(cumulative[-1]),
        cumulative_loss=cumulative,
        param_values=np.array(values),
        losses=np.array(losses),
        loss=loss_name,
        n_evaluations=len(values),
    )
