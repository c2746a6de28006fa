"""Confidence-Weighted learners: CW, multiclass CW, SCCW / SCCWD, AROW, SCW.

The weights are a Gaussian ``N(mu, Sigma)``; each example moves the mean and
shrinks the covariance along the example, less where the model is already
confident.  ``coef_`` and ``intercept_`` are the mean.

This module holds the public estimators of the second-order family, with
their step rules and docstrings.  What they share (the covariance and its
memory limit, the ``fit`` / ``partial_fit`` driver, ``predict_proba``) lives
in ``sklearn_pa/second_order/_base.py``, the epoch adapter
``_SecondOrderEpochs`` in ``sklearn_pa/second_order/_epochs.py``.
"""

from numbers import Integral, Real

from scipy.special import ndtri
from sklearn.utils._param_validation import Interval, StrOptions

from .._compiled._rules import SecondOrderRule as R
from .._core.docs import fill_text
from .._core.rules import second_order_rules
from ._base import _BaseSecondOrder

__all__ = ["AROWClassifier", "ConfidenceWeightedClassifier", "SCWClassifier"]

#: CW's ``multiclass`` options: the multiclass modes of the constraint
#: rules that run its step, as the registry declares them
_MULTICLASS_RULES = {
    mode: rule
    for mode, rule in second_order_rules(R.STEP_CW).items()
    if mode not in (None, "binary")
}


_COMMON_DOC = """
    %(covariance_floor)s
    fit_intercept : bool, default=True
        Whether to learn an intercept, as the weight of a constant feature
        ``intercept_scaling`` appended to every sample (with its own
        variance).
    %(intercept_scaling)s
    %(max_iter)s
    tol : float or None, default=1e-3
        Stop when the average loss of an epoch (measured before each update)
        is not below ``best_loss - tol`` for ``n_iter_no_change`` epochs (or,
        with ``early_stopping``, when the validation accuracy does not exceed
        ``best_score + tol``).  ``None`` runs ``max_iter`` epochs.
    early_stopping : bool, default=False
        Hold out ``validation_fraction`` of the training data and stop when
        its accuracy stops improving.
    %(validation_fraction)s
    %(n_iter_no_change)s
    %(shuffle)s
    verbose : int, default=0
        If positive, print one line per epoch (``Epoch i/max_iter``, average
        loss, validation score, time; ``partial_fit`` prints ``partial_fit
        call n``).  From 2 on the line adds the online mistakes, updates,
        the mean's norm and the mean variance.
    %(random_state)s
    %(warm_start_gaussian)s
    class_weight : dict, "balanced" or None, default=None
        Weights per class, multiplying the sample weight of that class's
        examples.
    %(average)s
    %(new_classes)s
"""

_ATTRIBUTES_DOC = """
    Attributes
    ----------
    coef_ : ndarray of shape (1, n_features) if n_classes == 2 else \
            (n_classes, n_features)
        The mean of the weights (averaged if ``average``).
    intercept_ : ndarray of shape (1,) if n_classes == 2 else (n_classes,)
        The mean of the intercepts (averaged if ``average``).
    covariance_ : ndarray
        The covariance of the weights (see the property's docstring for its
        layout).
    %(classes_)s
    %(n_features_in_)s
    %(feature_names_in_)s
    %(intercept_scaling_)s
    %(n_iter_)s
    %(loss_curve_)s
    %(validation_scores_)s
    %(t_)s
"""


def _doc(text, **blocks):
    return fill_text(text, common=_COMMON_DOC, attributes=_ATTRIBUTES_DOC, **blocks)


