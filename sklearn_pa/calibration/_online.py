"""Probabilities learned online from the scores each row got before the
model learned from it (prequential calibration)."""

import numbers
import warnings

import numpy as np
from scipy.optimize import minimize, minimize_scalar
from scipy.special import expit, log_expit, logsumexp
from sklearn.base import (
    BaseEstimator,
    ClassifierMixin,
    MetaEstimatorMixin,
    _fit_context,
    clone,
)
from sklearn.exceptions import DataConversionWarning
from sklearn.isotonic import IsotonicRegression
from sklearn.utils._param_validation import HasMethods, Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from .._core.batch import ReadsUnderLockMixin, estimator_lock
from .._core.pickled_state import CheckedStateMixin, OneOf
from .._core.publication import PublishedWhenReadMixin

__all__ = ["OnlineCalibratedClassifier"]

#: Blocks of recorded scores kept before they are joined into one (a
#: stream of one-row calls copies the window once every ``_BLOCKS`` calls).
_BLOCKS = 64

_METHODS = ("sigmoid", "temperature", "isotonic")


def _default_estimator():
    from ..linear import PassiveAggressiveClassifier

    return PassiveAggressiveClassifier()


# ------------------------------------------------------------ the maps
def _platt(s, t, w):
    """``(a, b)`` of Platt's sigmoid ``1 / (1 + exp(-(a s + b)))`` fitted
    to the 0/1 targets ``t`` of scores ``s`` with weights ``w`` by maximum
    likelihood, with Platt's (1999) smoothed targets."""
    positive = w[t == 1].sum()
    negative = w[t == 0].sum()
    target = np.where(t == 1, (positive + 1) / (positive + 2), 1 / (negative + 2))
    scale = max(float(np.std(s)), 1e-12)
    z = s / scale

    def loss(theta):
        a, b = theta
        f = a * z + b
        # -[t log p + (1 - t) log(1 - p)], p = expit(f)
        value = -(w * (target * log_expit(f) + (1 - target) * log_expit(-f))).sum()
        d = w * (expit(f) - target)
        return value, np.array([(d * z).sum(), d.sum()])

    prior = np.log((negative + 1) / (positive + 1))
    result = minimize(loss, np.array([1.0, -prior]), jac=True, method="L-BFGS-B")
    a, b = result.x
    return np.array([a / scale, b])


def _temperature(S, y, w):
    """The inverse temperature ``beta >= 0`` of ``softmax(beta S)`` (or,
    for one column, ``expit(beta s)``) fitted by maximum likelihood."""
    scale = max(float(np.std(S)), 1e-12)
    Z = S / scale

    if Z.shape[1] == 1:

        def loss(beta):
            f = beta * Z[:, 0]
            return -(w * np.where(y == 1, log_expit(f), log_expit(-f))).sum()

    else:

        def loss(beta):
            F = beta * Z
            picked = F[np.arange(F.shape[0]), y]
            return (w * (logsumexp(F, axis=1) - picked)).sum()

    result = minimize_scalar(loss, bounds=(0.0, 100.0), method="bounded")
    return np.array([result.x / scale])


def _isotonic(s, t, w):
    """The knots ``(x, p)`` of the monotone map fitted to the 0/1 targets
    ``t`` of scores ``s`` (scikit-learn's isotonic regression, clipped to
    [0, 1] and to the scores seen)."""
    iso = IsotonicRegression(y_min=0.0, y_max=1.0, out_of_bounds="clip")
    iso.fit(s, t, sample_weight=w)
    return np.vstack([iso.X_thresholds_, iso.y_thresholds_])


def _normalized(P):
    """One-vs-rest probabilities, made to sum to one (uniform where they
    are all zero), as scikit-learn's calibration does."""
    total = P.sum(axis=1, keepdims=True)
    uniform = np.full_like(P, 1.0 / P.shape[1])
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(total > 0, P / total, uniform)


