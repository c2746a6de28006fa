"""The epoch adapter and the helpers of the online Bayes point machine.

:class:`_BayesPointEpochs` makes one pass of the ``n_estimators`` copies over
the rows (one call of the compiled Bayes point kernel) for the epoch driver
(:func:`sklearn_pa._core.driver.run_epochs`); the functions around it are the
pure checks and splits of :class:`~sklearn_pa.OnlineBayesPointClassifier`
(``sklearn_pa/bayes_point/_bayes_point.py``): the supported step
rules, the memory the copies need, the preparation of the base learner's
classes from the labeled rows and the early-stopping split of those rows.
"""

import os

import numpy as np

from .._compiled import _bayes_point
from .._compiled._rules import Rule
from .._core.batch import current_journal, touched_rows, validation_split
from .._core.driver import EpochAdapter, EpochStats
from .._core.epochs import _RowView
from .._core.mixing import linear_mix
from .._core.rules import kernel_values, spec
from .._core.state import LearnerState, scale_row, summed_count, zero_row
from .._core.targets import unknown_labels_error
from ._unlabeled import _unlabeled_mask

__all__ = [
    "check_copies_memory",
    "check_rule",
    "labeled_validation_split",
    "prepare_classes",
    "BayesPointState",
]

#: The first-order step rules the copies implement (``_core/rules.py``).
_SUPPORTED_RULES = kernel_values("bayes_point", "rule")


def _available_memory():
    """Bytes of physical memory available now, or None when unknown."""
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, ValueError, OSError):
        return None


class _BayesPointEpochs(EpochAdapter):
    """The epoch adapter of the online Bayes point machine: one pass is one
    call of the Bayes point kernel, which updates the ``n_estimators``
    copies (``_W``, ``_b``, each drawing its own subset of the rows) and
    their mistake counts in place.  The draws of the copies come from the
    same generator, after the permutation of the rows."""

    skipped_reason = (
        "their squared norm or scores overflowed; scale the input "
        "(StandardScaler, MaxAbsScaler)."
    )

    @classmethod
    def for_batch(cls, estimator, X, labels, sample_weight, base, rng, scores_out=None):
        """The adapter of one ``fit`` or ``partial_fit`` call over the
        validated rows ``X`` (encoded ``labels``, -1 unlabeled), the
        kernel's parameters and margins read from the base learner.
        ``scores_out`` ``(n_rows, n_columns)``, when given, receives the
        Bayes point's scores of each row before its update."""
        n_columns = estimator._W.shape[1] // estimator.n_estimators
        weight_pos, weight_neg, margins = base._kernel_extras(n_columns)
        params = base._kernel_params()
        if spec(params["rule"]).margins:
            margins = np.ascontiguousarray(margins[:n_columns, :n_columns])
        else:
            margins = np.ones((1, 1))
        scaling = estimator.intercept_scaling_
        return cls(
            estimator,
            rng=rng,
            rows=_RowView(X),
            labels=labels,
            sample_weight=sample_weight,
            weight_pos=weight_pos,
            weight_neg=weight_neg,
            margins=margins,
            params=params,
            intercept_sq=scaling**2 if base.fit_intercept else 0.0,
            weight_step=base._kernel_weight_step(),
            M=estimator.n_estimators,
            n_rows=X.shape[0],
            scores_out=scores_out,
        )

    def __init__(self, estimator, **arrays):
        self.estimator = estimator
        self.__dict__.update(arrays)
        self.counts = (0, 0)  # labeled, unlabeled rows of the last pass

    def journal(self, journal, order):
        """Save the rows of the copies' weights that the batch's features
        index, their intercepts and their mistake counts."""
        est = self.estimator
        journal.save(est._W, touched_rows(self.rows))
        journal.save(est._b)
        journal.save(est.n_mistakes_)

    def run(self, order, t):
        est = self.estimator
        M = self.M
        journal = current_journal()
        if journal is not None:
            journal.save_generator(self.rng)
        draws = self.rng.random_sample((self.n_rows, M)) < est.update_probability
        draws = np.ascontiguousarray(draws, dtype=np.uint8)
        loss = np.zeros(1)
        mistakes_before = int(est.n_mistakes_.sum())
        n_lab, n_unlab, n_updates, n_skipped, overflow = _bayes_point.epoch(
            self.rows,
            order,
            est._W,
            est._b,
            params=self.params,
            n_copies=M,
            labels=self.labels,
            sample_weight=self.sample_weight,
            draws=draws,
            weight_pos=self.weight_pos,
            weight_neg=self.weight_neg,
            margins=self.margins,
            intercept_sq=self.intercept_sq,
            unlabeled_step=float(est.unlabeled_step),
            weight_step=self.weight_step,
            mistakes=est.n_mistakes_,
            loss_out=loss,
            scores_out=self.scores_out,
            weight_by_mistakes=est.weighting == "mistakes",
        )
        est.t_ += order.shape[0]
        self.counts = (int(n_lab), int(n_unlab))
        mistakes = int(est.n_mistakes_.sum()) - mistakes_before
        return EpochStats(loss, int(n_updates), mistakes, int(n_skipped), overflow)

    def publish(self):
        self.estimator._publish()

    def summary(self):
        return {
            "Copies": int(self.M),
            "Labeled": self.counts[0],
            "Unlabeled": self.counts[1],
        }


