"""Passive-Aggressive classifier and regressor (Crammer et al., JMLR 2006)."""

from numbers import Integral, Real

import numpy as np
from sklearn.linear_model._base import LinearClassifierMixin, SparseCoefMixin
from sklearn.utils._param_validation import Interval, StrOptions

from .._compiled._rules import Rule, Slack
from .._core.docs import fill_doc
from .._core.rules import linear_params
from .._core.targets import BinaryTargets, MultilabelTargets
from ..utils._probability import NoProbabilityMixin
from ._base import BaseOnlineLinear, OnlineLinearClassifierMixin
from ._mira import MIRAClassifier  # noqa: F401 (where older pickles find it)
from ._regression import OneColumnSparseCoefMixin, _OnlineRegressorMixin

__all__ = [
    "PassiveAggressiveClassifier",
    "PassiveAggressiveRegressor",
]

_MULTILABEL_RULES = {
    "thresholded": Rule.MULTILABEL,
    "ranking": Rule.MULTILABEL_RANKING,
}

_MULTICLASS_RULES = {
    "support": Rule.SUPPORT,
    "max_loss": Rule.MAX_LOSS,
    "prediction": Rule.PREDICTION,
    "ovr": Rule.OVR,
}


@fill_doc
class PassiveAggressiveClassifier(
    NoProbabilityMixin,
    OnlineLinearClassifierMixin,
    LinearClassifierMixin,
    SparseCoefMixin,
    BaseOnlineLinear,
):
    """Passive-Aggressive classifier: binary, and multiclass with exact SPA steps.

    On each example the weights move as little as possible (in Euclidean norm)
    so that the example gets a margin of at least 1 -- exactly for plain PA
    (``C=np.inf``), softly for PA-I (``loss="hinge"``: the step is capped at
    :math:`C`) and PA-II (``loss="squared_hinge"``: the step is damped by
    :math:`1 / (2C)`).

    With more than two classes the model keeps one weight vector per class and
    ``multiclass`` chooses which margin constraints each step enforces:

    - ``"support"`` (default): all :math:`K - 1` constraints
      :math:`w_y \\cdot x - w_u \\cdot x \\ge 1`
      solved exactly (SPA, Matsushima et al.); the classes that move are the
      *support classes*, found by sorting the per-class losses.  Extended here
      to PA-I and PA-II: with ``loss="hinge"`` the steps of the wrong classes
      sum to at most :math:`C`; with ``"squared_hinge"`` the shared slack is
      penalised by :math:`C \\xi^2`.
    - ``"max_loss"``: the single constraint against the highest-scoring wrong
      class (Crammer et al. 2006, max-loss multiclass update).
    - ``"prediction"``: the same single constraint, but only on a prediction
      mistake (prediction-based update).  A tie with a wrong class counts as a
      mistake.
    - ``"ovr"``: one binary PA per class, one-vs-rest, as scikit-learn's
      removed ``PassiveAggressiveClassifier`` did.

    ``"support"`` is the default, chosen by measurement: on USPS (10-fold
    cross-validation, 3 epochs, the default averaging) it reached 94.9%
    against 94.9% for ``"max_loss"``, 94.4% for ``"prediction"`` and 94.4%
    for ``"ovr"`` (93.3, 93.3, 91.5 and 92.3% unaveraged); on 20 Newsgroups
    (standard split, 5 epochs, ten shuffles) 81.2% against 81.3% for
    ``"max_loss"`` and 82.0% for ``"ovr"``.  It is the most accurate rule
    unaveraged and as accurate as ``"max_loss"`` averaged; ``"ovr"`` gains
    most of a point on text and loses half of one where classes are
    confusable, at the same cost per epoch (``python -m sklearn_pa.benchmark
    --dataset usps``).

    All rules run in one compiled pass per epoch that updates every class, on
    dense or CSR input.

    Parameters
    ----------
    C : float, default=1.0
        Aggressiveness: the bound on the step (PA-I) or the inverse weight of
        the squared slack (PA-II).  ``np.inf`` gives plain PA.  Smaller values
        suit noisy data.
    fit_intercept : bool, default=True
        Whether to learn an intercept.  The intercept is the weight of a
        constant feature ``intercept_scaling`` appended to every sample, so each
        step solves the PA problem exactly on ``[x, intercept_scaling]``.
        scikit-learn's removed class left the constant out of :math:`\\|x\\|^2`
        and shrank the intercept step by 0.01 on sparse input only; see the
        migration guide.
    intercept_scaling : float or "auto", default="auto"
        Value of the constant feature behind the intercept (as in
        :class:`~sklearn.svm.LinearSVC`); the intercept moves by
        ``intercept_scaling ** 2`` times the step.  ``"auto"`` uses the root
        mean square of the non-zero entries of the first batch (stored in
        ``intercept_scaling_``), so the constant is as large as a typical
        feature: about 0.08 on tf-idf text, where a constant of 1 would weigh
        as much as the whole document (20 Newsgroups, 5 epochs: 77.1% with
        1.0, 80.4% with "auto"), and about 1 on standardised data.
    max_iter : int, default=1000
        Maximum number of passes over the training data (epochs) in ``fit``.
        ``partial_fit`` always makes one pass.
    tol : float or None, default=1e-3
        Stopping criterion: stop when the average online loss of an epoch is
        not below ``best_loss - tol`` for ``n_iter_no_change`` consecutive
        epochs (or, with ``early_stopping``, when the validation accuracy does
        not exceed ``best_score + tol``).  ``None`` runs ``max_iter`` epochs.
    %(early_stopping)s
    %(validation_fraction)s
    %(n_iter_no_change)s
    %(shuffle)s
    verbose : int, default=0
        If positive, print one line per epoch (``Epoch i/max_iter``, average
        loss, validation score, time; ``partial_fit`` prints ``partial_fit
        call n``).  From 2 on the line adds the online mistakes, updates,
        weight norm, non-zeros, intercept and samples seen.
    %(loss_pa)s
    n_jobs : int, default=None
        Number of threads for ``multiclass="ovr"``, whose per-class problems are
        independent: the classes are split between threads that each run the
        compiled kernel without the GIL.  The other rules couple the classes in
        every step and run in one thread.  ``None`` means 1 unless in a
        :func:`joblib.parallel_backend` context; ``-1`` means all processors.
    %(random_state)s
    %(warm_start)s
    class_weight : dict, "balanced" or None, default=None
        Weights per class; they multiply the step for the examples of that
        class, as in scikit-learn (or ``C``, with ``weight_scaling="C"``).
        With ``multiclass="ovr"`` the weight of class ``k`` applies to the
        positive examples of column ``k`` only, as in scikit-learn.
    average : bool, int or "epoch", default="epoch"
        Which weights ``coef_`` and ``intercept_`` publish (the average is
        kept lazily: no per-sample copy of the weights).  ``"epoch"``
        (default): the average of the iterates of the last epoch of ``fit``,
        which restarts at every epoch; a ``partial_fit`` stream is averaged
        from its first sample (or from the last epoch of the ``fit`` it
        continues).  Averaging makes the model as accurate as scikit-learn's
        SGD and steadier from one shuffle to the next (see Notes), and
        averaging the last epoch only costs little: with ``tol=None`` the
        epochs before it are not averaged at all.  ``True``: the average over
        all steps, as scikit-learn's ``average=True``.  An int ``a``: the
        average from step ``a`` on.  ``False``: the last iterate, the
        default of scikit-learn's removed class.  An averaged model keeps
        the average beside the weights and its accumulator (three arrays of
        ``n_features * n_classes``).  After a ``partial_fit`` call the
        average is computed when ``coef_`` or ``intercept_`` is first read
        (by ``predict`` too), a pass over those arrays: a stream that
        predicts after every small batch on wide data (hashed text) runs
        faster with ``average=False``.
    multiclass : {"support", "max_loss", "prediction", "ovr"}, default="support"
        The multiclass rule (see above).  Ignored for two classes, where every
        rule is binary PA on one weight vector, and for a multilabel ``y``.
    cost_matrix : array-like of shape (n_classes, n_classes), default=None
        Cost-sensitive multiclass learning: ``cost_matrix[i, j] >= 0`` is the
        cost of predicting ``classes_[j]`` when the truth is ``classes_[i]``
        (zero diagonal).  The margin required against class ``j`` becomes
        ``sqrt(cost_matrix[y, j])`` for the ``"support"``, ``"max_loss"`` and
        ``"prediction"`` rules.  Refused for two classes (use
        ``class_weight``) and for ``"ovr"``, which compares no class pairs.
    multilabel : {"thresholded", "ranking"}, default="thresholded"
        The rule for a multilabel indicator ``y`` (see Notes); ignored for a
        1-D ``y``.  ``"ranking"`` is the label-ranking PA of Crammer et al.
        (2006, eqs. 31-38): only
        :math:`\\min_{r \\in \\text{relevant}} s_r -
        \\max_{u \\in \\text{irrelevant}} s_u \\ge 1` on the scores :math:`s`.
        ``"thresholded"`` adds a virtual label of score 0 between the relevant
        and the irrelevant labels, so that ``predict`` can return a label set.
    %(new_classes)s
    weight_scaling : {"step", "C"}, default="step"
        What ``sample_weight`` and ``class_weight`` multiply.  ``"step"``:
        the step itself, as scikit-learn's removed class and
        ``SGDClassifier`` did (a weight of 5 moves the weights five times as
        far, past the margin if need be).  ``"C"``: the bound of the step
        (PA-I) or the weight of the squared slack (PA-II), that is the
        weight of the sample's loss in the problem each step solves, so a
        weight never pushes a step past the margin, but it has no effect on
        a step that ``C`` does not bind (large ``C``, or rows of large norm);
        see the migration guide for the difference on imbalanced data.

    Notes
    -----
    A 2-D ``y`` of several columns is a multilabel indicator matrix: the
    model then keeps one prototype per label and ``classes_`` is
    ``np.arange(n_labels)`` (pass it as ``classes`` to the first
    ``partial_fit``).  With ``multilabel="thresholded"`` it ranks the relevant
    labels above a virtual label of score 0 and that above the irrelevant ones
    (margins 1 between relevant and irrelevant, 1/2 to the threshold), each
    step enforcing the most violated of these extreme constraints, and
    ``predict`` returns the indicator matrix of the labels scoring above 0.
    With ``multilabel="ranking"`` only the ranking margin is enforced, on the
    lowest-scoring relevant and the highest-scoring irrelevant label; the
    scores then order the labels but 0 is no learnt threshold, so read the
    model through ``decision_function`` and ranking metrics (``predict``
    still returns the labels scoring above 0).  See the user guide "The rest
    of the Passive-Aggressive family".

    Attributes
    ----------
    coef_ : ndarray of shape (1, n_features) if n_classes == 2 else \
            (n_classes, n_features)
        Weights (averaged if ``average``).
    intercept_ : ndarray of shape (1,) if n_classes == 2 else (n_classes,)
        Intercepts (averaged if ``average``).
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
    PassiveAggressiveRegressor : The same family for regression.
    sklearn.linear_model.SGDClassifier : ``learning_rate="pa1"`` is the
        one-vs-rest PA-I that scikit-learn keeps.

    References
    ----------
    .. [1] K. Crammer, O. Dekel, J. Keshet, S. Shalev-Shwartz and Y. Singer,
       "Online Passive-Aggressive Algorithms", JMLR 7, 2006.
    .. [2] S. Matsushima, N. Shimizu, K. Yoshida, T. Ninomiya and H. Nakagawa,
       "Exact Passive-Aggressive Algorithm for Multiclass Classification Using
       Support Class", SDM 2010.

    Examples
    --------
    >>> from sklearn.datasets import load_digits
    >>> from sklearn_pa import PassiveAggressiveClassifier
    >>> X, y = load_digits(return_X_y=True)
    >>> clf = PassiveAggressiveClassifier(max_iter=5, tol=None, random_state=0)
    >>> clf.fit(X[:1500], y[:1500]).score(X[1500:], y[1500:]) > 0.85
    True
    >>> clf.coef_.shape
    (10, 64)

    Cost-sensitive: predicting 1 for a true 0 costs ten times more.

    >>> import numpy as np
    >>> cost = np.ones((10, 10)) - np.eye(10)
    >>> cost[0, 1] = 10.0
    >>> clf = PassiveAggressiveClassifier(cost_matrix=cost, random_state=0)
    >>> clf.fit(X[:1500], y[:1500]).score(X[1500:], y[1500:]) > 0.85
    True

    Multilabel: ``y`` an indicator matrix, ``predict`` returns one.

    >>> Y = np.column_stack([y % 2, y >= 5, y == 0])
    >>> ml = PassiveAggressiveClassifier(random_state=0).fit(X, Y)
    >>> ml.predict(X[:2]).shape
    (2, 3)
    """

    _parameter_constraints: dict = {
        **BaseOnlineLinear._parameter_constraints,
        "loss": [StrOptions({"hinge", "squared_hinge"})],
        "n_jobs": [Integral, None],
        "class_weight": [StrOptions({"balanced"}), dict, None],
        "multiclass": [StrOptions(set(_MULTICLASS_RULES))],
        "cost_matrix": ["array-like", None],
        "multilabel": [StrOptions(set(_MULTILABEL_RULES))],
        "new_classes": [StrOptions({"error", "add"})],
        "weight_scaling": [StrOptions({"C", "step"})],
    }

    _fit_doc = {
        "y": """\
        y : array-like of shape (n_samples,) or (n_samples, n_labels)
            Target labels.
            A 2-D indicator matrix (dense or sparse) trains the multilabel
            ranking rule (see Notes).""",
        "sample_weight": """\
        sample_weight : array-like of shape (n_samples,), default=None
            Per-sample weights; each multiplies the step of its sample
            (``C``, with ``weight_scaling="C"``; a zero weight skips the
            sample).""",
        "partial_y": """\
        y : array-like of shape (n_samples,) or (n_samples, n_labels)
            Its labels, all in ``classes``.
            A 2-D indicator matrix (dense or sparse) trains the multilabel
            ranking rule (see Notes).""",
        "classes": """\
        classes : array-like of shape (n_classes,), default=None
            Every label the stream may contain.  Required on the first call,
            optional (but checked) afterwards.  For a multilabel ``y``, the
            label column indices ``np.arange(n_labels)``.  With
            ``new_classes="add"``: optional, labels to add.""",
        "partial_sample_weight": """\
        sample_weight : array-like of shape (n_samples,), default=None
            Per-sample weights multiplying the step (``C``, with
            ``weight_scaling="C"``).""",
    }

    # a 2-D indicator y trains the multilabel ranking rules
    _target_kinds = (MultilabelTargets,)

    def __init__(
        self,
        *,
        C=1.0,
        fit_intercept=True,
        intercept_scaling="auto",
        max_iter=1000,
        tol=1e-3,
        early_stopping=False,
        validation_fraction=0.1,
        n_iter_no_change=5,
        shuffle=True,
        verbose=0,
        loss="hinge",
        n_jobs=None,
        random_state=None,
        warm_start=False,
        class_weight=None,
        average="epoch",
        multiclass="support",
        cost_matrix=None,
        multilabel="thresholded",
        new_classes="error",
        weight_scaling="step",
    ):
        self.C = C
        self.fit_intercept = fit_intercept
        self.intercept_scaling = intercept_scaling
        self.max_iter = max_iter
        self.tol = tol
        self.early_stopping = early_stopping
        self.validation_fraction = validation_fraction
        self.n_iter_no_change = n_iter_no_change
        self.shuffle = shuffle
        self.verbose = verbose
        self.loss = loss
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.warm_start = warm_start
        self.class_weight = class_weight
        self.average = average
        self.multiclass = multiclass
        self.cost_matrix = cost_matrix
        self.multilabel = multilabel
        self.new_classes = new_classes
        self.weight_scaling = weight_scaling

    def _kernel_weight_step(self):
        return self.weight_scaling == "step"

    def _kernel_params(self):
        return linear_params(self._pa_rule(), slack=self._slack(), C=self.C)

    def _pa_rule(self):
        """The rule of the target strategy: binary, one of ``multiclass``
        or one of ``multilabel``."""
        strategy = self._target_strategy
        if isinstance(strategy, MultilabelTargets):
            return _MULTILABEL_RULES[self.multilabel]
        if isinstance(strategy, BinaryTargets):
            return Rule.BINARY
        return _MULTICLASS_RULES[self.multiclass]

    # ------------------------------------------------------ cost-sensitive
    def _check_cost_matrix(self):
        """Margins sqrt(rho(y, y')) from ``cost_matrix``, or None."""
        if self.cost_matrix is None:
            return None
        if isinstance(self._target_strategy, MultilabelTargets):
            raise ValueError(
                "cost_matrix is defined between the classes of a single-label "
                "problem; it cannot be used with a multilabel indicator y. Pass "
                "cost_matrix=None."
            )
        K = self.classes_.shape[0]
        if K == 2:
            raise ValueError(
                "cost_matrix needs at least 3 classes: with two classes every "
                "mistake has the same pair of labels, so the costs only reweigh "
                "the two classes. Use class_weight={label: cost} instead."
            )
        if self.multiclass == "ovr":
            raise ValueError(
                "cost_matrix sets the margin between pairs of classes, which "
                "multiclass='ovr' never compares (each class is trained against "
                "the rest). Use multiclass='support', 'max_loss' or 'prediction'."
            )
        try:
            cost = np.asarray(self.cost_matrix, dtype=np.float64)
        except (TypeError, ValueError) as exc:
            raise ValueError(
                "cost_matrix must be a (n_classes, n_classes) array of numbers."
            ) from exc
        if cost.shape != (K, K):
            raise ValueError(
                f"cost_matrix has shape {cost.shape}; expected ({K}, {K}): row y "
                f"and column y' give the cost of predicting y' when the truth is "
                f"y, in the order of classes_ = {self.classes_.tolist()!r}."
            )
        if not np.all(np.isfinite(cost)):
            raise ValueError(
                "cost_matrix contains NaN or infinity; every cost must be a "
                "finite number."
            )
        if np.any(cost < 0):
            raise ValueError(
                "cost_matrix has negative entries; costs must be >= 0 (the "
                "margin required against class y' is sqrt(cost[y, y']))."
            )
        if np.any(np.diag(cost) != 0):
            raise ValueError(
                "cost_matrix must have a zero diagonal: predicting the true "
                "class costs nothing. Set cost_matrix[k, k] = 0."
            )
        return np.ascontiguousarray(np.sqrt(cost))

    def _kernel_extras(self, n_columns):
        weight_pos, weight_neg, margins = super()._kernel_extras(n_columns)
        if getattr(self, "_cost_margins", None) is not None:
            margins = self._cost_margins
        return weight_pos, weight_neg, margins

    def _binary_split(self):
        # one-vs-rest: each class's column is its own binary classifier
        return 1.0 if self.multiclass == "ovr" else 0.5

    def _prepare_targets(self, y, *, classes, first_call, fitting):
        if not fitting and self.new_classes == "add" and self.cost_matrix is not None:
            raise ValueError(
                "cost_matrix is defined between a fixed set of classes; it "
                "cannot be used with new_classes='add'. Pass cost_matrix=None, "
                "or new_classes='error' with every class given as classes."
            )
        super()._prepare_targets(
            y, classes=classes, first_call=first_call, fitting=fitting
        )
        # costs between classes: refused for a multilabel y (see
        # _check_cost_matrix), after the targets themselves are checked
        self._cost_margins = self._check_cost_matrix()

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_label = True
        return tags

    def _slack(self):
        return Slack.HINGE if self.loss == "hinge" else Slack.SQUARED_HINGE


