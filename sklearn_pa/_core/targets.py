"""Target strategies of the online linear classifiers.

A classifier reads its ``y`` through one strategy object, chosen once per
``fit`` (or first ``partial_fit``) from the form of ``y`` and the classes:

- :class:`BinaryTargets`: two classes, one weight column;
- :class:`MulticlassTargets`: more than two classes, one column per class;
- :class:`SingleClassTargets`: one class met so far by a stream that adds
  classes as they come (``new_classes="add"``): one column that no row moves;
- :class:`MultilabelTargets`: a 2-D indicator matrix, one column per label
  (multilabel ranking).

The strategy holds no learned state (``classes_`` and the class weights stay
fitted attributes of the estimator); it answers how many weight columns the
model has, how a batch's labels are encoded for the kernel, which extra arrays
the kernel reads, how the early-stopping split is drawn and how scores become
predictions.  Its instances are small, picklable and compare equal by kind.

A stream that meets labels it has never seen (``new_classes="add"``) grows
its model through one mechanism, :class:`ClassGrowth`: the map from the
weight columns of a model of the old classes to those of the new ones, which
every family applies to each of its learned arrays (weights, intercepts,
averaging accumulators, dual coefficients; the covariance blocks of the
confidence-weighted family follow the same sources).
"""

import numpy as np
import scipy.sparse as sp
from sklearn.model_selection import ShuffleSplit, StratifiedShuffleSplit
from sklearn.utils import compute_class_weight
from sklearn.utils.multiclass import type_of_target, unique_labels

from ._calls import encode_labels
from .batch import check_rows
from .rules import spec

__all__ = [
    "BinaryTargets",
    "ClassGrowth",
    "MulticlassTargets",
    "MultilabelTargets",
    "SingleClassTargets",
    "TargetStrategy",
    "added_classes",
    "checked_class_weight",
    "grows_classes",
    "in_sorted",
    "is_indicator_matrix",
    "single_label_targets",
]


def grows_classes(estimator):
    """Whether ``estimator`` adds a label it meets for the first time in
    ``partial_fit`` (``new_classes="add"``)."""
    return getattr(estimator, "new_classes", "error") == "add"


def is_indicator_matrix(y):
    """Whether ``y`` is read as a multilabel indicator matrix: sparse, or 2-D
    with several columns (a single column is a 1-D ``y``, as scikit-learn
    reads it)."""
    if sp.issparse(y):
        return True
    shape = np.shape(np.asarray(y))
    return len(shape) == 2 and shape[1] > 1


class TargetStrategy:
    """How a classifier reads, encodes and predicts its targets.

    Subclasses set ``multi_output`` (``y`` validated as a 2-D matrix) and
    implement :meth:`start` (choose and check on the first batch) and
    :meth:`check` (check a later batch against the fitted classes).
    """

    multi_output = False

    def __eq__(self, other):
        return type(self) is type(other)

    def __hash__(self):
        return hash(type(self))

    def __repr__(self):
        return f"{type(self).__name__}()"

    @classmethod
    def start(cls, estimator, y, *, classes, fitting):
        """Check the first batch; return ``(strategy, classes_, class_weight)``."""
        raise NotImplementedError

    def check(self, estimator, y, *, classes):
        """Check a later batch against ``estimator.classes_``; return the
        class weights (recomputed on every call, as in SGDClassifier)."""
        raise NotImplementedError

    def check_form(self, kind, classes):
        """Refuse a later batch whose form (read by the strategy family
        ``kind``) is not the one this model was trained on."""
        if kind.multi_output != self.multi_output:
            raise ValueError(self._form_mismatch(classes))

    def _form_mismatch(self, classes):
        raise NotImplementedError

    def n_columns(self, classes):
        """Number of weight columns of a model of these classes."""
        return classes.shape[0]

    def encode(self, classes, y):
        """``(labels, targets)`` for the kernel: int32 label per row and the
        float64 regression targets (unused by classifiers)."""
        return encode_labels(classes, y)

    def label_arrays(self, y):
        """Extra keyword arrays for the kernel; none for single-label rows."""
        return {}

    def kernel_weights(self, class_weight, classes, n_columns, rule):
        """``(weight_pos, weight_neg, margins)`` for the kernel."""
        return class_weight, class_weight, _unit_margins(classes.shape[0])

    def validation_split(self, y, *, validation_fraction, random_state):
        """``(idx_train, idx_val)`` of the early-stopping split."""
        cv = StratifiedShuffleSplit(
            test_size=validation_fraction, random_state=random_state
        )
        return next(cv.split(np.zeros((y.shape[0], 1)), y))

    def predict(self, classes, scores):
        """Predictions from the decision values."""
        raise NotImplementedError


