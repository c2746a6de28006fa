"""Uniclass Passive-Aggressive: an online ball around the data (novelty detection).

Crammer et al. (JMLR 2006), section 6: the model is a centre ``w`` and a radius
``epsilon``; each sample outside the ball pulls the centre towards it as
little as possible so that the sample falls inside (PA), or at most ``C`` of
the way (PA-I), or damped (PA-II).  The radius is fixed, or learned under a
bound ``B`` through one extra coordinate.
"""

import copy
from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, OutlierMixin, _fit_context
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, StrOptions

from .._compiled import _uniclass
from .._compiled._rules import Slack
from .._core.batch import (
    ReadsUnderLockMixin,
    atomic_update,
    canonical_csr,
    check_batch,
    check_batch_sample_weight,
    check_rows,
    check_sample_count,
    check_state_array,
    check_warm_start_shape,
    current_journal,
    fitted_rows,
    locked_read,
    sum_of_squares,
    touched_rows,
)
from .._core.docs import fill_doc
from .._core.driver import EpochAdapter, EpochStats, run_epochs
from .._core.epochs import _RowView
from .._core.mixing import linear_mix
from .._core.pickled_state import CheckedStateMixin
from .._core.publication import PublishedWhenReadMixin, _same_values
from .._core.session import (
    FLOAT64_ROWS,
    lean_call_ready,
    lean_rows,
    lean_sample_weight,
    remember_call,
    started_partial_fit_context,
)
from .._core.state import (
    LearnerState,
    summed_count,
    zero_row,
)

__all__ = [
    "PassiveAggressiveOneClass",
    "ScaledCentreMixin",
    "new_scale_state",
    "stream_passes",
    "OneClassState",
]

# the learned objects a call publishes, trusted by the next one while they
# are still in place (see _core.session.remember_call): fit publishes the
# centre, a partial_fit call leaves it as a scale times a vector
# (one_class/_one_class.py)
_PUBLISHED = ("center_", "_extra")
_PUBLISHED_SCALED = ("_scale_pending", "_extra")

# a partial_fit batch with more than n_features / _WHOLE_SAVE_RATIO
# non-zeros saves the whole centre in the rollback journal (a copy of the
# centre costs about as much as sorting that many feature indices)
_WHOLE_SAVE_RATIO = 256


# ------------------------------------------------------------------------
# The centre of the one-class PA between ``partial_fit`` calls: a scale
# times a vector.
#
# A uniclass step moves every entry of the centre (``w <- (1 - beta) w + beta
# x``); the kernel (``_compiled/_uniclass.pyx``) holds it as ``a * v`` and keeps
# ``||w||^2`` up to date from the row, so that a step costs the row's
# non-zeros.  ``fit`` folds the scale back at the end of each pass, as it
# always did.  A ``partial_fit`` call keeps the model in that form, as ROMMA
# and ALMA do (``linear/_scaled.py``): the vector ``v``
# (``_scale_pending``), the scale ``a`` and ``||w||^2`` (``_scale_state``)
# are carried to the next call, ``center_`` is published (the scale folded,
# a new array) when first read, and a few rows are scored from ``a * v`` and
# the carried norm, so that neither call costs the size of the model.
#
# A call's rollback journal saves the entries of ``v`` its rows touch (the
# scale and norm are a new array per call); the fold of a tiny scale (below
# 1e-9, a step with ``beta`` near 1), which writes every entry, saves the
# whole vector first (:func:`stream_passes`).
# ------------------------------------------------------------------------


# entries compared at a time with the published centre
_BLOCK = 1024

# the attributes of the scaled centre a partial_fit call leaves
_PENDING = ("_scale_pending", "_scale_state", "_scale_published")


def new_scale_state():
    """``[a, ||w||^2, whole, done]`` for the kernel's ``state``: scale 1,
    the norm to compute at entry."""
    return np.array([1.0, np.nan, 0.0, 0.0])


