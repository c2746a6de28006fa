"""Kernel Passive-Aggressive classifier and regressor (dual form, with a budget).

This module holds the public estimators of the kernel PA family: their
parameters, targets and docstrings.  What they share (the block loop, the
support-vector store and its budget, the epoch adapter ``_KernelEpochs``)
lives in ``sklearn_pa/kernel/_base.py``; see that module for how an epoch is
computed.
"""

from numbers import Real

import numpy as np
from sklearn.base import ClassifierMixin, RegressorMixin, _fit_context
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.multiclass import type_of_target, unique_labels

from .._compiled._rules import Rule, Slack
from .._core.batch import atomic_update, locked_read
from .._core.docs import fill_text
from .._core.growth import GrowingClassesMixin
from .._core.session import (
    lean_fitted_labels,
    lean_targets,
    started_partial_fit_context,
)
from .._core.targets import added_classes, checked_class_weight, unknown_labels_error
from ..utils._probability import NoProbabilityMixin
from ._base import _BaseKernelPA

__all__ = ["KernelPassiveAggressiveClassifier", "KernelPassiveAggressiveRegressor"]


_COMMON_PARAMS_DOC = r"""
    kernel : str or callable, default="rbf"
        A kernel of :func:`sklearn.metrics.pairwise.pairwise_kernels`
        ("linear", "poly", "rbf", "sigmoid", "laplacian", "chi2",
        "additive_chi2", "cosine"), or a callable ``k(x, y) -> float``, which
        is evaluated pair by pair (slow).
    gamma : float, "scale" or "auto", default="scale"
        Kernel coefficient of "rbf", "laplacian", "poly", "sigmoid", "chi2",
        as in :class:`~sklearn.svm.SVC`: "scale" uses
        ``1 / (n_features * X.var())`` of the first batch, "auto"
        ``1 / n_features``.  Ignored by the other kernels.
    degree : int, default=None
        Degree of the "poly" kernel (``None``: 3).
    coef0 : float, default=None
        Constant term of the "poly" and "sigmoid" kernels (``None``: 1).
    kernel_params : dict, default=None
        Further parameters of the kernel (of a callable kernel).
    budget : int, default=None
        Maximum number of support vectors.  When a step would exceed it, one
        support vector is removed (``budget_policy``), so memory and the cost
        of a prediction stay bounded on a long stream.  ``None`` keeps every
        support vector.
    budget_policy : {"oldest", "smallest"}, default="smallest"
        Which support vector the budget removes: the one created first, or
        the one whose term of the model is the smallest,
        :math:`\|\alpha_i\| \sqrt{K(x_i, x_i)}` (the norm of
        :math:`\alpha_i \phi(x_i)`).
        The sample just updated is never removed.
    max_iter : int, default=5
        Maximum number of passes over the training data in ``fit`` (each
        pass costs one kernel row per sample against the support vectors).
        ``partial_fit`` always makes one pass.
    tol : float or None, default=None
        Stop when the average online loss of an epoch is not below
        ``best_loss - tol`` for ``n_iter_no_change`` consecutive epochs (or,
        with ``early_stopping``, when the validation score does not exceed
        ``best_score + tol``).  ``None`` runs ``max_iter`` epochs.
    early_stopping : bool, default=False
        Hold out ``validation_fraction`` of the training data (stratified
        for a classifier) and stop when its score (accuracy, or R^2 for
        the regressor) stops improving.  ``fit`` only.
    validation_fraction : float, default=0.1
        Fraction of the training data held out for early stopping.
    %(n_iter_no_change)s
    %(shuffle)s
    verbose : int, default=0
        If positive, print one line per epoch (``Epoch i/max_iter``, average
        loss, validation score, time; ``partial_fit`` prints ``partial_fit
        call n``).  From 2 on the line adds the mistakes, updates, support
        vectors, removals and samples seen.
    %(random_state_shuffling)s
    warm_start : bool, default=False
        Whether ``fit`` continues from the previous support vectors."""


