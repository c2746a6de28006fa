"""The lean path of a sequence tagger's later ``partial_fit``: a call on one
sentence costs what that sentence costs.

What the linear learners do in ``sklearn_pa/_core/session.py``, for the
taggers' state (the emission weights ``_W``, the transitions ``_Tr`` and
their averaging accumulators): the parameters are validated again only when
they changed since the last validated call
(:func:`~sklearn_pa._core.session.params_snapshot` /
:func:`~sklearn_pa._core.session.params_unchanged`), the kernel arrays behind
the attributes the tagger published itself are trusted as they are (no
copy, no finiteness scan), the journal of a call saves the rows of the
features its sentences touch (``touched_rows``), and an averaged model is
published when read.  What the path remembers of a tagger between calls is
kept in its session (:func:`tagger_cache`), outside it, so that its
attributes, pickles and clones are those of a model without it.
"""

import numpy as np

from .._core.batch import touched_rows
from .._core.session import (
    fitted_partial_fit_context,
    params_snapshot,
    params_unchanged,
    session_of,
)

__all__ = [
    "PUBLIC_WEIGHTS",
    "checked_params",
    "lean_decode",
    "tagger_cache",
    "tagger_partial_fit_context",
]

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
