"""Structured perceptron and structured Passive-Aggressive sequence taggers."""

from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, _fit_context
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from .._engine import EpochAdapter, EpochStats, run_epochs
from .._kernels import _sequence
from .._kernels._rules import SequenceLoss, SequenceUpdate
from .._validation import atomic_update, check_state_array
from ._validation import stack_labels, stack_sequences

__all__ = ["StructuredPassiveAggressive", "StructuredPerceptron"]

_UPDATES = {
    "standard": SequenceUpdate.UPDATE_STANDARD,
    "early": SequenceUpdate.UPDATE_EARLY,
    "max_violation": SequenceUpdate.UPDATE_MAX_VIOLATION,
}
_LOSSES = {
    "hinge": SequenceLoss.LOSS_HINGE,
    "squared_hinge": SequenceLoss.LOSS_SQUARED_HINGE,
}
_PA_UPDATES = {"prediction": False, "max_loss": True}
_MARGINS = {"linear": False, "sqrt": True}


def _check_sequence_cost(cost, classes):
    """The per-position cost matrix as float64 (n_classes, n_classes)."""
    L = classes.shape[0]
    try:
        cost = np.asarray(cost, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(
            "cost must be a (n_classes, n_classes) array of numbers."
        ) from exc
    if cost.shape != (L, L):
        raise ValueError(
            f"cost has shape {cost.shape}; expected ({L}, {L}): cost[i, j] is "
            f"the cost of tagging a token of true label classes_[i] as "
            f"classes_[j], in the order of classes_ = {classes.tolist()!r}."
        )
    if not np.all(np.isfinite(cost)):
        raise ValueError("cost contains NaN or infinity; every cost must be finite.")
    if np.any(cost < 0):
        raise ValueError("cost has negative entries; costs must be >= 0.")
    if np.any(np.diag(cost) != 0):
        raise ValueError(
            "cost must have a zero diagonal: the right label costs nothing. "
            "Set cost[k, k] = 0."
        )
    return np.ascontiguousarray(cost)


def _pa_workspace_bytes(n_tokens, n_classes, k):
    """Bytes allocated by one ``_sequence.pa_epoch`` call whose longest
    sequence has ``n_tokens`` tokens: the Gram matrix of the token features
    (``n_tokens**2`` doubles), the dual problem (``k**2``), the k-best lattice
    (``n_tokens * n_classes * k``) and the per-constraint transition counts
    (``k * (n_classes + 1)**2``)."""
    T, L, k = int(n_tokens), int(n_classes), int(k)
    return (
        8 * T * T
        + 8 * k * k
        + 16 * T * L * k
        + 8 * k * (L + 1) ** 2
        + 4 * k * T
        + 40 * k
        + 29 * T * L
        + 18 * T
        + L
    )


class _SequenceEpochs(EpochAdapter):
    """The epoch adapter of the sequence taggers: one pass is the tagger's
    ``_run_epoch`` (one call of its sequence kernel) over the sequences
    ``order``.  The kernels return no loss: the pass's loss is the number
    of mispredicted sequences (the 0-1 sequence loss), so that
    ``loss_curve_`` is the fraction of training sequences the tagger got
    wrong in each pass."""

    def __init__(self, estimator, batch, labels):
        self.estimator, self.batch, self.labels = estimator, batch, labels

    def run(self, order, t):
        stats = self.estimator._run_epoch(self.batch, self.labels, order)
        errors = stats["errors"]
        return EpochStats(np.array([float(errors)]), stats["updates"], errors)

    def summary(self):
        est = self.estimator
        return {
            "Norm": f"{np.linalg.norm(est._W):.2f}",
            "T": f"{est.t_:.0f} tokens",
        }


class _BaseSequenceTagger(BaseEstimator):
    """First-order Markov tagger trained online over whole sequences.

    Subclasses set ``_run_epoch(batch, labels, order)``.  The model is the
    emission weights ``W[n_features, n_classes]`` (feature-major) and the
    transition weights ``Tr[n_classes + 1, n_classes + 1]`` (row
    ``n_classes`` is START, column ``n_classes`` is END).
    """

    # Discovery tag: X is a list of sequences, so the tabular common checks do
    # not apply (see sklearn_pa.utils.all_estimators).
    _sequence_tagger = True

    _parameter_constraints: dict = {
        # a beam at least as wide as the number of classes is exact search
        "beam_width": [Interval(Integral, 1, 2**53, closed="both"), None],
        "average": ["boolean"],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "tol": [Interval(Real, None, None, closed="neither"), None],
        "n_iter_no_change": [Interval(Integral, 1, None, closed="left")],
        "shuffle": ["boolean"],
        "random_state": ["random_state"],
        "verbose": ["verbose"],
    }

    def __sklearn_pa_state__(self):
        """Refuse the state protocol: this model cannot be mixed.

        Raises
        ------
        TypeError
            Always, saying what to use instead.
        """
        raise TypeError(
            f"parameter mixing does not support {type(self).__name__}: "
            "sequence taggers take lists of sentences, not rows of a matrix; train "
            "them on one machine, or run several with different seeds and compare "
            "them with joblib's Dask backend."
        )

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.two_d_array = False
        tags.input_tags.sparse = True
        tags.input_tags.string = True
        tags.input_tags.dict = True
        tags.target_tags.required = True
        tags.non_deterministic = self.shuffle and self.random_state is None
        return tags

    # ------------------------------------------------------------ validation
    def _validate_batch(self, X, y, reset, classes=None):
        """Check the whole batch (X, y) before any weight changes."""
        batch, vectorizer = stack_sequences(
            X,
            vectorizer=None if reset else getattr(self, "vectorizer_", None),
            fit_vectorizer=reset,
        )
        if not reset and batch.n_features != self.n_features_in_:
            raise ValueError(
                f"X has {batch.n_features} features, but {type(self).__name__} "
                f"is expecting {self.n_features_in_} features as input."
            )
        flat = stack_labels(y, batch.offsets, len(batch.offsets) - 1)
        if reset:
            if classes is None:
                classes = np.unique(flat)
            else:
                classes = np.unique(np.asarray(classes))
            if classes.shape[0] < 1:
                raise ValueError("y holds no label; pass non-empty sequences.")
        else:
            classes = self.classes_
        labels = np.searchsorted(classes, flat)
        labels = np.minimum(labels, classes.shape[0] - 1)
        unknown = classes[labels] != flat if flat.size else np.zeros(0, bool)
        if np.any(unknown):
            raise ValueError(
                f"y holds labels {np.unique(flat[unknown]).tolist()} that are "
                f"not in classes {classes.tolist()}; pass every label in "
                "`classes` on the first call to partial_fit."
            )
        return batch, vectorizer, classes, np.ascontiguousarray(labels, np.int32)

    def _batch_for_predict(self, X):
        check_is_fitted(self, "coef_")
        batch, _ = stack_sequences(X, vectorizer=self.vectorizer_)
        if batch.n_features != self.n_features_in_:
            raise ValueError(
                f"X has {batch.n_features} features, but {type(self).__name__} "
                f"is expecting {self.n_features_in_} features as input."
            )
        return batch

    # ----------------------------------------------------------------- state
    def _reset(self, classes, n_features, vectorizer):
        n_classes = classes.shape[0]
        self.classes_ = classes
        self.n_features_in_ = n_features
        self.vectorizer_ = vectorizer
        self._W = np.zeros((n_features, n_classes))
        self._Tr = np.zeros((n_classes + 1, n_classes + 1))
        if self.average:
            self._U = np.zeros_like(self._W)
            self._UT = np.zeros_like(self._Tr)
        self._averaged = bool(self.average)
        self.t_ = 0.0
        self.n_iter_ = 0
        self.n_updates_ = 0
        self._set_public()

    def _set_public(self):
        """coef_ and transitions from the raw weights, averaged if asked."""
        W, Tr = self._W, self._Tr
        if self.average and self.t_ > 0:
            W = W - self._U / self.t_
            Tr = Tr - self._UT / self.t_
        n = self.classes_.shape[0]
        self.coef_ = np.ascontiguousarray(W.T)
        self.transitions_ = Tr[:n, :n].copy()
        self.start_transitions_ = Tr[n, :n].copy()
        self.end_transitions_ = Tr[:n, n].copy()

    def _decode_weights(self):
        """(W, Tr) for the kernels from the public attributes, each checked
        against ``n_features_in_`` and the number of classes (a user may
        have assigned any of them)."""
        n = self.classes_.shape[0]
        coef = check_state_array(
            self, "coef_", self.coef_, (n, self.n_features_in_), order="F"
        )
        Tr = np.zeros((n + 1, n + 1))
        Tr[:n, :n] = check_state_array(self, "transitions_", self.transitions_, (n, n))
        Tr[n, :n] = check_state_array(
            self, "start_transitions_", self.start_transitions_, (n,)
        )
        Tr[:n, n] = check_state_array(
            self, "end_transitions_", self.end_transitions_, (n,)
        )
        return np.ascontiguousarray(coef.T), Tr

    def _continue_from_public(self):
        """Before a later ``partial_fit``: check the learned state, and
        continue from the public weights when they are the model's own (not
        averaged), so that a user who assigns ``coef_`` continues from it."""
        W, Tr = self._decode_weights()
        n = self.classes_.shape[0]
        shapes = [(self._W, W.shape), (self._Tr, Tr.shape)]
        if self.average:
            shapes += [(self._U, W.shape), (self._UT, Tr.shape)]
        for array, shape in shapes:
            if not isinstance(array, np.ndarray) or array.shape != shape:
                raise ValueError(
                    f"The learned state of {type(self).__name__} does not match "
                    f"its {self.n_features_in_} features and {n} classes; refit "
                    "with fit."
                )
        if not (np.isfinite(self.t_) and self.t_ >= 0):
            raise ValueError(
                f"t_ of {type(self).__name__} must be the number of tokens "
                f"seen, a finite number >= 0; got {self.t_!r}. Refit with fit."
            )
        if not self.average:
            Tr[n, n] = self._Tr[n, n]
            self._W, self._Tr = W, Tr

    def _averaging_arrays(self):
        if self.average:
            return self._U, self._UT
        empty = np.zeros((1, 1))
        return empty, empty

    # --------------------------------------------------------------- fitting
    def _epochs(self, batch, labels, n_epochs, rng, *, partial_fit=False):
        """Run ``n_epochs`` passes over the sequences through the epoch
        driver (:func:`sklearn_pa._engine.run_epochs`); ``loss_curve_``
        receives each pass's fraction of mispredicted sequences."""
        n_seq = batch.offsets.shape[0] - 1
        run = run_epochs(
            self,
            _SequenceEpochs(self, batch, labels),
            train_idx=np.arange(n_seq, dtype=np.int64),
            max_iter=n_epochs,
            rng=rng,
            shuffle=self.shuffle,
            stopping=not partial_fit,
            partial_fit=partial_fit,
        )
        self.n_iter_ += run.n_iter

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y):
        """Fit the tagger on whole sequences, ``max_iter`` passes.

        Parameters
        ----------
        X : list of sequences
            Each a 2-D array or sparse matrix (n_tokens, n_features), or a list
            of feature dicts (one per token; string values become one-hot
            ``name=value`` features, as DictVectorizer makes them, mapped by a
            ``FeatureDictMapper`` fitted here and
            kept as ``vectorizer_``).
        y : list of array-like of shape (n_tokens,)
            The label sequences, one per sequence of X.

        Returns
        -------
        self : object
            Fitted estimator.
        """
        with atomic_update(self):
            batch, vectorizer, classes, labels = self._validate_batch(X, y, reset=True)
            self._check_params(classes)
            self._check_workspace(batch, classes)
            self._reset(classes, batch.n_features, vectorizer)
            rng = check_random_state(self.random_state)
            self._epochs(batch, labels, self.max_iter, rng)
            self._set_public()
        return self

    @_fit_context(prefer_skip_nested_validation=True)
    def partial_fit(self, X, y, classes=None):
        """One pass over a batch of sequences.

        Parameters
        ----------
        X : list of sequences
            As in :meth:`fit`.  With feature dicts, the features are those of
            the first call; hash them (``FeatureHasher``) to stream new ones.
        y : list of array-like of shape (n_tokens,)
            The label sequences.
        classes : array-like of shape (n_classes,), default=None
            Every label that can occur.  Required on the first call.

        Returns
        -------
        self : object
            Fitted estimator.
        """
        # scikit-learn validates parameters on the first call only; a
        # parameter set between calls must be refused before anything moves
        self._validate_params()
        first = not hasattr(self, "classes_")
        averaged = getattr(self, "_averaged", hasattr(self, "_U"))
        if not first and bool(self.average) != averaged:
            raise ValueError(
                f"average={self.average!r} differs from the first call to "
                f"partial_fit (average={averaged!r}): the average covers "
                "every sequence of the stream. Set it back, or start again "
                "with fit."
            )
        if first and classes is None:
            raise ValueError(
                "classes must be passed on the first call to partial_fit "
                "(every label that can occur)."
            )
        if not first and classes is not None:
            if not np.array_equal(np.unique(np.asarray(classes)), self.classes_):
                raise ValueError(
                    f"classes={list(classes)} differs from the classes of the "
                    f"first call {self.classes_.tolist()}."
                )
        batch, vectorizer, classes_, labels = self._validate_batch(
            X, y, reset=first, classes=classes
        )
        with atomic_update(self):
            self._check_params(classes_)
            self._check_workspace(batch, classes_)
            if first:
                self._reset(classes_, batch.n_features, vectorizer)
            else:
                self._continue_from_public()
            if not hasattr(self, "_rng"):
                self._rng = check_random_state(self.random_state)
            self._epochs(batch, labels, 1, self._rng, partial_fit=True)
            self._set_public()
        return self

    def _check_params(self, classes):
        pass

    def _check_workspace(self, batch, classes):
        pass

    def _beam(self):
        return 0 if self.beam_width is None else int(self.beam_width)

    # ------------------------------------------------------------ prediction
    def predict(self, X):
        """Best label sequence of each sequence of X.

        Parameters
        ----------
        X : list of sequences
            As in :meth:`fit`.

        Returns
        -------
        y_pred : list of ndarray of shape (n_tokens,)
            The labels of each sequence (exact Viterbi, or beam search when
            ``beam_width`` is set).
        """
        batch = self._batch_for_predict(X)
        W, Tr = self._decode_weights()
        out = np.zeros(batch.n_tokens, dtype=np.int32)
        _sequence.decode(batch, batch.offsets, W, Tr, beam_width=self._beam(), out=out)
        labels = self.classes_[out]
        return [
            labels[batch.offsets[i] : batch.offsets[i + 1]]
            for i in range(batch.offsets.shape[0] - 1)
        ]

    def score(self, X, y):
        """Token accuracy of :meth:`predict` on (X, y).

        Parameters
        ----------
        X : list of sequences
            As in :meth:`fit`.
        y : list of array-like of shape (n_tokens,)
            The true label sequences.

        Returns
        -------
        score : float
            Fraction of tokens labelled correctly.
        """
        pred = self.predict(X)
        batch_offsets = np.zeros(len(pred) + 1, dtype=np.int64)
        np.cumsum([len(p) for p in pred], out=batch_offsets[1:])
        true = stack_labels(y, batch_offsets, len(pred))
        pred = np.concatenate(pred) if pred else np.empty(0)
        if true.size == 0:
            return 1.0
        return float(np.mean(true == pred))