class _SingleLabelTargets(TargetStrategy):
    """Shared reading of a 1-D ``y`` of class labels."""

    @classmethod
    def start(cls, estimator, y, *, classes, fitting):
        met = integer_labels(y)
        if met is None:
            _check_label_type(y)
        growing = not fitting and grows_classes(estimator)
        if fitting:
            classes_ = unique_labels(y) if met is None else met
        elif growing:
            # the labels met so far, and any announced in advance
            classes_ = (
                unique_labels(y) if classes is None else unique_labels(classes, y)
            )
        else:
            if classes is None:
                raise ValueError(
                    "classes must be passed on the first call to partial_fit: "
                    "the list of every label the stream may contain, e.g. "
                    "classes=np.unique(y_all); or set new_classes='add' to add "
                    "each label when the stream first meets it."
                )
            classes_ = unique_labels(classes)
            if estimator.class_weight == "balanced":
                raise ValueError(
                    "class_weight='balanced' is not supported by partial_fit: the "
                    "class frequencies of the whole stream are unknown. Compute "
                    "weights on a representative sample with "
                    "sklearn.utils.compute_class_weight('balanced', ...) and pass "
                    "them as a dict."
                )
        cw = _single_label_weights(estimator, classes_, y, growing=growing, met=met)
        return single_label_targets(classes_), classes_, cw

    def check(self, estimator, y, *, classes):
        met = integer_labels(y)
        if met is None:
            _check_label_type(y)
        classes_ = estimator.classes_
        growing = grows_classes(estimator)
        if growing:
            pass  # (classes only announces labels; added before this check)
        elif classes is not None and not np.array_equal(
            classes_, unique_labels(classes)
        ):
            raise ValueError(
                f"classes={classes!r} is not the same as on the first call to "
                f"partial_fit, which was {classes_!r}."
            )
        return _single_label_weights(estimator, classes_, y, growing=growing, met=met)

    def _form_mismatch(self, classes):
        return (
            "This model was trained on single-label y; partial_fit cannot "
            "switch to a multilabel indicator y. Start a new model."
        )


class BinaryTargets(_SingleLabelTargets):
    """Two classes: one weight column whose sign picks ``classes_[1]``."""

    def n_columns(self, classes):
        return 1

    def predict(self, classes, scores):
        return classes[(np.ravel(scores) > 0).astype(np.intp)]


class MulticlassTargets(_SingleLabelTargets):
    """More than two classes: one weight column per class, argmax predicts."""

    def kernel_weights(self, class_weight, classes, n_columns, rule):
        weight_pos, weight_neg, margins = super().kernel_weights(
            class_weight, classes, n_columns, rule
        )
        if spec(rule).one_vs_rest:
            # scikit-learn's one-vs-rest: the class weight scales the positive
            # examples of its own column only
            weight_neg = _ones(n_columns)
        return weight_pos, weight_neg, margins

    def predict(self, classes, scores):
        return classes[np.argmax(scores, axis=1)]


class SingleClassTargets(BinaryTargets):
    """One class met so far, by a stream that adds classes as they come
    (``new_classes="add"``): one weight column, which no row moves (its
    class weights are zero: there is no rival class to separate from), and
    every prediction is that class.  The next class met makes the model a
    binary one whose column starts at zero."""

    def predict(self, classes, scores):
        return np.repeat(classes[:1], np.shape(scores)[0])


def single_label_targets(classes):
    """The strategy of a single-label model of ``classes``."""
    n_classes = classes.shape[0]
    if n_classes == 1:
        return SingleClassTargets()
    return BinaryTargets() if n_classes == 2 else MulticlassTargets()


def added_classes(classes_, y, classes=None):
    """The sorted labels of ``y`` (and of the announced ``classes``) that are
    not in ``classes_``: one sort of the batch's labels, O(batch)."""
    met = np.unique(y)
    if classes is not None:
        met = np.union1d(met, np.asarray(classes))
    if met.size and classes_.size:
        text = [np.asarray(a).dtype.kind in "USO" for a in (classes_, met)]
        if text[0] != text[1]:
            raise ValueError(
                "Mix of label input types (string and number): the labels "
                f"{met.tolist()!r} are not of the type of classes_ "
                f"{classes_.tolist()!r}."
            )
        new = met[~in_sorted(met, classes_)]
        return new if new.size == 0 else np.unique(unique_labels(new))
    return np.setdiff1d(met, classes_)


def in_sorted(values, sorted_values):
    """Whether each of ``values`` is in the sorted array ``sorted_values``
    (a binary search: cheaper than ``np.isin`` on a batch of a few rows)."""
    values = np.asarray(values)
    text = [a.dtype.kind in "USO" for a in (values, sorted_values)]
    if sorted_values.shape[0] == 0 or text[0] != text[1]:
        return np.zeros(values.shape, dtype=bool)
    idx = np.searchsorted(sorted_values, values)
    idx[idx == sorted_values.shape[0]] = 0
    return sorted_values[idx] == values


class ClassGrowth:
    """How a model of ``old_classes`` becomes a model of ``new_classes``.

    One mechanism for every family: the weight columns of the new model are
    read from those of the old one (:meth:`columns`), and a class that was
    not there gets the family's fresh column (zeros: the weights, intercepts,
    averaging accumulators and dual coefficients of a class before its first
    update).  ``classes_`` stay sorted; the old classes keep their columns,
    moved to their new positions, with three cases of form:

    - one class (:class:`SingleClassTargets`): its column never moved, every
      column of the new model is fresh;
    - two classes (one column ``w``, positive for ``old_classes[1]``) to
      more: the two old classes get ``-split * w`` and ``+split * w``.  With
      ``split = 1/2`` (the multiclass rules, MIRA, the confidence-weighted
      family) the difference of their scores is the binary score, with
      ``split = 1`` (one-vs-rest) each is the binary score of its class
      against the other; either way the model predicts what the binary model
      predicted wherever the binary score is not zero and no new class has
      learned anything yet;
    - more classes to more: the columns are kept as they are.

    Parameters
    ----------
    old_classes, new_classes : ndarray
        Sorted labels; ``new_classes`` holds every old one.
    split : float, default=0.5
        The factor of the binary column in each of the two old classes'
        columns (above).

    Attributes
    ----------
    source : ndarray of shape (n_new_classes,)
        The index in ``old_classes`` of each new class, -1 for a fresh one.
    column_source, column_scale : ndarray of shape (n_new_columns,)
        New column ``j`` is old column ``column_source[j]`` times
        ``column_scale[j]``, or fresh where ``column_source[j] == -1``.
    """

    def __init__(self, old_classes, new_classes, *, split=0.5):
        self.old_classes, self.new_classes = old_classes, new_classes
        self.split = float(split)
        n_old, n_new = old_classes.shape[0], new_classes.shape[0]
        position = np.searchsorted(new_classes, old_classes)
        self.source = np.full(n_new, -1, dtype=np.intp)
        self.source[position] = np.arange(n_old)
        n_columns = single_label_targets(new_classes).n_columns(new_classes)
        self.column_source = np.full(n_columns, -1, dtype=np.intp)
        self.column_scale = np.ones(n_columns)
        if n_old == 2:
            self.column_source[position] = 0
            self.column_scale[position] = (-self.split, self.split)
        elif n_old > 2:
            self.column_source[position] = np.arange(n_old)

    @property
    def from_binary(self):
        """Whether the old model is a binary one (one column, two classes)."""
        return self.old_classes.shape[0] == 2

    def columns(self, A, fresh=0.0):
        """``A`` (columns along its last axis) as the new model's columns:
        a new array, ``fresh`` in the columns of fresh classes."""
        A = np.asarray(A)
        shape = A.shape[:-1] + (self.column_source.shape[0],)
        out = np.full(shape, fresh, dtype=A.dtype)
        keep = self.column_source >= 0
        out[..., keep] = A[..., self.column_source[keep]] * self.column_scale[keep]
        return out

    def scores(self, scores):
        """Decision values of the old model, recorded before the growth, in
        the new model's columns for predictions: a class not met yet scores
        ``-inf`` (a row the kernel skipped stays NaN); one class alone
        scores ``+inf``."""
        scores = np.asarray(scores, dtype=np.float64)
        n_old, n_new = self.old_classes.shape[0], self.new_classes.shape[0]
        skipped = np.isnan(scores if scores.ndim == 1 else scores[:, 0])
        if n_old == 1:
            if n_new == 2:  # the sign picks new_classes[1]
                out = np.full(scores.shape[0], np.inf * (2 * self.source[1] + 1))
            else:
                out = np.full((scores.shape[0], n_new), -np.inf)
                out[:, self.source >= 0] = np.inf
        else:
            old = scores.reshape(scores.shape[0], -1)
            out = self.columns(old, fresh=-np.inf)
        out[skipped] = np.nan
        return out


class MultilabelTargets(TargetStrategy):
    """A 2-D 0/1 indicator matrix: one weight column per label, the labels
    of positive score predicted (multilabel ranking with a threshold at 0).

    ``classes_`` are the column indices ``np.arange(n_labels)``; class
    weights and costs between classes have no meaning here.
    """

    multi_output = True

    @classmethod
    def validate(cls, estimator, X, y, *, reset):
        """Validate ``X`` and the indicator matrix ``y`` of one batch."""
        X, y = check_rows(
            estimator,
            X,
            y,
            reset=reset,
            dtype=estimator._input_dtypes(),
            multi_output=True,
        )
        if sp.issparse(y):
            y = y.tocsr()
        return X, y

    @classmethod
    def start(cls, estimator, y, *, classes, fitting):
        if not fitting and grows_classes(estimator):
            raise ValueError(
                "new_classes='add' adds the labels of a 1-D y as they come; a "
                "multilabel indicator y has a fixed set of label columns. Pass "
                "new_classes='error' (and classes=np.arange(n_labels))."
            )
        n_labels = _check_indicator(y)
        classes_ = np.arange(n_labels)
        if not fitting:
            if classes is None:
                raise ValueError(
                    "classes must be passed on the first call to partial_fit; "
                    "for a multilabel y they are the label column indices, "
                    f"classes=np.arange({n_labels})."
                )
            if not np.array_equal(np.asarray(classes), classes_):
                raise ValueError(
                    "For a multilabel indicator y, classes must be the column "
                    f"indices np.arange(n_labels) = np.arange({n_labels}); got "
                    f"{classes!r}."
                )
        cls._check_labels(estimator, n_labels)
        return cls(), classes_, np.ones(n_labels)

    def check(self, estimator, y, *, classes):
        n_labels = _check_indicator(y)
        classes_ = estimator.classes_
        if n_labels != classes_.shape[0]:
            raise ValueError(
                f"y has {n_labels} label columns but the model was trained on "
                f"{classes_.shape[0]}; every batch must have the same columns."
            )
        if classes is not None and not np.array_equal(np.asarray(classes), classes_):
            raise ValueError(
                f"classes={classes!r} is not the same as on the first call to "
                f"partial_fit, which was {classes_!r}."
            )
        self._check_labels(estimator, n_labels)
        return np.ones(n_labels)

    def _form_mismatch(self, classes):
        return (
            "This model was trained on a multilabel indicator y of "
            f"{classes.shape[0]} columns; partial_fit needs y of the same form."
        )

    @staticmethod
    def _check_labels(estimator, n_labels):
        if n_labels < 2:
            raise ValueError(
                "A multilabel indicator y needs at least 2 label columns; for a "
                "single label pass a 1-D y."
            )
        if estimator.class_weight is not None:
            raise ValueError(
                "class_weight is not supported with a multilabel y (a row has "
                "several labels); pass class_weight=None and use sample_weight."
            )

    def encode(self, classes, y):
        # the labels travel as CSR arrays (label_arrays); one dummy per row
        return np.zeros(y.shape[0], dtype=np.int32), np.zeros(1)

    def label_arrays(self, y):
        Y = sp.csr_matrix(y)
        Y.eliminate_zeros()
        Y.sort_indices()
        return {
            "label_indptr": np.ascontiguousarray(Y.indptr, dtype=np.int64),
            "label_indices": np.ascontiguousarray(Y.indices, dtype=np.int32),
        }

    def validation_split(self, y, *, validation_fraction, random_state):
        # label sets cannot be stratified: a plain shuffled split
        cv = ShuffleSplit(test_size=validation_fraction, random_state=random_state)
        return next(cv.split(np.zeros((y.shape[0], 1))))

    def predict(self, classes, scores):
        return (np.asarray(scores) > 0).astype(np.int64)


def _unit_margins(n_classes):
    """The ``(K, K)`` required margins between classes, ones off the
    diagonal: one read-only array per ``K``, made once (a stream of
    ``partial_fit`` calls does not build it on every call)."""
    margins = _UNIT_MARGINS.get(n_classes)
    if margins is None:
        margins = np.ones((n_classes, n_classes)) - np.eye(n_classes)
        margins.flags.writeable = False
        _UNIT_MARGINS[n_classes] = margins
    return margins


def _ones(n):
    """A read-only array of ``n`` ones, made once per ``n``."""
    ones = _ONES.get(n)
    if ones is None:
        ones = np.ones(n)
        ones.flags.writeable = False
        _ONES[n] = ones
    return ones


_UNIT_MARGINS = {}
_ONES = {}


