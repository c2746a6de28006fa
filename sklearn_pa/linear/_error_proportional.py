"""Error-proportional online regression: DPAU (additive) and DPMU
(multiplicative).

:class:`ErrorProportionalRegressor` moves the prediction on the sample just
seen a fixed fraction ``C`` of the way to its target: additively (a
normalised gradient step, ``_compiled/_first_order.pyx``) or multiplicatively
on the split weights of :mod:`sklearn_pa.linear._exponentiated`
(``_compiled/_multiplicative.pyx``).
"""

from numbers import Real

import numpy as np
import scipy.sparse as sp
from sklearn.utils._param_validation import Interval, StrOptions

from .._compiled._rules import Rule
from .._core.docs import fill_doc
from .._core.rules import linear_params
from ._base import BaseOnlineLinear
from ._exponentiated import _SplitWeightsMixin
from ._regression import _COMMON, LEARNING_RATE_WEIGHTS, _OnlineRegressorMixin

__all__ = ["ErrorProportionalRegressor"]


@fill_doc
class ErrorProportionalRegressor(
    _SplitWeightsMixin, _OnlineRegressorMixin, BaseOnlineLinear
):
    r"""Error-proportional updates DPAU (additive) and DPMU (multiplicative).

    After predicting :math:`\hat y` for a sample with target :math:`y`, the
    weights move so that the new prediction on that sample closes a fraction
    :math:`c` (``C``) of the error:

    .. math::

        \hat y' - \hat y = c (y - \hat y)

    - ``update="additive"`` (DPAU):
      :math:`w' = w + c (y - \hat y) x / \|x\|^2`, the smallest change of
      :math:`w` (in Euclidean norm) that does it.  It equals
      :class:`GradientDescentRegressor` with ``eta_scaling="inverse_sq_norm"``
      and ``eta`` :math:`= c / 2`.
    - ``update="multiplicative"`` (DPMU), for Boolean features
      :math:`x \in \{0, 1\}^n`: the weights are :math:`w = w^+ - w^-` with
      positive :math:`w^+, w^-` starting at 1, and every active feature's pair
      is scaled, :math:`w^+_i \leftarrow w^+_i \beta`,
      :math:`w^-_i \leftarrow w^-_i / \beta`, with :math:`\beta > 0` the root
      of :math:`\hat y^+ \beta^2 - T \beta - \hat y^- = 0` where
      :math:`T = \hat y + c (y - \hat y)` and
      :math:`\hat y^\pm = w^\pm \cdot x`.  It is the smallest change in
      unnormalised relative entropy that does it.  Input other than 0 and 1
      is refused, before any weight moves.

    Read more in the :ref:`User Guide <gradient>`.

    With ``update="multiplicative"`` (DPMU) float32 input is converted to
    float64, since the multiplicative kernel reads float64 rows; the additive
    update (DPAU) reads float32 rows as they are.

    Parameters
    ----------
    C : float, default=0.5
        The fraction of the error closed on each sample, :math:`0 < C \le 1`
        (:math:`C = 1` interpolates the sample just seen): the paper's
        :math:`c`.
    update : {"additive", "multiplicative"}, default="additive"
        DPAU or DPMU.
    fit_intercept : bool, default=True
        Whether to learn an intercept, the weight of a constant feature 1
        appended to every sample (a Boolean feature that is always on; its
        weight pair starts at 1 with DPMU).
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
        The weights (:math:`w^+ - w^-` for DPMU).
    intercept_ : ndarray of shape (1,)
        The intercept.
    %(n_features_in_)s
    intercept_scaling_ : float
        The constant feature behind the intercept (always 1.0).
    %(feature_names_in_)s
    %(n_iter_)s
    %(loss_curve_)s
    %(validation_scores_)s
    %(t_)s

    See Also
    --------
    GradientDescentRegressor : GD; its normalised rule is DPAU.
    ExponentiatedGradientRegressor : EG+-.

    References
    ----------
    .. [1] A. Nakamura, H. Mamitsuka, H. Toba and N. Abe, "Learning personal
       preference functions using Boolean-variable real-valued multivariate
       polynomials" (in Japanese), IPSJ national convention, 4U-1.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_pa import ErrorProportionalRegressor
    >>> rng = np.random.RandomState(0)
    >>> X = (rng.uniform(size=(300, 20)) < 0.3).astype(float)
    >>> y = X[:, 0] - 2 * X[:, 1] + 0.5
    >>> reg = ErrorProportionalRegressor(C=0.5, update="multiplicative")
    >>> reg.fit(X, y).score(X, y) > 0.99
    True
    """

    _parameter_constraints: dict = {
        **_COMMON,
        "C": [Interval(Real, 0, 1, closed="right")],
        "update": [StrOptions({"additive", "multiplicative"})],
    }

    _fit_doc = {
        "coef_init": """\
        coef_init : ndarray, default=None
            Initial weights.  DPAU(s, c): shape (n_features,), any real
            values (zero by default).  DPMU(s+-, c): shape (2, n_features),
            the pair ``(w+, w-)``, strictly positive (all ones by default).""",
        "intercept_init": """\
        intercept_init : ndarray, default=None
            Initial intercept: shape (1,) for DPAU; the pair ``(b+, b-)``,
            shape (2,) and positive, for DPMU (``(1, 1)`` by default).""",
        **LEARNING_RATE_WEIGHTS,
    }

    average = False  # the multiplicative rule cannot be averaged lazily

    def __init__(
        self,
        *,
        C=0.5,
        update="additive",
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
        self.C = C
        self.update = update
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

    def _multiplicative(self):
        return self.update == "multiplicative"

    def _kernel_params(self):
        # DPAU is normalised GD with eta = C / 2; DPMU reads c = C itself
        C = float(self.C)
        if self._multiplicative():
            return linear_params(Rule.ERROR_PROPORTIONAL_MULT, learning_rate=C)
        return linear_params(Rule.NORMALIZED_GRADIENT, learning_rate=0.5 * C)

    def _initial_weight(self, n_active):
        return 1.0

    def _default_intercept_pair(self):
        # DPMU starts every weight at 1 (the seed's s+- = (1, ..., 1))
        return np.ones(2)

    def _check_rows(self, X, lean=False):
        if self._multiplicative():
            values = X.data if sp.issparse(X) else X
            bad = (values != 0.0) & (values != 1.0)
            if np.any(bad):
                if lean:
                    return False
                example = float(np.asarray(values)[bad].flat[0])
                raise ValueError(
                    "update='multiplicative' (DPMU) is defined for Boolean "
                    f"features in {{0, 1}}; X has other values (e.g. {example!r}). "
                    "Binarize the features (CountVectorizer(binary=True), "
                    "sklearn.preprocessing.Binarizer) or use update='additive'."
                )
        return True