def check_rule(base):
    """Refuse a base learner whose step rule the copies do not implement."""
    rule = base._rule()
    if rule not in _SUPPORTED_RULES:
        raise ValueError(
            f"{type(base).__name__} with these parameters uses the step rule "
            f"{Rule(rule).name}, which the copies do not implement; "
            "OnlineBayesPointClassifier supports the binary, one-vs-rest, "
            "max-loss, prediction-based and support-class PA rules."
        )


def check_copies_memory(n_estimators, n_features, n_columns):
    """Refuse copies whose weights would not fit in the memory available."""
    need = 8 * n_estimators * max(n_features, 1) * n_columns
    available = _available_memory()
    if available is not None and need > available:
        raise MemoryError(
            f"The {n_estimators} copies need {need / 2**20:.0f} MiB "
            f"({n_estimators} x {n_features} features x {n_columns} "
            f"columns of float64) but only {available / 2**20:.0f} MiB are "
            "available. Use fewer copies (n_estimators) or fewer features "
            "(feature selection, HashingVectorizer(n_features=...))."
        )


def prepare_classes(estimator, base, y, unlabeled, classes, first_call, fitting):
    """Prepare the targets of the base learner ``base`` from the labeled
    rows of ``y`` (``unlabeled`` marks the others), refusing ``-1`` among
    ``classes`` and a ``fit`` without labeled rows; returns ``base``."""
    y_lab = y[~unlabeled]
    if classes is not None and np.any(_unlabeled_mask(np.asarray(classes))):
        raise ValueError(
            "classes contains -1, which marks unlabeled samples. Encode the "
            "classes with other labels (e.g. with LabelEncoder) and use -1 "
            "only for samples without a label."
        )
    if fitting and y_lab.shape[0] == 0:
        raise ValueError(
            "y has no labeled sample: every label is -1, which marks an "
            "unlabeled sample. fit needs labeled samples of at least two "
            "classes."
        )
    if not first_call and not fitting:
        base._adopt_targets(estimator.classes_, estimator._class_weight)
    if y_lab.shape[0] == 0:
        if first_call:
            if classes is None:
                raise ValueError(
                    "classes must be passed on the first call to partial_fit: "
                    "the list of every label the stream may contain, e.g. "
                    "classes=np.unique(y_all[y_all != -1])."
                )
            base._prepare_targets(
                np.asarray(classes), classes=classes, first_call=True, fitting=False
            )
        elif classes is not None:
            base._prepare_targets(
                estimator.classes_, classes=classes, first_call=False, fitting=False
            )
    else:
        try:
            base._prepare_targets(
                y_lab, classes=classes, first_call=first_call, fitting=fitting
            )
        except ValueError as exc:
            if fitting and "greater than one" in str(exc):
                raise ValueError(
                    f"{exc} (besides -1, which marks unlabeled samples). If "
                    "your labels are -1 and +1, encode them differently: -1 "
                    "means 'no label' here."
                ) from exc
            raise
    return base


