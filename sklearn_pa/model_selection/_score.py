"""progressive_val_score: scorers read on the online predictions of a stream."""

import numbers

import numpy as np
from sklearn.base import (
    BaseEstimator,
    ClassifierMixin,
    RegressorMixin,
    clone,
    is_classifier,
)
from sklearn.metrics import get_scorer
from sklearn.utils import Bunch
from sklearn.utils.metaestimators import available_if

try:  # the class of the objects that get_scorer and make_scorer return
    from sklearn.metrics._scorer import _BaseScorer
except ImportError:  # pragma: no cover
    _BaseScorer = ()

from ._stream import _progressive, _split_pipeline


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


def _check_not_a_tagger(final):
    """Refuse a sequence tagger, whose samples are sequences, not rows."""
    from ..sequence._base import _BaseSequenceTagger

    if isinstance(final, _BaseSequenceTagger):
        raise ValueError(
            f"progressive_val_score scores learners of rows; "
            f"{type(final).__name__} is a sequence tagger (X a list of "
            "sequences). Score it on held-out sequences (its score method, "
            "or sklearn.model_selection.cross_val_score over the sequences)."
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
    delay=None,
    window=None,
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
    compiled pass per batch (``predict_proba`` of the confidence-weighted
    family included, with the calibration refitted at intervals within a
    batch rather than after every sample, see
    :func:`progressive_val_predict`); other estimators through a
    ``predict`` / ``partial_fit`` loop that is exact only with batches of one
    sample.

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
        online probabilities for ``"neg_log_loss"``); or a callable
        ``metric(y_true, y_pred)`` for which greater is better, applied to
        the online predictions.  None
        means ``"accuracy"`` for a classifier and
        ``"neg_mean_squared_error"`` for a regressor.
    classes : array-like of shape (n_classes,), default=None
        For a classifier, every label of the stream; ``None`` uses ``y``'s
        (required for a stream of batches), or none for a classifier with
        ``new_classes="add"``, which adds each label when it first meets it
        (see :func:`progressive_val_predict`).
    sample_weight : array-like of shape (n_samples,), default=None
        Passed to ``partial_fit`` and to the scorer (arrays only: a stream's
        batches carry their own).
    batch_size : int, default=None
        See :func:`progressive_val_predict`.
    return_curve : bool, default=False
        Whether to return the cumulative-loss curve and the predictions.
    return_estimator : bool, default=False
        Whether to return the estimator fitted on the whole stream.
    delay : int or array-like of shape (n_samples,), default=None
        When the labels arrive, for a stream whose labels come later than
        its samples (arrays only; see :func:`progressive_val_predict`): a
        number of rows (row ``i``'s label arrives after row ``i + delay``
        is predicted), or the arrival time of each row's label on the scale
        of the rows (row ``i`` arrives at time ``i``; ``np.inf``: never).
        Each row is predicted when it arrives by the model that has learned
        the rows whose labels arrived before, and learned when its own
        label arrives.  None or 0: each row is learned right after it is
        predicted.
    window : int, default=None
        With ``return_curve``, also return ``windowed_loss``: the mean loss
        (mistakes or squared error, weighted by ``sample_weight``) of the
        last ``window`` samples at each sample, the metric a drifting
        stream is watched by.

    Returns
    -------
    score : float or Bunch
        The score alone, or, if ``return_curve`` or ``return_estimator``, a
        :class:`~sklearn.utils.Bunch` with ``score``, ``scoring`` (its name),
        ``n_predicted``, and, if ``return_curve``, ``cumulative_loss``
        (ndarray of shape (n_samples,): square loss or mistakes summed up
        to and including each sample; samples that were not predicted add
        nothing), ``loss`` (``"squared_error"`` or ``"mistakes"``),
        ``predictions`` and ``y`` (the targets, in stream order), and
        ``windowed_loss`` (ndarray of shape (n_samples,)) if ``window``:
        the mean loss over the predicted samples among the ``window``
        samples that end at each sample (NaN where none was predicted);
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

    Labels that arrive 50 rows after their samples, and the accuracy over
    the last 100 samples (one minus the windowed mistake rate):

    >>> late = progressive_val_score(
    ...     PassiveAggressiveClassifier(), X, y, delay=50, window=100,
    ...     return_curve=True)
    >>> late.windowed_loss.shape
    (500,)
    >>> bool(0.5 < 1 - late.windowed_loss[-1] <= 1.0)
    True
    """
    if window is not None:
        if not isinstance(window, numbers.Integral) or window < 1:
            raise ValueError(f"window must be a positive int; got {window!r}.")
        if not return_curve:
            raise ValueError(
                "window adds the windowed loss to the curve: pass "
                "return_curve=True as well."
            )
    final, _ = _split_pipeline(estimator)
    _check_not_a_tagger(final)
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
        delay=delay,
    )
    y_pred, predicted, y = result.predict, result.predicted, result.y
    if predicted.shape[0] == 0:
        raise ValueError(
            "The stream holds no sample: progressive validation needs at "
            "least two (the first is learned before any prediction)."
        )
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
        if window is not None:
            out.windowed_loss = windowed_mean(per_sample, predicted, sw, window)
    if return_estimator:
        out.estimator = result.estimator
    return out


def windowed_mean(values, predicted, sample_weight, window):
    """The mean of ``values`` over the predicted samples among the last
    ``window`` samples ending at each sample (weighted by
    ``sample_weight``); NaN where none of them was predicted."""
    weight = predicted.astype(np.float64)
    if sample_weight is not None:
        weight = weight * np.asarray(sample_weight, dtype=np.float64)
    terms = np.where(predicted, values, 0).astype(np.float64) * weight
    # running sums, less the sums up to ``window`` samples back
    num = np.cumsum(terms)
    den = np.cumsum(weight)
    num[window:] = num[window:] - num[:-window].copy()
    den[window:] = den[window:] - den[:-window].copy()
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, num / np.where(den > 0, den, 1.0), np.nan)
