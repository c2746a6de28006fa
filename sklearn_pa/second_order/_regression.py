"""Confidence-weighted regression: CW, AROW and NHERD regressors.

The weights are a Gaussian ``N(mu, Sigma)``; a sample whose prediction
``mu.x`` misses its target by more than ``epsilon`` moves the mean along
``Sigma x`` and shrinks the covariance along ``x``.  The three rules are those
of Jubatus' regression engine (``jubatus_core``,
``jubatus/core/regression/{arow,confidence_weighted,normal_herd}.cpp``) and,
for AROW, Hivemall's ``train_arow_regr`` / ``train_arowe_regr``
(``hivemall/regression/AROWRegressionUDTF.java``).  Their steps are compiled
(``_compiled/_cw_regression_rules.pxd``), run by the second-order kernel under
the constraint rule ``SO_REGRESSION``; the covariance, its memory limit and
the epochs are those of the classifiers (``second_order/_base.py``).
"""

from numbers import Real

import numpy as np
from sklearn.utils._param_validation import Interval, StrOptions

from .._compiled._rules import SecondOrderRule as R
from .._core.batch import fitted_rows
from .._core.docs import fill_text
from .._core.rules import second_order_kernel_params
from ..linear._base import BaseOnlineLinear
from ..linear._regression import OneColumnSparseCoefMixin, _OnlineRegressorMixin
from ._base import COVARIANCE_FLOOR_CONSTRAINT, _GaussianWeightsMixin

__all__ = ["AROWRegressor", "ConfidenceWeightedRegressor", "NHERDRegressor"]


class _BaseSecondOrderRegressor(
    _GaussianWeightsMixin,
    _OnlineRegressorMixin,
    OneColumnSparseCoefMixin,
    BaseOnlineLinear,
):
    """Shared machinery of the confidence-weighted regressors.

    A subclass states its rule once, in ``_kernel_params()``
    (:func:`~sklearn_pa._core.rules.second_order_kernel_params` with
    ``SO_REGRESSION``, its ``STEP_*_REGRESSION`` step, its parameter and
    ``epsilon``); ``_rule()`` reads it from there.  The covariance and the
    epochs are the classifiers' (``_GaussianWeightsMixin``: one mean column
    and one covariance block, diagonal ``(n_features + 1, 1)`` or full
    ``(1, D, D)``), created on the first pass and carried over by
    ``partial_fit`` and ``warm_start``; ``fit`` and ``partial_fit`` are the
    base class's (``_core.estimator.PublicFitMixin``), the targets and
    ``predict`` those of the other online regressors
    (``_gradient._OnlineRegressorMixin``).
    """

    _parameter_constraints: dict = BaseOnlineLinear._constraints(
        "C",
        covariance=[StrOptions({"diagonal", "full"})],
        covariance_floor=COVARIANCE_FLOOR_CONSTRAINT,
        epsilon=[Interval(Real, 0, None, closed="left")],
    )

    _fit_doc = {
        "coef_init": """\
        coef_init : ndarray of shape (n_features,), default=None
            Initial mean (zero by default); the covariance starts at the
            identity, or where the previous fit left it with
            ``warm_start=True``.""",
        "intercept_init": """\
        intercept_init : ndarray of shape (1,), default=None
            Initial mean of the intercept.""",
        "sample_weight": """\
        sample_weight : array-like of shape (n_samples,), default=None
            Per-sample weights; each scales its sample's step (a zero weight
            skips the sample).""",
    }

    def _rule(self):
        """The constraint rule (``SO_REGRESSION``) that ``_kernel_params()``
        states."""
        return R(self._kernel_params()["rule"])

    # ------------------------------------------------------------ public
    def predict_variance(self, X):
        r"""The variance of each prediction under the Gaussian weights.

        With :math:`w \sim \mathcal{N}(\mu, \Sigma)` (the intercept the
        weight of the constant feature ``intercept_scaling_``), the
        prediction of :math:`x` is Gaussian with mean :meth:`predict` and
        variance :math:`\tilde{x}^\top \Sigma \tilde{x}`,
        :math:`\tilde{x} = (x, a)`: how unsure the model is about it (the
        noise of the targets is not included).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Samples.

        Returns
        -------
        variance : ndarray of shape (n_samples,)
            The variance of each sample's prediction.

        Examples
        --------
        >>> from sklearn.datasets import make_regression
        >>> from sklearn_pa import AROWRegressor
        >>> X, y = make_regression(n_features=4, random_state=0)
        >>> reg = AROWRegressor(random_state=0).fit(X, y)
        >>> reg.predict_variance(X[:2]).shape
        (2,)
        """
        X = fitted_rows(self, X, attributes="_sigma")
        return np.maximum(self._variance(X, 0), 0.0)