def labeled_validation_split(estimator, y, unlabeled, sample_weight):
    """(train_idx, val_idx): with ``early_stopping``, a stratified
    ``validation_fraction`` of the labeled rows is held out; unlabeled
    rows always train."""
    n = y.shape[0]
    if not estimator.early_stopping:
        return np.arange(n), None
    labeled = np.flatnonzero(~unlabeled)
    _, held = validation_split(estimator, y[labeled], sample_weight[labeled])
    val_idx = labeled[held]
    return np.setdiff1d(np.arange(n), val_idx), val_idx


# ------------------------------------------------------------------------
# The state protocol of the online Bayes point machine (see
# :mod:`sklearn_pa._core.state`), used by parameter mixing.
# ------------------------------------------------------------------------


class BayesPointState(LearnerState):
    """The online Bayes point machine: the copies' weights ``W`` (features x
    copies * columns), intercepts ``b``, ``n_mistakes`` per copy and ``t``.
    ``-1`` marks an unlabeled row."""

    unlabeled_marker = -1

    def initialise(self, n_features, classes=None, scale=None, random_state=None):
        est = self.estimator
        scale = 1.0 if scale is None else float(scale)
        base = est._make_base()
        est._validate_batch(zero_row(n_features), classes[:1], None, reset=True)
        base = est._prepare_classes(
            base,
            classes,
            np.zeros(classes.shape[0], dtype=bool),
            classes,
            first_call=True,
            fitting=False,
        )
        est._check_rule(base)
        n_columns = 1 if base.classes_.shape[0] == 2 else base.classes_.shape[0]
        est.classes_ = base.classes_
        est._class_weight = base._expanded_class_weight
        est._start(base, scale_row(n_features, scale), n_columns)
        if base.fit_intercept and base.intercept_scaling == "auto":
            est.intercept_scaling_ = scale
        est._rng = random_state
        est.n_iter_ = 0
        state = self._get_from(est)
        self._set_on(est, state)
        return state

    def _base(self):
        """The base learner as the copies' kernel reads it."""
        est = self.estimator
        base = est._make_base()
        base._adopt_targets(est.classes_, est._class_weight)
        base.intercept_scaling_ = est.intercept_scaling_
        return base

    def _encode(self, y):
        y = np.asarray(y)
        unlabeled = _unlabeled_mask(y)
        unknown = np.setdiff1d(np.unique(y[~unlabeled]), self.estimator.classes_)
        if unknown.size:
            raise unknown_labels_error(self.estimator, unknown, self.estimator.classes_)
        return self.estimator._labels(y, unlabeled)

    def _extra(self, X, y, sample_weight):
        return {"base": self._base()}

    def _set_on(self, est, state):
        est._W, est._b = state["W"], state["b"]
        est.n_mistakes_ = state["n_mistakes"]
        est.t_ = float(state["t"])
        est._publish()

    def _get_from(self, est):
        return {
            "W": est._W,
            "b": est._b,
            "n_mistakes": est.n_mistakes_,
            "t": float(est.t_),
        }

    def _run_epoch(self, est, block, rng):
        est._run(
            block.X,
            block.y,
            block.sample_weight,
            block.extra["base"],
            max_iter=1,
            stopping=False,
            rng=rng,
        )
        est._publish()

    def mix(self, states, weights, *, prior, rule="uniform"):
        return {
            "W": np.ascontiguousarray(linear_mix([s["W"] for s in states], weights)),
            "b": linear_mix([s["b"] for s in states], weights),
            "n_mistakes": summed_count(
                prior["n_mistakes"], [s["n_mistakes"] for s in states]
            ),
            "t": summed_count(float(prior["t"]), [float(s["t"]) for s in states]),
        }