class OnlineCalibratedClassifier(
    CheckedStateMixin,
    PublishedWhenReadMixin,
    MetaEstimatorMixin,
    ClassifierMixin,
    ReadsUnderLockMixin,
    BaseEstimator,
):
    """Probabilities for a classifier of the package, calibrated online.

    Every ``partial_fit`` call passes its batch through the classifier's
    compiled pass in the rows' order, which records the score each row got
    **just before** the model learned from it (the prequential scores, as
    progressive validation reads them).  The most recent ``window`` of those
    scores, with their labels, calibrate the probabilities: no data is held
    back, and no score was computed after its own row was learned.  A
    Platt sigmoid, a temperature, or an isotonic map is fitted to them when
    ``predict_proba`` is first called after a ``partial_fit`` call (a stream
    that does not ask for probabilities in between pays for one fit).

    Parameters
    ----------
    estimator : classifier of this package, default=None
        The classifier whose scores are calibrated (cloned; any classifier of
        the package but the sequence taggers: it must record the scores of
        its pass).  None: :class:`~sklearn_pa.PassiveAggressiveClassifier`
        with its defaults.

    method : {"sigmoid", "temperature", "isotonic"}, default="sigmoid"
        How scores become probabilities:

        - ``"sigmoid"``: Platt's :math:`1 / (1 + e^{-(a s + b)})` per class
          (one against the rest, normalised), fitted by maximum likelihood
          with Platt's smoothed targets;
        - ``"temperature"``: :math:`\\mathrm{softmax}(\\beta s)` over the
          classes' scores (for two classes :math:`1 / (1 + e^{-\\beta s})`),
          one parameter :math:`\\beta \\ge 0`: the ranking of the classes
          is the model's own;
        - ``"isotonic"``: a non-decreasing map per class (one against the
          rest, normalised), scikit-learn's isotonic regression: no shape
          assumed, needs more rows.

    window : int, default=2000
        How many of the most recent prequential scores calibrate.  A model
        whose scores grow as it learns (a Passive-Aggressive model's norm
        does) is calibrated on scores of its recent self.

    Attributes
    ----------
    estimator_ : classifier
        The fitted clone of ``estimator``.

    classes_ : ndarray of shape (n_classes,)
        The class labels.

    n_features_in_ : int
        Number of features seen.

    calibration_ : ndarray
        The fitted map, computed from the window when first read after a
        ``partial_fit`` call: ``(n_maps, 2)`` rows ``(a, b)`` for
        ``"sigmoid"``; ``(1,)`` holding :math:`\\beta` for
        ``"temperature"``; for ``"isotonic"`` a ``(n_maps, 2, n_knots)``
        array of knots (padded by repeating the last).  ``n_maps`` is 1 for
        two classes, else the number of classes.

    n_calibration_samples_ : int
        Rows in the window.

    See Also
    --------
    sklearn.calibration.CalibratedClassifierCV : Batch calibration on
        held-out data (no ``partial_fit``).

    Notes
    -----
    A row the classifier skipped (its score is NaN), scored before one of
    the classes existed (``new_classes="add"``: no score for it), or did not
    label (the unlabeled rows of a semi-supervised Bayes point machine) is
    not recorded.
    A class added to the model mid-stream (``new_classes="add"``) starts the
    window again: the older scores have fewer columns.  ``fit`` starts
    again from a new clone and runs one prequential pass over its data.

    References
    ----------
    J. Platt (1999). Probabilistic outputs for support vector machines and
    comparisons to regularized likelihood methods. *Advances in Large Margin
    Classifiers*, 61-74.

    C. Guo, G. Pleiss, Y. Sun and K. Q. Weinberger (2017). On calibration of
    modern neural networks. *ICML* (temperature scaling).

    B. Zadrozny and C. Elkan (2002). Transforming classifier scores into
    accurate multiclass probability estimates. *KDD* (isotonic, one against
    the rest).

    A. P. Dawid (1984). Present position and potential developments: some
    personal views: statistical theory: the prequential approach. *JRSS A*
    147(2), 278-292.

    Examples
    --------
    >>> from sklearn.datasets import load_digits
    >>> from sklearn_pa import PassiveAggressiveClassifier
    >>> from sklearn_pa.calibration import OnlineCalibratedClassifier
    >>> X, y = load_digits(return_X_y=True)
    >>> clf = OnlineCalibratedClassifier(PassiveAggressiveClassifier(random_state=0))
    >>> for start in range(0, 1500, 100):
    ...     _ = clf.partial_fit(X[start:start + 100], y[start:start + 100],
    ...                         classes=range(10))
    >>> proba = clf.predict_proba(X[1500:])
    >>> proba.shape
    (297, 10)
    >>> bool(abs(proba.sum(axis=1) - 1).max() < 1e-12)
    True
    """

    _parameter_constraints: dict = {
        "estimator": [HasMethods(["partial_fit", "decision_function"]), None],
        "method": [StrOptions(set(_METHODS))],
        "window": [Interval(numbers.Integral, 1, None, closed="left")],
    }

    #: learns through the classifier it is given (see
    #: :func:`sklearn_pa.utils.discovery.all_estimators`)
    _meta_estimator = True

    #: the map is fitted when first read after a call
    _publishes_when_read = (
        ("_calibration_pending", ("calibration_",), "_fit_calibration"),
    )

    #: the map and the window saved (see ``_core/pickled_state.py``): ``m``
    #: rows of ``g`` score columns
    _state_shapes = {
        "calibration_": OneOf(((1,), ("n", 2), ("n", 2, "knots"))),
        "_window_scores": ("m", "g"),
        "_window_labels": ("m",),
        "_window_weights": ("m",),
    }

    def __init__(self, estimator=None, *, method="sigmoid", window=2000):
        self.estimator = estimator
        self.method = method
        self.window = window

    # ------------------------------------------------------------ learning
    @_fit_context(prefer_skip_nested_validation=False)
    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """Learn from a batch, and calibrate on the scores its rows got
        before the model learned from each.

        The classifier's call and the window's update are one atomic step:
        if either fails, both are left as they were.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            A batch of training data.
        y : array-like of shape (n_samples,)
            Its labels.
        classes : array-like of shape (n_classes,), default=None
            Every label the stream may contain; required on the first call
            (as the classifier's ``partial_fit`` asks).
        sample_weight : array-like of shape (n_samples,), default=None
            Weights of the rows, for the classifier and the calibration.

        Returns
        -------
        self : object
            Fitted estimator.
        """
        with estimator_lock(self):
            return self._partial_fit(X, y, classes, sample_weight)

    @_fit_context(prefer_skip_nested_validation=False)
    def fit(self, X, y, sample_weight=None):
        """Start again from a new clone of ``estimator``, and learn one
        prequential pass over ``X``.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training data.
        y : array-like of shape (n_samples,)
            Target labels.
        sample_weight : array-like of shape (n_samples,), default=None
            Weights of the rows.

        Returns
        -------
        self : object
            Fitted estimator.
        """
        with estimator_lock(self):
            y = self._check_single_label(y)
            self._partial_fit(X, y, np.unique(y), sample_weight, fresh=True)
            # (a fit forms its map at once: reading the model changes nothing)
            self.calibration_  # noqa: B018
            return self

    def _partial_fit(self, X, y, classes, sample_weight, fresh=False):
        y = self._check_single_label(y)
        values = self.__dict__
        estimator = None if fresh else values.get("estimator_")
        if estimator is None:
            base = self.estimator
            estimator = clone(base) if base is not None else _default_estimator()
            if not callable(getattr(estimator, "__sklearn_pa_prequential__", None)):
                raise TypeError(
                    f"{type(estimator).__name__} does not record the scores of "
                    "its pass: OnlineCalibratedClassifier calibrates the "
                    "classifiers of sklearn_pa (PassiveAggressiveClassifier, "
                    "AROWClassifier, ...). For another classifier, use "
                    "sklearn.calibration.CalibratedClassifierCV on held-out data."
                )
            blocks = ()
        else:
            blocks = values.get("_window_blocks", ())
        window = self.window

        def record(scores):
            # inside the classifier's atomic block, after its pass: compute
            # the new window, then publish everything in one step
            columns = scores.reshape(scores.shape[0], -1)
            classes_ = estimator.classes_
            known = np.isin(y, classes_)
            weights = (
                np.ones(y.shape[0])
                if sample_weight is None
                else np.asarray(sample_weight, dtype=np.float64).reshape(-1)
            )
            keep = known.copy()
            keep[known] = np.isfinite(columns[known]).all(axis=1)
            labels = np.searchsorted(classes_, y[keep]).astype(np.int64)
            block = (
                np.ascontiguousarray(columns[keep], dtype=np.float64),
                labels,
                np.ascontiguousarray(weights[keep], dtype=np.float64),
            )
            kept = blocks
            if kept and kept[0][0].shape[1] != block[0].shape[1]:
                kept = ()  # a class was added: the window starts again
            new_blocks = _trimmed((*kept, block), window)
            published = {
                "estimator_": estimator,
                "classes_": estimator.classes_,
                "n_features_in_": estimator.n_features_in_,
                "_window_blocks": new_blocks,
                "_calibration_pending": True,
            }
            if hasattr(estimator, "feature_names_in_"):
                published["feature_names_in_"] = estimator.feature_names_in_
            # what the new state no longer has goes first, the map marked to
            # be formed again (from the old window, if the call stops here);
            # the one update is the last step: nothing can fail after it
            values["_calibration_pending"] = True
            values.pop("calibration_", None)
            if "feature_names_in_" not in published:
                values.pop("feature_names_in_", None)
            values.update(published)

        estimator.__sklearn_pa_prequential__(X, y, classes, sample_weight, then=record)
        return self

    def _check_single_label(self, y):
        if y is None:
            raise ValueError(
                "OnlineCalibratedClassifier requires y to be passed, but the "
                "target y is None."
            )
        y = np.asarray(y)
        if y.ndim == 2 and y.shape[1] == 1:
            warnings.warn(
                "A column-vector y was passed when a 1d array was expected. "
                "Please change the shape of y to (n_samples,), for example "
                "using ravel().",
                DataConversionWarning,
                stacklevel=3,
            )
            y = y.ravel()
        if y.ndim != 1:
            raise ValueError(
                "OnlineCalibratedClassifier calibrates single-label "
                f"classifiers: y must be 1-D, got shape {y.shape}."
            )
        return y

    # ------------------------------------------------------------ the map
    def _window(self):
        blocks = self.__dict__.get("_window_blocks", ())
        if not blocks:
            return None
        return tuple(np.concatenate(part)[-self.window :] for part in zip(*blocks))

    def _fit_calibration(self):
        """The map fitted to the window (see ``calibration_``)."""
        self._calibration_pending = False
        window = self._window()
        n_columns = 1 if self.classes_.shape[0] <= 2 else self.classes_.shape[0]
        if window is None or window[0].shape[0] == 0:
            return {"calibration_": None}
        S, labels, w = window
        if self.method == "temperature":
            return {"calibration_": _temperature(S, labels, w)}
        fit = _platt if self.method == "sigmoid" else _isotonic
        maps = []
        for k in range(n_columns):
            target = (labels == (1 if n_columns == 1 else k)).astype(np.float64)
            maps.append(fit(S[:, k], target, w))
        if self.method == "sigmoid":
            return {"calibration_": np.array(maps)}
        width = max(m.shape[1] for m in maps)
        padded = [
            np.pad(m, ((0, 0), (0, width - m.shape[1])), mode="edge") for m in maps
        ]
        return {"calibration_": np.array(padded)}

    # ------------------------------------------------------------ reading
    def predict_proba(self, X):
        """Calibrated class probabilities.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The rows.

        Returns
        -------
        proba : ndarray of shape (n_samples, n_classes)
            The probability of each class, in the order of ``classes_``;
            uniform before any row was recorded.
        """
        check_is_fitted(self, "estimator_")
        scores = self.estimator_.decision_function(X)
        S = scores.reshape(scores.shape[0], -1)
        with estimator_lock(self):
            calibration = self.calibration_
        n_classes = self.classes_.shape[0]
        if calibration is None:
            return np.full((S.shape[0], n_classes), 1.0 / n_classes)
        if self.method == "temperature":
            F = calibration[0] * S
            if F.shape[1] == 1:
                p = expit(F[:, 0])
                return np.column_stack([1 - p, p])
            return np.exp(F - logsumexp(F, axis=1, keepdims=True))
        if self.method == "sigmoid":
            P = expit(S * calibration[:, 0] + calibration[:, 1])
        else:
            P = np.column_stack(
                [
                    np.interp(S[:, k], calibration[k, 0], calibration[k, 1])
                    for k in range(S.shape[1])
                ]
            )
        if P.shape[1] == 1:
            return np.column_stack([1 - P[:, 0], P[:, 0]])
        return _normalized(P)

    def predict_log_proba(self, X):
        """Logarithm of :meth:`predict_proba`.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The rows.

        Returns
        -------
        log_proba : ndarray of shape (n_samples, n_classes)
            The log-probabilities.
        """
        with np.errstate(divide="ignore"):
            return np.log(self.predict_proba(X))

    def predict(self, X):
        """The most probable class of each row.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The rows.

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
            Predicted labels.
        """
        proba = self.predict_proba(X)
        return self.classes_[np.argmax(proba, axis=1)]

    @property
    def n_calibration_samples_(self):
        """Rows in the window (at most ``window``)."""
        blocks = self.__dict__.get("_window_blocks", ())
        return min(int(sum(block[0].shape[0] for block in blocks)), self.window)

    # ------------------------------------------------------------ state
    def __getstate__(self):
        """The saved state: the map (formed first if a call left it to be
        formed) and the window as three arrays."""
        with estimator_lock(self):
            if "estimator_" in self.__dict__:
                self.calibration_  # noqa: B018 (forms a pending map)
            state = super().__getstate__()
        blocks = state.pop("_window_blocks", None)
        if blocks is not None:
            scores, labels, weights = (np.concatenate(p) for p in zip(*blocks))
            state["_window_scores"] = scores
            state["_window_labels"] = labels
            state["_window_weights"] = weights
        return state

    def __setstate__(self, state):
        super().__setstate__(state)
        values = self.__dict__
        refused = _inconsistent(values)
        if refused:
            values.clear()
            raise ValueError(
                f"The saved OnlineCalibratedClassifier holds {refused}: the "
                "file was damaged or edited. Load another copy, or fit the "
                "model again."
            )
        if "_window_scores" in values:
            values["_window_blocks"] = (
                (
                    values.pop("_window_scores"),
                    values.pop("_window_labels"),
                    values.pop("_window_weights"),
                ),
            )

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags


