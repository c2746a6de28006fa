"""Online Bayes Point Machines and the semi-supervised ss-PA / ss-SPA."""

from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, _fit_context, clone, is_classifier
from sklearn.linear_model._base import LinearClassifierMixin
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import HasMethods, Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from .._core.batch import (
    ReadsUnderLockMixin,
    atomic_update,
    check_batch,
    check_batch_sample_weight,
    check_csr_structure,
    check_rows,
    check_sample_count,
    check_state_array,
    check_warm_start_shape,
    locked_read,
)
from .._core.docs import fill_doc
from .._core.driver import run_epochs, validation_scorer
from .._core.growth import GrowingClassesMixin
from .._core.pickled_state import CheckedStateMixin
from .._core.session import remember_call, session_of, started_partial_fit_context
from .._core.targets import ClassGrowth, added_classes, grows_classes
from ..linear._base import BaseOnlineLinear
from ..linear._passive_aggressive import PassiveAggressiveClassifier
from ..utils._probability import NoProbabilityMixin
from ._epochs import (
    BayesPointState,
    _BayesPointEpochs,
    check_copies_memory,
    check_rule,
    labeled_validation_split,
    prepare_classes,
)
from ._lean import _PUBLISHED, LeanBayesPointMixin
from ._unlabeled import (
    UNLABELED,
    _unlabeled_mask,
    warn_if_marker_looks_like_a_class,
)

__all__ = ["OnlineBayesPointClassifier"]


