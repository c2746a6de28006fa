"""The state protocol of the online Bayes point machine (see
:mod:`sklearn_pa._state`), used by parameter mixing."""

import numpy as np

from ._mixing import linear_mix
from ._state import LearnerState, scale_row, summed_count, zero_row
from ._targets import unknown_labels_error
from ._unlabeled import _unlabeled_mask

__all__ = ["BayesPointState"]


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
