# cython: language_level=3
"""One epoch of uniclass Passive-Aggressive updates (the centre of a ball).

Each step is the closed-form solution of

    min_w  1/2 ||w - w_t||^2 (+ C xi  |  + C xi ** 2)
    s.t.   ||w - x|| <= epsilon + xi   (xi >= 0 for PA-I)

with loss l = ||w_t - x|| - epsilon: the centre moves towards x by
``tau = l`` (PA), ``min(C, l)`` (PA-I) or ``l / (1 + 1 / (2 C))`` (PA-II).

With a learned radius (``learn``), w carries one more coordinate ``r`` (x's is
0), the radius is fixed to the bound B, and epsilon = sqrt(B^2 - r^2): since
each step is a convex combination of (w, r) and (x, 0), r only shrinks and the
learned radius only grows.

r starts at B and, for a bound much larger than the data, stays within a
rounding error of it: B^2 - r^2 and ||w - x||^2 + r^2 - B^2 would cancel to
nothing (epsilon 0 at B = 1e9 on unit-scale data, and r^2 overflows from
B = 1e154).  The state is therefore the gap ``g = B - r`` (exact where it is
small), with

    epsilon = sqrt(B^2 - r^2) = sqrt(2 g) * sqrt(B - g / 2)
    loss    = sqrt(d^2 + r^2) - B = (d - epsilon) (d + epsilon) / (dist + B)
    g      <- g + tau * (r / dist)         (= g + beta r; r <- (1 - beta) r)

(d = ||w - x||, dist = hypot(d, r)): no subtraction of nearly equal numbers
and no square of B.

Representation, so that a CSR row costs O(nnz): the centre is ``a * v``
(a scalar times a vector).  The step ``w <- (1 - beta) w + beta x`` with
``beta = tau / ||w - x||`` becomes ``a <- (1 - beta) a`` and ``v += beta / a * x``
on the row's non-zeros only.  ``||w||^2`` is kept alongside, updated on the
row's support, so that

    ||x - w||^2 = (||w||^2 - ||w_S||^2) + sum_{j in S} (x_j - w_j)^2

(S the row's non-zeros) never subtracts two large numbers that nearly cancel
on the support.  When ``a`` falls below 1e-9 (a step with beta near 1) v is
rescaled to a = 1 in one dense pass, as scikit-learn's SGD does with its
``wscale``.  A self-contained call (``fit``'s passes) computes ``||w||^2`` at
entry and folds ``a`` into v at exit; a call given ``state``
(``partial_fit``) takes ``a`` and ``||w||^2`` in and hands them out, so that
it costs its rows alone (as ``_scaled.pyx``).  The scale only shrinks
(``1 - beta <= 1``), so the fold below 1e-9 is its only guard: ``v`` grows
by at most ``1e9`` times a row, and a centre entry that overflows is
reported as before.  A dense row is a row with
every index, so the same loop serves both layouts.  Nothing here calls back
into Python.
"""

from libc.math cimport hypot, isfinite, isnan, sqrt

from ._dataset cimport (
    Rows32, Rows64, rows_t, get_row, make_rows, wide_rows, check_rows, check_length,
)
from ._params cimport check_param_names
from ._rules_linear cimport Slack

from .._core.rules import check_kernel_rule


cdef inline double _step(double loss, double C, int slack) noexcept nogil:
    if loss <= 0.0:
        return 0.0
    if slack == Slack.HINGE:
        return min(C, loss)
    if slack == Slack.SQUARED_HINGE:
        return loss / (1.0 + 0.5 / C)
    return 0.0  # no other slack passes the entry (``_core/rules.py``)


cdef struct UniclassParams:
    int slack        # a Slack (PA-I / PA-II)
    double C         # step bound (C = inf is plain PA)
    double epsilon   # the fixed radius (ignored when ``learn``)
    bint learn       # learn the radius, with bound ``bound``
    double bound     # B, the bound of the learned radius