class ConfidenceWeightedClassifier(_BaseSecondOrder):
    r"""Confidence-Weighted classifier: exact CW, multiclass CW and SCCW.

    The weights are Gaussian, :math:`w \sim \mathcal{N}(\mu, \Sigma)`.  On
    each example the new Gaussian is the closest to the old one in KL
    divergence such that the example is classified correctly with probability
    at least ``eta`` (:math:`\eta`):
    :math:`\Pr[y (w \cdot x) \ge 0] \ge \eta`, i.e.
    :math:`y \, \mu \cdot x \ge \phi \sqrt{x^\top \Sigma x}` with
    :math:`\phi = \Phi^{-1}(\eta)`.  Rarely seen features keep a large variance and
    move fast; frequent ones settle.  For two classes this is exact CW
    (Crammer, Dredze and Pereira 2008), solved in closed form.

    With more than two classes the model keeps one mean per class and
    ``multiclass`` chooses the constraints
    :math:`\Pr[w_y \cdot x \ge w_k \cdot x] \ge \eta`:

    - ``"support"`` (default): all of them at once, exactly, for the
      matrix-Gaussian model :math:`W \sim \mathcal{N}(M, \Sigma \otimes I)`
      whose feature covariance :math:`\Sigma` is shared by the classes (SCCW;
      SCCWD with
      ``covariance="diagonal"``).  The classes that move are the *support
      classes*, found by sorting the margins.
    - ``"single"``: only the constraint of the highest-scoring wrong class
      (:math:`k = 1`, Crammer, Dredze and Pereira 2009), one covariance block per
      class.
    - ``"sequential"``: every wrong class in turn, highest score first, each
      a single-constraint step (:math:`k = \infty` in the same paper).

    CW assumes (nearly) separable data: each mistake forces a step that
    meets the confidence constraint whatever the noise, so with noisy
    labels or overlapping classes the model keeps jumping.  ``fit`` warns
    (:class:`~sklearn_pa.exceptions.NoisyLabelsWarning`) when more than 20 %
    of the training samples are still mispredicted in its last epoch (after
    at least one full pass); use
    :class:`AROWClassifier` or :class:`SCWClassifier` there (or
    ``average=True``).  On ``make_classification(n_samples=4000,
    n_features=20, flip_y=0.1, random_state=0)`` (75/25 split) the default CW
    scores 0.52 test accuracy, ``average=True`` 0.82, AROW 0.85.

    Parameters
    ----------
    eta : float or "auto", default="auto"
        The required probability of a correct classification, in (0.5, 1):
        a probability, not a learning rate (the ``eta`` of
        :class:`GradientDescentRegressor` and
        :class:`ExponentiatedGradientRegressor` is one).
        Larger values demand more confidence and make larger steps.
        ``"auto"`` is 0.95 with ``covariance="diagonal"`` and 0.8 with
        ``"full"``: a full covariance shrinks along every direction an
        example spans, so it needs less confidence per step.  On USPS
        (10-fold CV, 3 epochs) SCCW scored 93.79 / 93.92 / 93.95 / 93.49 /
        93.28 % for eta = 0.6 / 0.7 / 0.8 / 0.9 / 0.95 and SCCWD 93.57 /
        93.59 / 93.70 / 94.01 / 93.83 % for eta = 0.7 / 0.8 / 0.9 / 0.95 /
        0.99.
    covariance : {"diagonal", "full"}, default="diagonal"
        ``"diagonal"`` keeps one variance per feature (per block) and touches
        only a row's non-zeros; ``"full"`` keeps the whole matrix (:math:`D^2`
        doubles per block; refused when that would not fit in memory) and
        updates it with BLAS.
    multiclass : {"support", "single", "sequential"}, default="support"
        The multiclass rule (see above).  Ignored for two classes.
    %(common)s

    %(attributes)s

    See Also
    --------
    AROWClassifier : A soft, regularised successor of CW, robust to noise.
    SCWClassifier : Soft CW: CW's constraint as a loss weighted by ``C``.
    PassiveAggressiveClassifier : The first-order counterpart.

    Notes
    -----
    A sample weight :math:`s` scales the Lagrange multiplier of its step (the
    covariance shrinks consistently with the scaled multiplier); :math:`s = 1` is
    the exact step.

    References
    ----------
    .. [1] M. Dredze, K. Crammer and F. Pereira, "Confidence-Weighted Linear
       Classification", ICML 2008.
    .. [2] K. Crammer, M. Dredze and F. Pereira, "Exact Convex
       Confidence-Weighted Learning", NIPS 2008.
    .. [3] K. Crammer, M. Dredze and A. Kulesza, "Multi-Class Confidence
       Weighted Algorithms", EMNLP 2009.
    .. [4] E. Moroshko, N. Vaits and K. Crammer, "Second-Order
       Non-Stationary Online Learning for Regression", JMLR 16, 2015
       (ARCOR's covariance projection: ``covariance_floor``).

    Examples
    --------
    >>> from sklearn.datasets import load_digits
    >>> from sklearn_pa import ConfidenceWeightedClassifier
    >>> X, y = load_digits(return_X_y=True)
    >>> clf = ConfidenceWeightedClassifier(max_iter=3, tol=None, random_state=0)
    >>> clf.fit(X[:1500] / 16, y[:1500]).score(X[1500:] / 16, y[1500:]) > 0.85
    True
    >>> clf.coef_.shape
    (10, 64)
    """

    _parameter_constraints: dict = {
        **_BaseSecondOrder._parameter_constraints,
        "eta": [Interval(Real, 0.5, 1, closed="neither"), StrOptions({"auto"})],
        "multiclass": [StrOptions(set(_MULTICLASS_RULES))],
    }

    _noisy_labels_threshold = 0.2

    def __init__(
        self,
        *,
        eta="auto",
        covariance="diagonal",
        multiclass="support",
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
        class_weight=None,
        average=False,
        new_classes="error",
    ):
        self.eta = eta
        self.covariance = covariance
        self.multiclass = multiclass
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
        self.class_weight = class_weight
        self.average = average
        self.new_classes = new_classes

    def _rule(self):
        return _MULTICLASS_RULES[self.multiclass]

    def _kernel_params(self):
        eta = self.eta
        if eta == "auto":
            eta = 0.8 if self.covariance == "full" else 0.95
        return self._second_order_params(R.STEP_CW, phi=ndtri(eta))


