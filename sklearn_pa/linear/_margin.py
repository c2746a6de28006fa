"""The perceptron and online gradient descent on the hinge loss.

The classical first-order learners of LIBOL (Hoi, Wang & Zhao 2014), river
and Jubatus: :class:`PerceptronClassifier` (binary, and the three
multiclass perceptrons of Crammer & Singer 2003) and
:class:`OnlineGradientDescentClassifier` (Zinkevich 2003, the hinge loss
with the step ``eta / sqrt(t)``).  Both are ``w += tau x`` rules of the
first-order kernel (``Rule.PERCEPTRON_*``, ``Rule.OGD``; the steps in
``_compiled/_margin_rules.pxd``) and share the epoch machinery of
:class:`~sklearn_pa.linear._base.BaseOnlineLinear`, averaging included.
"""

from numbers import Real

from sklearn.linear_model._base import LinearClassifierMixin, SparseCoefMixin
from sklearn.utils._param_validation import Interval, StrOptions

from .._compiled._rules import Rule
from .._core.docs import fill_doc
from .._core.rules import linear_params
from ..utils._probability import NoProbabilityMixin
from ._base import BaseOnlineLinear, OnlineLinearClassifierMixin

__all__ = ["OnlineGradientDescentClassifier", "PerceptronClassifier"]

_PERCEPTRON_RULES = {
    "max": Rule.PERCEPTRON_MAX,
    "uniform": Rule.PERCEPTRON_UNIFORM,
    "score": Rule.PERCEPTRON_SCORE,
}


class _MarginClassifier(
    NoProbabilityMixin,
    OnlineLinearClassifierMixin,
    LinearClassifierMixin,
    SparseCoefMixin,
    BaseOnlineLinear,
):
    """The shared parameters and ``fit`` / ``partial_fit`` documentation of
    the classical margin classifiers (their rules read no ``C``)."""

    _parameter_constraints: dict = BaseOnlineLinear._constraints(
        "C",
        class_weight=[StrOptions({"balanced"}), dict, None],
        new_classes=[StrOptions({"error", "add"})],
    )

    _fit_doc = {
        "sample_weight": """\
        sample_weight : array-like of shape (n_samples,), default=None
            Per-sample weights; each multiplies its sample's step (a zero
            weight skips the sample).""",
        "partial_sample_weight": """\
        sample_weight : array-like of shape (n_samples,), default=None
            Per-sample weights multiplying each step.""",
    }