def stream_passes(rows, order, w, extra, state, **kwargs):
    """One ``partial_fit`` pass of the uniclass kernel over ``order`` that
    keeps the scale and the norm in ``state``: the kernel stops before a
    step that folds the scale (it writes every entry of ``w``) unless the
    whole centre is saved in the rollback journal, which is done then, once.
    Returns the kernel's ``(outside, updates, skipped, overflow)`` summed
    over the parts."""
    totals = [0, 0, 0, False]
    start = 0
    while True:
        stats = _uniclass.epoch(rows, order[start:], w, extra, state=state, **kwargs)
        totals = [totals[i] + int(stats[i]) for i in range(3)] + [
            totals[3] or bool(stats[3])
        ]
        start += int(state[3])
        if start >= order.shape[0] or stats[3]:
            return tuple(totals)
        journal = current_journal()
        if journal is not None:
            journal.save(w)
        state[2] = 1.0


class ScaledCentreMixin(PublishedWhenReadMixin):
    """The scaled centre of :class:`~sklearn_pa.PassiveAggressiveOneClass`
    between ``partial_fit`` calls (see the module's description)."""

    #: the centre a partial_fit call left as a scale times a vector
    _publishes_when_read = (("_scale_pending", ("center_",), "_form_centre"),)

    def _centre_assigned(self):
        """Whether ``center_`` was assigned or edited since the last
        ``partial_fit`` call left the centre scaled: an attribute that is
        not the copy published when read, or that copy written in place
        since (its values are no longer ``a * v``: one pass over the
        model, only while the published copy is held)."""
        values = self.__dict__
        if "_scale_pending" not in values or "center_" not in values:
            return False
        centre = values["center_"]
        if centre is not values.get("_scale_published"):
            return True
        # (by blocks: no copy of the model is made)
        v, scale = values["_scale_pending"], values["_scale_state"][0]
        if centre.shape != v.shape:
            return True
        return any(
            not np.array_equal(centre[i : i + _BLOCK], v[i : i + _BLOCK] * scale)
            for i in range(0, v.shape[0], _BLOCK)
        )

    def _folded_centre(self):
        """A new array ``a * v``: the centre a ``partial_fit`` call left as a
        scale times a vector (one pass over the model); ``v`` itself stays,
        so that a stream goes on bit for bit whether ``center_`` was read or
        not."""
        values = self.__dict__
        return values["_scale_pending"] * values["_scale_state"][0]

    def _drop_scale(self):
        """Forget the scaled centre (an assigned ``center_`` or a fit starts
        the model again)."""
        for name in _PENDING:
            self.__dict__.pop(name, None)

    def _pending_centre(self, compare=False):
        """``(v, state)`` of the scaled centre a ``partial_fit`` call left,
        when it is still the model (of the fitted width, ``center_`` not
        assigned since or, with ``compare``, assigned the model's values:
        one pass over the model, and the stream goes on from its scale as if
        nothing was assigned); None otherwise."""
        values = self.__dict__
        v = values.get("_scale_pending")
        if v is None or v.shape != (values.get("n_features_in_"),):
            return None
        if self._centre_assigned() and not (
            compare and _same_values(values["center_"], self._folded_centre())
        ):
            return None
        return v, values["_scale_state"]

    def _stream_centre(self, centre):
        """The vector a ``partial_fit`` pass updates in place, and sets the
        pass's scale state ``_scale_stream``: the carried ``v`` and a copy of
        its state (a failed call leaves the previous one in place), or else
        a copy of ``centre()`` (the published or assigned centre, read
        once) at scale 1, its norm computed at the kernel's entry."""
        pending = self._pending_centre(compare=True)
        if pending is not None:
            v, state = pending
            state = state.copy()
            state[2] = 0.0
            self._scale_stream = state
            return v
        if "_scale_pending" in self.__dict__:
            # an assigned centre starts the stream again (the scaled one
            # published first, where it was not read)
            self.center_  # noqa: B018
            self._drop_scale()
        w = centre().copy()
        self._scale_stream = new_scale_state()
        return w

    def _publish_scaled(self, v):
        """Keep ``v`` and the pass's scale state as the model; ``center_``
        is published when read (:meth:`__getattr__`)."""
        values = self.__dict__
        state = values.pop("_scale_stream")
        values.pop("center_", None)
        values.pop("_scale_published", None)
        state[2] = state[3] = 0.0
        self._scale_state = state
        self._scale_pending = v

    def _form_centre(self):
        """The centre a ``partial_fit`` call left as a scale times a
        vector, published as a new array (``PublishedWhenReadMixin``)."""
        centre = self._folded_centre()
        self._scale_published = centre
        return {"center_": centre}

    def _squared_distances(self, X):
        """``||x - center_||^2`` of each row of ``X`` (float64, dense or
        canonical CSR of the fitted width): from the scaled centre and its
        carried norm where a ``partial_fit`` call left one (a CSR row costs
        its non-zeros), else from ``center_``."""
        pending = self._pending_centre()
        if pending is None:
            w, scale, norm_sq = np.asarray(self.center_, dtype=np.float64), 1.0, None
        else:
            w, state = pending
            scale, norm_sq = float(state[0]), float(state[1])
        if not sp.issparse(X):
            diff = X - (w if scale == 1.0 else w * scale)
            return np.einsum("ij,ij->i", diff, diff)
        if norm_sq is None:
            # (no BLAS: its threads wake on a model-sized dot product, and on
            # a busy machine a call then waits for them)
            norm_sq = sum_of_squares(w)
        # ||w||^2 - ||w_S||^2 + sum_S (x_j - w_j)^2 per row (S its
        # non-zeros): O(nnz), and no cancellation on the support
        w_at = w[X.indices] * scale
        terms = (X.data - w_at) ** 2 - w_at**2
        rows = np.repeat(np.arange(X.shape[0]), np.diff(X.indptr))
        sq = np.bincount(rows, weights=terms, minlength=X.shape[0]) + norm_sq
        return np.maximum(sq, 0.0)