class AROWClassifier(_BaseSecondOrder):
    r"""Adaptive Regularization of Weights (AROW).

    The weights are Gaussian, :math:`w \sim \mathcal{N}(\mu, \Sigma)`; each
    example minimises

    .. math::

        \mathrm{KL}\big(\mathcal{N}(\mu, \Sigma) \,\|\,
        \mathcal{N}(\mu_{old}, \Sigma_{old})\big)
        + \frac{1}{2r} \max(0, 1 - y \, \mu \cdot x)^2
        + \frac{1}{2r} x^\top \Sigma x,

    a soft, always-feasible version of CW that tolerates label noise
    (Crammer, Kulesza and Dredze 2009).  Closed form: with
    :math:`m = y \, \mu \cdot x` and :math:`v = x^\top \Sigma x`, when
    :math:`m < 1`, :math:`\beta = 1 / (v + r)` (:math:`r` is
    ``regularization``), :math:`\mu \leftarrow \mu + (1 - m) \beta y \Sigma x`
    and :math:`\Sigma \leftarrow \Sigma - \beta \Sigma x x^\top \Sigma`.

    With more than two classes the model keeps one mean and one covariance
    block per class and each example updates the pair (true class, highest
    scoring wrong class) on the margin :math:`\mu_y \cdot x - \mu_r \cdot x`.

    Parameters
    ----------
    regularization : float, default=1.0
        The paper's :math:`r`: larger values make smaller, more conservative
        steps (it plays the part of :math:`1 / C`).
    %(covariance)s
    %(common)s
    %(attributes)s

    See Also
    --------
    ConfidenceWeightedClassifier : The hard-constraint original.
    SCWClassifier : Soft CW.

    References
    ----------
    .. [1] K. Crammer, A. Kulesza and M. Dredze, "Adaptive Regularization of
       Weight Vectors", NIPS 2009.
    .. [2] E. Moroshko, N. Vaits and K. Crammer, "Second-Order
       Non-Stationary Online Learning for Regression", JMLR 16, 2015
       (ARCOR's covariance projection: ``covariance_floor``).

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> from sklearn.preprocessing import StandardScaler
    >>> from sklearn_pa import AROWClassifier
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> X = StandardScaler().fit_transform(X)
    >>> clf = AROWClassifier(max_iter=5, tol=None, random_state=0).fit(X, y)
    >>> clf.score(X, y) > 0.95
    True
    >>> clf.predict_proba(X[:1]).shape
    (1, 2)
    """

    _parameter_constraints: dict = {
        **_BaseSecondOrder._parameter_constraints,
        "regularization": [Interval(Real, 0, None, closed="neither")],
    }

    def __init__(
        self,
        *,
        regularization=1.0,
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
        class_weight=None,
        average=False,
        new_classes="error",
    ):
        self.regularization = regularization
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
        self.class_weight = class_weight
        self.average = average
        self.new_classes = new_classes

    def _rule(self):
        return R.SO_SINGLE

    def _kernel_params(self):
        return self._second_order_params(R.STEP_AROW, param=self.regularization)


