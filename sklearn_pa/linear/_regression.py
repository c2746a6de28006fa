"""Kivinen-Warmuth online gradient descent on the square loss (GD, LMS).

:class:`GradientDescentRegressor` learns a linear predictor
``yhat = w . x + b`` online, one sample at a time, in one compiled pass per
epoch (``_compiled/_first_order.pyx``): ``w += 2 eta (y - yhat) x`` with a
constant or a normalised (``eta / ||x||^2``) rate.

This module also holds what the square-loss regressors share: the parameter
constraints (``_COMMON``) and the targets and ``predict``
(``_OnlineRegressorMixin``, which the confidence-weighted regressors use
too).  The multiplicative regressors live beside it:
EG+- in :mod:`sklearn_pa.linear._exponentiated`, DPAU / DPMU in
:mod:`sklearn_pa.linear._error_proportional`.
"""

from numbers import Real

import numpy as np
import scipy.sparse as sp
from sklearn.base import RegressorMixin
from sklearn.linear_model._base import SparseCoefMixin
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.extmath import safe_sparse_dot
from sklearn.utils.validation import check_is_fitted

from .._compiled._rules import Rule
from .._core.batch import fitted_rows, locked_read
from .._core.docs import fill_doc
from .._core.pickled_state import Items, OneOf, Sparse
from .._core.rules import linear_params
from ._base import BaseOnlineLinear

__all__ = ["GradientDescentRegressor"]

# every base constraint except C (these rules have a rate instead) and the
# ones a subclass does not take
_COMMON = BaseOnlineLinear._constraints("C", "intercept_scaling", "average")


class OneColumnSparseCoefMixin(SparseCoefMixin):
    """``sparsify`` / ``densify`` for the regressors whose ``coef_`` has
    shape ``(n_features,)``: the sparse form is one CSR row, the dense form
    that one-dimensional array again."""

    def sparsify(self):
        """Convert ``coef_`` to a CSR matrix of shape ``(1, n_features)``.

        Worth it when most weights are zero: prediction then takes time and
        memory in the number of non-zero weights.  ``partial_fit`` and
        ``fit`` (``warm_start``) continue from it, and make ``coef_`` dense
        again; :meth:`densify` converts it back.

        Returns
        -------
        self : object
            Fitted estimator.

        Examples
        --------
        >>> from sklearn.datasets import make_regression
        >>> from sklearn_pa import PassiveAggressiveRegressor
        >>> X, y = make_regression(n_features=4, random_state=0)
        >>> reg = PassiveAggressiveRegressor(random_state=0).fit(X, y)
        >>> reg.sparsify().coef_.shape
        (1, 4)
        """
        check_is_fitted(self)
        self.coef_ = sp.csr_matrix(np.reshape(self.coef_, (1, -1)))
        return self

    def densify(self):
        """Convert a sparse ``coef_`` (see :meth:`sparsify`) back to a dense
        array of shape ``(n_features,)``.

        Returns
        -------
        self : object
            Fitted estimator.

        Examples
        --------
        >>> from sklearn.datasets import make_regression
        >>> from sklearn_pa import PassiveAggressiveRegressor
        >>> X, y = make_regression(n_features=4, random_state=0)
        >>> reg = PassiveAggressiveRegressor(random_state=0).fit(X, y)
        >>> reg.sparsify().densify().coef_.shape
        (4,)
        """
        super().densify()
        self.coef_ = np.ravel(self.coef_)
        return self


#: The ``fit`` / ``partial_fit`` docstring entries of the learners whose
#: sample weights multiply the learning rate (``_core.estimator._fit_doc``).
LEARNING_RATE_WEIGHTS = {
    "sample_weight": """\
        sample_weight : array-like of shape (n_samples,), default=None
            Per-sample weights; each multiplies the learning rate for its
            sample.""",
    "partial_sample_weight": """\
        sample_weight : array-like of shape (n_samples,), default=None
            Per-sample weights; each multiplies the learning rate for its
            sample (a zero weight skips the sample).""",
}


class _OnlineRegressorMixin(RegressorMixin):
    """The targets and ``predict`` of the one-column regressors: the
    square-loss ones and the confidence-weighted ones
    (``second_order/_regression.py``, whose ``coef_`` ``sparsify``
    may make sparse); ``fit`` and ``partial_fit`` are the base class's."""

    #: the arrays a regressor saves (see ``_core/pickled_state.py``);
    #: ``sparsify`` makes ``coef_`` a one-row sparse matrix
    _state_shapes = {
        "coef_": OneOf((("d",), Sparse((1, "d")))),
        "intercept_": OneOf(((1,), ())),
        "_standard_coef": ("d",),
        "_standard_intercept": (1,),
        "_average_accum": ("d", 1),
        "_average_intercept_accum": (1,),
        "_published_average": Items((("d",), OneOf(((1,), ())))),
    }

    def _prepare_targets(self, y, *, classes, first_call, fitting):
        pass

    def _targets(self, y):
        return np.zeros(1, dtype=np.int32), np.ascontiguousarray(y, dtype=np.float64)

    def _shape_coef(self, coef):
        return coef.reshape(-1)

    @locked_read
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
        scores = self._lean_scores(X)
        if scores is not None:
            return scores[:, 0]
        X = fitted_rows(self, X, dtype="numeric")
        if sp.issparse(self.coef_):  # after sparsify(): (1, n_features)
            scores = X @ self.coef_.T
            if sp.issparse(scores):
                scores = scores.toarray()
            return np.asarray(scores).ravel() + self.intercept_
        return safe_sparse_dot(X, self.coef_, dense_output=True) + self.intercept_