def _learned_radius(bound, gap):
    """``sqrt(B**2 - r**2)`` from the gap ``g = B - r``, as
    ``sqrt(2 g) * sqrt(B - g / 2)``: no cancellation when r is within rounding
    of B, and no overflow of ``B**2`` (nor of ``2 B``) for a huge bound."""
    gap = min(max(gap, 0.0), bound)
    return float(np.sqrt(2.0 * gap) * np.sqrt(bound - 0.5 * gap))


class _UniclassEpochs(EpochAdapter):
    """The epoch adapter of the one-class PA: one pass is one call of the
    uniclass kernel, which moves the centre ``w`` (and the learned radius in
    ``extra``) in place.  In a ``partial_fit`` call (the estimator's
    ``_scale_stream`` set) ``w`` is the vector of the scaled centre, which
    the kernel leaves scaled (:mod:`sklearn_pa.one_class._one_class`)."""

    skipped_reason = (
        "their distance to the centre overflowed; scale the input "
        "(StandardScaler, MaxAbsScaler)."
    )
    overflow_message = (
        "the centre is no longer finite. Scale the input (StandardScaler, "
        "MaxAbsScaler)."
    )

    def __init__(self, estimator, X, sample_weight, w, extra):
        self.estimator = estimator
        self.rows = _RowView(X)
        self.sample_weight, self.w, self.extra = sample_weight, w, extra
        self.params = params = estimator._kernel_params()
        self.learn, self.bound = params["learn"], params["bound"]
        self.epsilon = params["epsilon"]
        self.outside = (0, 0)
        self.state = estimator.__dict__.get("_scale_stream")

    def journal(self, journal, order):
        """Save the entries of the scaled centre's vector the batch's rows
        touch (a ``partial_fit`` call updates it in place; its scale state
        and the radius state are new arrays of the call).  Outside one,
        nothing: the pass works on copies, published once it is over.
        A batch of many non-zeros saves the whole vector: one copy of it
        costs less than sorting out the features the batch touches."""
        if self.state is None:
            return
        rows = self.rows
        nnz = 0 if rows.dense else int(rows.indptr[-1] - rows.indptr[0])
        if rows.dense or _WHOLE_SAVE_RATIO * nnz > rows.n_features:
            journal.save(self.w)
        else:
            journal.save(self.w, touched_rows(rows))

    def run(self, order, t):
        loss = np.zeros(1)
        kwargs = {
            "params": self.params,
            "sample_weight": self.sample_weight,
            "loss_out": loss,
        }
        if self.state is None:
            stats = _uniclass.epoch(self.rows, order, self.w, self.extra, **kwargs)
        else:
            stats = stream_passes(
                self.rows, order, self.w, self.extra, self.state, **kwargs
            )
        outside, updates, skipped, overflow = stats
        self.outside = (int(outside), int(order.shape[0]))
        return EpochStats(loss, int(updates), -1, int(skipped), bool(overflow))

    def summary(self):
        if self.learn:
            radius = _learned_radius(self.bound, float(self.extra[0]))
        else:
            radius = self.epsilon
        return {
            "Outside": f"{self.outside[0]}/{self.outside[1]}",
            "Radius": f"{radius:.6f}",
            "Centre norm": f"{self._centre_norm():.6g}",
        }

    def _centre_norm(self):
        if self.state is None:
            return float(np.linalg.norm(self.w))
        return float(np.sqrt(max(self.state[1], 0.0)))