_COMMON_DOC = """
    epsilon : float, default=0.1
        Width of the insensitive zone: a sample whose prediction is within
        ``epsilon`` of its target leaves the model unchanged (Jubatus'
        ``sensitivity``, Hivemall's ``-epsilon``).
    covariance : {"diagonal", "full"}, default="diagonal"
        ``"diagonal"`` keeps one variance per feature, as Jubatus and
        Hivemall do; ``"full"`` the whole matrix (refused when it would not
        fit in memory), updated with BLAS.
    %(covariance_floor)s
    fit_intercept : bool, default=True
        Whether to learn an intercept, as the weight of a constant feature
        ``intercept_scaling`` appended to every sample (with its own
        variance).  Jubatus and Hivemall learn none (``fit_intercept=False``
        reproduces them).
    %(intercept_scaling)s
    %(max_iter)s
    tol : float or None, default=1e-3
        Stop when the average epsilon-insensitive loss of an epoch (measured
        before each update) is not below ``best_loss - tol`` for
        ``n_iter_no_change`` epochs (or, with ``early_stopping``, when the
        validation R^2 does not exceed ``best_score + tol``).  ``None`` runs
        ``max_iter`` epochs.
    early_stopping : bool, default=False
        Hold out ``validation_fraction`` of the training data and stop when
        its R^2 stops improving.
    %(validation_fraction)s
    %(n_iter_no_change)s
    %(shuffle)s
    verbose : int, default=0
        If positive, print one line per epoch (``Epoch i/max_iter``, average
        loss, validation score, time; ``partial_fit`` prints ``partial_fit
        call n``).  From 2 on the line adds the updates, the mean's norm and
        the mean variance.
    %(random_state)s
    %(warm_start_gaussian)s
    %(average)s
"""

_ATTRIBUTES_DOC = """
    Attributes
    ----------
    coef_ : ndarray of shape (n_features,)
        The mean of the weights (averaged if ``average``).
    intercept_ : ndarray of shape (1,)
        The mean of the intercept (averaged if ``average``).
    covariance_ : ndarray
        The covariance of the weights: ``(1, n_features + 1)`` variances
        (the last one the intercept's constant feature's) when diagonal,
        ``(1, D, D)`` with ``D = n_features + fit_intercept`` when full.
    %(n_features_in_)s
    %(feature_names_in_)s
    %(intercept_scaling_)s
    %(n_iter_)s
    %(loss_curve_)s
    %(validation_scores_)s
    %(t_)s
"""


def _doc(text):
    return fill_text(text, common=_COMMON_DOC, attributes=_ATTRIBUTES_DOC)


