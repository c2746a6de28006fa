"""Progressive validation of streams whose labels arrive late: the
arrival time of each label (``delay``) and the pass that learns each row
when its label arrives."""

import copy
import functools
import numbers

import numpy as np
from sklearn.base import clone, is_classifier
from sklearn.utils import Bunch, _safe_indexing

from .._core.targets import ClassGrowth

_RESPONSES = ("predict", "decision_function", "predict_proba")


def _with_final(pipeline, final):
    """The pipeline with its last step replaced by the fitted learner."""
    if pipeline is None:
        return final
    out = copy.copy(pipeline)
    out.steps = list(pipeline.steps[:-1]) + [(pipeline.steps[-1][0], final)]
    return out


def _widest(dtypes):
    """The dtype every one of ``dtypes`` converts to without loss (the
    longest string of string labels)."""
    return functools.reduce(np.promote_types, dtypes)


def label_arrival(delay, n_samples):
    """The time at which each row's label arrives, on the scale of the
    rows (row ``i`` arrives at time ``i``), from ``delay``: a number of
    rows, or the arrival time of each row's label."""
    if isinstance(delay, numbers.Integral) and not isinstance(delay, bool):
        if delay < 0:
            raise ValueError(f"delay must be a non-negative int; got {delay!r}.")
        return np.arange(n_samples, dtype=np.float64) + float(delay)
    try:
        arrival = np.asarray(delay, dtype=np.float64)
    except (TypeError, ValueError):
        arrival = None
    if arrival is None or arrival.shape != (n_samples,):
        raise ValueError(
            "delay must be a number of rows or an array of shape (n_samples,) "
            "of the time at which each row's label arrives (row i arriving at "
            f"time i); got {delay!r}."
        )
    if np.any(np.isnan(arrival)) or np.any(arrival < np.arange(n_samples)):
        raise ValueError(
            "delay: a label cannot arrive before its row; every arrival time "
            "must be >= the row's index (np.inf: the label never arrives)."
        )
    return arrival


def delayed_pass(
    est, transform, stream, arrival, fit_kwargs, responses, *, fast, pipeline
):
    """Progressive validation with delayed labels: row ``j`` is predicted
    when it arrives (time ``j``) by the model that has learned every row
    whose label arrived before (``arrival[i] < j``), in the order of the
    arrivals (ties in row order); a row is learned when its label arrives
    (a label arriving after the last row is learned at the end, one
    arriving at ``np.inf`` never).

    The rows predicted between two arrivals are predicted together and the
    rows whose labels arrive together are learned together: the package's
    learners by their compiled pass without shuffling
    (``__sklearn_pa_prequential__``), others by ``partial_fit``.  A classifier's
    decision values and probabilities are returned in the columns of the
    final ``classes_`` (a class not known yet scores ``-inf``, has
    probability 0)."""
    n = stream.n_samples
    X, y, sw_all = stream.X, stream.y, stream.sample_weight
    classifier = is_classifier(est)
    learn_order = np.argsort(arrival, kind="stable")
    # rows learned before row j is predicted
    n_learned = np.searchsorted(arrival[learn_order], np.arange(n), side="left")
    n_final = int(np.searchsorted(arrival[learn_order], np.inf, side="left"))
    block_starts = np.concatenate([[0], np.flatnonzero(np.diff(n_learned)) + 1, [n]])

    def prepare(rows):
        part = _safe_indexing(X, rows)
        return part if transform is None else transform(part)

    done = 0
    fitted = False

    def learn(upto):
        nonlocal done, fitted
        if upto <= done:
            return
        rows = learn_order[done:upto]
        kwargs = dict(fit_kwargs)
        if sw_all is not None:
            kwargs["sample_weight"] = sw_all[rows]
        if fast:
            # the first row alone: the constants a learner sets from its
            # first call come from the only row seen at the first update
            # (as in _stream._first_sample_apart)
            parts = [rows[:1], rows[1:]] if done == 0 and rows.shape[0] > 1 else [rows]
            for part in parts:
                part_kwargs = dict(kwargs)
                if sw_all is not None:
                    part_kwargs["sample_weight"] = sw_all[part]
                est.__sklearn_pa_prequential__(prepare(part), y[part], **part_kwargs)
        else:
            est.partial_fit(prepare(rows), y[rows], **kwargs)
        done, fitted = upto, True

    initial = _initial_model(est, fit_kwargs, y) if fast else None
    records = []  # (rows, {response: values}, classes then)
    predicted = np.zeros(n, dtype=bool)
    for start, stop in zip(block_starts[:-1], block_starts[1:]):
        learn(int(n_learned[start]))
        model = est if fitted else initial
        if model is None:
            continue
        rows = np.arange(start, stop)
        X_block = prepare(rows)
        values = {}
        for r in responses:
            method = r
            if r == "decision_function" and not classifier:
                method = "predict"
            if isinstance(model, _FirstScores):
                values[r] = model.respond(method, X_block, rows)
            else:
                values[r] = np.asarray(getattr(model, method)(X_block))
        records.append((rows, values, getattr(model, "classes_", None)))
        predicted[rows] = True
    learn(n_final)
    final_classes = getattr(est, "classes_", None)
    outputs = {}
    for r in responses:
        parts = []
        for _rows, values, classes_then in records:
            parts.append(
                in_final_columns(values[r], classes_then, r, final_classes, est)
            )
        outputs[r] = _fill_rows(parts, records, n, predicted)
    result = Bunch(
        y=y,
        sample_weight=None if sw_all is None else np.asarray(sw_all, dtype=float),
        predicted=predicted,
        estimator=_with_final(pipeline, est),
        final=est,
        **outputs,
    )
    return result