class KernelPassiveAggressiveClassifier(
    GrowingClassesMixin, NoProbabilityMixin, ClassifierMixin, _BaseKernelPA
):
    """Kernel Passive-Aggressive classifier (dual form, optional budget).

    The decision function is :math:`f(x) = \\sum_i \\alpha_i K(x_i, x)` over the
    support vectors :math:`x_i` (the samples that took a step).  Each step is
    the PA step of :class:`PassiveAggressiveClassifier` in the kernel's
    feature space, :math:`\\|x\\|^2` becoming :math:`K(x, x)`: the new sample's
    coefficient is :math:`y \\tau` with :math:`\\tau = \\ell / K(x, x)` (PA,
    ``C=np.inf``; :math:`\\ell` the loss),
    :math:`\\tau = \\min(C, \\ell / K(x, x))` (PA-I, ``loss="hinge"``) or
    :math:`\\tau = \\ell / (K(x, x) + 1 / (2C))` (PA-II,
    ``loss="squared_hinge"``).  With more than two classes the model keeps one
    coefficient per class and support vector, and each step enforces the
    margin against the highest-scoring wrong class (the max-loss rule):
    :math:`+\\tau` for the true class, :math:`-\\tau` for that rival, with
    :math:`K(x, x)` doubled.

    With ``kernel="linear"`` the model is exactly
    ``PassiveAggressiveClassifier(multiclass="max_loss", fit_intercept=False)``
    written in its dual form.  There is no separate intercept: use a kernel
    with a constant term (``"poly"`` with ``coef0``) or centre the data.

    Float32 input is converted to float64: the kernel PA kernel reads float64
    rows (the linear learners read float32 rows as they are).

    Parameters
    ----------
    C : float, default=1.0
        Aggressiveness: the bound on the step (PA-I) or the inverse weight
        of the squared slack (PA-II).  ``np.inf`` gives plain PA.
    %(loss_pa)s
    %(common)s
    class_weight : dict, "balanced" or None, default=None
        Weights per class; they multiply ``C`` for the samples of that class,
        as in :class:`PassiveAggressiveClassifier`.  ``"balanced"`` is
        computed from ``y`` in ``fit`` and refused by ``partial_fit``.
    %(new_classes)s

    Attributes
    ----------
    %(support_vectors_)s
    dual_coef_ : ndarray of shape (1, n_SV) if n_classes == 2 else \
            (n_classes, n_SV)
        Their coefficients ``alpha``.
    %(classes_)s
    %(n_features_in_)s
    %(feature_names_in_)s
    %(n_iter_)s
    %(loss_curve_)s
    %(t_)s

    See Also
    --------
    PassiveAggressiveClassifier : The linear (primal) form.
    KernelPassiveAggressiveRegressor : Kernel PA for regression.

    References
    ----------
    .. [1] K. Crammer, O. Dekel, J. Keshet, S. Shalev-Shwartz and Y. Singer,
       "Online Passive-Aggressive Algorithms", JMLR 7, 2006.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_pa import KernelPassiveAggressiveClassifier
    >>> rng = np.random.RandomState(0)
    >>> X = rng.uniform(-1, 1, size=(400, 2))
    >>> y = np.sign(X[:, 0] * X[:, 1])  # XOR: no linear model separates it
    >>> clf = KernelPassiveAggressiveClassifier(gamma=2.0)
    >>> clf.fit(X, y).score(X, y) > 0.9
    True
    """

    _parameter_constraints: dict = {
        **_BaseKernelPA._parameter_constraints,
        "loss": [StrOptions({"hinge", "squared_hinge"})],
        "class_weight": [StrOptions({"balanced"}), dict, None],
        "new_classes": [StrOptions({"error", "add"})],
    }

    def __init__(
        self,
        *,
        C=1.0,
        loss="hinge",
        kernel="rbf",
        gamma="scale",
        degree=None,
        coef0=None,
        kernel_params=None,
        budget=None,
        budget_policy="smallest",
        max_iter=5,
        tol=None,
        early_stopping=False,
        validation_fraction=0.1,
        n_iter_no_change=5,
        shuffle=True,
        verbose=0,
        random_state=None,
        warm_start=False,
        class_weight=None,
        new_classes="error",
    ):
        self.C = C
        self.loss = loss
        self.class_weight = class_weight
        self.new_classes = new_classes
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.kernel_params = kernel_params
        self.budget = budget
        self.budget_policy = budget_policy
        self.max_iter = max_iter
        self.tol = tol
        self.early_stopping = early_stopping
        self.validation_fraction = validation_fraction
        self.n_iter_no_change = n_iter_no_change
        self.shuffle = shuffle
        self.verbose = verbose
        self.random_state = random_state
        self.warm_start = warm_start

    def _rule(self):
        return Rule.BINARY if self.classes_.shape[0] <= 2 else Rule.MAX_LOSS

    def _slack(self):
        return Slack.HINGE if self.loss == "hinge" else Slack.SQUARED_HINGE

    def _n_columns(self):
        n_classes = self.classes_.shape[0]
        return 1 if n_classes == 2 else n_classes

    def _prepare_targets(self, y, *, classes, first_call, fitting):
        kind = type_of_target(y)
        if kind not in ("binary", "multiclass"):
            raise ValueError(
                f"Unknown label type: {kind!r}. This estimator takes binary or "
                "multiclass targets."
            )
        growing = not fitting and self.new_classes == "add"
        if fitting:
            classes_ = unique_labels(y)
        elif first_call and growing:
            classes_ = unique_labels(y if classes is None else np.union1d(classes, y))
        elif first_call:
            if classes is None:
                raise ValueError(
                    "classes must be passed on the first call to partial_fit: "
                    "the list of every label the stream may contain, e.g. "
                    "classes=np.unique(y_all); or set new_classes='add' to add "
                    "each label when the stream first meets it."
                )
            classes_ = unique_labels(classes)
        elif growing:
            new = added_classes(self.classes_, y, classes)
            if new.size:
                self._grow_classes(np.union1d(self.classes_, new))
            classes_ = self.classes_
        else:
            classes_ = self.classes_
            if classes is not None and not np.array_equal(
                classes_, unique_labels(classes)
            ):
                raise ValueError(
                    f"classes={classes!r} is not the same as on the first call to "
                    f"partial_fit, which was {classes_!r}."
                )
        if classes_.shape[0] < 2 and not growing:
            raise ValueError(
                "The number of classes has to be greater than one; got "
                f"{classes_.shape[0]} class."
            )
        unknown = np.setdiff1d(np.unique(y), classes_)
        if unknown.size:
            raise unknown_labels_error(self, unknown, classes_)
        if self.class_weight == "balanced" and not fitting:
            raise ValueError(
                "class_weight='balanced' is not supported by partial_fit: the "
                "class frequencies of the whole stream are unknown. Compute "
                "weights on a representative sample with "
                "sklearn.utils.compute_class_weight('balanced', ...) and pass "
                "them as a dict."
            )
        class_weight = self.class_weight
        if growing and isinstance(class_weight, dict):
            # a growing stream may weigh classes it has not met yet
            class_weight = {
                k: v for k, v in class_weight.items() if np.isin(k, classes_).any()
            }
        weights = checked_class_weight(class_weight, classes_, y)
        if classes_.shape[0] == 1:
            weights = np.zeros(1)  # one class met so far: no row moves the model
        self.classes_ = classes_
        self._expanded_class_weight = np.ascontiguousarray(weights, dtype=np.float64)

    def _stream_started(self):
        return hasattr(self, "dual_coef_")

    def _grow_classes(self, classes):
        """The dual coefficients of a model that meets new classes: one
        :class:`~sklearn_pa._core.targets.ClassGrowth` of their columns (a new
        class's coefficients are zero on every support vector; at the
        third class the binary coefficients ``a`` become ``-a/2`` and
        ``+a/2``, the max-loss rule's form of the binary model)."""
        growth = self._class_growth(classes)
        state = self._current_state()
        state["alpha"] = np.ascontiguousarray(growth.columns(state["alpha"]))
        self.classes_ = classes
        self._publish(state)

    def _effective_sample_weight(self, y, sample_weight):
        # a class weight multiplies C for the samples of its class, as in
        # PassiveAggressiveClassifier: fold it into the per-sample multiplier
        labels = np.searchsorted(self.classes_, y)
        return np.ascontiguousarray(
            sample_weight * self._expanded_class_weight[labels], dtype=np.float64
        )

    def _targets(self, y):
        labels = np.searchsorted(self.classes_, y).astype(np.int32)
        return np.ascontiguousarray(labels), np.zeros(1)

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, sample_weight=None):
        """Fit the model with up to ``max_iter`` passes over the data.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training data.
        y : array-like of shape (n_samples,)
            Target labels.
        sample_weight : array-like of shape (n_samples,), default=None
            Per-sample weights; each multiplies ``C`` for its sample (a zero
            weight skips the sample).

        Returns
        -------
        self : object
            Fitted estimator.
        """
        with atomic_update(self):
            return self._fit(X, y, sample_weight)

    @started_partial_fit_context("dual_coef_")
    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """Make one pass over a batch, continuing from the current model.

        The whole batch is validated before any coefficient moves: on an
        error the estimator is left exactly as it was.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            A batch of training data.
        y : array-like of shape (n_samples,)
            Its labels, all in ``classes``.
        classes : array-like of shape (n_classes,), default=None
            Every label the stream may contain.  Required on the first call,
            optional (but checked) afterwards.  With ``new_classes="add"``:
            optional, labels to add.
        sample_weight : array-like of shape (n_samples,), default=None
            Per-sample weights multiplying ``C``.

        Returns
        -------
        self : object
            Fitted estimator.
        """
        with atomic_update(self):
            return self._partial_fit_batch(X, y, classes, sample_weight)

    def _lean_targets(self, y, classes, n_samples):
        """The batch's labels for the lean path: labels of the fitted
        classes, ``classes`` (if given) the fitted ones, class weights that
        do not depend on the batch; else None."""
        if isinstance(self.class_weight, str):
            return None
        return lean_fitted_labels(self, y, classes, n_samples)

    @locked_read
    def decision_function(self, X):
        """The kernel expansion ``sum_i alpha_i K(x_i, x)``.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Samples.

        Returns
        -------
        scores : ndarray of shape (n_samples,) or (n_samples, n_classes)
            One score per sample for two classes (positive means
            ``classes_[1]``), one per class otherwise.
        """
        scores = self._decision(X)
        return scores.ravel() if scores.shape[1] == 1 else scores

    @locked_read
    def predict(self, X):
        """Predict class labels.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Samples.

        Returns
        -------
        y : ndarray of shape (n_samples,)
            Predicted labels.
        """
        scores = self.decision_function(X)
        if not np.isfinite(scores).all():
            # (argmax would name the first class for a NaN score)
            owner = type(self).__name__
            if not np.isfinite(self.dual_coef_).all():
                raise ValueError(
                    f"dual_coef_ of {owner} contains NaN or infinity; assign "
                    "finite values or refit with fit."
                )
            raise ValueError(
                f"The decision values of {owner} for X are NaN or infinity: "
                "the kernel of X and the support vectors overflows; scale X "
                "(StandardScaler, MaxAbsScaler) as the training data was."
            )
        if scores.ndim == 1:
            return self.classes_[(scores > 0).astype(int)]
        return self.classes_[np.argmax(scores, axis=1)]


