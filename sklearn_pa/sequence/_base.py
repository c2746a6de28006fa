"""The shared machinery of the sequence taggers.

:class:`_BaseSequenceTagger` holds what the structured perceptron and the
structured Passive-Aggressive tagger (``sequence/_structured.py``) share: the
validation of a whole batch of sequences before any weight moves, the model
(emission and transition weights, averaged or not) and its public
attributes, ``fit`` / ``partial_fit`` through the epoch driver
(:func:`sklearn_pa._core.driver.run_epochs`) with the adapter
:class:`_SequenceEpochs`, Viterbi or beam decoding and the token accuracy.
"""

from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, _fit_context
from sklearn.model_selection import ShuffleSplit
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval
from sklearn.utils.validation import check_is_fitted

from .._compiled import _sequence, _sequence_batch
from .._core.batch import (
    ReadsUnderLockMixin,
    atomic_update,
    check_state_array,
    estimator_lock,
    locked_read,
    touched_rows,
)
from .._core.driver import EpochAdapter, EpochStats, run_epochs, validation_scorer
from .._core.pickled_state import CheckedStateMixin
from .._core.publication import PublishedWhenReadMixin
from .._core.session import (
    fitted_partial_fit_context,
    params_snapshot,
    params_unchanged,
    session_of,
)
from ._validation import encode_labels, stack_labels, stack_sequences

# ----------------------------------------------------------------------------
# The lean path of a later partial_fit: a call on one sentence costs what
# that sentence costs.
#
# What the linear learners do in sklearn_pa/_core/session.py, for the
# taggers' state (the emission weights _W, the transitions _Tr and their
# averaging accumulators): the parameters are validated again only when
# they changed since the last validated call (params_snapshot /
# params_unchanged), the kernel arrays behind the attributes the tagger
# published itself are trusted as they are (no copy, no finiteness scan),
# the journal of a call saves the rows of the features its sentences touch
# (touched_rows), and an averaged model is published when read.  What the
# path remembers of a tagger between calls is kept in its session
# (tagger_cache), outside it, so that its attributes, pickles and clones are
# those of a model without it.

#: The attributes a tagger publishes its weights as.
PUBLIC_WEIGHTS = ("coef_", "transitions_", "start_transitions_", "end_transitions_")


def tagger_cache(estimator):
    """The :class:`~sklearn_pa._per_call.Session` of ``estimator``, whose
    ``tagger_validated``, ``tagger_checked`` and ``tagger_published`` are
    what the lean path remembers of a tagger between calls: the
    :func:`params_snapshot` of the last call whose parameters passed
    scikit-learn's validation; ``(snapshot, classes, result)``, the
    parameters and ``classes_`` object the tagger's own check
    (``_check_params``) last accepted and what it returned (the checked
    cost matrix of a Passive-Aggressive tagger); ``(public, kernel)``, the
    objects published as :data:`PUBLIC_WEIGHTS` (None for a publication
    left pending) and the kernel arrays ``(_W, _Tr, _U, _UT)`` behind
    them."""
    return session_of(estimator)


def checked_params(estimator, classes):
    """What ``estimator._check_params(classes)`` returns, run again only when
    the parameters or ``classes`` (the object) changed since it last
    passed."""
    cache = tagger_cache(estimator)
    checked = cache.tagger_checked
    if (
        checked is not None
        and checked[1] is classes
        and params_unchanged(estimator, checked[0])
    ):
        return checked[2]
    snapshot = params_snapshot(estimator)
    result = estimator._check_params(classes)
    cache.tagger_checked = (snapshot, classes, result)
    return result


#: :func:`~sklearn_pa._core.session.fitted_partial_fit_context` for a tagger:
#: scikit-learn's wrapper at O(1) cost once ``classes_`` is set (the method
#: validates the parameters itself whenever they changed).
tagger_partial_fit_context = fitted_partial_fit_context(
    lambda values: "classes_" in values
)


