"""Classifiers that add a class when the stream first meets it.

``new_classes="add"`` is one mechanism for every family: the target
strategy's :class:`~sklearn_pa._core.targets.ClassGrowth` maps the weight columns
of a model of the old classes to those of the new ones, and
:class:`GrowingClassesMixin` applies it to every learned array of the
fitted model (weights, intercepts, averaging accumulators; a family with
more state grows it in the hook ``_grow_extra_state``, such as
:func:`grow_second_order_state` for the covariance of the
confidence-weighted family).  ``partial_fit`` learns a batch that meets new
labels in segments cut where each first appears, so that a class is added
at its own row.  Nothing here runs on a batch without a new label, beyond a
sort of its labels.
"""

import copy

import numpy as np

from .._compiled._rules import SecondOrderRule as R
from .session import stream_started
from .targets import (
    ClassGrowth,
    grows_classes,
    in_sorted,
    is_indicator_matrix,
    single_label_targets,
)

__all__ = [
    "GrowingClassesMixin",
    "adopt_state_classes",
    "over_the_union",
    "with_classes",
    "with_union",
    "grow_second_order_state",
    "refuse_growing_proba",
]


class GrowingClassesMixin:
    """Growth of a fitted classifier's classes (``new_classes="add"``),
    mixed into :class:`~sklearn_pa.linear._base.OnlineLinearClassifierMixin`."""

    def _binary_split(self):
        """The factor of a binary model's column in the columns of its two
        classes when a third class arrives (see
        :class:`~sklearn_pa._core.targets.ClassGrowth`): 1/2, so that the
        difference of their scores is the binary score."""
        return 0.5

    def _class_growth(self, classes):
        """The :class:`~sklearn_pa._core.targets.ClassGrowth` from ``classes_``
        to ``classes``."""
        return ClassGrowth(self.classes_, classes, split=self._binary_split())

    def _grow_classes(self, classes):
        """Make the fitted model one of ``classes`` (sorted, holding
        ``classes_``): every learned array is read through one
        :class:`~sklearn_pa._core.targets.ClassGrowth` (new arrays: the old ones
        are left as they were, for ``atomic_update``), the new classes'
        columns fresh.  O(model); only called when a new label arrives."""
        growth = self._class_growth(classes)
        W, b = self._state_arrays()
        U = bu = None
        if self._averaging_state():
            U, bu = self._average_accum, self._average_intercept_accum
        self._grow_extra_state(growth)
        self.classes_ = classes
        self._target_strategy = single_label_targets(classes)
        W, b, U, bu = (
            None if a is None else np.ascontiguousarray(growth.columns(a))
            for a in (W, b, U, bu)
        )
        self._publish(W, b, U, bu)

    def _grow_extra_state(self, growth):
        """Hook: grow the learned state beside the weight columns (the
        covariance of the confidence-weighted family); nothing here."""

    def _partial_fit_batch(self, X, y, classes, sample_weight, *, record_scores=False):
        """``_partial_fit``; with ``new_classes="add"``, on the segments of
        the batch that start where a label not met before first appears, so
        that a class is added at its first row and the rows before it never
        see its column (exactly as if the stream had been cut there).  The
        whole batch is validated before any segment is learned.

        With ``record_scores`` the segments' scores are returned in the
        columns of the final model (:meth:`ClassGrowth.scores`), and the
        first row of a new class is scored as the model before it (which
        did not know that class) scored it: its new classes score ``-inf``,
        and a row that no known class can be predicted for is NaN."""
        cuts = (
            self._class_cuts(X, y, classes, sample_weight)
            if self._grows_classes()
            else None
        )
        if cuts is None:
            return self._partial_fit(
                X, y, classes, sample_weight, record_scores=record_scores
            )
        known = cuts["known"]
        if cuts["batch"] is not None:
            X, y, sample_weight = cuts["batch"]
        n_rows = y.shape[0] if hasattr(y, "shape") else len(y)  # (y a list)
        bounds = [0, *cuts["starts"], n_rows]
        parts = []
        for n, (start, stop) in enumerate(zip(bounds[:-1], bounds[1:])):
            rows = slice(start, stop)
            if len(bounds) == 2:  # one segment: the batch as it came
                segment = (X, y, sample_weight)
            else:
                segment = (X[rows], y[rows], sample_weight[rows])
            scores = self._partial_fit(
                *segment[:2],
                classes if n == 0 else None,
                segment[2],
                record_scores=record_scores,
            )
            parts.append((known, self.classes_, scores))
            known = self.classes_
        if not record_scores:
            return self
        out = []
        for known, classes_, scores in parts:
            # the first row as the model before it scored it, in the columns
            # of the segment's classes, then in those of the final model (a
            # batch cut anywhere gives the same scores)
            scores = np.reshape(scores, (scores.shape[0], -1)).copy()
            scores[0] = _scores_of_known(scores[0], classes_, known)
            if classes_.shape[0] != self.classes_.shape[0]:
                if scores.shape[1] == 1:
                    scores = scores[:, 0]
                scores = self._class_growth_from(classes_).scores(scores)
                scores = np.reshape(scores, (scores.shape[0], -1))
            out.append(scores)
        return np.concatenate(out)

    def _grows_classes(self):
        """Whether this model adds the classes it meets
        (``new_classes="add"``)."""
        return grows_classes(self)

    def _labelled(self, y):
        """The rows of ``y`` that carry a class label (all here)."""
        return np.ones(y.shape[0], dtype=bool)

    def _stream_started(self):
        """Whether ``partial_fit`` continues a model (not its first call)."""
        # (not hasattr(self, "coef_"), which would compute a pending average)
        return stream_started(self.__dict__)

    def _class_growth_from(self, classes):
        return ClassGrowth(classes, self.classes_, split=self._binary_split())

    def _class_cuts(self, X, y, classes, sample_weight):
        """Where a batch must be cut for the labels it meets first: None
        when the model does not add classes; else the labels known before
        the batch (``known``), the rows after the first where a new label
        first appears (``starts``) and, when there are any, the batch
        validated as a whole (``batch``)."""
        if not self._grows_classes() or is_indicator_matrix(y):
            return None
        first_call = not self._stream_started()
        y = np.asarray(y)
        # the classes known before the batch's first row (announced ones too)
        known = self.classes_ if not first_call else np.empty(0, dtype=y.dtype)
        if classes is not None:
            known = np.union1d(known, np.asarray(classes))
        cuts = {"known": known, "starts": [], "batch": None}
        if y.ndim != 1 or y.shape[0] < 2:
            return cuts
        labelled = np.flatnonzero(self._labelled(y))
        labels, first = np.unique(y[labelled], return_index=True)
        starts = np.sort(labelled[first[~in_sorted(labels, known)]])
        starts = starts[starts > 0]
        if starts.size:
            # the whole batch is checked before any segment is learned
            self._validate_params()
            cuts["batch"] = self._validate_batch(X, y, sample_weight, reset=first_call)
            cuts["starts"] = starts.tolist()
        return cuts


