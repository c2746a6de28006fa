"""ROMMA and ALMA: the margin learners whose update rescales the whole model.

:class:`ROMMAClassifier` (Li & Long 2002, with its aggressive variant) and
:class:`ALMAClassifier` (Gentile 2001) move the weights to ``c W + d phi``.
They share the first-order estimators' machinery
(:class:`~sklearn_pa.linear._base.BaseOnlineLinear`) with their own kernel,
``_compiled/_scaled.pyx``, which holds the weights as a scale times a vector
so that an update costs the row's non-zeros (the coefficients in
``_compiled/_margin_rules.pxd``), and their own epoch adapter
(:class:`_ScaledEpochs`).

Between ``partial_fit`` calls the model stays in that form: the vector
``V`` (the kernel's array), the scale ``s`` and the squared norm ``N`` of
``W = s V``; ``coef_`` and ``intercept_`` are published when first read
(the scale folded into ``V`` then), so that a call costs its rows, not the
model.  ``fit`` folds at the end of each pass, as it always did.
"""

from numbers import Real

import numpy as np
from sklearn.utils._param_validation import Interval, StrOptions

from .._compiled import _scaled, _scores
from .._compiled._rules import Rule
from .._core.batch import call_values, current_journal
from .._core.docs import fill_doc
from .._core.epochs import _LinearEpochs, _RowView
from .._core.pickled_state import Items
from .._core.publication import _same_values
from .._core.rules import scaled_params
from .._core.session import _NO_ACCUMULATORS, lean_rows, session_of
from .._core.state import ScaledState
from .._core.weights import warn_romma_weights
from ._base import BaseOnlineLinear
from ._margin import _MarginClassifier

__all__ = ["ALMAClassifier", "ROMMAClassifier"]


def _new_scale_state():
    """``[s, N, whole, done]`` for the kernel's ``state``: scale 1, the norm
    to compute at entry."""
    return np.array([1.0, np.nan, 0.0, 0.0])


class _ScaledEpochs(_LinearEpochs):
    """The epoch adapter of the scaled rules: one ``_scaled.epoch`` call per
    pass (through the estimator's ``_kernel_epoch``).  A ``partial_fit``
    keeps the scale between calls, so its rollback journal saves the rows of
    ``V`` the batch touches and ``b`` (the scale and norm are a new array
    per call); a step that rewrites the whole model saves it first
    (:meth:`_ScaledClassifier._kernel_epoch`)."""

    def journal(self, journal, order):
        if self.estimator.__dict__.get("_scale_stream") is not None:
            super().journal(journal, order)
            return
        journal.save(self.W)
        journal.save(self.b)