@fill_doc
class GradientDescentRegressor(_OnlineRegressorMixin, BaseOnlineLinear):
    r"""Online gradient descent on the square loss (Kivinen-Warmuth GD, LMS).

    After predicting :math:`\hat y = w \cdot x + b` for a sample with target
    :math:`y`, the weights move down the gradient of the square loss
    :math:`(y - \hat y)^2`:

    .. math::

        w \leftarrow w + 2 \eta(x) (y - \hat y) x

    with :math:`\eta` = ``eta`` and :math:`\eta(x) = \eta`
    (``eta_scaling="constant"``) or
    :math:`\eta / \|x\|^2` (``"inverse_sq_norm"``, the normalised LMS rule,
    invariant to the scale of :math:`x`).  The normalised step is the minimiser
    of :math:`\|w' - w\|^2` under
    :math:`w' \cdot x - w \cdot x = 2 \eta (y - \hat y)`: it moves the
    prediction on the sample a fraction :math:`2 \eta` of the way to the
    target, which is the additive error-proportional update DPAU with
    :math:`c = 2 \eta` (see :class:`ErrorProportionalRegressor`).

    Read more in the :ref:`User Guide <gradient>`.

    Parameters
    ----------
    eta : float, default=0.25
        Learning rate.  With ``"inverse_sq_norm"``, :math:`0 < \eta < 1` keeps every
        step a contraction of the error on its sample (0.25 is the rate
        Kivinen and Warmuth give without prior knowledge of the problem);
        with ``"constant"``, :math:`\eta < 1 / \max \|x\|^2` does.
    eta_scaling : {"constant", "inverse_sq_norm"}, default="inverse_sq_norm"
        Whether the rate is :math:`\eta` or :math:`\eta / \|x\|^2` (the squared norm
        includes the intercept's constant feature).
    %(fit_intercept)s
    %(intercept_scaling)s
    %(max_iter_epochs)s
    tol : float or None, default=1e-3
        Stop when the average online square loss of an epoch is not below
        ``best_loss - tol`` for ``n_iter_no_change`` epochs (validation R^2
        with ``early_stopping``).  ``None`` runs ``max_iter`` epochs.
    %(early_stopping_r2)s
    %(validation_fraction)s
    %(n_iter_no_change)s
    %(shuffle)s
    %(verbose_updates)s
    %(random_state)s
    %(warm_start)s
    %(average)s

    Attributes
    ----------
    %(coef_one_column)s
    %(intercept_one_column)s
    %(n_features_in_)s
    %(intercept_scaling_)s
    %(feature_names_in_)s
    %(n_iter_)s
    %(loss_curve_)s
    %(validation_scores_)s
    %(t_)s

    See Also
    --------
    ExponentiatedGradientRegressor : The multiplicative counterpart (EG+-).
    ErrorProportionalRegressor : DPAU / DPMU.
    sklearn.linear_model.SGDRegressor : ``loss="squared_error"``,
        ``penalty=None``, ``learning_rate="constant"`` is GD with
        ``eta_scaling="constant"`` and ``eta0`` :math:`= 2 \eta` (up to its intercept
        handling).

    References
    ----------
    .. [1] J. Kivinen and M. K. Warmuth, "Exponentiated Gradient versus
       Gradient Descent for Linear Predictors", Information and Computation
       132(1), 1997.

    Examples
    --------
    >>> from sklearn.datasets import make_regression
    >>> from sklearn_pa import GradientDescentRegressor
    >>> X, y = make_regression(n_features=4, noise=1.0, random_state=0)
    >>> reg = GradientDescentRegressor(eta=0.2, random_state=0).fit(X, y)
    >>> reg.score(X, y) > 0.99
    True
    """

    _parameter_constraints: dict = {
        **_COMMON,
        "eta": [Interval(Real, 0, None, closed="neither")],
        "eta_scaling": [StrOptions({"constant", "inverse_sq_norm"})],
        "intercept_scaling": BaseOnlineLinear._parameter_constraints[
            "intercept_scaling"
        ],
        "average": BaseOnlineLinear._parameter_constraints["average"],
    }

    _fit_doc = LEARNING_RATE_WEIGHTS

    def __init__(
        self,
        *,
        eta=0.25,
        eta_scaling="inverse_sq_norm",
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
        average=False,
    ):
        self.eta = eta
        self.eta_scaling = eta_scaling
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
        self.average = average

    def _kernel_params(self):
        if self.eta_scaling == "constant":
            rule = Rule.GRADIENT
        else:
            rule = Rule.NORMALIZED_GRADIENT
        return linear_params(rule, learning_rate=self.eta)