def _scores_of_known(row, classes, known):
    """The scores ``row`` (in the columns of ``classes``) of a row predicted
    by a model that knew only the classes ``known``: the others score
    ``-inf``; NaN when it knew none (nothing can be predicted)."""
    row = row.copy()
    if known.shape[0] == classes.shape[0]:
        return row
    if known.shape[0] == 0:
        row[:] = np.nan
    elif classes.shape[0] == 2:  # one known class; the sign picks classes[1]
        row[:] = np.inf if known[0] == classes[1] else -np.inf
    elif not np.isnan(row[0]):
        row[~np.isin(classes, known)] = -np.inf
    return row


def grow_second_order_state(est, growth, rule):
    """Grow the covariance ``est._sigma`` of a confidence-weighted model
    (multiclass rule ``rule``) that meets new classes, and the margins it
    recorded to calibrate ``predict_proba``: a new class's block
    starts at the identity, as a class never updated; an old class keeps
    its block.  From two classes, each of the two old classes' blocks
    (or the shared one of the support-class rule) is half the binary
    covariance, so that the difference of their weights has the binary
    model's distribution.  A model that has met one class never moved
    its covariance: it starts over."""
    sigma = getattr(est, "_sigma", None)
    if sigma is None:
        return
    n_classes = growth.new_classes.shape[0]
    rule = R.SO_BINARY if n_classes <= 2 else rule
    n_features = est.n_features_in_
    new = est._new_sigma(n_features, est._n_groups(rule, n_classes))
    n_old = growth.old_classes.shape[0]
    if n_old > 1:
        full = sigma.ndim == 3
        old_blocks = sigma if full else sigma.T
        new_blocks = new if full else new.T  # (a view: written through)
        scale = 0.5 if growth.from_binary else 1.0
        if new_blocks.shape[0] == 1:  # one block shared by the classes
            new_blocks[0] = old_blocks[0] * scale
        else:
            for k in np.flatnonzero(growth.source >= 0):
                old = 0 if growth.from_binary else growth.source[k]
                new_blocks[k] = old_blocks[old] * scale
    est._sigma = np.ascontiguousarray(new)
    # the recorded margins that calibrate predict_proba: the scores the
    # grown model gives those rows (a new class scores 0 there)
    calibration = getattr(est, "_calibration", None)
    if calibration is not None:
        scores, var, idx = calibration
        if n_old > 1:
            scores = growth.columns(np.reshape(scores, (scores.shape[0], -1)))
            idx = np.flatnonzero(growth.source >= 0)[idx]
            est._calibration = (scores, var, idx)
        else:
            est._calibration = None