class _ScaledClassifier(_MarginClassifier):
    """Shared state of ROMMA and ALMA: no averaging (the rules define none),
    the update count ``n_updates_`` (ALMA's ``k - 1``), the scaled kernel."""

    #: the scaled weights saved (see ``_core/pickled_state.py``)
    _state_shapes = {
        "_scale_pending": Items((("d", "k"), ("k",))),
        "_scale_state": (4,),
        "_scale_published": Items((("k", "d"), ("k",))),
    }

    #: the weights a partial_fit call left as a scale times a vector
    #: (folded before an average is formed)
    _publishes_when_read = (
        ("_scale_pending", ("coef_", "intercept_"), "_form_scaled"),
    )

    _epoch_adapter_class = _ScaledEpochs
    # read by the shared machinery: these rules publish their last iterate
    # and have no step a class weight could scale
    average = False
    class_weight = None

    _parameter_constraints: dict = BaseOnlineLinear._constraints(
        "C",
        "average",
        "class_weight",
        new_classes=[StrOptions({"error", "add"})],
    )

    _fit_doc = {
        "sample_weight": """\
        sample_weight : array-like of shape (n_samples,), default=None
            Per-sample weights (see the class description: a zero weight
            skips the sample).""",
        "partial_sample_weight": """\
        sample_weight : array-like of shape (n_samples,), default=None
            Per-sample weights (a zero weight skips the sample).""",
    }

    def __sklearn_pa_state__(self):
        """The state protocol of this estimator (used by parameter mixing).

        Returns
        -------
        state : ScaledState
            A linear state with the number of updates the rule counts.
        """
        return ScaledState(self, epochs=self._epoch_adapter_class)

    def _kernel_epoch(self, rows, order, W, b, U, bu, **kwargs):
        counter = np.array([getattr(self, "n_updates_", 0) + 1], dtype=np.int64)
        state = self.__dict__.get("_scale_stream")
        if state is None:
            stats = _scaled.epoch(rows, order, W, b, U, bu, counter=counter, **kwargs)
        else:
            stats = self._stream_epoch(rows, order, W, b, U, bu, counter, state, kwargs)
        if self._rule() == Rule.ALMA:
            self.n_updates_ = int(counter[0]) - 1
        else:
            self.n_updates_ = getattr(self, "n_updates_", 0) + int(stats[1])
        return stats

    def _stream_epoch(self, rows, order, W, b, U, bu, counter, state, kwargs):
        """A ``partial_fit`` pass that keeps the scale and the norm in
        ``state`` (the kernel's ``state``): the kernel stops before a step
        that writes every weight (a fold, a restart) unless the whole model
        is saved in the rollback journal, which is done then, once."""
        self._scale_with_b = kwargs["intercept_sq"] > 0.0
        scores_out = kwargs.pop("scores_out", None)
        totals = [0, 0, 0, False]
        start = 0
        while True:
            part = kwargs
            if scores_out is not None:
                part = {**kwargs, "scores_out": scores_out[start:]}
            stats = _scaled.epoch(
                rows, order[start:], W, b, U, bu, counter=counter, state=state, **part
            )
            totals = [totals[i] + stats[i] for i in range(3)] + [totals[3] or stats[3]]
            start += int(state[3])
            if start >= order.shape[0] or stats[3]:
                return tuple(totals)
            journal = current_journal()
            if journal is not None:
                journal.save(W)
                journal.save(b)
            state[2] = 1.0

    # ------------------------------------------- the scale between calls
    def _partial_fit(self, X, y, classes, sample_weight, *, record_scores=False):
        # (the kernel keeps the scale only here: fit folds it each pass)
        call = call_values()
        call["scale_streaming"] = True
        try:
            return super()._partial_fit(
                X, y, classes, sample_weight, record_scores=record_scores
            )
        finally:
            call.pop("scale_streaming", None)
            self.__dict__.pop("_scale_stream", None)

    def _scale_assigned(self, compare=False):
        """Whether ``coef_`` or ``intercept_`` was assigned since the last
        ``partial_fit`` call (an attribute that is not the copy published
        when read), or that copy written in place since (one pass over the
        model, only while the published copy is held); with ``compare``,
        only an assigned array whose values are not the model's counts (the
        stream then goes on from its scale, as if nothing was assigned)."""
        values = self.__dict__
        published = values.get("_scale_published") or (None, None)
        names = [
            name
            for name, mine in zip(("coef_", "intercept_"), published)
            if name in values and values[name] is not mine
        ]
        edited = published[0] is not None and "_scale_pending" in values
        if not names and not edited:
            return False
        if names and not compare and not edited:
            return True
        W, b = self._folded()
        model = {"coef_": self._shape_coef(W.T), "intercept_": b}
        if edited and any(
            values.get(name) is mine and not np.array_equal(mine, model[name])
            for name, mine in zip(("coef_", "intercept_"), published)
        ):
            return True
        if not names or not compare:
            return bool(names)
        return not all(_same_values(values[name], model[name]) for name in names)

    def _folded(self):
        """New arrays ``(s V, b)`` of the weights a ``partial_fit`` call left
        as a scale times a vector (one pass over the model); ``V`` itself
        stays as it is, so a stream goes on bit for bit whether or not
        ``coef_`` was read."""
        W, b = self.__dict__["_scale_pending"]
        s = self.__dict__["_scale_state"][0]
        return W * s, b * s if self._scale_with_b else b.copy()

    def _state_arrays(self):
        values = self.__dict__
        pending = values.get("_scale_pending")
        streaming = call_values().get("scale_streaming", False)
        if (
            pending is not None
            and not self._scale_assigned(compare=True)
            and pending[0].shape == (self.n_features_in_, self._n_columns())
        ):
            if not streaming:
                return self._folded()
            # a copy: a failed call leaves the previous one in place
            self._scale_stream = values["_scale_state"].copy()
            self._scale_stream[2] = 0.0
            return pending
        if pending is not None:
            # assigned weights start the model again (the attribute not
            # assigned is published first)
            self.coef_, self.intercept_  # noqa: B018
            for name in ("_scale_pending", "_scale_state", "_scale_published"):
                values.pop(name, None)
        W, b = super()._state_arrays()
        if streaming:
            # weights given from outside: their norm is computed once, at the
            # kernel's entry
            self._scale_stream = _new_scale_state()
        return W, b

    def _allocate(self, n_features, n_columns, coef_init, intercept_init):
        if call_values().get("scale_streaming"):
            self._scale_stream = _new_scale_state()
        self.n_updates_ = 0
        return super()._allocate(n_features, n_columns, coef_init, intercept_init)

    def _publish(self, W, b, U=None, bu=None, *, lazy=False):
        values = self.__dict__
        state = values.get("_scale_stream")
        for name in ("_scale_pending", "_scale_state", "_scale_published"):
            values.pop(name, None)
        if state is not None and lazy:
            # coef_ = s V is published when read (__getattr__)
            del values["_scale_stream"]
            values.pop("coef_", None)
            values.pop("intercept_", None)
            values.pop("_published_average", None)
            session_of(self).kernel_state = None
            self._scale_state = state
            self._scale_pending = (W, b)
            return
        if state is not None and state[0] != 1.0:
            # (mid-call: the arrays go on as they are, at scale 1)
            W *= state[0]
            if self._scale_with_b:
                b *= state[0]
            state[0] = 1.0
        super()._publish(W, b, U, bu, lazy=lazy)

    def _form_scaled(self):
        """The weights a ``partial_fit`` call left as a scale times a
        vector, published as a copy (an attribute assigned since is kept:
        ``PublishedWhenReadMixin``)."""
        W, b = self._folded()
        published = (self._shape_coef(W.T), b)
        self._scale_published = published
        return {"coef_": published[0], "intercept_": published[1]}

    def _lean_scores(self, X, checked=False):
        # the scores of s V on the rows' features, coef_ left unpublished
        values = self.__dict__
        pending = values.get("_scale_pending")
        if pending is None:
            return super()._lean_scores(X)
        if self._scale_assigned():
            return super()._lean_scores(X)
        if "feature_names_in_" in values or "n_features_in_" not in values:
            return None
        X = lean_rows(X, values["n_features_in_"])
        if X is None:
            return None
        (W, b), s = pending, values["_scale_state"][0]
        out = np.empty((X.shape[0], W.shape[1]))
        U, bu = _NO_ACCUMULATORS
        _scores.score_rows(
            _RowView(X), W, np.zeros_like(b), U=U, bu=bu, n_avg=0.0, out=out
        )
        out *= s
        out += b * s if self._scale_with_b else b
        return out