class AROWRegressor(_BaseSecondOrderRegressor):
    r"""Adaptive Regularization of Weights for regression (AROW / AROWe).

    The weights are Gaussian, :math:`w \sim \mathcal{N}(\mu, \Sigma)`; a
    sample :math:`(x, y)` whose residual :math:`e = y - \mu \cdot x` exceeds
    ``epsilon`` in magnitude moves them to the minimiser of

    .. math::

        \mathrm{KL}\big(\mathcal{N}(\mu, \Sigma) \,\|\,
        \mathcal{N}(\mu_{old}, \Sigma_{old})\big)
        + \frac{1}{2r} \max(0, |y - \mu \cdot x| - \epsilon)^2
        + \frac{1}{2r} x^\top \Sigma x.

    Closed form: with :math:`v = x^\top \Sigma x` and
    :math:`\beta = 1 / (v + r)`,
    :math:`\mu \leftarrow \mu + \mathrm{sign}(e) (|e| - \epsilon) \beta
    \Sigma x` and :math:`\Sigma \leftarrow \Sigma - \beta \Sigma x
    x^\top \Sigma` (the diagonal covariance keeps the diagonal of that
    update).  A sample weight :math:`s` divides :math:`r`.

    This is Jubatus' ``arow`` regression (its ``regularization_weight`` is
    :math:`1 / r`, its ``sensitivity`` :math:`\epsilon`) and Hivemall's
    ``train_arowe_regr`` (``-r``, ``-epsilon``).  Hivemall's
    ``train_arow_regr`` is ``epsilon=0``, except that it also shrinks the
    covariance on a sample predicted exactly; its ``train_arowe2_regr``
    (``epsilon`` times the running standard deviation of the targets) is not
    provided: scale ``epsilon`` to the targets instead.

    Parameters
    ----------
    regularization : float, default=1.0
        The paper's :math:`r` (Hivemall's ``-r``; Jubatus'
        ``regularization_weight`` is :math:`1 / r`): larger values make
        smaller, more conservative steps.
    %(common)s

    %(attributes)s

    See Also
    --------
    ConfidenceWeightedRegressor : The hard-constraint CW rule.
    NHERDRegressor : Normal herding.
    AROWClassifier : AROW for classification.
    PassiveAggressiveRegressor : The first-order counterpart.

    References
    ----------
    .. [1] K. Crammer, A. Kulesza and M. Dredze, "Adaptive Regularization of
       Weight Vectors", NIPS 2009.
    .. [2] N. Vaits and K. Crammer, "Re-Adapting the Regularization of
       Weights for Non-Stationary Regression", ALT 2011.
    .. [3] Jubatus, ``jubatus_core/jubatus/core/regression/arow.cpp``
       (``arow::train``, ``arow::update``).
    .. [4] Apache Hivemall, ``core/src/main/java/hivemall/regression/
       AROWRegressionUDTF.java`` (``train_arow_regr``, ``train_arowe_regr``).
    .. [5] E. Moroshko, N. Vaits and K. Crammer, "Second-Order
       Non-Stationary Online Learning for Regression", JMLR 16, 2015
       (ARCOR's covariance projection: ``covariance_floor``).

    Examples
    --------
    >>> from sklearn.datasets import make_regression
    >>> from sklearn_pa import AROWRegressor
    >>> X, y = make_regression(n_features=4, noise=1.0, random_state=0)
    >>> reg = AROWRegressor(random_state=0).fit(X, y)
    >>> reg.score(X, y) > 0.99
    True
    """

    _parameter_constraints: dict = {
        **_BaseSecondOrderRegressor._parameter_constraints,
        "regularization": [Interval(Real, 0, None, closed="neither")],
    }

    def __init__(
        self,
        *,
        regularization=1.0,
        epsilon=0.1,
        covariance="diagonal",
        covariance_floor=None,
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
        self.regularization = regularization
        self.epsilon = epsilon
        self.covariance = covariance
        self.covariance_floor = covariance_floor
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
        return second_order_kernel_params(
            R.SO_REGRESSION,
            R.STEP_AROW_REGRESSION,
            param=self.regularization,
            epsilon=self.epsilon,
            floor=self._covariance_floor(),
        )


class ConfidenceWeightedRegressor(_BaseSecondOrderRegressor):
    r"""Confidence-Weighted regression, as Jubatus defines it.

    The weights are Gaussian, :math:`w \sim \mathcal{N}(\mu, \Sigma)`; a
    sample :math:`(x, y)` whose residual :math:`e = y - \mu \cdot x` exceeds
    ``epsilon`` in magnitude moves them to the closest Gaussian in KL
    divergence under the constraint of the variance form of CW (Dredze,
    Crammer and Pereira 2008) on the residual's sign :math:`s`,

    .. math::

        \min \mathrm{KL}\big(\mathcal{N}(\mu, \Sigma) \,\|\,
        \mathcal{N}(\mu_{old}, \Sigma_{old})\big)
        \quad \text{s.t.} \quad
        s (\mu \cdot x - y) \geq \phi \, x^\top \Sigma x:

    the new prediction passes the target by :math:`\phi` times its new
    variance.  Closed form: with :math:`v = x^\top \Sigma x` and
    :math:`b = 1 - 2 \phi |e|`, the multiplier
    :math:`\gamma = (-b + \sqrt{b^2 + 8 \phi (|e| + \phi v)}) / (4 \phi v)`,
    :math:`\mu \leftarrow \mu + s \gamma \Sigma x` and
    :math:`\Sigma^{-1} \leftarrow \Sigma^{-1} + 2 \gamma \phi x x^\top`
    (the diagonal covariance adds :math:`2 \gamma \phi x_j^2` to each
    precision :math:`1 / \Sigma_{jj}`, as Jubatus does).  A sample weight
    multiplies :math:`\gamma`.

    This is Jubatus' ``CW`` regression: its ``regularization_weight`` is
    :math:`\phi` (``confidence``), its ``sensitivity`` ``epsilon``, which
    only decides whether a sample steps (the step uses the whole
    :math:`|e|`).  Hivemall has no CW regression.

    Parameters
    ----------
    confidence : float, default=1.0
        :math:`\phi` (Jubatus' ``regularization_weight``): how far past the
        target, in units of its variance, the new prediction must land;
        larger values make larger steps and shrink the covariance faster.
    %(common)s

    %(attributes)s

    See Also
    --------
    AROWRegressor : The soft, regularised version.
    NHERDRegressor : Normal herding.
    ConfidenceWeightedClassifier : CW for classification.

    References
    ----------
    .. [1] M. Dredze, K. Crammer and F. Pereira, "Confidence-Weighted Linear
       Classification", ICML 2008 (the variance form).
    .. [2] Jubatus, ``jubatus_core/jubatus/core/regression/
       confidence_weighted.cpp`` (``confidence_weighted::train``, ``update``).
    .. [3] E. Moroshko, N. Vaits and K. Crammer, "Second-Order
       Non-Stationary Online Learning for Regression", JMLR 16, 2015
       (ARCOR's covariance projection: ``covariance_floor``).

    Examples
    --------
    >>> from sklearn.datasets import make_regression
    >>> from sklearn_pa import ConfidenceWeightedRegressor
    >>> X, y = make_regression(n_features=4, noise=1.0, random_state=0)
    >>> reg = ConfidenceWeightedRegressor(random_state=0).fit(X, y)
    >>> reg.score(X, y) > 0.99
    True
    """

    _parameter_constraints: dict = {
        **_BaseSecondOrderRegressor._parameter_constraints,
        "confidence": [Interval(Real, 0, None, closed="neither")],
    }

    def __init__(
        self,
        *,
        confidence=1.0,
        epsilon=0.1,
        covariance="diagonal",
        covariance_floor=None,
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
        self.confidence = confidence
        self.epsilon = epsilon
        self.covariance = covariance
        self.covariance_floor = covariance_floor
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
        return second_order_kernel_params(
            R.SO_REGRESSION,
            R.STEP_CW_REGRESSION,
            phi=self.confidence,
            epsilon=self.epsilon,
            floor=self._covariance_floor(),
        )


class NHERDRegressor(_BaseSecondOrderRegressor):
    r"""Normal Herding (NHERD) regression, as Jubatus defines it.

    The weights are Gaussian, :math:`w \sim \mathcal{N}(\mu, \Sigma)`; a
    sample :math:`(x, y)` whose residual :math:`e = y - \mu \cdot x` exceeds
    ``epsilon`` in magnitude moves every weight vector of the Gaussian by
    the same passive-aggressive step on the epsilon-insensitive loss (the
    herding update of Crammer and Lee 2010): with :math:`v = x^\top \Sigma
    x`,

    .. math::

        \mu \leftarrow \mu + \frac{\mathrm{sign}(e) (|e| - \epsilon)}
        {v + 1 / C} \Sigma x, \qquad
        \Sigma^{-1} \leftarrow \Sigma^{-1} + (2C + C^2 v) x x^\top,

    i.e. :math:`\Sigma \leftarrow \Sigma - \frac{2C + C^2 v}{(1 + C
    v)^2} \Sigma x x^\top \Sigma`; the diagonal covariance adds
    :math:`(2C + C^2 v) x_j^2` to each precision :math:`1 / \Sigma_{jj}` (the
    paper's exact diagonal form, as Jubatus).  A sample weight multiplies
    :math:`C`.

    This is Jubatus' ``NHERD`` regression: its ``regularization_weight`` is
    ``C``, its ``sensitivity`` ``epsilon``.  Hivemall has no NHERD
    regression.

    Parameters
    ----------
    C : float, default=1.0
        Aggressiveness (Jubatus' ``regularization_weight``): larger values
        make larger steps and shrink the covariance faster.
    %(common)s

    %(attributes)s

    See Also
    --------
    AROWRegressor : Adaptive regularisation.
    ConfidenceWeightedRegressor : The hard-constraint CW rule.

    References
    ----------
    .. [1] K. Crammer and D. D. Lee, "Learning via Gaussian Herding",
       NIPS 2010.
    .. [2] Jubatus, ``jubatus_core/jubatus/core/regression/normal_herd.cpp``
       (``normal_herd::train``, ``normal_herd::update``).
    .. [3] E. Moroshko, N. Vaits and K. Crammer, "Second-Order
       Non-Stationary Online Learning for Regression", JMLR 16, 2015
       (ARCOR's covariance projection: ``covariance_floor``).

    Examples
    --------
    >>> from sklearn.datasets import make_regression
    >>> from sklearn_pa import NHERDRegressor
    >>> X, y = make_regression(n_features=4, noise=1.0, random_state=0)
    >>> reg = NHERDRegressor(random_state=0).fit(X, y)
    >>> reg.score(X, y) > 0.99
    True
    """

    _parameter_constraints: dict = {
        **_BaseSecondOrderRegressor._parameter_constraints,
        "C": [Interval(Real, 0, None, closed="neither")],
    }

    def __init__(
        self,
        *,
        C=1.0,
        epsilon=0.1,
        covariance="diagonal",
        covariance_floor=None,
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
        self.C = C
        self.epsilon = epsilon
        self.covariance = covariance
        self.covariance_floor = covariance_floor
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
        return second_order_kernel_params(
            R.SO_REGRESSION,
            R.STEP_NHERD_REGRESSION,
            param=self.C,
            epsilon=self.epsilon,
            floor=self._covariance_floor(),
        )


for _cls in (AROWRegressor, ConfidenceWeightedRegressor, NHERDRegressor):
    _cls.__doc__ = _doc(_cls.__doc__)
del _cls