def lean_decode(estimator, batch):
    """``(rows, W, Tr)`` for ``_sequence.decode`` that read only the
    weights of the features ``batch`` holds, or None when ``predict`` needs
    the full path (``_decode_weights``).

    Applies when the kernel arrays and public weights are those the tagger
    published itself (``_trusted_state``, O(1)) and the batch is sparse with
    at least one non-zero.  The emission weights of the batch's features
    are gathered (for an average left to be computed when read, ``W - U /
    t`` of those rows only: the values the publication would give), the
    batch's feature indices are renumbered to them, and the transitions are
    those ``_decode_weights`` builds.  A sentence then costs its own
    features, not the model."""
    if batch.dense or batch.n_tokens == 0 or not estimator._trusted_state():
        return None
    end = int(batch.indptr[-1])
    if end == 0:
        return None
    values = estimator.__dict__
    n = estimator.classes_.shape[0]
    features = touched_rows(batch)
    Tr = np.zeros((n + 1, n + 1))
    if values.get("_publication_pending"):
        t = float(estimator.t_)
        W = estimator._W[features] - estimator._U[features] / t
        average = estimator._Tr - estimator._UT / t
        transitions = (average[:n, :n], average[n, :n], average[:n, n])
    else:
        W = np.ascontiguousarray(values["coef_"][:, features].T)
        transitions = tuple(values[name] for name in PUBLIC_WEIGHTS[1:])
    Tr[:n, :n], Tr[n, :n], Tr[:n, n] = transitions
    rows = type(batch).__new__(type(batch))
    rows.offsets, rows.n_tokens = batch.offsets, batch.n_tokens
    rows.dense, rows.n_features = False, features.shape[0]
    rows.data, rows.indptr = batch.data, batch.indptr
    indices = np.searchsorted(features, batch.indices[:end])
    rows.indices = np.ascontiguousarray(indices, dtype=batch.indices.dtype)
    return rows, W, Tr


class _SequenceEpochs(EpochAdapter):
    """The epoch adapter of the sequence taggers: one pass is the tagger's
    ``_run_epoch`` (one call of its sequence kernel) over the sequences
    ``order``.  The kernels return no loss: the pass's loss is the number
    of mispredicted sequences (the 0-1 sequence loss), so that
    ``loss_curve_`` is the fraction of training sequences the tagger got
    wrong in each pass."""

    def __init__(self, estimator, batch, labels):
        self.estimator, self.batch, self.labels = estimator, batch, labels

    def journal(self, journal, order):
        """Save what the pass updates in place: the rows of the emission
        weights (and of their averaging accumulator) of the features the
        batch's tokens hold (all of them for dense tokens), and the
        transitions whole; a cost proportional to the batch."""
        est = self.estimator
        rows = touched_rows(self.batch)
        for name, by_rows in (
            ("_W", True),
            ("_U", True),
            ("_Tr", False),
            ("_UT", False),
        ):
            array = est.__dict__.get(name)
            if isinstance(array, np.ndarray):
                journal.save(array, rows if by_rows else None)

    def run(self, order, t):
        stats = self.estimator._run_epoch(self.batch, self.labels, order)
        errors = stats["errors"]
        return EpochStats(np.array([float(errors)]), stats["updates"], errors)

    def publish(self):
        self.estimator._set_public()

    def summary(self):
        est = self.estimator
        return {
            "Norm": f"{np.linalg.norm(est._W):.2f}",
            "T": f"{est.t_:.0f} tokens",
        }