class StructuredPerceptron(_BaseSequenceTagger):
    r"""Structured perceptron over label sequences, exact or beam search.

    A first-order Markov model (emission weights per feature and label,
    transition weights between labels, from START and to END) trained with
    Collins' perceptron, or with the violation-fixing updates of Huang, Fayong
    & Guo (2012) that keep the convergence guarantee under beam search: the
    *early* update (stop where the gold prefix falls off the beam, update on
    the prefixes) and the *max-violation* update (update on the prefix where
    ``score(best) - score(gold)`` is largest).

    Read more in the :ref:`User Guide <sequence>`.

    Parameters
    ----------
    update : {"standard", "early", "max_violation"}, default="standard"
        Which (gold, predicted) pair to update on.  With exact search the
        three coincide whenever the full prediction is wrong and no prefix is
        more violated; with a narrow beam "standard" may update on a pair that
        is not a violation (counted in ``n_invalid_updates_``).
    beam_width : int or None, default=None
        ``None`` is exact Viterbi search; an int is beam search keeping that
        many labels per position (hypotheses ending in the same label are
        merged, so ``beam_width >= n_classes`` is exact).
    average : bool, default=True
        Average the weights over every sequence seen (the averaged perceptron).
    max_iter : int, default=10
        Passes over the training sequences in :meth:`fit` (at most, with
        ``tol``).
    shuffle : bool, default=True
        Shuffle the sequences before each pass.
    random_state : int, RandomState instance or None, default=None
        Seed of the shuffling.
    verbose : int, default=0
        If positive, print one line per pass (``Epoch i/max_iter``, the
        fraction of mispredicted sequences as the average loss, time;
        ``partial_fit`` prints ``partial_fit call n``).  From 2 on the line
        adds the mispredicted sequences, updates, weight norm and tokens
        seen.
    tol : float or None, default=None
        Stop :meth:`fit` when the fraction of training sequences mispredicted
        in a pass is not below ``best - tol`` for ``n_iter_no_change``
        consecutive passes (a ``ConvergenceWarning`` when ``max_iter`` passes
        run first).  ``None`` makes ``max_iter`` passes.
    n_iter_no_change : int, default=5
        Number of passes with no improvement to wait before stopping.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        The labels.
    coef_ : ndarray of shape (n_classes, n_features)
        Emission weights (averaged when ``average``).
    transitions_ : ndarray of shape (n_classes, n_classes)
        ``transitions_[i, j]`` is the weight of label ``i`` followed by ``j``.
    start_transitions_ : ndarray of shape (n_classes,)
        Weight of a sequence starting with each label.
    end_transitions_ : ndarray of shape (n_classes,)
        Weight of a sequence ending with each label.
    vectorizer_ : FeatureDictMapper or None
        The feature-dict to column mapping fitted by :meth:`fit` (None for
        arrays).
    n_features_in_ : int
        Number of features per token.
    n_iter_ : int
        Passes made (by every ``fit`` and ``partial_fit`` call since the
        last ``fit`` started over).
    loss_curve_ : list of float
        Fraction of the training sequences mispredicted in each pass of the
        last ``fit``; each ``partial_fit`` call appends that of its pass.
    t_ : float
        Sequences seen (the averaging counter).
    n_updates_ : int
        Updates made.
    n_invalid_updates_ : int
        Updates whose pair was not a violation (:math:`w \cdot \Delta\phi > 0` before
        the update): possible only for ``update="standard"`` with a beam.

    See Also
    --------
    StructuredPassiveAggressive : Cost-sensitive PA and k-best MIRA over
        sequences.

    References
    ----------
    M. Collins, "Discriminative training methods for hidden Markov models",
    EMNLP 2002.  L. Huang, S. Fayong and Y. Guo, "Structured perceptron with
    inexact search", NAACL 2012.

    Examples
    --------
    >>> from sklearn_pa import StructuredPerceptron
    >>> X = [[{"w": "the"}, {"w": "dog"}, {"w": "runs"}],
    ...      [{"w": "a"}, {"w": "cat"}, {"w": "sleeps"}]]
    >>> y = [["D", "N", "V"], ["D", "N", "V"]]
    >>> tagger = StructuredPerceptron(max_iter=5, random_state=0).fit(X, y)
    >>> [p.tolist() for p in tagger.predict([[{"w": "the"}, {"w": "cat"}]])]
    [['D', 'N']]
    """

    _parameter_constraints: dict = {
        **_BaseSequenceTagger._parameter_constraints,
        "update": [StrOptions(set(_UPDATES))],
    }

    def __init__(
        self,
        update="standard",
        beam_width=None,
        average=True,
        max_iter=10,
        shuffle=True,
        random_state=None,
        verbose=0,
        tol=None,
        n_iter_no_change=5,
    ):
        self.update = update
        self.beam_width = beam_width
        self.average = average
        self.max_iter = max_iter
        self.shuffle = shuffle
        self.random_state = random_state
        self.verbose = verbose
        self.tol = tol
        self.n_iter_no_change = n_iter_no_change

    def _reset(self, classes, n_features, vectorizer):
        super()._reset(classes, n_features, vectorizer)
        self.n_invalid_updates_ = 0

    def _run_epoch(self, batch, labels, order):
        record = getattr(self, "_record_updates", False)
        n = order.shape[0]
        if record:
            rec_margin = np.zeros(n)
            rec_length = np.zeros(n, dtype=np.int64)
            rec_pred = np.full(batch.n_tokens, -1, dtype=np.int32)
        else:
            rec_margin = np.zeros(1)
            rec_length = np.zeros(1, dtype=np.int64)
            rec_pred = np.zeros(1, dtype=np.int32)
        U, UT = self._averaging_arrays()
        t, n_updates, n_invalid, n_errors = _sequence.perceptron_epoch(
            batch,
            batch.offsets,
            order,
            labels,
            self._W,
            self._Tr,
            U=U,
            UT=UT,
            average=self.average,
            t0=float(self.t_),
            update=_UPDATES[self.update],
            beam_width=self._beam(),
            record=record,
            rec_margin=rec_margin,
            rec_length=rec_length,
            rec_pred=rec_pred,
        )
        self.t_ = t
        self.n_updates_ += int(n_updates)
        self.n_invalid_updates_ += int(n_invalid)
        if record:
            self._update_log_ = getattr(self, "_update_log_", [])
            self._update_log_.append(
                {
                    "order": order,
                    "margin": rec_margin,
                    "length": rec_length,
                    "pred": rec_pred,
                    "offsets": batch.offsets,
                }
            )
        return {"errors": int(n_errors), "updates": int(n_updates)}


