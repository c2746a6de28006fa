"""The state protocol of the one-class PA (see :mod:`sklearn_pa._state`),
used by parameter mixing."""

import copy

import numpy as np

from ._mixing import linear_mix
from ._state import (
    LearnerState,
    summed_count,
    zero_row,
)

__all__ = ["OneClassState"]


class OneClassState(LearnerState):
    """The one-class PA: the centre, the kernel's extra state (the gap of a
    learned radius), the fixed ``radius`` (``None`` until measured, with
    ``epsilon="auto"``: each block measures it on its rows) and ``t``."""

    needs_y = False

    def _validate(self, X, y, sample_weight):
        X, sample_weight = self.estimator._validate_batch(X, sample_weight, reset=False)
        return X, None, sample_weight

    def initialise(self, n_features, classes=None, scale=None, random_state=None):
        est = self.estimator
        est._check_bound()
        est._validate_batch(zero_row(n_features), None, reset=True)
        center, extra = est._initial_state(n_features)
        est._rng = random_state
        est._learned = est._learn()
        est.n_iter_ = 0
        state = {"center": center, "extra": extra, "radius": None, "t": 1.0}
        self._set_on(est, state)
        return state

    def _extra(self, X, y, sample_weight):
        est = copy.copy(self.estimator)
        est._set_radius(X)
        return {"radius": est._radius}

    def _set_on(self, est, state):
        if state["radius"] is not None:
            est._radius = state["radius"]
        est._learned = est._learn()
        est.t_ = float(state["t"])
        est._publish(np.ascontiguousarray(state["center"]), state["extra"])

    def _get_from(self, est):
        return {
            "center": est.center_,
            "extra": est._stored_extra(),
            "radius": est.__dict__.get("_radius"),
            "t": float(est.t_),
        }

    def _run_epoch(self, est, block, rng):
        if not (est.epsilon == "auto" and "_radius" in est.__dict__):
            est._radius = block.extra["radius"]
        center, extra = est._continued_state()
        _, t = est._run(
            block.X,
            block.sample_weight,
            center,
            extra,
            max_iter=1,
            rng=rng,
            stopping=False,
            t_start=int(est.t_) - 1,
        )
        est.t_ = float(t) + 1.0
        est._publish(center, extra)

    def reducible(self, rule):
        return type(self).mix is OneClassState.mix

    def mix_terms(self, state, weight, rule):
        return {
            "center": weight * state["center"],
            "extra": weight * state["extra"],
            "radius": weight * state["radius"],
            "t": float(state["t"]),
            "n": 1.0,
        }

    def finish_mix(self, total, *, prior, rule="uniform"):
        t0 = float(prior["t"])
        return {
            "center": np.ascontiguousarray(total["center"]),
            "extra": total["extra"],
            "radius": float(total["radius"]),
            "t": t0 + (total["t"] - total["n"] * t0),
        }

    def mix(self, states, weights, *, prior, rule="uniform"):
        return {
            "center": np.ascontiguousarray(
                linear_mix([s["center"] for s in states], weights)
            ),
            "extra": linear_mix([s["extra"] for s in states], weights),
            "radius": float(linear_mix([s["radius"] for s in states], weights)),
            "t": summed_count(float(prior["t"]), [float(s["t"]) for s in states]),
        }
