"""MIRA, the Margin Infused Relaxed Algorithm (Crammer & Singer, JMLR 2003).

The multiclass learner that keeps the new prototypes small (where
Passive-Aggressive keeps the change small); it shares the first-order
epoch machinery of :class:`~sklearn_pa.linear._base.BaseOnlineLinear` and the
compiled kernel of the Passive-Aggressive classifier, with its own rule
(``Rule.MIRA``) and parameters (``_kernel_params``).
"""

from numbers import Real

from sklearn.linear_model._base import LinearClassifierMixin, SparseCoefMixin
from sklearn.utils._param_validation import Interval, StrOptions

from .._compiled._rules import Rule
from .._core.docs import fill_doc
from .._core.rules import linear_params
from .._core.weights import warn_mira_weights
from ..utils._probability import NoProbabilityMixin
from ._base import BaseOnlineLinear, OnlineLinearClassifierMixin

__all__ = ["MIRAClassifier"]


@fill_doc
class MIRAClassifier(
    NoProbabilityMixin,
    OnlineLinearClassifierMixin,
    LinearClassifierMixin,
    SparseCoefMixin,
    BaseOnlineLinear,
):
    """MIRA: the Margin Infused Relaxed Algorithm of Crammer & Singer (2003).

    One prototype :math:`M_r` per class; the prediction is the class of highest
    score :math:`M_r \\cdot x`.  On each example every prototype moves along
    :math:`x`, :math:`M_r \\leftarrow M_r + \\tau_r x`, with the steps that make
    the *new prototypes* as small as possible (where Passive-Aggressive
    minimises the size of the change):

    .. math::

        \\min_\\tau \\; \\frac{1}{2} \\sum_r \\|M_r + \\tau_r x\\|^2
        - \\text{margin} \\cdot \\tau_y
        \\quad \\text{s.t.} \\quad \\tau_r \\le [r = y], \\quad
        \\sum_r \\tau_r = 0

    (the true class moves by at most 1, the others only down).

    With ``margin=0`` this is the paper's quadratic program.  Its solution is
    *ultraconservative*: only the classes scoring within ``margin`` of the
    true class (with ``margin=0``: at least as high as it) move, so a correct
    prediction by more than ``margin`` leaves the model alone.  The solution
    is found exactly by sorting the scores (a projection onto a scaled
    simplex), in the compiled epoch kernel, on dense or CSR input.  With two
    classes the prototypes are :math:`-w/2` and :math:`+w/2` and the update is
    the paper's binary MIRA on :math:`w`:
    :math:`w \\leftarrow w + y \\min(2, [\\text{margin} - y \\, w \\cdot x]_+ /
    \\|x\\|^2) \\, x`.

    Parameters
    ----------
    margin : float, default=1.0
        Score lead the true class should have: classes scoring within
        ``margin`` of it take part in the update, and the objective rewards the
        true class's step by ``margin``.  ``0`` is the mistake-driven MIRA of
        the paper's quadratic program, which cannot leave an all-zero start
        (every score ties there and the program's solution is no step): it
        needs ``coef_init`` or ``warm_start`` from a non-zero model.
    fit_intercept : bool, default=True
        Whether to learn an intercept, the weight of a constant feature
        ``intercept_scaling`` appended to every sample (it adds
        ``intercept_scaling ** 2`` to :math:`\\|x\\|^2`).
    %(intercept_scaling)s
    %(max_iter)s
    tol : float or None, default=1e-3
        Stop when the average online margin loss ``max_r [margin - (s_y -
        s_r)]_+`` of an epoch is not below ``best_loss - tol`` for
        ``n_iter_no_change`` epochs (validation accuracy with
        ``early_stopping``).  ``None`` runs ``max_iter`` epochs.
    %(early_stopping)s
    %(validation_fraction)s
    %(n_iter_no_change)s
    %(shuffle)s
    verbose : int, default=0
        If positive, print one line per epoch (``Epoch i/max_iter``, average
        loss, validation score, time; ``partial_fit`` prints ``partial_fit
        call n``).  From 2 on the line adds the online mistakes, updates
        and norms.
    %(random_state)s
    %(warm_start)s
    class_weight : dict, "balanced" or None, default=None
        Weights per class; the bound 1 on the true class's step becomes the
        class weight (times the sample weight).  The bound only caps steps
        larger than it, about ``margin / ||x||^2``: on rows of large norm a
        weight above that changes nothing, and ``fit`` warns
        (:class:`~sklearn_pa.exceptions.InactiveWeightsWarning`) with the
        ``margin`` that makes the weights bind.
    %(average)s
    %(new_classes)s

    Attributes
    ----------
    coef_ : ndarray of shape (1, n_features) if n_classes == 2 else \
            (n_classes, n_features)
        The prototypes (``M_1 - M_0`` for two classes), averaged if
        ``average``.
    %(intercept_classes)s
    %(classes_)s
    %(n_features_in_)s
    %(intercept_scaling_)s
    %(feature_names_in_)s
    %(n_iter_)s
    %(loss_curve_)s
    %(validation_scores_)s
    %(t_)s

    See Also
    --------
    PassiveAggressiveClassifier : Minimises the size of the change instead,
        with an aggressiveness parameter ``C``.

    References
    ----------
    .. [1] K. Crammer and Y. Singer, "Ultraconservative Online Algorithms for
       Multiclass Problems", JMLR 3, 2003, pp. 951-991.

    Examples
    --------
    >>> from sklearn.datasets import load_digits
    >>> from sklearn_pa import MIRAClassifier
    >>> X, y = load_digits(return_X_y=True)
    >>> clf = MIRAClassifier(max_iter=5, tol=None, random_state=0)
    >>> clf.fit(X[:1500], y[:1500]).score(X[1500:], y[1500:]) > 0.85
    True
    >>> clf.coef_.shape
    (10, 64)
    """

    _parameter_constraints: dict = BaseOnlineLinear._constraints(
        "C",
        margin=[Interval(Real, 0, None, closed="left")],
        class_weight=[StrOptions({"balanced"}), dict, None],
        new_classes=[StrOptions({"error", "add"})],
    )

    _fit_doc = {
        "coef_init": """\
        coef_init : ndarray of shape (n_classes, n_features), default=None
            Initial prototypes (``(1, n_features)`` for two classes).""",
        "sample_weight": """\
        sample_weight : array-like of shape (n_samples,), default=None
            Per-sample weights; each scales the bound on its sample's step (a
            zero weight skips the sample).""",
        "partial_sample_weight": """\
        sample_weight : array-like of shape (n_samples,), default=None
            Per-sample weights scaling the bound on each step.""",
    }

    def __init__(
        self,
        *,
        margin=1.0,
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
        self.margin = margin
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

    def _fit(self, X, y, coef_init, intercept_init, sample_weight):
        super()._fit(X, y, coef_init, intercept_init, sample_weight)
        warn_mira_weights(self, X, y, sample_weight)
        return self

    def _kernel_params(self):
        # the paper's MIRA: margin beta, the true class's step bounded by 1
        # (times the sample and class weights); MIRA has no slack parameter
        return linear_params(Rule.MIRA, C=1.0, margin=self.margin)
