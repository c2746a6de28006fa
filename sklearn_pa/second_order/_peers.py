"""The second-order online classifiers of the peer libraries (LIBOL,
Jubatus, SOL): the second-order perceptron (SOP), the ellipsoid method
(IELLIP), normal herding (NHERD), narrow adaptive regularisation (NAROW)
and diagonal AdaGrad (AdaGrad).

They keep a mean and a covariance like CW / AROW / SCW (AdaGrad: its
per-feature step sizes, in the covariance's diagonal layout), and share
their machinery (``sklearn_pa/second_order/_base.py``) and compiled kernel
(``_compiled/_second_order.pyx``); their step rules are in
``_compiled/_peer_rules.pxd``.  With more than two classes each example
updates the pair (true class, highest-scoring wrong class), one covariance
block per class, as AROW does.
"""

import math
from numbers import Real

from sklearn.utils._param_validation import Interval, StrOptions

from .._compiled._rules import SecondOrderRule as R
from ..utils.estimator_checks import _GAUSSIAN_PROBA
from ._base import _BaseSecondOrder
from ._confidence_weighted import _doc

__all__ = [
    "AdaGradClassifier",
    "IELLIPClassifier",
    "NAROWClassifier",
    "NHERDClassifier",
    "SOPClassifier",
]

#: NHERD's diagonal rules (Crammer & Lee 2010), one kernel step each
_NHERD_DIAGONAL = {
    "project": R.STEP_NHERD,
    "exact": R.STEP_NHERD_EXACT,
    "drop": R.STEP_NHERD_DROP,
}

_COVARIANCE_DOC = """
    covariance : {"diagonal", "full"}, default="diagonal"
        ``"diagonal"`` keeps one variance per feature (per block) and touches
        only a row's non-zeros; ``"full"`` the whole matrix (refused when it
        would not fit in memory), updated with BLAS."""


class _PeerSecondOrder(_BaseSecondOrder):
    """The peer rules' multiclass rule: one constraint against the
    highest-scoring wrong class (k = 1), one covariance block per class."""

    # predict_proba is the family's Gaussian margin model (see
    # sklearn_pa.utils.expected_failed_checks)
    _expected_failed_checks = {"check_decision_proba_consistency": _GAUSSIAN_PROBA}

    def _rule(self):
        return R.SO_SINGLE