def refuse_growing_proba(est):
    """Raise ``NotImplementedError`` (the compiled progressive pass's
    refusal) for the probabilities of a stream that adds classes: the
    calibration cannot read the rows of classes not met yet, and the
    predict / partial_fit loop records them instead."""
    if grows_classes(est):
        raise NotImplementedError(
            "predict_proba of a stream that adds classes is recorded by the "
            "predict / partial_fit loop."
        )


# ------------------------------------------------- parameter mixing (_core/state.py)
def with_classes(est, state):
    """A learned state of the state protocol, with the classes of a model
    that adds them as they come: models that met different classes are
    mixed over the union of their classes (:func:`over_the_union`)."""
    if grows_classes(est):
        state["classes"] = est.classes_
    return state


def adopt_state_classes(est, state):
    """Give ``est`` the classes of ``state`` before it is published (class
    weights are computed again by the next ``partial_fit``)."""
    classes = state.get("classes")
    if classes is not None and not np.array_equal(classes, est.classes_):
        est._adopt_targets(classes, np.ones(max(2, classes.shape[0])))


def with_union(state, union):
    """The mixed ``state``, with the union of the mixed models' classes."""
    if union is not None:
        state["classes"] = union
    return state


def over_the_union(est, states, prior):
    """``(states, prior, classes)``: the states of models that met
    different classes each grown to the union of their classes (through one
    :class:`~sklearn_pa._core.targets.ClassGrowth` each, the covariance of the
    confidence-weighted family included), the prior too, and that union;
    unchanged and None when the states carry no classes."""
    classes = [s.get("classes") for s in states]
    if any(c is None for c in classes):
        return states, prior, None
    union = classes[0]
    for c in classes[1:]:
        union = np.union1d(union, c)
    grown = [_grown_state(est, s, union) for s in states]
    return grown, _grown_state(est, prior, union), union


def _grown_state(est, state, union):
    classes = state.get("classes")
    if classes is None or classes.shape[0] == union.shape[0]:
        return state
    growth = ClassGrowth(classes, union, split=est._binary_split())
    grown = dict(state, classes=union)
    for name in ("W", "b", "U", "bu"):
        if state.get(name) is not None:
            grown[name] = np.ascontiguousarray(growth.columns(state[name]))
    if state.get("sigma") is not None:
        model = copy.copy(est)
        model.__dict__.pop("_margin_blocks", None)
        model._sigma = state["sigma"]
        grow_second_order_state(model, growth, model._rule())
        grown["sigma"] = model._sigma
    return grown
