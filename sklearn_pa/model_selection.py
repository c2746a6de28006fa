"""Progressive (prequential) validation of online learners, and the search
of a learning rate on it.

Each sample of a stream is first predicted by the model learned from the
samples before it, then learned: the online evaluation of the online
learning literature (cumulative loss, online mistakes), and river's
``evaluate.progressive_val_score``.  Every prediction is made on a sample
the model has not seen, so the whole stream is a test set and a training set
at once.
"""

import numbers

import numpy as np
import scipy.sparse as sp
from sklearn.base import clone, is_classifier
from sklearn.metrics import (
    accuracy_score,
    balanced_accuracy_score,
    mean_absolute_error,
    mean_squared_error,
    r2_score,
)
from sklearn.utils import Bunch, _safe_indexing, check_consistent_length, indexable
from sklearn.utils.multiclass import unique_labels

__all__ = [
    "progressive_val_predict",
    "progressive_val_score",
    "search_learning_rate",
]

# (function of (y_true, y_pred), sign): the score is sign * function, so that
# greater is better, as with scikit-learn's scorers
_SCORERS = {
    "neg_mean_squared_error": (mean_squared_error, -1.0),
    "neg_root_mean_squared_error": (
        lambda y, p, **kw: np.sqrt(mean_squared_error(y, p, **kw)),
        -1.0,
    ),
    "neg_mean_absolute_error": (mean_absolute_error, -1.0),
    "r2": (r2_score, 1.0),
    "accuracy": (accuracy_score, 1.0),
    "balanced_accuracy": (balanced_accuracy_score, 1.0),
}


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