def epoch(
    rows,
    const long long[::1] order,
    double[::1] w,
    double[::1] extra,
    *,
    dict params,
    sample_weight,
    loss_out,
    state=None,
):
    """Run the uniclass rule over the rows ``order`` once, updating ``w``.

    Parameters (all validated by the caller)
    ----------------------------------------
    rows
        The row view: ``data``, ``indices``, ``indptr``, ``dense`` and
        ``n_features`` (see ``_dataset.pxd`` and ``_linear_epochs._RowView``).
    order : int64 row indices, in visiting order.
    params : dict, ``UniclassParams``: ``slack``, ``C``, ``epsilon``,
        ``learn`` and ``bound`` (see below), as the estimator's
        ``_kernel_params()`` states them; a missing or unknown key is
        refused.
    sample_weight : per row; multiplies C.  A zero weight skips the row.
    w : the centre (n_features,), updated in place.
    extra : [g], the gap ``B - r`` between the bound and the extra coordinate
        ``r`` of the learned-radius problem (read and written only when
        ``learn``).
    slack, C : the step rule (``C = inf`` is plain PA).
    epsilon : the fixed radius (ignored when ``learn``).
    learn, bound : learn the radius, with bound B.
    (``slack`` to ``bound`` are the entries of ``params``.)
    loss_out : [0] receives the loss summed over the rows, each measured
        before its update.
    state : float64 array of length 4, or None (a self-contained call)
        Carries the representation across calls: ``state[0]`` the scale
        ``a`` with centre ``a * w`` (``w`` the array passed), ``state[1]``
        the squared norm of the centre (NaN: computed at entry), both read
        and written; ``a`` is then folded into ``w`` only when it falls
        below 1e-9, so that a call costs its rows alone.  That fold writes
        every entry: it is only taken when ``state[2]`` is non-zero (the
        caller saved the whole centre for its rollback); otherwise the call
        stops before that row.  ``state[3]`` receives the number of rows of
        ``order`` processed.

    Returns
    -------
    (outside, updates, skipped, overflow) : rows that fell outside the ball
        before their update, rows that took a non-zero step, rows skipped
        because their distance was not finite, and whether the centre
        overflowed.
    """
    check_param_names(params, ("slack", "C", "epsilon", "learn", "bound"))
    cdef UniclassParams p = params
    check_kernel_rule("uniclass", "slack", p.slack)
    cdef double[::1] st = None
    if state is not None:
        st = state
        check_length(st.shape[0], 4, "state")
        if not (isfinite(st[0]) and st[0] > 0.0):
            raise ValueError("the scale state[0] must be finite and positive")
    cdef Rows32 rows32
    cdef Rows64 rows64
    if wide_rows(rows):
        arrays = make_rows(rows, &rows64)
        return _epoch[Rows64](
            &rows64, order, sample_weight, w, extra, p.slack, p.C, p.epsilon, p.learn,
            p.bound, loss_out, st,
        )
    arrays = make_rows(rows, &rows32)
    return _epoch[Rows32](
        &rows32, order, sample_weight, w, extra, p.slack, p.C, p.epsilon, p.learn,
        p.bound, loss_out, st,
    )