class SCWClassifier(_BaseSecondOrder):
    r"""Soft Confidence-Weighted learning (SCW-I and SCW-II).

    CW's constraint :math:`y \, \mu \cdot x \ge \phi \sqrt{x^\top \Sigma x}`
    becomes a loss
    :math:`\ell = \max(0, \phi \sqrt{x^\top \Sigma x} - y \, \mu \cdot x)`;
    each example minimises
    :math:`\mathrm{KL}(\mathcal{N}(\mu, \Sigma) \,\|\,
    \mathcal{N}(\mu_{old}, \Sigma_{old})) + C \ell` (SCW-I) or
    :math:`+ C \ell^2` (SCW-II) (Wang, Zhao and Hoi 2012).  SCW-I is exact CW
    with the step capped at ``C``.

    With more than two classes the model keeps one mean and one covariance
    block per class and each example updates the pair (true class, highest
    scoring wrong class).

    Parameters
    ----------
    C : float, default=1.0
        Aggressiveness: the cap on the multiplier (SCW-I) or the weight of
        the squared loss (SCW-II).
    eta : float, default=0.95
        Confidence in (0.5, 1); :math:`\phi = \Phi^{-1}(\eta)`.
    variant : {1, 2}, default=1
        SCW-I or SCW-II.
    %(covariance)s
    %(common)s

    %(attributes)s

    See Also
    --------
    ConfidenceWeightedClassifier : The hard-constraint original.
    AROWClassifier : Adaptive regularisation of weights.

    References
    ----------
    .. [1] J. Wang, P. Zhao and S. C. H. Hoi, "Exact Soft Confidence-Weighted
       Learning", ICML 2012.
    .. [2] E. Moroshko, N. Vaits and K. Crammer, "Second-Order
       Non-Stationary Online Learning for Regression", JMLR 16, 2015
       (ARCOR's covariance projection: ``covariance_floor``).

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> from sklearn.preprocessing import StandardScaler
    >>> from sklearn_pa import SCWClassifier
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> X = StandardScaler().fit_transform(X)
    >>> clf = SCWClassifier(variant=2, max_iter=5, tol=None, random_state=0)
    >>> clf.fit(X, y).score(X, y) > 0.95
    True
    """

    _parameter_constraints: dict = {
        **_BaseSecondOrder._parameter_constraints,
        "C": [Interval(Real, 0, None, closed="neither")],
        "eta": [Interval(Real, 0.5, 1, closed="neither")],
        "variant": [Interval(Integral, 1, 2, closed="both")],
    }

    def __init__(
        self,
        *,
        C=1.0,
        eta=0.95,
        variant=1,
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
        class_weight=None,
        average=False,
        new_classes="error",
    ):
        self.C = C
        self.eta = eta
        self.variant = variant
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
        self.class_weight = class_weight
        self.average = average
        self.new_classes = new_classes

    def _rule(self):
        return R.SO_SINGLE

    def _kernel_params(self):
        step = R.STEP_SCW1 if self.variant == 1 else R.STEP_SCW2
        return self._second_order_params(step, phi=ndtri(self.eta), param=self.C)


for _cls in (ConfidenceWeightedClassifier, AROWClassifier, SCWClassifier):
    _cls.__doc__ = _doc(_cls.__doc__)
del _cls