@fill_doc
class OnlineBayesPointClassifier(
    CheckedStateMixin,
    LeanBayesPointMixin,
    GrowingClassesMixin,
    NoProbabilityMixin,
    LinearClassifierMixin,
    ReadsUnderLockMixin,
    BaseEstimator,
):
    """Online Bayes Point Machine over a first-order learner; semi-supervised.

    ``n_estimators`` copies of the linear learner ``estimator`` (:math:`M`) see the
    same stream.  On a labeled sample each copy takes the base rule's step
    with probability ``update_probability`` (an independent Bernoulli draw
    per copy and sample), so the copies drift apart like samples from the
    version space; the prediction uses their weighted average, an estimate
    of its centre, the Bayes point (Harrington et al. 2003):

    .. math::

        \\tilde w_v \\propto \\sum_r c_r w_{r,v}, \\qquad
        c_r = 2^{-\\#\\mathrm{miss}(r)} \\;(\\texttt{weighting="mistakes"})
        \\text{ or } 1 \\;(\\texttt{"uniform"}),

    where :math:`\\#\\mathrm{miss}(r)` counts copy :math:`r`'s online mistakes on
    the labeled samples.

    A sample labeled ``-1`` is **unlabeled** (scikit-learn's convention, as in
    :class:`~sklearn.semi_supervised.SelfTrainingClassifier`).  With
    ``unlabeled_step`` :math:`= c > 0` (ss-PA, or ss-SPA with the support-class rule;
    Matsushima et al.) every copy moves its score on it toward the copies'
    mean:

    .. math::

        m_{r,v} = \\frac{w_{r,v} \\cdot x}{\\|x\\|^2}, \\quad
        \\bar m_v = \\frac{1}{M}\\sum_r m_{r,v}, \\quad
        w_{r,v} \\leftarrow w_{r,v} + c\\,(\\bar m_v - m_{r,v})\\, x,

    so that copy :math:`r`'s score becomes :math:`(1 - c) f_r + c \\bar f`:
    :math:`c = 1` makes every copy agree on :math:`x`, :math:`c = 0` ignores
    unlabeled samples (supervised OBPM).  For :math:`c \\in [0, 2]` the spread
    of the copies never grows, which keeps the mistake bound of the supervised
    algorithm: on data separable by :math:`u` with margin 1,
    :math:`\\|x\\| \\le R` and plain PA or SPA as the base rule, the copies make
    at most :math:`2 M R^2 \\sum_v \\|u_v\\|^2` mistakes on the labeled samples
    at which they learn.

    One compiled pass over each batch updates all :math:`M` copies; their weights
    are one ``(n_features, M * n_classes)`` block of float64, i.e.
    ``8 * M * n_features * n_classes`` bytes (250 MB for M = 30, 130 000
    features and 8 classes).  The size is checked against the available
    memory before anything is allocated, and refused with a ``MemoryError``
    that says what to change when it does not fit.

    Float32 input is converted to float64: the Bayes point kernel reads
    float64 rows (its base learners alone read float32 rows as they are).

    Parameters
    ----------
    estimator : PassiveAggressiveClassifier, default=None
        The base learner, unfitted: its step rule (``C``, ``loss``,
        ``multiclass``), ``class_weight``, ``fit_intercept`` and
        ``intercept_scaling`` are used by every copy.  Its epoch parameters
        (``max_iter``, ``tol``, ``shuffle``, ``random_state``,
        ``warm_start``, ``n_jobs``) are ignored: this estimator's own rule
        the stream.  ``early_stopping`` and an ``average`` of True or an int
        are not supported and are refused; the default ``average="epoch"``
        is not used (each copy keeps its last iterate: the Bayes point is
        itself an average).  ``None`` means
        ``PassiveAggressiveClassifier(multiclass="support")`` (PA-I with
        ``C=1``, SPA on more than two classes); its parameters can be tuned
        as ``estimator__C`` with the default too (see :meth:`set_params`).
        Its ``new_classes="add"`` makes ``partial_fit`` add a label met for
        the first time (``-1`` marks no class), with zero columns in every
        copy (see the user guide, "Streams whose labels are not known in
        advance").
    n_estimators : int, default=30
        Number of copies :math:`M`.
    update_probability : float, default=0.8
        Probability :math:`\\pi` that a copy learns from a labeled sample, in
        :math:`(0, 1]`.  With 1 every copy is the base learner itself.
    weighting : {"mistakes", "uniform"}, default="mistakes"
        Weight of each copy :math:`r` in the average: :math:`2^{-m_r}` with
        :math:`m_r` = ``n_mistakes_[r]``, or equal.
    unlabeled_step : float, default=0.0
        The step :math:`c \\in [0, 2]` on unlabeled samples; 0 is supervised
        OBPM.  A sample weight multiplies it (the product is capped at 2).
    max_iter : int, default=1000
        Maximum number of passes over the training data in ``fit``;
        ``partial_fit`` always makes one pass.
    tol : float or None, default=1e-3
        Stop ``fit`` when the average online loss on the labeled samples (over
        the copies) is not below ``best_loss - tol`` for ``n_iter_no_change``
        consecutive epochs (or, with ``early_stopping``, when the validation
        accuracy does not exceed ``best_score + tol``).  ``None`` runs
        ``max_iter`` epochs.
    early_stopping : bool, default=False
        Hold out a stratified ``validation_fraction`` of the labeled samples
        (unlabeled ones all stay in training) and stop ``fit`` when the
        accuracy of the Bayes point on them stops improving.
    validation_fraction : float, default=0.1
        Fraction of the labeled samples held out for early stopping.
    %(n_iter_no_change)s
    %(shuffle)s
    verbose : int, default=0
        If positive, print one line per epoch (``Epoch i/max_iter``, average
        loss, time; ``partial_fit`` prints ``partial_fit call n``).  From 2
        on the line adds the mistakes over the copies, updates, labeled and
        unlabeled samples and samples seen.
    random_state : int, RandomState instance or None, default=None
        Seeds the shuffling and the Bernoulli draws (drawn per batch in numpy,
        so results are reproducible).
    warm_start : bool, default=False
        Whether ``fit`` continues from the previous copies (and their mistake
        counts) when the features and classes match.

    Attributes
    ----------
    coef_ : ndarray of shape (1, n_features) if n_classes == 2 else \
            (n_classes, n_features)
        The weighted average of the copies' weights (the Bayes point).
    intercept_ : ndarray of shape (1,) if n_classes == 2 else (n_classes,)
        The weighted average of the copies' intercepts.
    copies_coef_ : ndarray of shape (n_estimators, n_columns, n_features)
        Every copy's weights (a read-only view of the shared block; ``n_columns``
        is 1 for two classes, else n_classes).
    copies_intercept_ : ndarray of shape (n_estimators, n_columns)
        Every copy's intercepts.
    copy_weights_ : ndarray of shape (n_estimators,)
        The weights of the copies in the average (they sum to 1).
    n_mistakes_ : ndarray of shape (n_estimators,)
        Online prediction mistakes of each copy on the labeled samples seen.
    classes_ : ndarray of shape (n_classes,)
        The class labels (never -1).
    %(n_features_in_)s
    %(feature_names_in_)s
    intercept_scaling_ : float
        The constant feature behind the intercept (see the base learner).
    %(n_iter_)s
    %(loss_curve_)s
    %(t_)s

    See Also
    --------
    PassiveAggressiveClassifier : The base learner.
    sklearn.semi_supervised.SelfTrainingClassifier : Batch semi-supervised
        learning with the same ``-1`` convention.

    References
    ----------
    .. [1] E. Harrington, R. Herbrich, J. Kivinen, J. Platt and R. Williamson,
       "Online Bayes Point Machines", PAKDD 2003.
    .. [2] S. Matsushima, N. Shimizu, I. Sato, T. Ninomiya and H. Nakagawa,
       "Online Semisupervised Learning on Multiclass Classification" (in
       Japanese), IPSJ SIG Technical Report, 2009.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.datasets import load_digits
    >>> from sklearn_pa import OnlineBayesPointClassifier
    >>> X, y = load_digits(return_X_y=True)
    >>> y_partial = y[:1500].copy()
    >>> y_partial[300:] = -1  # unlabeled
    >>> clf = OnlineBayesPointClassifier(
    ...     n_estimators=10, unlabeled_step=0.5, max_iter=5, tol=None,
    ...     random_state=0)
    >>> clf.fit(X[:1500], y_partial).score(X[1500:], y[1500:]) > 0.8
    True
    >>> clf.copies_coef_.shape
    (10, 10, 64)
    """

    #: the copies saved (see ``_core/pickled_state.py``): their weights side
    #: by side (``w`` columns), ``m`` copies; the Bayes point when published
    _state_shapes = {
        "_W": ("d", "w"),
        "_b": ("w",),
        "_class_weight": ("c",),
        "copy_weights_": ("m",),
        "n_mistakes_": ("m",),
        "coef_": ("k", "d"),
        "intercept_": ("k",),
    }

    # Checks of scikit-learn's suite that cannot apply, with the reason
    # (read by the package's common tests).
    _expected_failed_checks = {
        "check_classifiers_classes": (
            "-1 marks an unlabeled sample (scikit-learn's convention for "
            "semi-supervised learning); the check fits on the labels [-1, 1] and "
            "exempts scikit-learn's own semi-supervised classifiers by name, as "
            "there is no estimator tag for semi-supervision"
        ),
    }

    _parameter_constraints: dict = {
        "estimator": [HasMethods(["fit", "partial_fit"]), None],
        "n_estimators": [Interval(Integral, 1, None, closed="left")],
        "update_probability": [Interval(Real, 0, 1, closed="right")],
        "weighting": [StrOptions({"mistakes", "uniform"})],
        "unlabeled_step": [Interval(Real, 0, 2, closed="both")],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "tol": [Interval(Real, None, None, closed="neither"), None],
        "early_stopping": ["boolean"],
        "validation_fraction": [Interval(Real, 0, 1, closed="neither")],
        "n_iter_no_change": [Interval(Integral, 1, None, closed="left")],
        "shuffle": ["boolean"],
        "verbose": ["verbose"],
        "random_state": ["random_state"],
        "warm_start": ["boolean"],
    }

    def __init__(
        self,
        estimator=None,
        *,
        n_estimators=30,
        update_probability=0.8,
        weighting="mistakes",
        unlabeled_step=0.0,
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
        self.estimator = estimator
        self.n_estimators = n_estimators
        self.update_probability = update_probability
        self.weighting = weighting
        self.unlabeled_step = unlabeled_step
        self.max_iter = max_iter
        self.tol = tol
        self.early_stopping = early_stopping
        self.validation_fraction = validation_fraction
        self.n_iter_no_change = n_iter_no_change
        self.shuffle = shuffle
        self.verbose = verbose
        self.random_state = random_state
        self.warm_start = warm_start

    # ---------------------------------------------------------------- base
    @staticmethod
    def _default_estimator():
        return PassiveAggressiveClassifier(multiclass="support")

    def set_params(self, **params):
        """Set the parameters of this estimator and of its base learner.

        Nested parameters of the default base learner (``estimator=None``)
        can be set too, as ``GridSearchCV`` does with
        ``{"estimator__C": [0.1, 1]}``: the default is then made explicit,
        ``PassiveAggressiveClassifier(multiclass="support")``, before the
        nested parameters are set on it.

        Parameters
        ----------
        **params : dict
            Estimator parameters, ``estimator__<name>`` for the base learner's.

        Returns
        -------
        self : OnlineBayesPointClassifier
            This estimator.
        """
        nested = {k: v for k, v in params.items() if k.startswith("estimator__")}
        if nested and params.get("estimator", self.estimator) is None:
            params = {k: v for k, v in params.items() if k not in nested}
            params["estimator"] = self._default_estimator()
            super().set_params(**params)
            return super().set_params(**nested)
        return super().set_params(**params)

    def _make_base(self):
        base = (
            self._default_estimator()
            if self.estimator is None
            else clone(self.estimator)
        )
        if not (
            isinstance(base, BaseOnlineLinear)
            and is_classifier(base)
            and hasattr(base, "_rule")
            and hasattr(base, "_kernel_extras")
        ):
            raise TypeError(
                "estimator must be a first-order linear classifier of sklearn_pa "
                f"such as PassiveAggressiveClassifier; got {type(base).__name__}."
            )
        base._validate_params()
        # (its errors name this estimator: unknown_labels_error)
        base._owner = type(self).__name__
        if base.average == "epoch":
            # the base estimator's default: the copies keep their iterates
            # (the Bayes point is itself an average)
            base.set_params(average=False)
        elif base.average:
            raise ValueError(
                "The copies cannot average their iterates: set average=False on "
                "the base estimator (the Bayes point is itself an average)."
            )
        if base.early_stopping:
            raise ValueError(
                "early_stopping on the base estimator is not supported: the "
                "copies share one stream. Set early_stopping=False on it and "
                "use early_stopping / max_iter / tol of "
                "OnlineBayesPointClassifier."
            )
        return base

    # ---------------------------------------------------------- validation
    def _validate_batch(self, X, y, sample_weight, reset):
        X, y = check_rows(self, X, y, reset=reset, multi_output=False)
        sample_weight = check_batch_sample_weight(
            sample_weight,
            X,
            "it multiplies the step (or C, with the base learner's "
            "weight_scaling='C') for each labeled sample and unlabeled_step "
            "for each unlabeled one",
            # (all-zero weights: refused by fit, a no-op on a later batch)
            all_zero=not reset,
        )
        return X, y, sample_weight

    def _prepare_targets(self, y, classes, first_call, fitting):
        """Nothing here: the classes are prepared with the base learner and
        the copies once the batch is checked (``_prepare_batch``, ``_fit``),
        as the copies' columns follow them."""

    _prepare_classes = prepare_classes
    _check_rule = staticmethod(check_rule)

    def _check_memory(self, n_features, n_columns):
        check_copies_memory(self.n_estimators, n_features, n_columns)

    # ------------------------------------------------------------ fitting
    def _labels(self, y, unlabeled):
        labels = np.full(y.shape[0], UNLABELED, dtype=np.int32)
        if np.any(~unlabeled):
            labels[~unlabeled] = np.searchsorted(self.classes_, y[~unlabeled])
        return labels

    def _check_copies(self, n_features, n_columns):
        """Check the copies' state against the model's dimensions before the
        kernel reads it (a user may have assigned ``n_mistakes_``)."""
        M = self.n_estimators
        if self._W.shape[1] != M * n_columns:
            raise ValueError(
                f"The model holds {self._W.shape[1]} weight columns, not "
                f"n_estimators={M} copies of {n_columns}: n_estimators changed "
                "since the first call to partial_fit. Set it back, or refit "
                "with fit."
            )
        self._W = check_state_array(
            self, "the copies' weights", self._W, (n_features, M * n_columns)
        )
        self._b = check_state_array(
            self, "the copies' intercepts", self._b, (M * n_columns,)
        )
        self.n_mistakes_ = check_state_array(
            self, "n_mistakes_", self.n_mistakes_, (M,), dtype=np.int64
        )
        check_sample_count(self)

    _validation_split = labeled_validation_split

    def _score_for_stopping(self, X, y, sample_weight):
        return self.score(X, y, sample_weight=sample_weight)

    def _run(
        self,
        X,
        labels,
        sample_weight,
        base,
        *,
        max_iter,
        stopping,
        rng,
        train_idx=None,
        validation=None,
        scores_out=None,
        trusted=False,
    ):
        """Run up to ``max_iter`` epochs over the rows ``train_idx`` (all by
        default) through the epoch driver; returns the number of epochs.
        ``validation`` scores the published Bayes point for early
        stopping; ``scores_out`` (one epoch, no shuffling) receives each
        row's scores before its update.  ``trusted``: the copies' arrays
        are those the last call published (the lean path), not checked
        again."""
        n_columns = self._n_columns()
        if trusted:
            check_sample_count(self)
        else:
            self._check_copies(X.shape[1], n_columns)
        if train_idx is None:
            train_idx = np.arange(X.shape[0])
        adapter = _BayesPointEpochs.for_batch(
            self, X, labels, sample_weight, base, rng, scores_out=scores_out
        )
        n_labeled_rows = int(np.count_nonzero(labels[train_idx] >= 0))
        run = run_epochs(
            self,
            adapter,
            train_idx=train_idx,
            max_iter=max_iter,
            rng=rng,
            shuffle=self.shuffle and scores_out is None,
            stopping=stopping,
            validation=validation,
            t_start=int(self.t_) - 1,
            n_rows_per_epoch=n_labeled_rows * self.n_estimators,
            partial_fit=not stopping,
        )
        return run.n_iter

    def _publish(self, *, lazy=False):
        """Publish the copies' weights ``copy_weights_`` and the Bayes point
        ``coef_``, ``intercept_``; with ``lazy`` (a ``partial_fit`` call)
        the Bayes point, a product over the whole model, is left to be
        computed when first read (``__getattr__``), exactly as it would be
        now: the copies do not move in between."""
        M = self.n_estimators
        if self.weighting == "uniform":
            c = np.ones(M)
        else:
            # 2 ** -n_mistakes, relative to the best copy (no underflow to 0/0)
            c = np.exp2(-(self.n_mistakes_ - self.n_mistakes_.min()).astype(float))
        c /= c.sum()
        self.copy_weights_ = c
        values = self.__dict__
        if lazy:
            values.pop("coef_", None)
            values.pop("intercept_", None)
            self._bayes_point_pending = True
            return
        values.pop("_bayes_point_pending", None)
        self.coef_, self.intercept_ = self._bayes_point()

    @property
    def copies_coef_(self):
        check_is_fitted(self, "_W")
        n_features, MK = self._W.shape
        view = self._W.T.reshape(self.n_estimators, MK // self.n_estimators, -1)
        view = view.view()
        view.flags.writeable = False
        return view

    @property
    def copies_intercept_(self):
        check_is_fitted(self, "_b")
        view = self._b.reshape(self.n_estimators, -1).view()
        view.flags.writeable = False
        return view

    def _start(self, base, X, n_columns):
        self._check_memory(X.shape[1], n_columns)
        self._W = np.zeros((X.shape[1], self.n_estimators * n_columns))
        self._b = np.zeros(self.n_estimators * n_columns)
        self.n_mistakes_ = np.zeros(self.n_estimators, dtype=np.int64)
        self.t_ = 1.0
        base._set_intercept_scaling(X)
        self.intercept_scaling_ = base.intercept_scaling_

    def _fit(self, X, y, sample_weight):
        base = self._make_base()
        X, y, sample_weight = check_batch(
            self, X, y, None, sample_weight, True, fitting=True
        )
        unlabeled = _unlabeled_mask(y)
        warn_if_marker_looks_like_a_class(y, unlabeled)
        base = self._prepare_classes(
            base, y, unlabeled, None, first_call=True, fitting=True
        )
        self._check_rule(base)
        n_columns = 1 if base.classes_.shape[0] == 2 else base.classes_.shape[0]
        warm = self.warm_start and hasattr(self, "_W")
        if warm:
            # as scikit-learn: continuing from a model of another size is an
            # error, not a silent restart
            check_warm_start_shape(
                self,
                "weights of the copies",
                self._W.shape,
                (X.shape[1], self.n_estimators * n_columns),
            )
            if not np.array_equal(self.classes_, base.classes_):
                raise ValueError(
                    f"Provided classes_ does not match dataset: the model has "
                    f"classes {self.classes_.tolist()!r}, y has "
                    f"{base.classes_.tolist()!r}. Set warm_start=False to start "
                    "over with other classes."
                )
        self.classes_ = base.classes_
        self._class_weight = base._expanded_class_weight
        if not warm:
            self._start(base, X, n_columns)
        self._rng = check_random_state(self.random_state)
        train_idx, val_idx = self._validation_split(y, unlabeled, sample_weight)
        validation = None
        if val_idx is not None:
            validation = validation_scorer(self, X, y, sample_weight, val_idx)
        self.n_iter_ = self._run(
            X,
            self._labels(y, unlabeled),
            sample_weight,
            base,
            max_iter=self.max_iter,
            stopping=True,
            rng=self._rng,
            train_idx=train_idx,
            validation=validation,
        )
        self._publish()
        remember_call(self, _PUBLISHED)
        # (fit's class weights may be "balanced")
        session_of(self).bayes_base = None
        return self

    def _partial_fit(self, X, y, classes, sample_weight, *, record_scores=False):
        """One pass over a batch; returns ``self``, or, with
        ``record_scores``, the ``(n_samples, n_columns)`` scores of the Bayes
        point on each row before its update (see ``__sklearn_pa_prequential__``).

        The batch is checked once, the cheap branch first: a later call
        whose parameters (the base learner's included) and copies are those
        of the last call, on a batch in the kernels' form whose rows all
        carry fitted labels, is checked in O(the batch) (``_lean_batch``)
        and reuses the base learner that call prepared; any other call is
        validated in full."""
        first_call = not hasattr(self, "_W")
        batch = check_batch(self, X, y, classes, sample_weight, first_call)
        X, y, sample_weight = batch
        validated = batch.snapshot is not None
        if not first_call and batch.weighs_nothing:
            # a no-op (with record_scores: the scores of the Bayes point as
            # it is)
            if not record_scores:
                return self
            return self.decision_function(X).reshape(X.shape[0], -1)
        if validated:
            base = self._prepare_batch(self._make_base(), X, y, classes, first_call)
            labels = self._labels(y, _unlabeled_mask(y))
        else:
            # (the base learner the last call prepared, its targets adopted)
            base = session_of(self).bayes_base
            labels = np.searchsorted(self.classes_, y).astype(np.int32)
        scores_out = None
        if record_scores:
            scores_out = np.empty((X.shape[0], self._n_columns()))
        self.n_iter_ = self._run(
            X,
            labels,
            sample_weight,
            base,
            max_iter=1,
            stopping=False,
            rng=self._rng,
            scores_out=scores_out,
            trusted=not validated,
        )
        # (every partial_fit call leaves the Bayes point to be computed
        # when read: a stream's model is the same whichever branch checked
        # each batch)
        self._publish(lazy=True)
        remember_call(self, _PUBLISHED, validated=validated)
        session_of(self).bayes_base = base
        if record_scores:
            return scores_out
        return self

    def _n_columns(self):
        """The weight columns of each copy: 1 for two classes."""
        return 1 if self.classes_.shape[0] == 2 else self.classes_.shape[0]

    def _prepare_batch(self, base, X, y, classes, first_call):
        """The classes, the base learner ``base`` and the copies for a
        batch the full validation checked: adds the classes a growing base
        learner meets, adopts the targets (the first call starts the
        copies), checks that the copies still fit the model.  Returns the
        base learner, its targets adopted."""
        unlabeled = _unlabeled_mask(y)
        warn_if_marker_looks_like_a_class(y, unlabeled)
        if not first_call and grows_classes(base):
            new = added_classes(self.classes_, y[~unlabeled], classes)
            if new.size:
                self._grow_classes(np.union1d(self.classes_, new))
        base = self._prepare_classes(
            base, y, unlabeled, classes, first_call=first_call, fitting=False
        )
        self._check_rule(base)
        if first_call:
            self.classes_ = base.classes_
            self._class_weight = base._expanded_class_weight
            self._start(base, X, self._n_columns())
            self._rng = check_random_state(self.random_state)
        else:
            n_copies = self._W.shape[1] // self._n_columns()
            if n_copies != self.n_estimators:
                raise ValueError(
                    f"n_estimators changed since the first call to partial_fit: "
                    f"n_estimators={self.n_estimators!r} differs from the "
                    f"{n_copies} copies the stream started with; set it back, "
                    "or start again with fit."
                )
            base.intercept_scaling_ = self.intercept_scaling_
        return base

    # ------------------------------------------------------ growing classes
    def _grows_classes(self):
        # the base estimator's new_classes="add" makes the copies add classes
        return grows_classes(self.estimator)

    def _stream_started(self):
        return hasattr(self, "_W")

    def _labelled(self, y):
        return ~_unlabeled_mask(y)

    def _binary_split(self):
        return self._make_base()._binary_split()

    def _grow_classes(self, classes):
        """Every copy's weight columns read through one
        :class:`~sklearn_pa._core.targets.ClassGrowth` (a new class's columns are
        zero in every copy); the mistake counts are kept."""
        growth = ClassGrowth(self.classes_, classes, split=self._binary_split())
        M, n_features = self.n_estimators, self._W.shape[0]
        W = growth.columns(self._W.reshape(n_features, M, -1))
        b = growth.columns(self._b.reshape(M, -1))
        self._W = np.ascontiguousarray(W.reshape(n_features, -1))
        self._b = np.ascontiguousarray(b.reshape(-1))
        self.classes_ = classes
        self._class_weight = np.ones(max(2, classes.shape[0]))
        self._publish()

    def __sklearn_pa_prequential__(
        self, X, y, classes=None, sample_weight=None, *, then=None
    ):
        """``partial_fit`` on a batch in its given order (no shuffling),
        returning the decision values of the Bayes point on each sample just
        before the copies learned from it (unlabeled samples included).

        The protocol of progressive validation (see
        :meth:`BaseOnlineLinear.__sklearn_pa_prequential__`): the same validation,
        atomicity, random draws and effect on the model as ``partial_fit``
        with ``shuffle=False``; the compiled pass mixes the copies' scores
        with the weights ``_publish`` gives them at that point of the stream.
        Returns an ndarray of shape ``(n_samples,)`` for two classes, else
        ``(n_samples, n_classes)``; NaN where a row was skipped.
        """
        with atomic_update(self):
            scores = self._partial_fit_batch(
                X, y, classes, sample_weight, record_scores=True
            )
            if scores.shape[1] == 1:
                scores = scores[:, 0]
            if then is not None:
                then(scores)
        return scores

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, sample_weight=None):
        """Fit the copies with up to ``max_iter`` passes over the data.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training data.
        y : array-like of shape (n_samples,)
            Labels; ``-1`` marks an unlabeled sample.
        sample_weight : array-like of shape (n_samples,), default=None
            Per-sample weights: on labeled samples they multiply the step,
            or the base rule's ``C`` with the base learner's
            ``weight_scaling="C"``, and on unlabeled ones
            ``unlabeled_step`` (a zero weight skips the sample).

        Returns
        -------
        self : object
            Fitted estimator.
        """
        with atomic_update(self):
            return self._fit(X, y, sample_weight)

    @started_partial_fit_context("_W")
    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """Make one pass over a batch of labeled and unlabeled samples.

        The whole batch is validated before any weight moves: on an error the
        estimator is left exactly as it was.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            A batch of training data.
        y : array-like of shape (n_samples,)
            Its labels, each in ``classes`` or ``-1`` (unlabeled).  A batch
            may be entirely unlabeled.
        classes : array-like of shape (n_classes,), default=None
            Every class the stream may contain (never -1).  Required on the
            first call, optional (but checked) afterwards.
        sample_weight : array-like of shape (n_samples,), default=None
            Per-sample weights (see ``fit``).

        Returns
        -------
        self : object
            Fitted estimator.
        """
        with atomic_update(self):
            return self._partial_fit_batch(X, y, classes, sample_weight)

    @locked_read
    def decision_function(self, X):
        """Confidence scores of the samples under the averaged copies.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Samples.

        Returns
        -------
        scores : ndarray of shape (n_samples,) or (n_samples, n_classes)
            The score of the positive class for two classes, else one score
            per class.
        """
        scores = self._lean_decision(X)
        if scores is not None:
            return scores
        # a CSR matrix is checked first: scipy's product trusts its structure
        return super().decision_function(check_csr_structure(X))

    def __sklearn_pa_state__(self):
        """The state protocol of this estimator (used by parameter mixing).

        Returns
        -------
        state : BayesPointState
            Initialises, prepares blocks for, runs bare epochs on, reads,
            publishes and mixes the learned state of this estimator.
        """
        return BayesPointState(self)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags
