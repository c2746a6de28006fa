"""Kivinen-Warmuth exponentiated gradient with positive and negative weights
(EG+-), and the split-weight state of the multiplicative regressors.

:class:`ExponentiatedGradientRegressor` learns ``yhat = w . x + b`` on the
square loss with ``w = w+ - w-``, two positive weight vectors multiplied
(rather than added to) and renormalised to a total ``U`` after each sample.
``_SplitWeightsMixin`` keeps that pair as the base class's two-column weight
matrix and runs the multiplicative kernel (``_compiled/_multiplicative.pyx``);
:class:`~sklearn_pa.ErrorProportionalRegressor` (DPMU) shares it.
"""

from numbers import Real

import numpy as np
import scipy.sparse as sp
from sklearn.utils._param_validation import Interval

from .._compiled import _multiplicative
from .._compiled._rules import Rule
from .._core.batch import check_state_array
from .._core.docs import fill_doc
from .._core.rules import linear_params
from ._base import BaseOnlineLinear
from ._regression import _COMMON, LEARNING_RATE_WEIGHTS, _OnlineRegressorMixin

__all__ = ["ExponentiatedGradientRegressor"]


class _SplitWeightsMixin:
    """State of the multiplicative rules: a pair of positive weight vectors.

    The base class sees them as a weight matrix ``W[:, 0] = w+``,
    ``W[:, 1] = w-`` and intercepts ``b = (b+, b-)`` (the weights of a
    constant feature 1).  ``coef_ = w+ - w-`` is published for prediction;
    the pair itself is kept privately, since ``coef_`` alone does not
    determine it.
    """

    #: the split weights saved (see ``_core/pickled_state.py``)
    _state_shapes = {"_split_coef": ("d", 2), "_split_intercept": (2,)}

    def _multiplicative(self):
        return True

    def _input_dtypes(self):
        # the multiplicative kernel reads float64 rows only: float32 input is
        # converted (the additive rules keep it, as the first-order kernel)
        if self._multiplicative():
            return [np.float64]
        return super()._input_dtypes()

    def _n_columns(self):
        return 2 if self._multiplicative() else 1

    def _initial_weight(self, n_active):
        raise NotImplementedError

    def _set_intercept_scaling(self, X):
        # the scores are bounded by total_weight * max|x|: refuse a total
        # whose scores' squares (the squared errors) would overflow
        total = self._total()
        if total > 0.0:
            data = X.data if sp.issparse(X) else np.asarray(X)
            largest = max(float(np.max(np.abs(data))) if data.size else 0.0, 1.0)
            if not total * largest < np.sqrt(np.finfo(np.float64).max):
                raise ValueError(
                    f"total_weight={self.total_weight!r} with features up to "
                    f"{largest:g} in magnitude gives scores whose squares "
                    "overflow float64 (total_weight * max|x| must stay below "
                    "1e154). Pass a smaller total_weight or scale the input "
                    "(StandardScaler, MaxAbsScaler)."
                )
        self.intercept_scaling_ = 1.0

    def _check_init(self, coef_init, intercept_init):
        """The user's initial weight pair ``(s+, s-)``, checked before any
        weight moves: shape (2, n_features), finite and positive (a
        multiplicative update never moves a zero weight), and for EG+- a
        total equal to ``total_weight`` (the seed's ``U = ||s+-||_1``)."""
        if not self._multiplicative():
            return coef_init, intercept_init
        if coef_init is None:
            if intercept_init is not None:
                raise ValueError(
                    "intercept_init is the initial pair of the intercept's "
                    "weights; pass it together with coef_init."
                )
            return None, None
        coef_init = np.asarray(coef_init, dtype=np.float64)
        if coef_init.ndim != 2 or coef_init.shape[0] != 2:
            raise ValueError(
                f"coef_init has shape {coef_init.shape}; the multiplicative "
                "rule starts from a pair of positive weight vectors (s+, s-), "
                "so coef_init must have shape (2, n_features): row 0 is s+, "
                "row 1 is s- (the weights are s+ - s-)."
            )
        if self.fit_intercept:
            if intercept_init is None:
                intercept_init = self._default_intercept_pair()
            intercept_init = np.atleast_1d(np.asarray(intercept_init, dtype=float))
            if intercept_init.shape != (2,):
                raise ValueError(
                    f"intercept_init has shape {intercept_init.shape}; expected "
                    "(2,): the pair (b+, b-) of the constant feature's weights."
                )
        elif intercept_init is not None:
            raise ValueError(
                "intercept_init is the weight pair of the constant feature; "
                "with fit_intercept=False leave it None."
            )
        else:
            intercept_init = np.zeros(2)
        for name, value in (
            ("coef_init", coef_init),
            ("intercept_init", intercept_init),
        ):
            if not np.all(np.isfinite(value)):
                raise ValueError(f"{name} contains NaN or infinity.")
        pair = np.concatenate(
            [coef_init.ravel(), intercept_init if self.fit_intercept else []]
        )
        if np.any(pair <= 0.0):
            raise ValueError(
                "The initial weight pair (coef_init, intercept_init) must be "
                "strictly positive: the multiplicative update scales each "
                "weight, so a weight at 0 would stay at 0. A signed start w is "
                "the pair (max(w, 0) + d, max(-w, 0) + d) for any d > 0."
            )
        total = self._total()
        if total > 0.0 and not np.isclose(pair.sum(), total, rtol=1e-9, atol=0.0):
            raise ValueError(
                f"The initial weights sum to {pair.sum():.6g} but total_weight="
                f"{total:.6g}: EG+- keeps the total U = ||s+-||_1 of its initial "
                f"weights. Pass total_weight={pair.sum():.6g}, or rescale "
                "coef_init and intercept_init to sum to total_weight."
            )
        return coef_init, intercept_init

    def _default_intercept_pair(self):
        raise ValueError(
            "With fit_intercept=True, pass intercept_init=(b+, b-) with "
            "coef_init: the intercept's weight pair shares the total weight."
        )

    def _allocate(self, n_features, n_columns, coef_init, intercept_init):
        if self._multiplicative() and coef_init is not None:
            coef_init = np.asarray(coef_init)
            if coef_init.shape != (2, n_features):
                raise ValueError(
                    f"coef_init has shape {coef_init.shape}; expected (2, "
                    f"{n_features}) = (2, n_features) for the pair (s+, s-)."
                )
        if not self._multiplicative() or coef_init is not None:
            return super()._allocate(n_features, n_columns, coef_init, intercept_init)
        n_active = n_features + (1 if self.fit_intercept else 0)
        value = self._initial_weight(max(n_active, 1))
        W = np.full((n_features, 2), value)
        b = np.full(2, value if self.fit_intercept else 0.0)
        return W, b

    def _coef_shape(self):
        return (self.n_features_in_,)

    def _state_arrays(self):
        if not self._multiplicative():
            return super()._state_arrays()
        if getattr(self, "_split_coef", None) is None:
            # learned additively: no weight pair to continue from
            return np.empty((0, 2)), np.empty(2)
        n_features = self.n_features_in_
        W = check_state_array(
            self, "the weight pair", self._split_coef, (n_features, 2)
        ).copy()
        b = check_state_array(
            self, "the intercept pair", self._split_intercept, (2,)
        ).copy()
        coef = check_state_array(self, "coef_", self.coef_, (n_features,))
        intercept = check_state_array(self, "intercept_", self.intercept_, (1,))
        if not (
            np.array_equal(coef, W[:, 0] - W[:, 1]) and intercept[0] == b[0] - b[1]
        ):
            raise ValueError(
                f"coef_ or intercept_ of {type(self).__name__} was assigned: "
                "the multiplicative update continues from a pair of positive "
                "weight vectors, which coef_ alone does not determine. Refit "
                "with fit, or use update='additive' / GradientDescentRegressor "
                "to continue from given weights."
            )
        return W, b

    def _publish(self, W, b, U=None, bu=None, *, lazy=False):
        if not self._multiplicative():
            self._split_coef = self._split_intercept = None
            return super()._publish(W, b, U, bu, lazy=lazy)
        self._average_accum = self._average_intercept_accum = None
        self._split_coef, self._split_intercept = W, b
        self.coef_ = W[:, 0] - W[:, 1]
        self.intercept_ = np.array([b[0] - b[1]])

    def _kernel_epoch(
        self,
        rows,
        order,
        W,
        b,
        U,
        bu,
        *,
        params,
        targets,
        sample_weight,
        intercept_sq,
        loss_out,
        scores_out=None,
        **first_order,
    ):
        # first_order: the first-order kernel's other arguments (labels,
        # class weights, averaging), which the multiplicative rule has not
        if not self._multiplicative():
            return super()._kernel_epoch(
                rows,
                order,
                W,
                b,
                U,
                bu,
                params=params,
                targets=targets,
                sample_weight=sample_weight,
                intercept_sq=intercept_sq,
                loss_out=loss_out,
                scores_out=scores_out,
                **first_order,
            )
        pos = np.append(W[:, 0], b[0])
        neg = np.append(W[:, 1], b[1])
        result = _multiplicative.epoch(
            rows,
            order,
            pos,
            neg,
            params=params,
            targets=targets,
            sample_weight=sample_weight,
            intercept=intercept_sq > 0.0,
            loss_out=loss_out,
            scores_out=scores_out,
        )
        W[:, 0] = pos[:-1]
        W[:, 1] = neg[:-1]
        b[0], b[1] = pos[-1], neg[-1]
        return result

    def _total(self):
        return 0.0

    def _recorded_scores(self, scores):
        # the kernel writes the prediction into the first of the two columns
        return scores[:, 0]

    def _partial_fit(self, X, y, classes, sample_weight, **kwargs):
        kind = getattr(self, "_split_coef", None) is not None
        if hasattr(self, "coef_") and kind != self._multiplicative():
            raise ValueError(
                "The weights of the previous calls were learned with another "
                "update; partial_fit cannot continue from them. Call fit, or "
                "keep the update of the first call."
            )
        return super()._partial_fit(X, y, classes, sample_weight, **kwargs)