class _BaseSequenceTagger(
    PublishedWhenReadMixin, CheckedStateMixin, ReadsUnderLockMixin, BaseEstimator
):
    """First-order Markov tagger trained online over whole sequences.

    Subclasses set ``_run_epoch(batch, labels, order)``.  The model is the
    emission weights ``W[n_features, n_classes]`` (feature-major) and the
    transition weights ``Tr[n_classes + 1, n_classes + 1]`` (row
    ``n_classes`` is START, column ``n_classes`` is END).
    """

    #: the arrays a tagger saves (see ``_core/pickled_state.py``): ``c``
    #: labels; the kernel's transition arrays have a row and a column more
    #: (the start and end of a sentence)
    _state_shapes = {
        "coef_": ("c", "d"),
        "transitions_": ("c", "c"),
        "start_transitions_": ("c",),
        "end_transitions_": ("c",),
        "_W": ("d", "c"),
        "_U": ("d", "c"),
        "_Tr": ("c+1", "c+1"),
        "_UT": ("c+1", "c+1"),
    }

    #: the public weights a partial_fit call left to be published when read
    _publishes_when_read = (
        ("_publication_pending", PUBLIC_WEIGHTS, "_publish_pending"),
    )

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
        "early_stopping": ["boolean"],
        "validation_fraction": [Interval(Real, 0, 1, closed="neither")],
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
        if not reset or classes is None:
            # (labels of the common form: one compiled pass)
            fast = encode_labels(y, batch.offsets, None if reset else self.classes_)
            if fast is not None:
                return batch, vectorizer, fast[0], fast[1]
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
        if not self.__dict__.get("_publication_pending"):
            # (hasattr would compute an average left pending)
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
            self._U = np.zeros((n_features, n_classes))
            self._UT = np.zeros((n_classes + 1, n_classes + 1))
        self._averaged = bool(self.average)
        self.t_ = 0.0
        self.n_iter_ = 0
        self.n_updates_ = 0
        # (published after the epochs: fit and partial_fit end with
        # _set_public, and a failed call puts the attributes back)

    def _set_public(self):
        """coef_ and transitions from the raw weights, averaged if asked.

        Without ``average`` they are views of the kernel arrays (as the
        linear learners' ``coef_`` is a view of theirs): no copy, and an
        entry written in place reaches the next ``partial_fit``.  With it
        they are the average ``W - U / t`` (copies of the weights before
        any token)."""
        if not self.average:
            self._publish_views()
            return
        self.__dict__.pop("_publication_pending", None)
        W, Tr = self._W, self._Tr
        n = self.classes_.shape[0]
        averaged = bool(self.t_ > 0)
        coef = np.empty((W.shape[1], W.shape[0]))
        # coef_ = (W - U / t).T in one compiled pass (the same values)
        _sequence_batch.publish_emissions(
            W, self._U if averaged else W, float(self.t_), averaged, coef
        )
        if averaged:
            Tr = Tr - self._UT / self.t_
        public = (coef, Tr[:n, :n].copy(), Tr[n, :n].copy(), Tr[:n, n].copy())
        self._publish_arrays(public)

    def _publish_views(self):
        """The public weights as views of the kernel arrays (no average)."""
        self.__dict__.pop("_publication_pending", None)
        W, Tr = self._W, self._Tr
        n = self.classes_.shape[0]
        self._publish_arrays((W.T, Tr[:n, :n], Tr[n, :n], Tr[:n, n]))

    def _publish_arrays(self, public):
        for name, value in zip(PUBLIC_WEIGHTS, public):
            setattr(self, name, value)
        tagger_cache(self).tagger_published = (public, self._kernel_arrays())

    def _kernel_arrays(self):
        values = self.__dict__
        return tuple(values.get(name) for name in ("_W", "_Tr", "_U", "_UT"))

    def _publish_lazily(self):
        """The publication of a ``partial_fit`` call: an average is left to
        be computed when one of the public weights is read
        (:meth:`__getattr__`), so that a stream of calls that reads none of
        them in between pays for one average, not one per call."""
        if not self.average:
            self._publish_views()
            return
        if not self.t_ > 0:
            self._set_public()
            return
        values = self.__dict__
        for name in PUBLIC_WEIGHTS:
            values.pop(name, None)
        self._publication_pending = True
        tagger_cache(self).tagger_published = (None, self._kernel_arrays())

    def _publish_pending(self):
        """Compute the publication a ``partial_fit`` call left pending,
        keeping a public weight assigned by hand since."""
        values = self.__dict__
        assigned = {name: values[name] for name in PUBLIC_WEIGHTS if name in values}
        self._set_public()
        values.update(assigned)

    def __getstate__(self):
        """The pickled state (a pending publication is computed first)."""
        with estimator_lock(self):
            if self.__dict__.get("_publication_pending"):
                self._publish_pending()
            return super().__getstate__()

    def _trusted_state(self):
        """Whether the kernel arrays are those behind the public weights the
        tagger last published itself (none assigned since) and fit the
        model's dimensions: then a later ``partial_fit`` continues from them
        as they are, without the checks and copies of
        :meth:`_continue_from_public`.  O(1)."""
        published = tagger_cache(self).tagger_published
        if published is None:
            return False
        public, kernel = published
        values = self.__dict__
        current = self._kernel_arrays()
        if any(a is not b for a, b in zip(current, kernel)):
            return False
        if public is None:
            if not values.get("_publication_pending") or any(
                name in values for name in PUBLIC_WEIGHTS
            ):
                return False
        elif values.get("_publication_pending") or any(
            values.get(name) is not value for name, value in zip(PUBLIC_WEIGHTS, public)
        ):
            return False
        n = self.classes_.shape[0]
        shapes = [(self.n_features_in_, n), (n + 1, n + 1)]
        arrays = current[:2] if not self.average else current
        for array, shape in zip(arrays, shapes * 2):
            if not (
                type(array) is np.ndarray
                and array.dtype == np.float64
                and array.shape == shape
                and array.flags.c_contiguous
                and array.flags.writeable
            ):
                return False
        return True

    def _check_count(self):
        if not (np.isfinite(self.t_) and self.t_ >= 0):
            raise ValueError(
                f"t_ of {type(self).__name__} must be the number of tokens "
                f"seen, a finite number >= 0; got {self.t_!r}. Refit with fit."
            )

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
        self._check_count()
        if not self.average:
            Tr[n, n] = self._Tr[n, n]
            self._W, self._Tr = W, Tr

    def _averaging_arrays(self):
        if self.average:
            return self._U, self._UT
        empty = np.zeros((1, 1))
        return empty, empty

    # --------------------------------------------------------------- fitting
    def _validation_split(self, X, y, n_seq):
        """(train_idx, validation) of a ``fit``: without ``early_stopping``,
        every sequence trains and ``validation`` is None; with it, a
        ``validation_fraction`` of the whole sequences is held out (a
        ``ShuffleSplit`` seeded by ``random_state``, as scikit-learn's SGD
        estimators split their rows), never trained on, and ``validation``
        scores the published model on them with :meth:`score`."""
        if not self.early_stopping:
            return np.arange(n_seq, dtype=np.int64), None
        cv = ShuffleSplit(
            n_splits=1,
            test_size=self.validation_fraction,
            random_state=self.random_state,
        )
        try:
            train_idx, val_idx = next(cv.split(np.zeros((n_seq, 1))))
        except ValueError:
            train_idx = val_idx = np.zeros(0, dtype=np.int64)
        if train_idx.shape[0] == 0 or val_idx.shape[0] == 0:
            raise ValueError(
                f"Splitting {n_seq} sequences with validation_fraction="
                f"{self.validation_fraction!r} leaves no training or no "
                "validation sequence; change validation_fraction, add "
                "sequences, or set early_stopping=False."
            )
        train_idx = np.sort(train_idx).astype(np.int64)
        return train_idx, validation_scorer(self, X, y, None, val_idx)

    def _score_for_stopping(self, X, y, sample_weight):
        return self.score(X, y)

    def _epochs(
        self,
        batch,
        labels,
        n_epochs,
        rng,
        *,
        partial_fit=False,
        train_idx=None,
        validation=None,
    ):
        """Run ``n_epochs`` passes over the sequences ``train_idx`` (all by
        default) through the epoch driver
        (:func:`sklearn_pa._core.driver.run_epochs`); ``loss_curve_`` receives
        each pass's fraction of mispredicted sequences, and
        ``validation_scores_`` the scores of ``validation`` (early
        stopping)."""
        if train_idx is None:
            train_idx = np.arange(batch.offsets.shape[0] - 1, dtype=np.int64)
        run = run_epochs(
            self,
            _SequenceEpochs(self, batch, labels),
            train_idx=train_idx,
            max_iter=n_epochs,
            rng=rng,
            shuffle=self.shuffle,
            stopping=not partial_fit,
            validation=validation,
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
        if self.early_stopping:  # the held-out sequences are indexed
            X, y = list(X), list(y)
        with atomic_update(self):
            batch, vectorizer, classes, labels = self._validate_batch(X, y, reset=True)
            checked_params(self, classes)
            self._check_workspace(batch, classes)
            n_seq = batch.offsets.shape[0] - 1
            train_idx, validation = self._validation_split(X, y, n_seq)
            self._reset(classes, batch.n_features, vectorizer)
            rng = check_random_state(self.random_state)
            self._epochs(
                batch,
                labels,
                self.max_iter,
                rng,
                train_idx=train_idx,
                validation=validation,
            )
            self._set_public()
        return self

    @tagger_partial_fit_context
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
        # the whole call holds the estimator's lock: whether it is the first
        # call is decided there, so that two calls in threads never both
        # start a model
        with atomic_update(self):
            # scikit-learn validates parameters on the first call only; a
            # parameter set between calls must be refused before anything
            # moves (validated again whenever one changed since the last call)
            cache = tagger_cache(self)
            if not params_unchanged(self, cache.tagger_validated):
                self._validate_params()
                cache.tagger_validated = params_snapshot(self)
            first = "classes_" not in self.__dict__
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
                        f"classes={list(classes)} differs from the classes of "
                        f"the first call {self.classes_.tolist()}."
                    )
            batch, vectorizer, classes_, labels = self._validate_batch(
                X, y, reset=first, classes=classes
            )
            checked_params(self, classes_)
            self._check_workspace(batch, classes_)
            if first:
                self._reset(classes_, batch.n_features, vectorizer)
            elif self._trusted_state():
                # the arrays it published itself: no copy, no scan
                self._check_count()
            else:
                self._continue_from_public()
            if "_rng" not in self.__dict__:
                self._rng = check_random_state(self.random_state)
            self._epochs(batch, labels, 1, self._rng, partial_fit=True)
            self._publish_lazily()
        return self

    def _check_params(self, classes):
        """Hook: refuse parameters that do not fit together or the classes
        (a ``ValueError``); returns what the epochs read of them (see
        :func:`~sklearn_pa.sequence._base.checked_params`)."""
        return None

    def _check_workspace(self, batch, classes):
        pass

    def _beam(self):
        return 0 if self.beam_width is None else int(self.beam_width)

    # ------------------------------------------------------------ prediction
    @locked_read
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
        # (the weights of the batch's features only, on a model the tagger
        # published itself)
        lean = lean_decode(self, batch)
        if lean is None:
            W, Tr = self._decode_weights()
            rows = batch
        else:
            rows, W, Tr = lean
        out = np.zeros(batch.n_tokens, dtype=np.int32)
        _sequence.decode(rows, rows.offsets, W, Tr, beam_width=self._beam(), out=out)
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