@fill_doc
class PerceptronClassifier(_MarginClassifier):
    """The perceptron, binary and multiclass (Rosenblatt; Crammer & Singer).

    Binary: on a prediction mistake (:math:`y \\, w \\cdot x \\le 0`, labels
    :math:`\\pm 1`) the weights move by :math:`w \\leftarrow w + y x`
    (LIBOL's ``Perceptron``).  Multiclass: one prototype :math:`w_r` per
    class, the prediction is the class of highest score; on a mistake (a
    wrong class scores at least as high as the true class :math:`y`) the
    true class moves by :math:`+x` and the *error set*
    :math:`E = \\{r \\ne y : w_r \\cdot x \\ge w_y \\cdot x\\}` by
    :math:`-x` in total, shared as ``multiclass`` says (the
    ultraconservative additive updates of Crammer & Singer 2003, section 3;
    LIBOL's ``M_PerceptronM``, ``M_PerceptronU``, ``M_PerceptronS``):

    - ``"max"``: all of it on the highest-scoring wrong class;
    - ``"uniform"``: :math:`-x / |E|` on each class of :math:`E`;
    - ``"score"``: :math:`-x \\, (s_r - s_y) / \\sum_{q \\in E} (s_q - s_y)`
      on each, in proportion to how far it outscores the true class (uniform
      when all of :math:`E` ties with it).

    The weights start at zero (or ``coef_init``); the steps run in the
    compiled first-order kernel on dense or CSR rows.  A tie counts as a
    mistake (the zero model learns from its first sample).

    Parameters
    ----------
    multiclass : {"max", "uniform", "score"}, default="max"
        How a multiclass mistake is shared among the wrong classes (see
        above); ignored with two classes.
    %(fit_intercept)s
    %(intercept_scaling)s
    %(max_iter)s
    tol : float or None, default=1e-3
        Stop when the average perceptron loss ``[max_{r != y} s_r - s_y]_+``
        (binary: ``[-y s]_+``) of an epoch is not below ``best_loss - tol``
        for ``n_iter_no_change`` epochs (validation accuracy with
        ``early_stopping``).  ``None`` runs ``max_iter`` epochs.
    %(early_stopping)s
    %(validation_fraction)s
    %(n_iter_no_change)s
    %(shuffle)s
    %(verbose_epochs)s
    %(random_state)s
    %(warm_start)s
    %(class_weight_step)s
    %(average)s
    %(new_classes)s

    Attributes
    ----------
    coef_ : ndarray of shape (1, n_features) if n_classes == 2 else \
            (n_classes, n_features)
        Weights (the prototypes), averaged if ``average``.
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
    OnlineGradientDescentClassifier : Steps on the hinge loss, with a
        decreasing rate.
    MIRAClassifier : The ultraconservative update of minimal norm.
    PassiveAggressiveClassifier : Steps sized by the loss.

    References
    ----------
    .. [1] F. Rosenblatt, "The perceptron: a probabilistic model for
       information storage and organization in the brain", Psychological
       Review 65(6), 1958, pp. 386-408.
    .. [2] K. Crammer and Y. Singer, "Ultraconservative Online Algorithms for
       Multiclass Problems", JMLR 3, 2003, pp. 951-991.
    .. [3] S. C. H. Hoi, J. Wang and P. Zhao, "LIBOL: A Library for Online
       Learning Algorithms", JMLR 15, 2014, pp. 495-499.

    Examples
    --------
    >>> from sklearn.datasets import load_digits
    >>> from sklearn_pa import PerceptronClassifier
    >>> X, y = load_digits(return_X_y=True)
    >>> clf = PerceptronClassifier(multiclass="uniform", average=True,
    ...                            max_iter=5, tol=None, random_state=0)
    >>> clf.fit(X[:1500], y[:1500]).score(X[1500:], y[1500:]) > 0.85
    True
    >>> clf.coef_.shape
    (10, 64)
    """

    _parameter_constraints: dict = {
        **_MarginClassifier._parameter_constraints,
        "multiclass": [StrOptions(set(_PERCEPTRON_RULES))],
    }

    def __init__(
        self,
        *,
        multiclass="max",
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
        self.multiclass = multiclass
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
        # the perceptron's step has no size: it reads none of the parameters
        return linear_params(_PERCEPTRON_RULES[self.multiclass])


@fill_doc
class OnlineGradientDescentClassifier(_MarginClassifier):
    """Online gradient descent on the hinge loss (Zinkevich 2003).

    At the :math:`t`-th sample seen, a positive hinge loss
    :math:`\\ell = [1 - y \\, w \\cdot x]_+` moves the weights by a
    (sub)gradient step of the decreasing size :math:`\\eta_t = \\eta /
    \\sqrt{t}`:

    .. math::

        w \\leftarrow w + \\eta_t \\, y \\, x

    (LIBOL's ``OGD`` with the hinge loss).  Multiclass, with one prototype
    per class and the rival :math:`r` the highest-scoring wrong class, the
    loss is :math:`[1 - (w_y - w_r) \\cdot x]_+` and the step moves
    :math:`w_y` by :math:`+\\eta_t x` and :math:`w_r` by :math:`-\\eta_t x`
    (LIBOL's ``M_OGD``).  :math:`t` counts every sample over all epochs and
    ``partial_fit`` calls (``t_``), so a stream continues the schedule.
    Unlike :class:`PassiveAggressiveClassifier` the step does not depend on
    the size of the loss, and unlike the perceptron it also moves on a
    correct prediction with a margin below 1.

    Parameters
    ----------
    eta : float, default=1.0
        Learning rate: the step at sample :math:`t` is ``eta / sqrt(t)``
        (LIBOL's ``C``), times the sample and class weights.
    %(fit_intercept)s
    %(intercept_scaling)s
    %(max_iter)s
    tol : float or None, default=1e-3
        Stop when the average hinge loss of an epoch is not below
        ``best_loss - tol`` for ``n_iter_no_change`` epochs (validation
        accuracy with ``early_stopping``).  ``None`` runs ``max_iter``
        epochs.
    %(early_stopping)s
    %(validation_fraction)s
    %(n_iter_no_change)s
    %(shuffle)s
    %(verbose_epochs)s
    %(random_state)s
    warm_start : bool, default=False
        Whether ``fit`` starts from the previous solution (the step count
        ``t`` restarts with ``fit``).
    %(class_weight_step)s
    %(average)s
    %(new_classes)s

    Attributes
    ----------
    coef_ : ndarray of shape (1, n_features) if n_classes == 2 else \
            (n_classes, n_features)
        Weights, averaged if ``average``.
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
    PerceptronClassifier : Steps of size 1, on mistakes only.
    PassiveAggressiveClassifier : Steps sized by the loss.

    References
    ----------
    .. [1] M. Zinkevich, "Online Convex Programming and Generalized
       Infinitesimal Gradient Ascent", ICML 2003, pp. 928-936.
    .. [2] S. C. H. Hoi, J. Wang and P. Zhao, "LIBOL: A Library for Online
       Learning Algorithms", JMLR 15, 2014, pp. 495-499.

    Examples
    --------
    >>> from sklearn.datasets import load_digits
    >>> from sklearn_pa import OnlineGradientDescentClassifier
    >>> X, y = load_digits(return_X_y=True)
    >>> clf = OnlineGradientDescentClassifier(eta=0.1, max_iter=5, tol=None,
    ...                                       random_state=0)
    >>> clf.fit(X[:1500], y[:1500]).score(X[1500:], y[1500:]) > 0.85
    True
    """

    _parameter_constraints: dict = {
        **_MarginClassifier._parameter_constraints,
        "eta": [Interval(Real, 0, None, closed="neither")],
    }

    _expected_failed_checks = {
        "check_class_weight_classifiers": (
            "the check wants a class of weight 1000 (the others 1e-4) predicted "
            "on 87% of overlapping three-class blobs; OGD's weighted hinge steps "
            "stop once that class's own samples have a margin of 1, so the "
            "other classes' regions keep their predictions (84%): the unweighted "
            "hinge loss has no term that pulls them to the heavy class"
        ),
    }

    def __init__(
        self,
        *,
        eta=1.0,
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
        # the step eta / sqrt(t) on the hinge loss
        return linear_params(Rule.OGD, learning_rate=self.eta)