@fill_doc
class ROMMAClassifier(_ScaledClassifier):
    """ROMMA, the Relaxed Online Maximum Margin Algorithm (Li & Long 2002).

    On an update the new weights are the smallest vector that satisfies the
    new example's constraint and lies in the half-space the old weights
    stand for (the relaxation of all the constraints seen so far):

    .. math::

        w_{t+1} = \\arg\\min_v \\|v\\|^2 \\quad \\text{s.t.} \\quad
        v \\cdot w_t \\ge \\|w_t\\|^2, \\quad y_t \\, v \\cdot x_t \\ge 1,

    which is :math:`w_{t+1} = c \\, w_t + d \\, y_t x_t` with

    .. math::

        c = \\frac{\\|x\\|^2 \\|w\\|^2 - y \\, w \\cdot x}
                 {\\|x\\|^2 \\|w\\|^2 - (w \\cdot x)^2}, \\qquad
        d = \\frac{\\|w\\|^2 (1 - y \\, w \\cdot x)}
                 {\\|x\\|^2 \\|w\\|^2 - (w \\cdot x)^2}

    (and :math:`w_{t+1} = y x / \\|x\\|^2` when the half-space is not
    binding, as from :math:`w = 0`).  ROMMA updates on a prediction mistake
    (:math:`y \\, w \\cdot x \\le 0`); the aggressive variant whenever the
    margin is below 1.  Multiclass, as LIBOL's ``M_ROMMA`` / ``M_aROMMA``:
    the same step on the Kesler construction, the prototypes of the true
    class and of the highest-scoring wrong class moving by :math:`\\pm d x`
    and every prototype scaled by :math:`c` (the norm is the Frobenius norm,
    and :math:`\\|x\\|^2` counts twice).

    An update moves every weight; the compiled kernel holds the weights as a
    scale times a vector, so it costs the row's non-zeros (a ``partial_fit``
    call keeps them so, and ``coef_`` is computed when read).  An example
    whose constraint contradicts the half-space (:math:`y x` pointing
    exactly against :math:`w`) leaves the model alone, as in LIBOL.  The
    rule has no step size: a sample weight only counts as zero (skip the
    sample) or not, and there are no class weights; ``fit`` warns
    (:class:`~sklearn_pa.exceptions.InactiveWeightsWarning`) when given
    weights other than 0 and 1.

    Parameters
    ----------
    aggressive : bool, default=False
        Update whenever the margin :math:`y \\, w \\cdot x` is below 1 (the
        aggressive ROMMA), not only on mistakes.
    %(fit_intercept_norm)s
    %(intercept_scaling)s
    %(max_iter)s
    %(tol_margin)s
    %(early_stopping)s
    %(validation_fraction)s
    %(n_iter_no_change)s
    %(shuffle)s
    %(verbose_epochs)s
    %(random_state)s
    %(warm_start)s
    %(new_classes)s

    Attributes
    ----------
    coef_ : ndarray of shape (1, n_features) if n_classes == 2 else \
            (n_classes, n_features)
        Weights (the prototypes).
    %(intercept_classes)s
    %(classes_)s
    n_updates_ : int
        Number of updates since the model was started.
    %(n_features_in_)s
    %(intercept_scaling_)s
    %(feature_names_in_)s
    %(n_iter_)s
    %(loss_curve_)s
    %(validation_scores_)s
    %(t_)s

    See Also
    --------
    ALMAClassifier : Approximate maximal margin with a decreasing target.
    PerceptronClassifier : Additive updates of size 1.

    References
    ----------
    .. [1] Y. Li and P. M. Long, "The Relaxed Online Maximum Margin
       Algorithm", Machine Learning 46(1-3), 2002, pp. 361-387.
    .. [2] S. C. H. Hoi, J. Wang and P. Zhao, "LIBOL: A Library for Online
       Learning Algorithms", JMLR 15, 2014, pp. 495-499.

    Examples
    --------
    >>> from sklearn.datasets import load_digits
    >>> from sklearn_pa import ROMMAClassifier
    >>> X, y = load_digits(return_X_y=True)
    >>> clf = ROMMAClassifier(aggressive=True, max_iter=5, tol=None,
    ...                       random_state=0)
    >>> clf.fit(X[:1500], y[:1500]).score(X[1500:], y[1500:]) > 0.85
    True
    """

    _parameter_constraints: dict = {
        **_ScaledClassifier._parameter_constraints,
        "aggressive": ["boolean"],
    }

    def __init__(
        self,
        *,
        aggressive=False,
        fit_intercept=True,
        intercept_scaling="auto",
        max_iter=1000,
        tol=1e-3,
        early_stopping=False,
        validation_fraction=0.1,
        n_iter_no_change=5,
        shuffle=True,
        verbose=0,
        random_state=None,
        warm_start=False,
        new_classes="error",
    ):
        self.aggressive = aggressive
        self.fit_intercept = fit_intercept
        self.intercept_scaling = intercept_scaling
        self.max_iter = max_iter
        self.tol = tol
        self.early_stopping = early_stopping
        self.validation_fraction = validation_fraction
        self.n_iter_no_change = n_iter_no_change
        self.shuffle = shuffle
        self.verbose = verbose
        self.random_state = random_state
        self.warm_start = warm_start
        self.new_classes = new_classes

    def _fit(self, X, y, coef_init, intercept_init, sample_weight):
        super()._fit(X, y, coef_init, intercept_init, sample_weight)
        warn_romma_weights(self, sample_weight)
        return self

    def _kernel_params(self):
        # ROMMA's step has no size: the rule reads no parameter
        return scaled_params(Rule.AGGRESSIVE_ROMMA if self.aggressive else Rule.ROMMA)


