"""Structured perceptron and structured Passive-Aggressive sequence taggers.

The two taggers differ only in their update (one call of their sequence
kernel per pass, ``_run_epoch``) and its parameters; the validation, the
model, fitting through the epoch driver and decoding are their common base
:class:`~sklearn_pa.sequence._base._BaseSequenceTagger`.
"""

from numbers import Integral, Real

import numpy as np
from sklearn.utils._param_validation import Interval, StrOptions

from .._compiled import _sequence
from .._compiled._rules import SequenceLoss, SequenceUpdate
from .._core.docs import fill_doc
from ._base import _BaseSequenceTagger, checked_params

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


@fill_doc
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

    Float32 feature arrays are converted to float64: the sequence kernel
    reads float64 rows.

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
    %(tagger_max_iter)s
    %(tagger_shuffle)s
    %(tagger_random_state)s
    %(tagger_verbose)s
    %(tagger_tol)s
    %(tagger_n_iter_no_change)s
    %(tagger_early_stopping)s
    %(tagger_validation_fraction)s

    Attributes
    ----------
    %(tagger_classes_)s
    %(tagger_coef_)s
    %(tagger_transitions_)s
    %(tagger_start_transitions_)s
    %(tagger_end_transitions_)s
    %(tagger_vectorizer_)s
    %(tagger_n_features_in_)s
    %(tagger_n_iter_)s
    %(tagger_loss_curve_)s
    %(tagger_validation_scores_)s
    %(tagger_t_)s
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
        early_stopping=False,
        validation_fraction=0.1,
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
        self.early_stopping = early_stopping
        self.validation_fraction = validation_fraction

    def _reset(self, classes, n_features, vectorizer):
        super()._reset(classes, n_features, vectorizer)
        self.n_invalid_updates_ = 0

    def _run_epoch(self, batch, labels, order):
        record = self.__dict__.get("_record_updates", False)
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


@fill_doc
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

    Float32 feature arrays are converted to float64: the sequence kernel
    reads float64 rows.

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
    %(tagger_max_iter)s
    %(tagger_shuffle)s
    %(tagger_random_state)s
    %(tagger_verbose)s
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
    %(tagger_tol)s
    %(tagger_n_iter_no_change)s
    %(tagger_early_stopping)s
    %(tagger_validation_fraction)s

    Attributes
    ----------
    %(tagger_classes_)s
    %(tagger_coef_)s
    %(tagger_transitions_)s
    %(tagger_start_transitions_)s
    %(tagger_end_transitions_)s
    %(tagger_vectorizer_)s
    %(tagger_n_features_in_)s
    %(tagger_n_iter_)s
    %(tagger_loss_curve_)s
    %(tagger_validation_scores_)s
    %(tagger_t_)s
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
        early_stopping=False,
        validation_fraction=0.1,
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
        self.early_stopping = early_stopping
        self.validation_fraction = validation_fraction

    def _check_params(self, classes):
        if self.update == "max_loss" and self.margin == "sqrt":
            raise ValueError(
                "update='max_loss' searches the loss-augmented score "
                "w . phi(x, z) + rho(y, z) by adding the per-position cost to "
                "the emissions, which sqrt(rho) does not allow. Use "
                "margin='linear' with update='max_loss', or update='prediction' "
                "with margin='sqrt'."
            )
        cost = None
        if self.cost is not None:
            cost = _check_sequence_cost(self.cost, classes)
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
        return cost

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
        # (checked again only when a parameter changed since the last check)
        cost = checked_params(self, self.classes_)
        record = self.__dict__.get("_record_updates", False)
        k = int(self.k_best)
        rec_alpha = np.zeros((order.shape[0], k) if record else (1, 1))
        U, UT = self._averaging_arrays()
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