@fill_doc
class PassiveAggressiveOneClass(
    CheckedStateMixin,
    ScaledCentreMixin,
    OutlierMixin,
    ReadsUnderLockMixin,
    BaseEstimator,
):
    r"""Uniclass Passive-Aggressive: an online ball for novelty detection.

    The model is a ball with centre ``center_`` and radius ``epsilon_``.  On
    each sample :math:`x` outside the ball (loss
    :math:`\|w - x\| - \epsilon > 0`) the centre :math:`w` moves as little as
    possible towards :math:`x` (Crammer et al. 2006,
    section 6), solving

    .. math::

        w_{t+1} = \arg\min_w \tfrac12 \|w - w_t\|^2 + C\xi
        \quad\text{s.t.}\quad \|w - x_t\| \le \epsilon + \xi,\ \xi \ge 0

    (:math:`C\xi^2` and no sign constraint for PA-II).  The closed form moves
    the centre a distance :math:`\tau` along :math:`x - w`:
    :math:`\tau = \ell` (the loss) for plain PA (``C=np.inf``),
    :math:`\min(C, \ell)` for PA-I (``loss="hinge"``) and
    :math:`\ell / (1 + 1 / (2C))` for PA-II (``loss="squared_hinge"``).

    By default (``epsilon="auto"``) the radius is relative to the data's
    scale: the 90th percentile of the distances of the first batch's samples
    (all of ``X`` for ``fit``) to their mean, so that about a tenth of
    ordinary data falls outside, scaled or not.  With ``epsilon="learn"`` the
    radius is learned: the centre gets an extra
    coordinate :math:`r` (starting at :math:`B` = ``epsilon_bound``, the
    sample's is 0), the ball in that space has the fixed radius :math:`B`, and
    the radius in the input space is ``epsilon_`` :math:`= \sqrt{B^2 - r^2}`.
    It starts at 0 and never decreases.

    Samples inside the ball are inliers (``predict`` returns +1), the others
    outliers (-1); ``decision_function(x) = epsilon_ - ||x - center_||``.

    Both dense and CSR input run in one compiled pass per epoch; a CSR row
    costs O(its non-zeros), the centre being kept as a scalar times a vector
    (between ``partial_fit`` calls too: ``center_`` is computed when read;
    writing into it in place, as assigning a new array, changes the model).

    Float32 input is converted to float64: the uniclass kernel reads float64
    rows (the linear learners read float32 rows as they are).

    Parameters
    ----------
    C : float, default=1.0
        Aggressiveness: the longest move of the centre on one sample (PA-I),
        or the inverse damping (PA-II); in the units of ``X``.  ``np.inf``
        gives plain PA, which puts each outside sample on the new sphere.
    %(loss_pa)s
    epsilon : float, "auto" or "learn", default="auto"
        The radius of the ball: a number in the units of ``X``; ``"auto"``
        for the 90th percentile of the distances of the first batch's
        samples to their mean (the radius is then fixed, see
        ``epsilon_``); or ``"learn"`` to learn it under the bound
        ``epsilon_bound``.

        .. versionchanged:: 0.1
           The default changed from 1.0, a radius in data units that flagged
           every digit of scikit-learn's digits as an outlier, to
           ``"auto"``.
    epsilon_bound : float, default=None
        The bound :math:`B` of the learned radius; required with
        ``epsilon="learn"``, ignored otherwise.
    max_iter : int, default=5
        Maximum number of passes over the training data in ``fit``.
        ``partial_fit`` always makes one pass.
    tol : float or None, default=None
        Stop when the average loss of an epoch is not below
        ``best_loss - tol`` for ``n_iter_no_change`` consecutive epochs.
        ``None`` runs ``max_iter`` epochs.
    %(n_iter_no_change)s
    %(shuffle)s
    verbose : int, default=0
        If positive, print one line per epoch (``Epoch i/max_iter``, average
        loss, time; ``partial_fit`` prints ``partial_fit call n``).  From 2
        on the line adds the updates, samples outside the ball, the radius
        and samples seen.
    %(random_state_shuffling)s
    warm_start : bool, default=False
        Whether ``fit`` starts from the previous centre and radius.

    Attributes
    ----------
    center_ : ndarray of shape (n_features,)
        The centre of the ball.
    epsilon_ : float
        The radius of the ball (set from the first batch with
        ``epsilon="auto"``, learned with ``epsilon="learn"``).
    offset_ : float
        ``-epsilon_``, so that ``decision_function = score_samples - offset_``
        as for scikit-learn's outlier detectors.
    %(n_features_in_)s
    %(feature_names_in_)s
    %(n_iter_)s
    %(loss_curve_)s
    %(t_)s

    See Also
    --------
    sklearn.linear_model.SGDOneClassSVM : The online one-class SVM.
    KernelPassiveAggressiveClassifier : Kernel PA for classification.

    References
    ----------
    .. [1] K. Crammer, O. Dekel, J. Keshet, S. Shalev-Shwartz and Y. Singer,
       "Online Passive-Aggressive Algorithms", JMLR 7, 2006, section 6.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_pa import PassiveAggressiveOneClass
    >>> rng = np.random.RandomState(0)
    >>> X = rng.normal(size=(500, 2))
    >>> ball = PassiveAggressiveOneClass(epsilon="learn", epsilon_bound=10.0)
    >>> ball = ball.fit(X)
    >>> ball.predict([[0.0, 0.0], [6.0, 6.0]])
    array([ 1, -1])
    """

    #: the centre saved (see ``_core/pickled_state.py``), published or as a
    #: scale times a vector
    _state_shapes = {
        "center_": ("d",),
        "_scale_pending": ("d",),
        "_scale_state": (4,),
        "_scale_published": ("d",),
        "_extra": (1,),
    }

    _parameter_constraints: dict = {
        "C": [Interval(Real, 0, np.inf, closed="right")],
        "loss": [StrOptions({"hinge", "squared_hinge"})],
        "epsilon": [
            Interval(Real, 0, None, closed="left"),
            StrOptions({"auto", "learn"}),
        ],
        "epsilon_bound": [Interval(Real, 0, None, closed="neither"), None],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "tol": [Interval(Real, None, None, closed="neither"), None],
        "n_iter_no_change": [Interval(Integral, 1, None, closed="left")],
        "shuffle": ["boolean"],
        "verbose": ["verbose"],
        "random_state": ["random_state"],
        "warm_start": ["boolean"],
    }

    def __init__(
        self,
        *,
        C=1.0,
        loss="hinge",
        epsilon="auto",
        epsilon_bound=None,
        max_iter=5,
        tol=None,
        n_iter_no_change=5,
        shuffle=True,
        verbose=0,
        random_state=None,
        warm_start=False,
    ):
        self.C = C
        self.loss = loss
        self.epsilon = epsilon
        self.epsilon_bound = epsilon_bound
        self.max_iter = max_iter
        self.tol = tol
        self.n_iter_no_change = n_iter_no_change
        self.shuffle = shuffle
        self.verbose = verbose
        self.random_state = random_state
        self.warm_start = warm_start

    # ------------------------------------------------------------ helpers
    def _learn(self):
        return isinstance(self.epsilon, str) and self.epsilon == "learn"

    def _set_radius(self, X):
        """The fixed radius: ``epsilon``, or with ``"auto"`` the 90th
        percentile of the distances of the rows of ``X`` to their mean."""
        if not (isinstance(self.epsilon, str) and self.epsilon == "auto"):
            self._radius = 0.0 if self._learn() else float(self.epsilon)
            return
        mean = np.asarray(X.mean(axis=0)).ravel()
        if sp.issparse(X):
            sq = np.asarray(X.multiply(X).sum(axis=1)).ravel()
            sq = sq - 2.0 * np.asarray(X @ mean).ravel() + mean @ mean
        else:
            diff = X - mean
            sq = np.einsum("ij,ij->i", diff, diff)
        radius = float(np.percentile(np.sqrt(np.maximum(sq, 0.0)), 90))
        if not np.isfinite(radius):
            raise ValueError(
                "epsilon='auto' could not measure the data's scale: the "
                "distances to the mean overflow. Scale the input "
                "(StandardScaler, MaxAbsScaler) or pass a numeric epsilon."
            )
        self._radius = radius

    def _check_bound(self):
        if self._learn() and self.epsilon_bound is None:
            raise ValueError(
                "epsilon='learn' needs epsilon_bound, the largest radius the "
                "ball may reach (B), in the units of X; e.g. epsilon_bound=10.0."
            )

    def _validate_batch(self, X, y, sample_weight, reset):
        """The full branch of the one check of a batch
        (:func:`~sklearn_pa._core.batch.check_batch`): ``(X, None,
        sample_weight)``, the rows checked (``y`` is ignored: the normal
        class carries no targets) after the radius parameters."""
        self._check_bound()
        X = check_rows(self, X, reset=reset)
        # (all-zero weights: refused by fit, a no-op on a later batch)
        sample_weight = check_batch_sample_weight(sample_weight, X, all_zero=not reset)
        return X, None, sample_weight

    def _prepare_targets(self, y, classes, first_call, fitting):
        """No targets to check against the model (the normal class alone)."""

    def _initial_state(self, n_features):
        # extra = [g], the gap B - r of the learned radius (r starts at B);
        # unused with a fixed radius
        w = np.zeros(n_features, dtype=np.float64)
        return w, np.zeros(1)

    def _stored_extra(self):
        """A copy of the stored ``[g]``; a model pickled before the state was
        the gap ``g = B - r`` stored ``[r]``, converted here."""
        extra = self._extra.copy()
        if not self.__dict__.get("_extra_is_gap", False):
            bound = self.__dict__.get("_bound")
            if self.__dict__.get("_learned", False) and self.epsilon_bound:
                bound = float(self.epsilon_bound) if bound is None else bound
                extra[0] = bound - extra[0]
            else:
                extra[0] = 0.0
        return extra

    def _publish(self, w, extra):
        self._drop_scale()
        self.center_ = w
        self._publish_radius(extra)

    def _publish_radius(self, extra):
        """Publish the radius state ``extra`` (``[g]``), ``epsilon_`` and
        ``offset_``."""
        self._extra = extra
        self._extra_is_gap = True
        if self._learn():
            self._bound = float(self.epsilon_bound)
            self.epsilon_ = _learned_radius(self._bound, float(extra[0]))
        else:
            # no radius yet: a model set up before seeing data (the initial
            # model of parameter mixing, whose workers measure it)
            self.epsilon_ = float(getattr(self, "_radius", 0.0))
        self.offset_ = -self.epsilon_

    def _kernel_params(self):
        """The uniclass rule's parameters, as the kernel reads them: the
        slack, ``C``, the fixed radius ``epsilon`` or, with a learned radius,
        ``learn`` and its bound."""
        learn = self._learn()
        return {
            "slack": int(Slack.HINGE if self.loss == "hinge" else Slack.SQUARED_HINGE),
            "C": float(self.C),
            "epsilon": 0.0 if learn else float(self._radius),
            "learn": learn,
            "bound": float(self.epsilon_bound) if learn else 0.0,
        }

    def _run(self, X, sample_weight, w, extra, *, max_iter, rng, stopping, t_start):
        """Run up to ``max_iter`` epochs through the epoch driver; returns
        (n_iter, t_end)."""
        run = run_epochs(
            self,
            _UniclassEpochs(self, X, sample_weight, w, extra),
            train_idx=np.arange(X.shape[0]),
            max_iter=max_iter,
            rng=rng,
            shuffle=self.shuffle,
            stopping=stopping,
            t_start=t_start,
            partial_fit=not stopping,
        )
        return run.n_iter, run.t

    # ------------------------------------------------------------ fitting
    def _continued_state(self):
        """Copies of (center_, the kernel's extra state) to continue from,
        checked against ``n_features_in_`` (a user may have assigned
        ``center_``); the scale of a centre a ``partial_fit`` call left
        scaled is folded into the copy."""
        check_state_array(self, "the radius state", self._extra, (1,))
        if self._pending_centre() is not None:
            return self._folded_centre(), self._stored_extra()
        return self._checked_centre().copy(), self._stored_extra()

    def _checked_centre(self):
        """``center_``, checked against ``n_features_in_``."""
        return check_state_array(self, "center_", self.center_, (self.n_features_in_,))

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None, sample_weight=None):
        """Fit the ball with up to ``max_iter`` passes over the data.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training data (the normal class).
        y : None
            Ignored.
        sample_weight : array-like of shape (n_samples,), default=None
            Per-sample weights; each multiplies ``C`` for its sample (a zero
            weight skips the sample).

        Returns
        -------
        self : object
            Fitted estimator.
        """
        with atomic_update(self):
            batch = check_batch(self, X, None, None, sample_weight, True, fitting=True)
            X, sample_weight = batch.X, batch.sample_weight
            if self.warm_start and (
                "center_" in self.__dict__ or "_scale_pending" in self.__dict__
            ):
                # as scikit-learn: continuing from a model of another size
                # is an error, not a silent restart
                check_warm_start_shape(
                    self, "center_", np.shape(self.center_), (X.shape[1],)
                )
                w, extra = self._continued_state()
                if not (self.epsilon == "auto" and hasattr(self, "_radius")):
                    self._set_radius(X)
            else:
                w, extra = self._initial_state(X.shape[1])
                self._set_radius(X)
            rng = check_random_state(self.random_state)
            n_iter, t = self._run(
                X,
                sample_weight,
                w,
                extra,
                max_iter=self.max_iter,
                rng=rng,
                stopping=True,
                t_start=0,
            )
            self._rng = rng
            self._learned = self._learn()
            self.n_iter_ = n_iter
            self.t_ = float(t) + 1.0
            self._publish(w, extra)
            remember_call(self, _PUBLISHED)
        return self

    @started_partial_fit_context("center_", "_scale_pending")
    def partial_fit(self, X, y=None, sample_weight=None):
        """Make one pass over a batch, continuing from the current ball.

        The whole batch is validated before the centre moves: on an error the
        estimator is left exactly as it was.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            A batch of training data.
        y : None
            Ignored.
        sample_weight : array-like of shape (n_samples,), default=None
            Per-sample weights multiplying ``C``.

        Returns
        -------
        self : object
            Fitted estimator.
        """
        with atomic_update(self):
            values = self.__dict__
            later = "center_" in values or "_scale_pending" in values
            batch = check_batch(self, X, None, None, sample_weight, not later)
            X, sample_weight = batch.X, batch.sample_weight
            validated = batch.snapshot is not None
            if validated:
                w, extra, t_start = self._full_state(X, not later)
                if later and batch.weighs_nothing:
                    return self  # a no-op, as on the cheap branch
            else:
                # the scaled centre and the radius state, trusted: the
                # pass updates the vector in place (the journal saves what
                # it touches), a copy of the radius state
                if batch.weighs_nothing:
                    return self  # a no-op, as on the full branch
                w = self._stream_centre(lambda: self.center_)
                extra = self._stored_extra()
                if not (self.epsilon == "auto" and "_radius" in self.__dict__):
                    self._set_radius(X)
                t_start = check_sample_count(self) - 1
            n_iter, t = self._run(
                X,
                sample_weight,
                w,
                extra,
                max_iter=1,
                rng=self._rng,
                stopping=False,
                t_start=t_start,
            )
            self._learned = self._learn()
            self.n_iter_ = n_iter
            self.t_ = float(t) + 1.0
            self._publish_scaled(w)
            self._publish_radius(extra)
            remember_call(self, _PUBLISHED_SCALED, validated=validated)
        return self

    def _lean_batch(self, X, y, classes, sample_weight):
        """The cheap branch of the one check of a later ``partial_fit``
        call (:func:`~sklearn_pa._core.batch.check_batch`): ``(X, None,
        sample_weight)`` checked in O(batch), or None when the call needs
        the full validation (see
        :func:`~sklearn_pa._core.session.lean_call_ready`)."""
        if not lean_call_ready(self) or self._centre_assigned():
            return None
        X = lean_rows(X, self.n_features_in_, FLOAT64_ROWS)
        if X is None:
            return None
        sample_weight = lean_sample_weight(sample_weight, X.shape[0])
        if sample_weight is None:
            return None
        return X, None, sample_weight

    def _full_state(self, X, first_call):
        """``(w, extra, t_start)`` of a ``partial_fit`` call whose batch
        ``X`` the full branch checked: the first call starts the state, a
        later one checks what it continues from."""
        if first_call:
            w, extra = self._initial_state(X.shape[1])
            self._scale_stream = new_scale_state()
            self._rng = check_random_state(self.random_state)
            self._set_radius(X)
            t_start = 0
        else:
            if self._learn() != getattr(self, "_learned", self._learn()):
                raise ValueError(
                    "epsilon changed between 'learn' and a fixed radius since "
                    "the first call to partial_fit; refit with fit instead."
                )
            bound = self.__dict__.get("_bound")  # absent from old pickles
            if (
                self._learn()
                and bound is not None
                and float(self.epsilon_bound) != bound
            ):
                raise ValueError(
                    f"epsilon_bound={self.epsilon_bound!r} differs from the "
                    f"bound the radius was learned under ({bound!r}); set it "
                    "back, or refit with fit."
                )
            check_state_array(self, "the radius state", self._extra, (1,))
            w = self._stream_centre(self._checked_centre)
            extra = self._stored_extra()
            if not (self.epsilon == "auto" and hasattr(self, "_radius")):
                self._set_radius(X)
            t_start = check_sample_count(self) - 1
        return w, extra, t_start

    # --------------------------------------------------------- prediction
    @locked_read
    def score_samples(self, X):
        """Minus the distance of each sample to the centre.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Samples.

        Returns
        -------
        scores : ndarray of shape (n_samples,)
            ``-||x - center_||``: the higher, the more normal.
        """
        scores = self._lean_score_samples(X)
        if scores is not None:
            return scores
        X = fitted_rows(self, X)
        return -np.sqrt(self._squared_distances(canonical_csr(X)))

    def _lean_score_samples(self, X):
        """``score_samples`` of rows already in the kernels' form
        (:func:`~sklearn_pa._core.session.lean_rows`), without scikit-learn's
        validation, from the scaled centre a ``partial_fit`` call left (a
        CSR row costs its non-zeros) or a dense float64 ``center_`` of the
        fitted width (plus one pass over it for ``||center_||**2``); None
        otherwise."""
        values = self.__dict__
        n_features = values.get("n_features_in_")
        if "feature_names_in_" in values:
            return None
        if self._pending_centre() is None:
            w = values.get("center_")
            if (
                type(w) is not np.ndarray
                or w.dtype != np.float64
                or w.shape != (n_features,)
            ):
                return None
        X = lean_rows(X, n_features, FLOAT64_ROWS)
        if X is None:
            return None
        return -np.sqrt(self._squared_distances(X))

    @locked_read
    def decision_function(self, X):
        """Signed distance to the sphere: positive inside the ball.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Samples.

        Returns
        -------
        dec : ndarray of shape (n_samples,)
            ``epsilon_ - ||x - center_||``.
        """
        return self.score_samples(X) - self.offset_

    @locked_read
    def predict(self, X):
        """+1 for samples inside the ball (inliers), -1 outside.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Samples.

        Returns
        -------
        y : ndarray of shape (n_samples,)
            +1 or -1.
        """
        dec = self.decision_function(X)
        y = np.ones(dec.shape[0], dtype=int)
        y[dec < 0] = -1
        return y

    def __sklearn_pa_state__(self):
        """The state protocol of this estimator (used by parameter mixing).

        Returns
        -------
        state : OneClassState
            Initialises, prepares blocks for, runs bare epochs on, reads,
            publishes and mixes the learned state of this estimator.
        """
        return OneClassState(self)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags


# ------------------------------------------------------------------------
# The state protocol of the one-class PA (see :mod:`sklearn_pa._core.state`),
# used by parameter mixing.
# ------------------------------------------------------------------------


class OneClassState(LearnerState):
    """The one-class PA: the centre, the kernel's extra state (the gap of a
    learned radius), the fixed ``radius`` (``None`` until measured, with
    ``epsilon="auto"``: each block measures it on its rows) and ``t``."""

    needs_y = False

    def initialise(self, n_features, classes=None, scale=None, random_state=None):
        est = self.estimator
        est._validate_batch(zero_row(n_features), None, None, reset=True)
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