def checked_class_weight(class_weight, classes, y):
    """``compute_class_weight`` for ``classes``, refused (before any update)
    unless every weight is finite and non-negative; ones for ``None``."""
    if class_weight is None:
        return np.ones(classes.shape[0])
    weights = np.asarray(
        compute_class_weight(class_weight, classes=classes, y=y), dtype=np.float64
    )
    if not np.all(np.isfinite(weights)) or np.any(weights < 0):
        raise ValueError(
            f"class_weight={class_weight!r} gives the weights "
            f"{dict(zip(classes.tolist(), weights.tolist()))!r}; each class "
            "weight multiplies C for the samples of its class and must be a "
            "finite non-negative number."
        )
    return weights


def _check_label_type(y):
    if type_of_target(y) not in ("binary", "multiclass"):
        raise ValueError(
            f"Unknown label type: {type_of_target(y)!r}. This estimator takes "
            "binary or multiclass targets."
        )


def integer_labels(y):
    """The sorted distinct labels of ``y`` (``np.unique``) when ``y`` is a
    1-D integer ndarray of at least one label, else None.

    Such a ``y`` is binary or multiclass to scikit-learn's
    ``type_of_target``, and its ``unique_labels`` are these values, of its
    dtype: one pass over the labels then stands for the type check, the
    classes and the check that every label is a class (a ``fit`` on
    millions of rows made each of them in turn).  Any other ``y`` takes
    those checks."""
    if (
        type(y) is np.ndarray
        and y.ndim == 1
        and y.shape[0] > 0
        and y.dtype.kind in "iu"
    ):
        lo, hi = int(y.min()), int(y.max())
        if hi - lo < min(y.shape[0], 1 << 20):
            # labels of a small range: counted, not sorted (np.unique's
            # sorted values, of y's dtype, in O(n))
            if y.dtype == np.uint64:  # (beyond int64: in its own type)
                counts = np.bincount((y - np.uint64(lo)).astype(np.intp))
                return np.flatnonzero(counts).astype(np.uint64) + np.uint64(lo)
            counts = np.bincount(y.astype(np.int64) - lo)
            return (np.flatnonzero(counts) + lo).astype(y.dtype)
        return np.unique(y)
    return None


def unknown_labels_error(estimator, unknown, classes):
    """The error for labels of ``y`` not in ``classes_``: what to pass, and
    ``new_classes="add"`` where the estimator (or its base learner) has it."""
    message = (
        f"y contains labels {np.asarray(unknown).tolist()!r} that are not in "
        f"classes {np.asarray(classes).tolist()!r}. Pass every label the "
        "stream may contain as classes on the first call to partial_fit"
    )
    params = estimator.get_params(deep=False)
    # the base learner of an ensemble names its owner (``_owner``)
    owner = getattr(estimator, "_owner", None)
    if owner is None and "estimator" in params:
        owner = type(estimator).__name__
    if owner is not None:
        message += (
            ", or give the base learner new_classes='add' (e.g. "
            f"{owner}(PassiveAggressiveClassifier(new_classes='add'))) to add "
            "each label when the stream first meets it"
        )
    elif "new_classes" in params:
        message += (
            ", or set new_classes='add' to add each label when the stream "
            "first meets it"
        )
    return ValueError(message + ".")


def _single_label_weights(estimator, classes_, y, *, growing=False, met=None):
    if growing and classes_.shape[0] == 1:
        # no rival class: no row moves the model (the kernels read two
        # entries for one column)
        return np.zeros(2)
    if classes_.shape[0] < 2:
        raise ValueError(
            "The number of classes has to be greater than one; got "
            f"{classes_.shape[0]} class."
        )
    # (``met``: the distinct labels of y, when integer_labels found them)
    unknown = np.setdiff1d(np.unique(y) if met is None else met, classes_)
    if unknown.size:
        raise unknown_labels_error(estimator, unknown, classes_)
    class_weight = estimator.class_weight
    if growing and isinstance(class_weight, dict):
        # a growing stream may weigh classes it has not met yet
        class_weight = {
            k: v for k, v in class_weight.items() if np.isin(k, classes_).any()
        }
    cw = checked_class_weight(class_weight, classes_, y)
    return np.ascontiguousarray(cw, dtype=np.float64)


def _check_indicator(y):
    values = y.data if sp.issparse(y) else np.asarray(y)
    if not np.all(np.isin(values, (0, 1))):
        raise ValueError(
            "A 2-D y is read as a multilabel indicator matrix and must hold "
            "only 0 and 1 (1 = the label is relevant); use "
            "sklearn.preprocessing.MultiLabelBinarizer to build one."
        )
    return y.shape[1]