def _inconsistent(values):
    """What does not agree between a loaded wrapper's classifier, classes
    and window (None when all agree)."""
    estimator = values.get("estimator_")
    if estimator is None:
        return None
    classes = values.get("classes_")
    mine = getattr(estimator, "classes_", None)
    if classes is None or mine is None or not np.array_equal(classes, mine):
        return "classes_ that are not those of its estimator_"
    scores = values.get("_window_scores")
    if scores is None:
        return None
    columns = 1 if classes.shape[0] <= 2 else classes.shape[0]
    if scores.shape[1] != columns:
        return (
            f"a window of {scores.shape[1]} score columns for "
            f"{classes.shape[0]} classes"
        )
    labels = values["_window_labels"]
    if labels.size and (labels.min() < 0 or labels.max() >= classes.shape[0]):
        return "window labels outside its classes"
    calibration = values.get("calibration_")
    if calibration is not None:
        maps = 1 if values.get("method") == "temperature" else columns
        shape = (1,) if values.get("method") == "temperature" else (maps, 2)
        if calibration.shape[: len(shape)] != shape:
            return f"a map of shape {calibration.shape} for {columns} score columns"
    return None


def _trimmed(blocks, window):
    """The blocks of the most recent ``window`` rows, joined into one when
    there are more than ``_BLOCKS``."""
    total = sum(b[0].shape[0] for b in blocks)
    if len(blocks) > _BLOCKS or total > 2 * window:
        joined = tuple(np.concatenate(part) for part in zip(*blocks))
        return (tuple(part[-window:] for part in joined),)
    return blocks