class KernelPassiveAggressiveRegressor(RegressorMixin, _BaseKernelPA):
    """Kernel Passive-Aggressive regressor (epsilon-insensitive, dual form).

    The prediction is :math:`f(x) = \\sum_i \\alpha_i K(x_i, x)` over the support
    vectors.  On a sample predicted more than ``epsilon`` away from its
    target the new coefficient is :math:`\\operatorname{sign}(y - f(x)) \\, \\tau`
    with the step of :class:`PassiveAggressiveRegressor` and :math:`\\|x\\|^2`
    replaced by :math:`K(x, x)`: :math:`\\tau = \\ell / K(x, x)` (PA,
    ``C=np.inf``; :math:`\\ell` the loss), :math:`\\tau = \\min(C, \\ell / K(x, x))`
    (PA-I) or :math:`\\tau = \\ell / (K(x, x) + 1 / (2C))` (PA-II).  With
    ``kernel="linear"`` it is exactly
    ``PassiveAggressiveRegressor(fit_intercept=False)`` in dual form.

    Float32 input is converted to float64: the kernel PA kernel reads float64
    rows (the linear learners read float32 rows as they are).

    Parameters
    ----------
    %(C_pa)s
    loss : {"epsilon_insensitive", "squared_epsilon_insensitive"}, \
            default="epsilon_insensitive"
        PA-I or PA-II.
    %(epsilon_insensitive)s
    %(common)s

    Attributes
    ----------
    %(support_vectors_)s
    dual_coef_ : ndarray of shape (1, n_SV)
        Their coefficients ``alpha``.
    %(n_features_in_)s
    %(feature_names_in_)s
    %(n_iter_)s
    %(loss_curve_)s
    %(t_)s

    See Also
    --------
    PassiveAggressiveRegressor : The linear (primal) form.
    KernelPassiveAggressiveClassifier : Kernel PA for classification.

    References
    ----------
    .. [1] K. Crammer, O. Dekel, J. Keshet, S. Shalev-Shwartz and Y. Singer,
       "Online Passive-Aggressive Algorithms", JMLR 7, 2006.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_pa import KernelPassiveAggressiveRegressor
    >>> rng = np.random.RandomState(0)
    >>> X = rng.uniform(-3, 3, size=(300, 1))
    >>> y = np.sin(X).ravel()
    >>> reg = KernelPassiveAggressiveRegressor(gamma=1.0, epsilon=0.01)
    >>> reg.fit(X, y).score(X, y) > 0.95
    True
    """

    _parameter_constraints: dict = {
        **_BaseKernelPA._parameter_constraints,
        "loss": [StrOptions({"epsilon_insensitive", "squared_epsilon_insensitive"})],
        "epsilon": [Interval(Real, 0, None, closed="left")],
    }

    def __init__(
        self,
        *,
        C=1.0,
        loss="epsilon_insensitive",
        epsilon=0.1,
        kernel="rbf",
        gamma="scale",
        degree=None,
        coef0=None,
        kernel_params=None,
        budget=None,
        budget_policy="smallest",
        max_iter=5,
        tol=None,
        early_stopping=False,
        validation_fraction=0.1,
        n_iter_no_change=5,
        shuffle=True,
        verbose=0,
        random_state=None,
        warm_start=False,
    ):
        self.C = C
        self.loss = loss
        self.epsilon = epsilon
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.kernel_params = kernel_params
        self.budget = budget
        self.budget_policy = budget_policy
        self.max_iter = max_iter
        self.tol = tol
        self.early_stopping = early_stopping
        self.validation_fraction = validation_fraction
        self.n_iter_no_change = n_iter_no_change
        self.shuffle = shuffle
        self.verbose = verbose
        self.random_state = random_state
        self.warm_start = warm_start

    def _rule(self):
        return Rule.REGRESSION

    def _slack(self):
        if self.loss == "epsilon_insensitive":
            return Slack.HINGE
        return Slack.SQUARED_HINGE

    def _n_columns(self):
        return 1

    def _prepare_targets(self, y, *, classes, first_call, fitting):
        pass

    def _targets(self, y):
        return np.zeros(1, dtype=np.int32), np.ascontiguousarray(y, dtype=np.float64)

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, sample_weight=None):
        """Fit the model with up to ``max_iter`` passes over the data.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training data.
        y : array-like of shape (n_samples,)
            Target values.
        sample_weight : array-like of shape (n_samples,), default=None
            Per-sample weights multiplying ``C``.

        Returns
        -------
        self : object
            Fitted estimator.
        """
        with atomic_update(self):
            return self._fit(X, y, sample_weight)

    @started_partial_fit_context("dual_coef_")
    def partial_fit(self, X, y, sample_weight=None):
        """Make one pass over a batch, continuing from the current model.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            A batch of training data.
        y : array-like of shape (n_samples,)
            Its targets.
        sample_weight : array-like of shape (n_samples,), default=None
            Per-sample weights multiplying ``C``.

        Returns
        -------
        self : object
            Fitted estimator.
        """
        with atomic_update(self):
            return self._partial_fit(X, y, None, sample_weight)

    def _lean_targets(self, y, classes, n_samples):
        """The batch's targets for the lean path (finite numbers), or None."""
        return lean_targets(y, n_samples)

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
        return self._decision(X).ravel()


for _cls in (KernelPassiveAggressiveClassifier, KernelPassiveAggressiveRegressor):
    _cls.__doc__ = fill_text(_cls.__doc__, common=_COMMON_PARAMS_DOC)
del _cls