@fill_doc
class ExponentiatedGradientRegressor(
    _SplitWeightsMixin, _OnlineRegressorMixin, BaseOnlineLinear
):
    r"""Exponentiated gradient with positive and negative weights (EG+-).

    The weight vector is the difference :math:`w = w^+ - w^-` of two positive
    vectors whose entries sum to the total weight :math:`U`.  They start
    uniform, :math:`U / 2N` each, and after predicting
    :math:`\hat y = w \cdot x` for a sample with target :math:`y` they are
    multiplied and renormalised to the total :math:`U`:

    .. math::

        v^+_i = w^+_i \exp(2 \eta (y - \hat y) U x_i), \quad
        v^-_i = w^-_i \exp(-2 \eta (y - \hat y) U x_i), \quad
        w^\pm = \frac{U v^\pm}{\sum_i v^+_i + \sum_i v^-_i}.

    This is the update of Kivinen and Warmuth: it minimises the relative
    entropy to the old weights plus :math:`\eta` (``eta``) times the square
    loss linearised at the old prediction, over the weights of total
    :math:`U`.  It suits problems where a few of many features matter (its
    loss bounds grow with :math:`\log N` where those of GD grow with
    :math:`N`), with :math:`U` at least the L1 norm of a good predictor.

    The kernel keeps the weights as a scale times two arrays with an
    incrementally maintained total, so a sparse row costs O(nnz): only its
    own weights change and the renormalisation is a new scale.  Exponents
    too large for that (:math:`|2 \eta (y - \hat y) U x_i| > 50`) are applied in the
    log domain with one pass over the weights: no step overflows or produces
    NaN, and the weights always sum to ``U``.

    Read more in the :ref:`User Guide <gradient>`.

    Float32 input is converted to float64: the multiplicative kernel reads
    float64 rows (the additive rules read float32 rows as they are).

    Parameters
    ----------
    eta : float, default=0.05
        Learning rate.  The exponent of a step is
        :math:`2 \eta (y - \hat y) U x_i`, so the useful rate scales like
        :math:`1 / (U \max |x|)^2`.
    total_weight : float, default=1.0
        The total :math:`U = \sum_i w^+_i + \sum_i w^-_i`;
        :math:`\|w\|_1 \le U`.  It must be at least the L1 norm of the
        predictor to be learned.
    fit_intercept : bool, default=True
        Whether to learn an intercept, as the weight pair of a constant
        feature 1 (which shares the total ``U`` with the other features).
    %(max_iter_epochs)s
    %(tol_square_loss)s
    %(early_stopping_r2)s
    %(validation_fraction)s
    %(n_iter_no_change)s
    %(shuffle)s
    %(verbose_updates)s
    %(random_state)s
    %(warm_start)s

    Attributes
    ----------
    coef_ : ndarray of shape (n_features,)
        The weights :math:`w^+ - w^-`.
    intercept_ : ndarray of shape (1,)
        The intercept :math:`b^+ - b^-` (0 without ``fit_intercept``).
    %(n_features_in_)s
    %(feature_names_in_)s
    %(n_iter_)s
    %(loss_curve_)s
    %(validation_scores_)s
    %(t_)s

    See Also
    --------
    GradientDescentRegressor : The additive counterpart.
    ErrorProportionalRegressor : DPMU, a multiplicative update without the
        total-weight constraint.

    References
    ----------
    .. [1] J. Kivinen and M. K. Warmuth, "Exponentiated Gradient versus
       Gradient Descent for Linear Predictors", Information and Computation
       132(1), 1997.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_pa import ExponentiatedGradientRegressor
    >>> rng = np.random.RandomState(0)
    >>> X = rng.uniform(-1, 1, size=(500, 50))
    >>> y = 2 * X[:, 0] - X[:, 1]
    >>> reg = ExponentiatedGradientRegressor(eta=0.01, total_weight=4.0)
    >>> reg.fit(X, y).score(X, y) > 0.99
    True
    >>> bool(np.isclose(np.sum(reg._split_coef) + np.sum(reg._split_intercept), 4))
    True
    """

    _parameter_constraints: dict = {
        **_COMMON,
        "eta": [Interval(Real, 0, None, closed="neither")],
        "total_weight": [Interval(Real, 0, None, closed="neither")],
    }

    _fit_doc = {
        "coef_init": """\
        coef_init : ndarray of shape (2, n_features), default=None
            The initial weight pair ``s+-`` of EG+-(s+-, eta): row 0 is
            ``w+``, row 1 is ``w-``, all strictly positive.  With the
            intercept, ``coef_init.sum() + intercept_init.sum()`` must equal
            ``total_weight`` (the seed's ``U = ||s+-||_1``).  ``None``: every
            weight at ``total_weight / (2 (n_features + fit_intercept))``.""",
        "intercept_init": """\
        intercept_init : ndarray of shape (2,), default=None
            The initial pair ``(b+, b-)`` of the intercept's weights
            (required with ``coef_init`` when ``fit_intercept``).""",
        **LEARNING_RATE_WEIGHTS,
    }

    average = False  # the multiplicative rules are not averaged

    def __init__(
        self,
        *,
        eta=0.05,
        total_weight=1.0,
        fit_intercept=True,
        max_iter=1000,
        tol=1e-3,
        early_stopping=False,
        validation_fraction=0.1,
        n_iter_no_change=5,
        shuffle=True,
        verbose=0,
        random_state=None,
        warm_start=False,
    ):
        self.eta = eta
        self.total_weight = total_weight
        self.fit_intercept = fit_intercept
        self.max_iter = max_iter
        self.tol = tol
        self.early_stopping = early_stopping
        self.validation_fraction = validation_fraction
        self.n_iter_no_change = n_iter_no_change
        self.shuffle = shuffle
        self.verbose = verbose
        self.random_state = random_state
        self.warm_start = warm_start

    def _kernel_params(self):
        return linear_params(
            Rule.EXPONENTIATED, learning_rate=self.eta, total_weight=self.total_weight
        )

    def _total(self):
        return float(self.total_weight)

    def _initial_weight(self, n_active):
        return float(self.total_weight) / (2.0 * n_active)
