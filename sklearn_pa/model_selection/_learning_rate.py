"""search_learning_rate: the seed's search of a learning rate on progressive
validation."""

import numbers

import numpy as np
from sklearn.base import clone
from sklearn.utils import Bunch

from ._score import progressive_val_score

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
        scale.  The slope is measured over ``[m, m + delta]``, or over
        ``[high - delta, high]`` near the upper bound: no value outside
        ``bounds`` is ever evaluated.
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
    0.21
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
        # the search never leaves the bracket: exp(log(high)) may round past
        # high, and an estimator may refuse a value beyond it
        value = min(max(float(to_value(u)), low), high)
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
        top = np.log(high) if log_scale else high
        for _ in range(n_iter):
            mid = 0.5 * (lo + hi)
            # the slope over [a, a + delta], within the bracket: near its
            # upper end the step is taken below the middle instead
            a = min(mid, top - delta)
            if evaluate(a + delta) > evaluate(a):
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