cdef tuple _epoch(
    const rows_t *rows,
    const long long[::1] order,
    const double[::1] sample_weight,
    double[::1] w,
    double[::1] extra,
    int slack,
    double C,
    double epsilon,
    bint learn,
    double bound,
    double[::1] loss_out,
    double[::1] st,
):
    """:func:`epoch` on the row view ``rows`` (one specialisation per index
    dtype)."""
    # the loop reads a local copy of the row view, which the compiler keeps in
    # registers (through the pointer it would reload the fields after each
    # store that might alias them)
    cdef rows_t view = rows[0]
    cdef bint dense = view.dense
    cdef Py_ssize_t n_features = view.n_features
    cdef Py_ssize_t n_rows = order.shape[0]
    # the rows, the centre and every per-row array must fit the data
    cdef Py_ssize_t needed = check_rows(rows, order)
    if w.shape[0] != n_features:
        raise ValueError(f"w has {w.shape[0]} entries for {n_features} features")
    check_length(sample_weight.shape[0], needed, "sample_weight")
    check_length(extra.shape[0], 1, "extra")
    check_length(loss_out.shape[0], 1, "loss_out")
    cdef Py_ssize_t n, i, j, nnz
    cdef long long outside = 0, updates = 0, skipped = 0
    cdef bint overflow = False
    cdef double a = 1.0, wsq = 0.0, wS, dist_sq, dist, loss, tau, beta
    cdef double keep, wj, xj, diff, new_wj, r = 0.0, w_i
    cdef double g = 0.0, eps_learned = 0.0, d
    cdef const double *row_data
    row_ind = view.indices
    cdef double *v = &w[0]

    cdef bint stream = st is not None
    cdef bint whole = False
    cdef Py_ssize_t done = n_rows
    if stream:
        a = st[0]
        wsq = st[1]
        whole = st[2] != 0.0
    if learn:
        g = extra[0]
        r = bound - g
        eps_learned = sqrt(2.0 * g) * sqrt(bound - 0.5 * g)
    with nogil:
        if not stream or isnan(wsq):
            wsq = 0.0
            for j in range(n_features):
                wj = a * v[j]
                wsq += wj * wj
        for n in range(n_rows):
            i = order[n]
            get_row(&view, i, &row_data, &row_ind, &nnz)
            wS = 0.0
            dist_sq = 0.0
            for j in range(nnz):
                wj = a * v[row_ind[j]]
                diff = row_data[j] - wj
                wS += wj * wj
                dist_sq += diff * diff
            if not dense:
                # the centre's mass off the row's support
                dist_sq += max(wsq - wS, 0.0)
            if not isfinite(dist_sq):
                skipped += 1
                continue
            if learn:
                d = sqrt(dist_sq)
                dist = hypot(d, r)
                # halves: dist + bound overflows for a bound near the limit
                loss = 0.5 * (d - eps_learned) * (
                    (d + eps_learned) / (0.5 * dist + 0.5 * bound))
            else:
                dist = sqrt(dist_sq)
                loss = dist - epsilon
            if loss <= 0.0:
                continue
            w_i = sample_weight[i]
            tau = 0.0
            if w_i > 0.0 and dist > 0.0:
                tau = _step(loss, C * w_i, slack)
            if tau > 0.0:
                beta = tau / dist
                if beta > 1.0:
                    beta = 1.0
                keep = 1.0 - beta
                if stream and not whole and keep * a < 1e-9:
                    # a fold writes every entry: the caller saves the whole
                    # centre, then goes on from this row
                    done = n
                    break
            outside += 1
            loss_out[0] += loss
            if tau <= 0.0:
                continue
            updates += 1
            if learn:
                # beta * r as tau * (r / dist): beta underflows for a huge B
                g = g + tau * (r / dist)
                if g > bound:
                    g = bound
                r = keep * r
                eps_learned = sqrt(2.0 * g) * sqrt(bound - 0.5 * g)
            if keep * a < 1e-9:
                # materialise the centre: w = keep * a * v, then add beta * x
                wsq = 0.0
                for j in range(n_features):
                    v[j] = keep * a * v[j]
                for j in range(nnz):
                    v[row_ind[j]] += beta * row_data[j]
                for j in range(n_features):
                    wsq += v[j] * v[j]
                    if not isfinite(v[j]):
                        overflow = True
                a = 1.0
                continue
            a = keep * a
            # ||w_new||^2 = keep^2 (||w||^2 - ||w_S||^2) + ||w_new_S||^2
            wsq = keep * keep * max(wsq - wS, 0.0)
            for j in range(nnz):
                xj = row_data[j]
                v[row_ind[j]] += (beta / a) * xj
                new_wj = a * v[row_ind[j]]
                wsq += new_wj * new_wj
                if not isfinite(new_wj):
                    overflow = True
        if not stream:
            for j in range(n_features):
                v[j] = a * v[j]
                if not isfinite(v[j]):
                    overflow = True
    if learn:
        extra[0] = g
    if stream:
        st[0] = a
        st[1] = wsq
        st[3] = done
    return outside, updates, skipped, overflow