class SOPClassifier(_PeerSecondOrder):
    r"""Second-order perceptron (SOP).

    The perceptron run in the coordinates that whiten the examples it
    erred on (Cesa-Bianchi, Conconi and Gentile 2005): with
    :math:`A = a I + \sum x x^\top` and :math:`v = \sum y x` over the
    mistakes so far, the prediction is

    .. math:: \hat y = \mathrm{sgn}\big(v^\top (A + x x^\top)^{-1} x\big),

    and a mistake adds :math:`x x^\top` to :math:`A` and :math:`y x` to
    :math:`v`; nothing moves otherwise.  The sign is that of
    :math:`\mu \cdot x` with :math:`\mu = A^{-1} v`, so the model is linear:
    ``coef_`` is :math:`a A^{-1} v` (the factor :math:`a` keeps the stored
    covariance :math:`a A^{-1}` at the identity at the start) and, on a
    mistake (:math:`m = y \, \mu \cdot x \le 0`,
    :math:`s = x^\top \Sigma x`),

    .. math::

        \mu \leftarrow \mu + \frac{a - m}{s + a} \, y \Sigma x, \qquad
        \Sigma \leftarrow \Sigma - \frac{\Sigma x x^\top \Sigma}{s + a},

    AROW's step with :math:`r = a`, taken on mistakes only.

    With more than two classes each mistake updates the pair (true class,
    highest-scoring wrong class) on the margin
    :math:`\mu_y \cdot x - \mu_r \cdot x`, one covariance block per class.

    Parameters
    ----------
    regularization : float, default=1.0
        The paper's :math:`a`, the initial :math:`A = a I`: larger values
        make the early steps smaller and more perceptron-like.
    %(covariance)s
    %(common)s

    %(attributes)s

    See Also
    --------
    AROWClassifier : The same step on every margin below 1.
    NAROWClassifier : AROW with an adaptive regulariser.

    Notes
    -----
    The prediction of the paper includes the current example in :math:`A`
    (the :math:`x x^\top` above); it divides the score by
    :math:`1 + x^\top A^{-1} x > 0` and leaves its sign unchanged, so
    ``decision_function`` returns :math:`\mu \cdot x`.  A score of exactly
    0 counts as a mistake.  A sample weight :math:`s` adds
    :math:`s \, x x^\top` and :math:`s \, y x`.  LIBOL's ``SOP.m`` adds
    every example to :math:`A`, mistaken or not, with :math:`A_0 = I / a`;
    this is the paper's algorithm.

    References
    ----------
    .. [1] N. Cesa-Bianchi, A. Conconi and C. Gentile, "A Second-Order
       Perceptron Algorithm", SIAM Journal on Computing 34(3), 2005.
    .. [2] S. C. H. Hoi, J. Wang and P. Zhao, "LIBOL: A Library for Online
       Learning Algorithms", JMLR 15, 2014 (``SOP.m``).
    .. [3] E. Moroshko, N. Vaits and K. Crammer, "Second-Order
       Non-Stationary Online Learning for Regression", JMLR 16, 2015
       (ARCOR's covariance projection: ``covariance_floor``).

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> from sklearn.preprocessing import StandardScaler
    >>> from sklearn_pa import SOPClassifier
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> X = StandardScaler().fit_transform(X)
    >>> clf = SOPClassifier(max_iter=5, tol=None, random_state=0).fit(X, y)
    >>> clf.score(X, y) > 0.95
    True
    """

    _parameter_constraints: dict = {
        **_BaseSecondOrder._parameter_constraints,
        "regularization": [Interval(Real, 0, None, closed="neither")],
    }

    _expected_failed_checks = {
        **_PeerSecondOrder._expected_failed_checks,
        "check_class_weight_classifiers": (
            "a weight s adds s x x^T and s y x on a mistake: the direction "
            "A^-1 v saturates as s grows, so class weights of 1000 against "
            "1e-4 cannot force one class as the check expects"
        ),
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

    def _kernel_params(self):
        return self._second_order_params(R.STEP_SOP, param=self.regularization)


class IELLIPClassifier(_PeerSecondOrder):
    r"""Online learning by the improved ellipsoid method (IELLIP).

    The weights lie in an ellipsoid of centre :math:`\mu` and shape
    :math:`\Sigma`; a mistake (:math:`m = y \, \mu \cdot x \le 0`) cuts it
    with the example's half-space and takes the ellipsoid around what is
    left (Yang, Jin and Ye 2009).  With :math:`v = x^\top \Sigma x` and
    :math:`g = y x / \sqrt{v}`,

    .. math::

        \mu \leftarrow \mu + \frac{1 - m}{\sqrt v} \Sigma g, \qquad
        \Sigma \leftarrow \frac{\Sigma - c_t \Sigma g g^\top \Sigma}{1 - c_t},
        \qquad c_t = c \, b^{t - 1},

    :math:`t` the round (every example counts, as in LIBOL's
    ``IELLIP.m``): the cut shrinks the ellipsoid less and less as
    :math:`c_t` decays, and the steps become perceptron-like ones in the
    metric :math:`\Sigma`.  Nothing moves without a mistake.

    With more than two classes each mistake updates the pair (true class,
    highest-scoring wrong class) on the margin
    :math:`\mu_y \cdot x - \mu_r \cdot x`, one covariance block per class,
    and every block is divided by :math:`1 - c_t` (the covariance of the
    stacked weights).

    Parameters
    ----------
    shrinkage : float, default=0.1
        The paper's :math:`c`, the first cut's weight, in (0, 1).
    shrinkage_decay : float, default=0.3
        The paper's :math:`b`, the factor of :math:`c_t` per round, in
        (0, 1].
    %(covariance)s
    %(common)s

    %(attributes)s

    See Also
    --------
    SOPClassifier : The second-order perceptron.
    AROWClassifier : Adaptive regularisation of weights.

    Notes
    -----
    A score of exactly 0 counts as a mistake; a sample weight scales the
    mean's step.  The diagonal covariance keeps the diagonal of each step.

    References
    ----------
    .. [1] L. Yang, R. Jin and J. Ye, "Online Learning by Ellipsoid
       Method", ICML 2009.
    .. [2] S. C. H. Hoi, J. Wang and P. Zhao, "LIBOL: A Library for Online
       Learning Algorithms", JMLR 15, 2014 (``IELLIP.m``).
    .. [3] E. Moroshko, N. Vaits and K. Crammer, "Second-Order
       Non-Stationary Online Learning for Regression", JMLR 16, 2015
       (ARCOR's covariance projection: ``covariance_floor``).

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> from sklearn.preprocessing import StandardScaler
    >>> from sklearn_pa import IELLIPClassifier
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> X = StandardScaler().fit_transform(X)
    >>> clf = IELLIPClassifier(max_iter=5, tol=None, random_state=0).fit(X, y)
    >>> clf.score(X, y) > 0.9
    True
    """

    _parameter_constraints: dict = {
        **_BaseSecondOrder._parameter_constraints,
        "shrinkage": [Interval(Real, 0, 1, closed="neither")],
        "shrinkage_decay": [Interval(Real, 0, 1, closed="right")],
    }

    # its matrix is an ellipsoid's shape, not a posterior covariance:
    # parameter mixing averages the partitions' models by default
    _mixes_as_gaussian = False

    def __init__(
        self,
        *,
        shrinkage=0.1,
        shrinkage_decay=0.3,
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
        self.shrinkage = shrinkage
        self.shrinkage_decay = shrinkage_decay
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

    def _rescales_covariance(self):
        """Whether a ``partial_fit`` pass from the current round on may
        divide every covariance block by ``1 - c_t`` (then its rollback
        journal saves the whole covariance, see
        ``_SecondOrderEpochs.journal``): ``c_t = c b^(t - 1)`` only falls,
        and once ``1 / (1 - c_t)`` rounds to 1 the kernel's step leaves the
        covariance outside the row's features alone (after about 30 rounds
        with the defaults; never with ``shrinkage_decay=1``)."""
        t0 = int(self.__dict__.get("t_", 1.0)) - 1  # (rounds so far)
        c_t = self.shrinkage * math.pow(self.shrinkage_decay, t0)
        return 1.0 / (1.0 - c_t) != 1.0

    def _kernel_params(self):
        return self._second_order_params(
            R.STEP_IELLIP, param=self.shrinkage_decay, shrinkage=self.shrinkage
        )


class NHERDClassifier(_PeerSecondOrder):
    r"""Normal herding (NHERD).

    A Gaussian :math:`\mathcal{N}(\mu, \Sigma)` of weight vectors is herded:
    every weight vector :math:`w` of the distribution takes the same
    squared-hinge step, :math:`w \leftarrow w + C \, \ell(w) \,
    y \Sigma x / (1 + C v)` (Crammer and Lee 2010), so the mean takes
    AROW's step and the covariance is carried along with it.  With
    :math:`m = y \, \mu \cdot x < 1`, :math:`v = x^\top \Sigma x` and
    :math:`\gamma = 1 / C`,

    .. math::

        \mu \leftarrow \mu + \frac{1 - m}{v + \gamma} \, y \Sigma x, \qquad
        \Sigma \leftarrow \Sigma - \frac{v + 2 \gamma}{(v + \gamma)^2}
            \Sigma x x^\top \Sigma,

    i.e. :math:`\Sigma^{-1} \leftarrow \Sigma^{-1} + (2 C + C^2 v) x
    x^\top`.  The diagonal covariance follows one of the paper's three
    diagonal rules (``diagonal_rule``).

    With more than two classes each example updates the pair (true class,
    highest-scoring wrong class) on the margin
    :math:`\mu_y \cdot x - \mu_r \cdot x`, one covariance block per class.

    Parameters
    ----------
    C : float, default=1.0
        Aggressiveness: the weight of the squared hinge (:math:`1 / \gamma`).
        A sample weight :math:`s` multiplies it.
    %(covariance)s
    diagonal_rule : {"project", "exact", "drop"}, default="project"
        How a diagonal covariance follows the full update (ignored with
        ``covariance="full"``): ``"project"`` adds the precision feature by
        feature, :math:`\Sigma_{rr}^{-1} \leftarrow \Sigma_{rr}^{-1} + (2 C
        + C^2 v) x_r^2` (Jubatus' ``normal_herd``); ``"exact"`` herds each
        coordinate as a one-dimensional problem,
        :math:`\Sigma_{rr} \leftarrow \Sigma_{rr} / (1 + C x_r^2
        \Sigma_{rr})^2`; ``"drop"`` keeps the diagonal of the full update,
        :math:`\Sigma_{rr} \leftarrow \Sigma_{rr} - \frac{v + 2\gamma}{(v +
        \gamma)^2} (\Sigma_{rr} x_r)^2`.
    %(common)s

    %(attributes)s

    See Also
    --------
    AROWClassifier : The same mean step, a smaller covariance step.
    NAROWClassifier : AROW with an adaptive regulariser.

    References
    ----------
    .. [1] K. Crammer and D. D. Lee, "Learning via Gaussian Herding",
       NIPS 2010.
    .. [2] S. C. H. Hoi, J. Wang and P. Zhao, "LIBOL: A Library for Online
       Learning Algorithms", JMLR 15, 2014 (``NHERD.m``).
    .. [3] E. Moroshko, N. Vaits and K. Crammer, "Second-Order
       Non-Stationary Online Learning for Regression", JMLR 16, 2015
       (ARCOR's covariance projection: ``covariance_floor``).

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> from sklearn.preprocessing import StandardScaler
    >>> from sklearn_pa import NHERDClassifier
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> X = StandardScaler().fit_transform(X)
    >>> clf = NHERDClassifier(max_iter=5, tol=None, random_state=0).fit(X, y)
    >>> clf.score(X, y) > 0.95
    True
    """

    _parameter_constraints: dict = {
        **_BaseSecondOrder._parameter_constraints,
        "C": [Interval(Real, 0, None, closed="neither")],
        "diagonal_rule": [StrOptions(set(_NHERD_DIAGONAL))],
    }

    _expected_failed_checks = {
        **_PeerSecondOrder._expected_failed_checks,
        "check_class_weight_classifiers": (
            "a weight s multiplies C: with s = 1000 the step saturates at "
            "(1 - m) / v and the covariance collapses along the example "
            "(precision + (2 C s + (C s)^2 v) x x^T), so the heavy class "
            "cannot take over as the check expects"
        ),
    }

    def __init__(
        self,
        *,
        C=1.0,
        covariance="diagonal",
        diagonal_rule="project",
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
        self.covariance = covariance
        self.diagonal_rule = diagonal_rule
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

    def _kernel_params(self):
        step = _NHERD_DIAGONAL[self.diagonal_rule]
        return self._second_order_params(step, param=self.C)


class NAROWClassifier(_PeerSecondOrder):
    r"""Narrow adaptive regularisation of weights (NAROW).

    AROW's step with a regulariser chosen per example (Orabona and Crammer
    2010): with :math:`m = y \, \mu \cdot x < 1` and
    :math:`v = x^\top \Sigma x`, when :math:`v > 1 / b`,

    .. math::

        r_t = \frac{v}{b v - 1}, \qquad
        \mu \leftarrow \mu + \frac{1 - m}{v + r_t} \, y \Sigma x, \qquad
        \Sigma \leftarrow \Sigma - \frac{\Sigma x x^\top \Sigma}{v + r_t},

    which brings the variance along the example down to exactly
    :math:`1 / b`; where it is already at most :math:`1 / b`
    (:math:`r_t = \infty`) nothing moves.  The covariance only shrinks
    where it is still large, and the learning rate does not decay to 0 on
    directions seen often, which suits drifting data.

    With more than two classes each example updates the pair (true class,
    highest-scoring wrong class) on the margin
    :math:`\mu_y \cdot x - \mu_r \cdot x` (:math:`v = v_y + v_r`), one
    covariance block per class.

    Parameters
    ----------
    variance_floor : float, default=1.0
        :math:`1 / b`, the paper's :math:`b` inverted: the variance along an
        example below which it makes no step.  A bound on the variance
        :math:`x^\top \Sigma x` along each example, which decides whether
        it steps; ``covariance_floor`` is another thing, a bound on each
        variance :math:`\Sigma_{jj}` of the covariance, which keeps the
        steps from vanishing (the two can be combined).
    %(covariance)s
    %(common)s

    %(attributes)s

    See Also
    --------
    AROWClassifier : The fixed-regulariser original.
    NHERDClassifier : Normal herding.

    Notes
    -----
    A sample weight :math:`s` divides :math:`r_t`, as it divides AROW's
    :math:`r`.

    References
    ----------
    .. [1] F. Orabona and K. Crammer, "New Adaptive Algorithms for Online
       Classification", NIPS 2010.
    .. [2] S. C. H. Hoi, J. Wang and P. Zhao, "LIBOL: A Library for Online
       Learning Algorithms", JMLR 15, 2014 (``NAROW.m``).
    .. [3] E. Moroshko, N. Vaits and K. Crammer, "Second-Order
       Non-Stationary Online Learning for Regression", JMLR 16, 2015
       (ARCOR's covariance projection: ``covariance_floor``).

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> from sklearn.preprocessing import StandardScaler
    >>> from sklearn_pa import NAROWClassifier
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> X = StandardScaler().fit_transform(X)
    >>> clf = NAROWClassifier(max_iter=5, tol=None, random_state=0).fit(X, y)
    >>> clf.score(X, y) > 0.95
    True
    """

    _parameter_constraints: dict = {
        **_BaseSecondOrder._parameter_constraints,
        "variance_floor": [Interval(Real, 0, None, closed="neither")],
    }

    def __init__(
        self,
        *,
        variance_floor=1.0,
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
        self.variance_floor = variance_floor
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

    def _kernel_params(self):
        return self._second_order_params(R.STEP_NAROW, param=1.0 / self.variance_floor)


class AdaGradClassifier(_PeerSecondOrder):
    r"""Diagonal AdaGrad on the hinge loss (AdaGrad).

    Online (sub)gradient descent on the hinge loss with one step size per
    feature, which shrinks as the squared gradients of that feature add up
    (Duchi, Hazan and Singer 2011), as SOL implements it.  With labels
    :math:`\pm 1`, a positive hinge loss :math:`[1 - y \, w \cdot x]_+`
    gives the gradient :math:`g = -y x`, and for every feature :math:`r`

    .. math::

        G_r \leftarrow G_r + g_r^2, \qquad
        H_r = \delta + \sqrt{G_r}, \qquad
        w_r \leftarrow w_r - \eta \, \frac{g_r}{H_r},

    :math:`H_r` taken after the gradient is added; nothing moves when the
    margin is at least 1.  Rarely seen features keep large steps, frequent
    ones settle, as with the covariance of AROW.

    With more than two classes the model keeps one weight vector and one
    :math:`G` per class, and the loss is SOL's max-score hinge
    :math:`[1 - (w_y - w_r) \cdot x]_+` against the highest-scoring wrong
    class :math:`r`: its gradient is :math:`-x` for :math:`w_y` and
    :math:`+x` for :math:`w_r`, each stepping with its own :math:`H`.

    Parameters
    ----------
    eta : float, default=1.0
        The learning rate :math:`\eta` (SOL's ``eta``).
    delta : float, default=10.0
        :math:`\delta`, added to :math:`\sqrt{G_r}`: larger values make the
        first steps smaller (SOL's ``delta``).
    covariance : {"diagonal"}, default="diagonal"
        The layout of the step sizes: one per feature and weight vector,
        touching only a row's non-zeros.  AdaGrad has no full form here: the
        registry of rules declares the diagonal layout only, and
        ``"full"`` is refused with a ``ValueError``.
    %(common)s

    %(attributes)s

    See Also
    --------
    OnlineGradientDescentClassifier : One step size for every feature,
        decaying as ``eta / sqrt(t)``.
    AROWClassifier : A per-feature variance that shrinks with the squared
        features.

    Notes
    -----
    The package keeps :math:`\delta / H_r` in the covariance's place
    (``covariance_``, one block per weight vector, the intercept's last),
    so that it starts at 1 like the covariance of the other second-order
    learners; ``predict_proba`` reads it as one.

    The intercept is the weight of the constant feature
    ``intercept_scaling`` :math:`a`, with its own :math:`G` (which adds
    :math:`a^2` per step).  SOL learns its bias the same way, as a feature
    of value 1 whose rate is ``bias_eta`` times :math:`\eta`
    (``bias_eta=0`` by default, no bias): ``fit_intercept=False`` is SOL's
    default, ``intercept_scaling=1`` its ``bias_eta=1``.

    A sample weight :math:`s` multiplies the gradient: :math:`G_r` adds
    :math:`(s x_r)^2` and the step is :math:`\eta \, s \, y x_r / H_r`.

    References
    ----------
    .. [1] J. Duchi, E. Hazan and Y. Singer, "Adaptive Subgradient Methods
       for Online Learning and Stochastic Optimization", JMLR 12, 2011,
       pp. 2121-2159.
    .. [2] Y. Wu, S. C. H. Hoi, C. Liu, J. Lu, D. Sahoo and N. Yu, "SOL: A
       Library for Scalable Online Learning Algorithms", Neurocomputing 260,
       2017, pp. 9-12 (``ada-fobos``, ``src/sol/model/olm/ada_fobos.cc``).

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> from sklearn.preprocessing import StandardScaler
    >>> from sklearn_pa import AdaGradClassifier
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> X = StandardScaler().fit_transform(X)
    >>> clf = AdaGradClassifier(max_iter=5, tol=None, random_state=0).fit(X, y)
    >>> clf.score(X, y) > 0.95
    True
    """

    # (covariance="full" passes these and is refused by the registry,
    # which declares AdaGrad's diagonal layout only, before any pass)
    # (no covariance_floor: its diagonal holds step sizes, not a covariance
    # that shrinks toward certainty; the floor's paper is about the latter)
    _parameter_constraints: dict = {
        **{
            key: value
            for key, value in _BaseSecondOrder._parameter_constraints.items()
            if key != "covariance_floor"
        },
        "eta": [Interval(Real, 0, None, closed="neither")],
        "delta": [Interval(Real, 0, None, closed="neither")],
    }

    # its diagonal holds step sizes, not a posterior covariance: parameter
    # mixing averages the partitions' models by default
    _mixes_as_gaussian = False

    def __init__(
        self,
        *,
        eta=1.0,
        delta=10.0,
        covariance="diagonal",
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
        self.delta = delta
        self.covariance = covariance
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

    def _kernel_params(self):
        return self._second_order_params(
            R.STEP_ADAGRAD, param=self.eta, delta=self.delta
        )


for _cls in (
    SOPClassifier,
    IELLIPClassifier,
    NHERDClassifier,
    NAROWClassifier,
    AdaGradClassifier,
):
    _cls.__doc__ = _doc(_cls.__doc__, covariance=_COVARIANCE_DOC)
del _cls