def progressive_val_predict(
    estimator,
    X,
    y,
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

    The estimators of this package take the fast path: their private method
    ``_partial_fit_scores(X, y[, classes], sample_weight)`` makes one
    compiled pass over a batch that records each sample's score just before
    learning from it, so the result is exactly the per-sample
    predict-then-learn loop whatever ``batch_size``.  Any other estimator
    with ``partial_fit`` (or one of this package configured so that its
    kernel cannot give those scores, e.g. with ``average=True``) falls back
    to a loop of ``predict`` then ``partial_fit`` per batch: within a batch
    the model does not learn between predictions, so only
    ``batch_size=1`` (its default) is exact, and the first batch, which an
    unfitted estimator cannot predict, is learned without being predicted
    (``predicted`` is False there).  The package's estimators predict the
    first sample with their initial model (zero weights; uniform weights for
    EG+-), as the online learning literature counts it.

    Parameters
    ----------
    estimator : estimator object implementing ``partial_fit``
        The online learner.  It is cloned.
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
        The stream, in time order.
    y : array-like of shape (n_samples,)
        Its targets.
    classes : array-like of shape (n_classes,), default=None
        For a classifier, every label of the stream; ``None`` uses the
        labels of ``y``.
    sample_weight : array-like of shape (n_samples,), default=None
        Passed to ``partial_fit``.
    batch_size : int, default=None
        Number of samples per call.  ``None`` means the whole stream in one
        kernel pass on the fast path, and 1 on the fallback.
    method : {"predict", "decision_function"}, default="predict"
        What to record: the predictions, or the raw decision values (fast
        path: the kernel's scores; fallback: ``decision_function``, or
        ``predict`` for a regressor).
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
        The fitted clone, only if ``return_estimator``.

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
    if method not in ("predict", "decision_function"):
        raise ValueError(
            f"method must be 'predict' or 'decision_function'; got {method!r}."
        )
    if not hasattr(estimator, "partial_fit"):
        raise TypeError(
            f"{type(estimator).__name__} has no partial_fit; progressive "
            "validation needs an online learner."
        )
    X, y, sample_weight = indexable(X, y, sample_weight)
    check_consistent_length(X, y, sample_weight)
    if sp.issparse(X):
        X = X.tocsr()
    y = np.asarray(y)
    n_samples = y.shape[0]
    if batch_size is not None and (
        not isinstance(batch_size, numbers.Integral) or batch_size < 1
    ):
        raise ValueError(f"batch_size must be a positive int; got {batch_size!r}.")
    est = clone(estimator)
    classifier = is_classifier(est)
    fit_kwargs = {}
    if classifier:
        fit_kwargs["classes"] = unique_labels(y if classes is None else classes)

    def batch_kwargs(part):
        kwargs = dict(fit_kwargs)
        if sample_weight is not None:
            kwargs["sample_weight"] = np.asarray(sample_weight)[part]
        return kwargs

    outputs = []
    predicted = np.ones(n_samples, dtype=bool)
    fast = _has_score_protocol(est)
    if fast:
        try:
            for part in _batches(n_samples, batch_size or max(n_samples, 1)):
                scores = est._partial_fit_scores(
                    _safe_indexing(X, part), y[part], **batch_kwargs(part)
                )
                outputs.append(scores)
        except NotImplementedError:
            if outputs:  # the protocol refused mid-stream: not a valid protocol
                raise
            fast = False
            est = clone(estimator)
    if fast:
        scores = np.concatenate(outputs) if outputs else np.empty(0)
        skipped = np.isnan(scores) if scores.ndim == 1 else np.isnan(scores[:, 0])
        predicted &= ~skipped
        if method == "predict":
            out = _scores_to_predictions(est, np.nan_to_num(scores))
            if not classifier:
                out = scores
        else:
            out = scores
    else:
        outputs = []
        fitted = False
        for part in _batches(n_samples, batch_size or 1):
            n_part = part.stop - part.start
            if fitted:
                if method == "decision_function" and classifier:
                    outputs.append(est.decision_function(_safe_indexing(X, part)))
                else:
                    outputs.append(est.predict(_safe_indexing(X, part)))
            else:
                outputs.append(None)
                predicted[part] = False
            est.partial_fit(_safe_indexing(X, part), y[part], **batch_kwargs(part))
            fitted = True
            outputs[-1] = (outputs[-1], n_part)
        template = next((o for o, _ in outputs if o is not None), None)
        if template is None:
            out = np.full(n_samples, np.nan)
        else:
            template = np.asarray(template)
            fill = np.nan if template.dtype.kind in "fc" else template.flat[0]
            dtype = template.dtype if template.dtype.kind not in "iub" else float
            out = np.concatenate(
                [
                    np.asarray(o, dtype=dtype)
                    if o is not None
                    else np.full((n,) + template.shape[1:], fill, dtype=dtype)
                    for o, n in outputs
                ]
            )
    if return_estimator:
        return out, predicted, est
    return out, predicted


def _resolve_scoring(scoring, classifier):
    if scoring is None:
        scoring = "accuracy" if classifier else "neg_mean_squared_error"
    if callable(scoring):
        return scoring, 1.0, getattr(scoring, "__name__", "score")
    if scoring not in _SCORERS:
        raise ValueError(
            f"scoring={scoring!r} is not supported; use one of "
            f"{sorted(_SCORERS)} or a callable metric(y_true, y_pred) for which "
            "greater is better."
        )
    func, sign = _SCORERS[scoring]
    return func, sign, scoring


def progressive_val_score(
    estimator,
    X,
    y,
    *,
    scoring=None,
    classes=None,
    sample_weight=None,
    batch_size=None,
    return_curve=False,
    return_estimator=False,
):
    """Score an online learner by predicting each sample before learning it.

    The score of the online predictions made by
    :func:`progressive_val_predict`: for a regressor the mean squared
    online error (negated by default, so that greater is better), for a
    classifier the online accuracy (one minus the online mistake rate).  With
    ``return_curve=True`` it also returns the cumulative loss after each
    sample: the cumulative square loss of a regressor, the cumulative number
    of mistakes of a classifier, the quantities the online learning
    literature bounds.

    The estimators of this package are evaluated in one compiled pass per
    batch (see :func:`progressive_val_predict`); other estimators through a
    ``predict`` / ``partial_fit`` loop that is exact only with
    ``batch_size=1``.

    Parameters
    ----------
    estimator : estimator object implementing ``partial_fit``
        The online learner.  It is cloned.
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
        The stream, in time order.
    y : array-like of shape (n_samples,)
        Its targets.
    scoring : str or callable, default=None
        ``"neg_mean_squared_error"`` (regressors' default),
        ``"neg_root_mean_squared_error"``, ``"neg_mean_absolute_error"``,
        ``"r2"``, ``"accuracy"`` (classifiers' default),
        ``"balanced_accuracy"``, or a callable ``metric(y_true, y_pred)``
        for which greater is better, applied to the predicted samples.
    classes : array-like of shape (n_classes,), default=None
        For a classifier, every label of the stream; ``None`` uses ``y``'s.
    sample_weight : array-like of shape (n_samples,), default=None
        Passed to ``partial_fit`` (and to the metric).
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
        nothing), ``loss`` (``"squared_error"`` or ``"mistakes"``) and
        ``predictions``; ``estimator`` if ``return_estimator``.

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from sklearn_pa import PassiveAggressiveClassifier
    >>> from sklearn_pa.model_selection import progressive_val_score
    >>> X, y = make_classification(n_samples=500, random_state=0)
    >>> result = progressive_val_score(
    ...     PassiveAggressiveClassifier(), X, y, return_curve=True)
    >>> 0.5 < result.score < 1.0
    True
    >>> int(result.cumulative_loss[-1]) == round((1 - result.score) * 500)
    True
    """
    classifier = is_classifier(estimator)
    func, sign, name = _resolve_scoring(scoring, classifier)
    result = progressive_val_predict(
        estimator,
        X,
        y,
        classes=classes,
        sample_weight=sample_weight,
        batch_size=batch_size,
        method="predict",
        return_estimator=return_estimator,
    )
    y_pred, predicted = result[0], result[1]
    y = np.asarray(y)
    if not np.any(predicted):
        raise ValueError(
            "No sample was predicted: the stream is a single batch of a "
            "foreign estimator. Use a smaller batch_size."
        )
    metric_kwargs = {}
    if sample_weight is not None:
        metric_kwargs["sample_weight"] = np.asarray(sample_weight)[predicted]
    score = sign * float(func(y[predicted], y_pred[predicted], **metric_kwargs))
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
    if return_estimator:
        out.estimator = result[2]
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
        The parameter searched, e.g. ``"eta"``, ``"c"`` or ``"C"`` (a
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