class StructuredPassiveAggressive(_BaseSequenceTagger):
    r"""Cost-sensitive Passive-Aggressive over sequences, and k-best MIRA.

    Per training sequence, the weights move as little as possible so that the
    gold sequence :math:`y` beats each of the :math:`k` (``k_best``)
    highest-scoring sequences :math:`z` by a margin of their cost
    :math:`\rho(y, z) = \sum_t \text{cost}[y_t, z_t]` (the Hamming distance by
    default), or of :math:`\sqrt{\rho}`:

    .. math::

        \min_w \; \frac{1}{2} \|w - w_t\|^2 + C \xi
        \quad \text{s.t.} \quad
        w \cdot (\phi(x, y) - \phi(x, z_j)) \ge m(\rho(y, z_j)) - \xi,
        \quad j = 1, \dots, k

    for PA-I (``loss="hinge"``), with :math:`C \xi^2` in place of
    :math:`C \xi` for PA-II (``loss="squared_hinge"``), and :math:`m` the
    margin function (``margin``).

    ``k_best=1`` is the prediction-based cost-sensitive PA of Crammer et al.
    (2006, sec. 8-9) in closed form; ``k_best > 1`` is k-best MIRA (McDonald
    et al. 2005) with all :math:`k` constraints solved exactly per sequence.
    With ``update="max_loss"`` the :math:`z_j` are instead the sequences
    maximising :math:`w \cdot \phi(x, z) + \rho(y, z)` (the max-loss update,
    eq. 51), found by a
    loss-augmented Viterbi (or beam) search.

    Read more in the :ref:`User Guide <sequence>`.

    Parameters
    ----------
    C : float, default=1.0
        Aggressiveness (``np.inf`` with ``loss="hinge"``: hard constraints).
    loss : {"hinge", "squared_hinge"}, default="hinge"
        PA-I or PA-II slack penalty (one slack shared by the k constraints).
    k_best : int, default=1
        Number of best sequences to constrain against.  The workspace grows
        with ``k_best**2`` (see Notes).
    beam_width : int or None, default=None
        ``None``: exact (list-)Viterbi search; an int: beam search, and the k
        best are taken from the final beam (so ``k_best <= beam_width``).
    average : bool, default=True
        Average the weights over every sequence seen.
    max_iter : int, default=10
        Passes over the training sequences in :meth:`fit` (at most, with
        ``tol``).
    shuffle : bool, default=True
        Shuffle the sequences before each pass.
    random_state : int, RandomState instance or None, default=None
        Seed of the shuffling.
    verbose : int, default=0
        If positive, print one line per pass (``Epoch i/max_iter``, the
        fraction of mispredicted sequences as the average loss, time;
        ``partial_fit`` prints ``partial_fit call n``).  From 2 on the line
        adds the mispredicted sequences, updates, weight norm and tokens
        seen.
    margin : {"linear", "sqrt"}, default="linear"
        The margin required against a sequence of cost :math:`\rho`:
        :math:`\rho` itself, or :math:`\sqrt{\rho}` as eq. 46 of Crammer et
        al. (2006) writes
        (whose loss bounds are stated in the square root).
    cost : array-like of shape (n_classes, n_classes), default=None
        Per-position cost: ``cost[i, j] >= 0`` is the cost of tagging a token
        whose true label is ``classes_[i]`` as ``classes_[j]`` (zero
        diagonal), and :math:`\rho(y, z) = \sum_t \text{cost}[y_t, z_t]`.
        ``None`` is
        the Hamming distance (``1 - eye``).
    update : {"prediction", "max_loss"}, default="prediction"
        Which sequences are constrained: the best under the model
        (prediction-based, eq. 47), or the best under the loss-augmented
        score :math:`w \cdot \phi(x, z) + \rho(y, z)` (max-loss, eq. 51).  The
        max-loss search adds the per-position cost to the emissions, so it
        needs ``margin="linear"`` (:math:`\sqrt{\rho}` does not add up over
        positions).
    tol : float or None, default=None
        Stop :meth:`fit` when the fraction of training sequences mispredicted
        in a pass is not below ``best - tol`` for ``n_iter_no_change``
        consecutive passes (a ``ConvergenceWarning`` when ``max_iter`` passes
        run first).  ``None`` makes ``max_iter`` passes.
    n_iter_no_change : int, default=5
        Number of passes with no improvement to wait before stopping.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        The labels.
    coef_ : ndarray of shape (n_classes, n_features)
        Emission weights (averaged when ``average``).
    transitions_ : ndarray of shape (n_classes, n_classes)
        ``transitions_[i, j]`` is the weight of label ``i`` followed by ``j``.
    start_transitions_ : ndarray of shape (n_classes,)
        Weight of a sequence starting with each label.
    end_transitions_ : ndarray of shape (n_classes,)
        Weight of a sequence ending with each label.
    vectorizer_ : FeatureDictMapper or None
        The feature-dict to column mapping fitted by :meth:`fit` (None for
        arrays).
    n_features_in_ : int
        Number of features per token.
    n_iter_ : int
        Passes made (by every ``fit`` and ``partial_fit`` call since the
        last ``fit`` started over).
    loss_curve_ : list of float
        Fraction of the training sequences mispredicted in each pass of the
        last ``fit``; each ``partial_fit`` call appends that of its pass.
    t_ : float
        Sequences seen (the averaging counter).
    n_updates_ : int
        Sequences that changed the weights.

    See Also
    --------
    StructuredPerceptron : Structured perceptron with exact or beam search.

    Notes
    -----
    Memory: besides the weights, an epoch allocates a workspace of about
    :math:`8 T^2 + 8 k^2 + 16 T L k + 8 k (L + 1)^2` bytes, with :math:`T` the
    number of tokens of the longest sequence of the batch, :math:`L` the number
    of classes and :math:`k` = ``k_best`` (the Gram matrix of the token features, the
    dual problem and the k-best lattice): a 8,000-token sequence takes about
    0.5 GB, a 20,000-token one 3.2 GB.  A batch whose workspace would exceed
    1 GiB is refused with a ValueError that names the size; split long
    sequences (or lower ``k_best``).

    References
    ----------
    K. Crammer, O. Dekel, J. Keshet, S. Shalev-Shwartz and Y. Singer, "Online
    passive-aggressive algorithms", JMLR 2006.  R. McDonald, K. Crammer and
    F. Pereira, "Online large-margin training of dependency parsers", ACL 2005.

    Examples
    --------
    >>> from sklearn_pa import StructuredPassiveAggressive
    >>> X = [[{"w": "the"}, {"w": "dog"}, {"w": "runs"}],
    ...      [{"w": "a"}, {"w": "cat"}, {"w": "sleeps"}]]
    >>> y = [["D", "N", "V"], ["D", "N", "V"]]
    >>> tagger = StructuredPassiveAggressive(k_best=2, random_state=0).fit(X, y)
    >>> [p.tolist() for p in tagger.predict([[{"w": "a"}, {"w": "dog"}]])]
    [['D', 'N']]
    """

    _parameter_constraints: dict = {
        **_BaseSequenceTagger._parameter_constraints,
        "C": [Interval(Real, 0, np.inf, closed="right")],
        "loss": [StrOptions(set(_LOSSES))],
        "k_best": [Interval(Integral, 1, None, closed="left")],
        "margin": [StrOptions(set(_MARGINS))],
        "cost": ["array-like", None],
        "update": [StrOptions(set(_PA_UPDATES))],
    }

    def __init__(
        self,
        C=1.0,
        loss="hinge",
        k_best=1,
        beam_width=None,
        average=True,
        max_iter=10,
        shuffle=True,
        random_state=None,
        verbose=0,
        margin="linear",
        cost=None,
        update="prediction",
        tol=None,
        n_iter_no_change=5,
    ):
        self.C = C
        self.loss = loss
        self.k_best = k_best
        self.beam_width = beam_width
        self.average = average
        self.max_iter = max_iter
        self.shuffle = shuffle
        self.random_state = random_state
        self.verbose = verbose
        self.margin = margin
        self.cost = cost
        self.update = update
        self.tol = tol
        self.n_iter_no_change = n_iter_no_change

    def _check_params(self, classes):
        if self.update == "max_loss" and self.margin == "sqrt":
            raise ValueError(
                "update='max_loss' searches the loss-augmented score "
                "w . phi(x, z) + rho(y, z) by adding the per-position cost to "
                "the emissions, which sqrt(rho) does not allow. Use "
                "margin='linear' with update='max_loss', or update='prediction' "
                "with margin='sqrt'."
            )
        if self.cost is not None:
            _check_sequence_cost(self.cost, classes)
        if self.beam_width is not None and self.k_best > self.beam_width:
            raise ValueError(
                f"k_best={self.k_best} exceeds beam_width={self.beam_width}: the "
                "k best are taken from the final beam; widen the beam or lower "
                "k_best."
            )
        if self.loss == "squared_hinge" and not np.isfinite(self.C):
            raise ValueError(
                "loss='squared_hinge' needs a finite C; use loss='hinge' with "
                "C=np.inf for hard constraints."
            )

    # the largest workspace an epoch may allocate (see the Notes)
    _max_workspace_bytes = 2**30

    def _check_workspace(self, batch, classes):
        lengths = np.diff(batch.offsets)
        n_tokens = int(lengths.max()) if lengths.size else 0
        size = _pa_workspace_bytes(n_tokens, classes.shape[0], int(self.k_best))
        if size > self._max_workspace_bytes:
            raise ValueError(
                f"{type(self).__name__} would need a {size / 2**20:,.0f} MiB "
                f"workspace for the longest sequence ({n_tokens} tokens) with "
                f"k_best={self.k_best} and {classes.shape[0]} classes, more than "
                f"its {self._max_workspace_bytes / 2**20:,.0f} MiB limit (it "
                "grows with the square of the longest sequence and of k_best). "
                "Split long sequences or lower k_best."
            )

    def _run_epoch(self, batch, labels, order):
        self._check_params(self.classes_)
        record = getattr(self, "_record_updates", False)
        k = int(self.k_best)
        rec_alpha = np.zeros((order.shape[0], k) if record else (1, 1))
        U, UT = self._averaging_arrays()
        cost = (
            None
            if self.cost is None
            else _check_sequence_cost(self.cost, self.classes_)
        )
        t, n_updates, n_errors, _ = _sequence.pa_epoch(
            batch,
            batch.offsets,
            order,
            labels,
            self._W,
            self._Tr,
            U=U,
            UT=UT,
            average=self.average,
            t0=float(self.t_),
            C=float(self.C),
            loss=_LOSSES[self.loss],
            k_best=k,
            beam_width=self._beam(),
            tol=1e-12,
            max_qp_iter=100000,
            record=record,
            rec_alpha=rec_alpha,
            cost=cost,
            sqrt_margin=_MARGINS[self.margin],
            max_loss=_PA_UPDATES[self.update],
        )
        self.t_ = t
        self.n_updates_ += int(n_updates)
        if record:
            self._update_log_ = getattr(self, "_update_log_", [])
            self._update_log_.append({"order": order, "alpha": rec_alpha})
        return {"errors": int(n_errors), "updates": int(n_updates)}