@fill_doc
class ALMAClassifier(_ScaledClassifier):
    """ALMA_2, the Approximate Large Margin Algorithm (Gentile 2001).

    The :math:`p = 2` ALMA as LIBOL implements it: with :math:`k` the
    number of updates so far plus one, the target margin
    :math:`\\gamma_k = B / \\sqrt{k}` and the step
    :math:`\\eta_k = C / \\sqrt{k}`, an example whose margin is not above
    :math:`(1 - \\alpha) \\gamma_k` moves the weights and projects them back
    onto the unit ball:

    .. math::

        \\text{if } y \\, w \\cdot x \\le (1 - \\alpha) \\gamma_k: \\quad
        w \\leftarrow \\frac{w + \\eta_k \\, y \\, x}
                          {\\max(1, \\|w + \\eta_k \\, y \\, x\\|)}, \\quad
        k \\leftarrow k + 1

    (Gentile 2001, Figure 1).  A sample weight multiplies the step
    :math:`\\eta_k` (zero skips the sample).  With ``normalize`` (the
    default) it learns from the unit row :math:`x / \\|x\\|` as the paper
    writes it (the intercept's constant feature counted in the norm);
    ``normalize=False`` takes the rows as they come, as LIBOL does (it
    expects rows of norm about 1).  Multiclass is the package's extension by the Kesler
    construction, as LIBOL's ``M_ROMMA`` extends ROMMA: the margin is the
    true class's score minus the top wrong score, the two prototypes move by
    :math:`\\pm \\eta_k x` and the whole matrix is projected on the unit
    ball.  Since a projection rescales every weight, the compiled kernel
    holds the weights as a scale times a vector (an update costs the row's
    non-zeros; a ``partial_fit`` call keeps them so, and ``coef_`` is
    computed when read).

    Parameters
    ----------
    alpha : float, default=0.9
        Approximation parameter :math:`\\alpha \\in (0, 1]`: ALMA aims at
        a :math:`(1 - \\alpha)` fraction of the best margin.
    B : float or None, default=None
        Margin scale; ``None`` is the paper's :math:`B = 1 / \\alpha`.
    C : float, default=1.4142135623730951
        Step scale :math:`C` of :math:`\\eta_k = C / \\sqrt{k}` (the paper's
        :math:`\\sqrt{2}`), times the sample weight.
    normalize : bool, default=True
        Learn from the unit rows :math:`x / \\|x\\|` (Gentile 2001);
        ``False`` learns from the rows as given (LIBOL's ``ALMA``).  The
        predictions are those of the weights on the rows as given either way.
    %(fit_intercept_norm)s
    %(intercept_scaling)s
    %(max_iter)s
    %(tol_margin)s
    %(early_stopping)s
    %(validation_fraction)s
    %(n_iter_no_change)s
    %(shuffle)s
    %(verbose_epochs)s
    %(random_state)s
    warm_start : bool, default=False
        Whether ``fit`` starts from the previous solution (the update count
        :math:`k` continues with it).
    %(new_classes)s

    Attributes
    ----------
    coef_ : ndarray of shape (1, n_features) if n_classes == 2 else \
            (n_classes, n_features)
        Weights (the prototypes), of norm at most 1 with the intercept's
        weight.
    %(intercept_classes)s
    %(classes_)s
    n_updates_ : int
        Number of updates since the model was started (:math:`k - 1`).
    %(n_features_in_)s
    %(intercept_scaling_)s
    %(feature_names_in_)s
    %(n_iter_)s
    %(loss_curve_)s
    %(validation_scores_)s
    %(t_)s

    See Also
    --------
    ROMMAClassifier : The relaxed maximum margin update.
    PerceptronClassifier : Additive updates of size 1.

    References
    ----------
    .. [1] C. Gentile, "A New Approximate Maximal Margin Classification
       Algorithm", JMLR 2, 2001, pp. 213-242.
    .. [2] S. C. H. Hoi, J. Wang and P. Zhao, "LIBOL: A Library for Online
       Learning Algorithms", JMLR 15, 2014, pp. 495-499.

    Examples
    --------
    >>> from sklearn.datasets import load_digits
    >>> from sklearn_pa import ALMAClassifier
    >>> X, y = load_digits(return_X_y=True)
    >>> clf = ALMAClassifier(alpha=0.5, max_iter=5, tol=None, random_state=0)
    >>> clf.fit(X[:1500], y[:1500]).score(X[1500:], y[1500:]) > 0.85
    True
    """

    _parameter_constraints: dict = {
        **_ScaledClassifier._parameter_constraints,
        "alpha": [Interval(Real, 0, 1, closed="right")],
        "B": [Interval(Real, 0, None, closed="neither"), None],
        "C": [Interval(Real, 0, None, closed="neither")],
        "normalize": ["boolean"],
    }

    def __init__(
        self,
        *,
        alpha=0.9,
        B=None,
        C=2.0**0.5,
        normalize=True,
        fit_intercept=True,
        intercept_scaling="auto",
        max_iter=1000,
        tol=1e-3,
        early_stopping=False,
        validation_fraction=0.1,
        n_iter_no_change=5,
        shuffle=True,
        verbose=0,
        random_state=None,
        warm_start=False,
        new_classes="error",
    ):
        self.alpha = alpha
        self.B = B
        self.C = C
        self.normalize = normalize
        self.fit_intercept = fit_intercept
        self.intercept_scaling = intercept_scaling
        self.max_iter = max_iter
        self.tol = tol
        self.early_stopping = early_stopping
        self.validation_fraction = validation_fraction
        self.n_iter_no_change = n_iter_no_change
        self.shuffle = shuffle
        self.verbose = verbose
        self.random_state = random_state
        self.warm_start = warm_start
        self.new_classes = new_classes

    def _kernel_params(self):
        # the target margin B / sqrt(k) (B = 1 / alpha by default), the step
        # C / sqrt(k)
        B = 1.0 / self.alpha if self.B is None else self.B
        return scaled_params(
            Rule.ALMA, alpha=self.alpha, B=B, C=self.C, normalize=self.normalize
        )