def _initial_model(est, fit_kwargs, y):
    """A copy of the package's learner ``est`` in its state before any
    update, to predict the rows that arrive before the first label: through
    its state protocol, or, for a learner that has none (kernel PA), from
    the scores its compiled pass records before its first update; None
    where that state has no classes yet (a classifier that adds them as
    they come)."""
    if is_classifier(est) and "classes" not in fit_kwargs:
        return None
    try:
        clone(est).__sklearn_pa_state__()
    except (AttributeError, TypeError):
        return _FirstScores(est, fit_kwargs, y)
    return _InitialModel(clone(est), fit_kwargs.get("classes"))


class _InitialModel:
    """Initialises a copy of the learner for the number of features of the
    first rows it predicts (the state protocol's ``initialise``)."""

    def __init__(self, model, classes):
        self.model, self.classes, self.ready = model, classes, False

    def _ready(self, X):
        if not self.ready:
            learner = self.model.__sklearn_pa_state__()
            learner.initialise(X.shape[1], classes=self.classes, scale=1.0)
            self.ready = True
        return self.model

    @property
    def classes_(self):
        return self.classes

    def __getattr__(self, name):
        if name not in _RESPONSES:
            raise AttributeError(name)

        def respond(X):
            return getattr(self._ready(X), name)(X)

        return respond


class _FirstScores:
    """The initial model of a learner without a state protocol: the score
    of a row is the one a fresh copy's compiled pass records for it as its
    first row, before any update (its label is not learned from: the copy is
    dropped).  Rows before the first label only, one fresh copy a row."""

    def __init__(self, est, fit_kwargs, y):
        self.est, self.classes = est, fit_kwargs.get("classes")
        self.y = np.asarray(y)
        self.kwargs = {} if self.classes is None else {"classes": self.classes}

    @property
    def classes_(self):
        return self.classes

    def decision_function(self, X, rows):
        scores = [
            np.asarray(
                clone(self.est).__sklearn_pa_prequential__(
                    _safe_indexing(X, [i]), self.y[[row]], **self.kwargs
                )
            )[0]
            for i, row in enumerate(rows)
        ]
        return np.asarray(scores)

    def respond(self, method, X, rows):
        scores = self.decision_function(X, rows)
        if method == "decision_function" or not is_classifier(self.est):
            return scores
        if method == "predict":
            classes = np.asarray(self.classes)
            if scores.ndim == 1:
                return classes[(scores > 0).astype(int)]
            return classes[np.argmax(scores, axis=1)]
        raise AttributeError(
            f"{type(self.est).__name__} has no {method} before its first "
            "update; ask for decision_function or predict."
        )


def in_final_columns(values, classes_then, response, final_classes, est):
    """A block's responses in the columns of the final classes of a model
    whose classes grew since (``new_classes="add"``)."""
    if (
        not is_classifier(est)
        or response == "predict"
        or classes_then is None
        or final_classes is None
        or len(classes_then) == len(final_classes)
    ):
        return values
    if response == "predict_proba":
        out = np.zeros((values.shape[0], len(final_classes)))
        columns = np.searchsorted(final_classes, classes_then)
        # (one class known: it is certain)
        out[:, columns] = values if len(classes_then) > 1 else 1.0
        return out
    split = est._binary_split() if hasattr(est, "_binary_split") else 0.5
    growth = ClassGrowth(np.asarray(classes_then), final_classes, split=split)
    return growth.scores(values)


def _fill_rows(parts, records, n, predicted):
    """The per-row responses of the predicted blocks, NaN (or a placeholder
    label) for the rows no model could predict."""
    template = next((p for p in parts), None)
    if template is None:
        return np.full(n, np.nan)
    if np.all(predicted):
        return np.concatenate(parts)
    # (the widest of the parts: labels of every length fit, 'yes' after 'no')
    dtype = _widest(p.dtype for p in parts)
    if dtype.kind in "fc":
        out = np.full((n,) + template.shape[1:], np.nan, dtype=dtype)
    else:
        out = np.empty((n,) + template.shape[1:], dtype=dtype)
        out[...] = template.flat[0]
    for (rows, _, _), part in zip(records, parts):
        out[rows] = part
    return out