@fill_doc
class PassiveAggressiveRegressor(
    _OnlineRegressorMixin, OneColumnSparseCoefMixin, BaseOnlineLinear
):
    """Passive-Aggressive regressor with the epsilon-insensitive loss.

    On each example the weights move as little as possible so that the
    prediction falls within ``epsilon`` of the target: exactly for plain PA
    (``C=np.inf``), with the step capped at :math:`C` for PA-I
    (``loss="epsilon_insensitive"``) or damped by :math:`1 / (2C)` for PA-II
    (``loss="squared_epsilon_insensitive"``).

    Parameters
    ----------
    %(C_pa)s
    %(fit_intercept)s
    intercept_scaling : float or "auto", default="auto"
        Value of that constant feature; the intercept moves by its square
        times the step.  ``"auto"`` uses the root mean square of the non-zero
        entries of the first batch (``intercept_scaling_``).
    max_iter : int, default=1000
        Maximum number of epochs in ``fit``.
    tol : float or None, default=1e-3
        Stop when the average epoch loss is not below ``best_loss - tol`` for
        ``n_iter_no_change`` epochs (validation R^2 with ``early_stopping``).
    %(early_stopping_r2)s
    %(validation_fraction)s
    %(n_iter_no_change)s
    %(shuffle)s
    verbose : int, default=0
        If positive, print one line per epoch (``Epoch i/max_iter``, average
        loss, validation score, time; ``partial_fit`` prints ``partial_fit
        call n``).  From 2 on the line adds the updates and norms.
    loss : {"epsilon_insensitive", "squared_epsilon_insensitive"}, \
            default="epsilon_insensitive"
        PA-I or PA-II.
    %(epsilon_insensitive)s
    %(random_state)s
    %(warm_start)s
    %(average)s
    weight_scaling : {"step", "C"}, default="step"
        What ``sample_weight`` multiplies: ``"step"``, the step itself, as
        scikit-learn's removed class and ``SGDRegressor`` did; ``"C"``, the
        bound of the step (PA-I) or the weight of the squared slack (PA-II),
        so a weight never pushes a step past the insensitive zone, but has
        no effect on a step that ``C`` does not bind.

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
    PassiveAggressiveClassifier : The same family for classification.

    References
    ----------
    .. [1] K. Crammer, O. Dekel, J. Keshet, S. Shalev-Shwartz and Y. Singer,
       "Online Passive-Aggressive Algorithms", JMLR 7, 2006, section 5.

    Examples
    --------
    >>> from sklearn.datasets import make_regression
    >>> from sklearn_pa import PassiveAggressiveRegressor
    >>> X, y = make_regression(n_features=4, noise=1.0, random_state=0)
    >>> reg = PassiveAggressiveRegressor(C=0.1, random_state=0).fit(X, y)
    >>> reg.score(X, y) > 0.99
    True
    """

    _parameter_constraints: dict = {
        **BaseOnlineLinear._parameter_constraints,
        "loss": [StrOptions({"epsilon_insensitive", "squared_epsilon_insensitive"})],
        "epsilon": [Interval(Real, 0, None, closed="left")],
        "weight_scaling": [StrOptions({"C", "step"})],
    }

    _fit_doc = {
        "coef_init": """\
        coef_init : ndarray of shape (n_features,), default=None
            Initial weights.""",
        "sample_weight": """\
        sample_weight : array-like of shape (n_samples,), default=None
            Per-sample weights multiplying the step (``C``, with
            ``weight_scaling="C"``).""",
    }

    def __init__(
        self,
        *,
        C=1.0,
        fit_intercept=True,
        intercept_scaling="auto",
        max_iter=1000,
        tol=1e-3,
        early_stopping=False,
        validation_fraction=0.1,
        n_iter_no_change=5,
        shuffle=True,
        verbose=0,
        loss="epsilon_insensitive",
        epsilon=0.1,
        random_state=None,
        warm_start=False,
        average=False,
        weight_scaling="step",
    ):
        self.C = C
        self.fit_intercept = fit_intercept
        self.intercept_scaling = intercept_scaling
        self.max_iter = max_iter
        self.tol = tol
        self.early_stopping = early_stopping
        self.validation_fraction = validation_fraction
        self.n_iter_no_change = n_iter_no_change
        self.shuffle = shuffle
        self.verbose = verbose
        self.loss = loss
        self.epsilon = epsilon
        self.random_state = random_state
        self.warm_start = warm_start
        self.average = average
        self.weight_scaling = weight_scaling

    def _kernel_weight_step(self):
        return self.weight_scaling == "step"

    def _kernel_params(self):
        return linear_params(
            Rule.REGRESSION, slack=self._slack(), C=self.C, epsilon=self.epsilon
        )

    def _slack(self):
        return (
            Slack.HINGE if self.loss == "epsilon_insensitive" else Slack.SQUARED_HINGE
        )
