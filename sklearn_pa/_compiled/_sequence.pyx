# cython: language_level=3
"""Search and updates for first-order Markov sequence models.

A sentence of ``T`` tokens with label sequence ``z`` scores

    s(x, z) = Tr[START, z_0] + sum_t E[t, z_t] + sum_{t>0} Tr[z_{t-1}, z_t]
              + Tr[z_{T-1}, END],       E[t, j] = x_t . W[:, j]

with emission weights ``W[n_features, L]`` (feature-major, one sparse token row
reads contiguous rows of W) and transition weights ``Tr[L + 1, L + 1]`` whose
row ``L`` is START and column ``L`` is END.

Search is beam search with recombination: hypotheses that end in the same
label are merged (only the best survives, as the Markov model cannot tell them
apart later) and the ``b`` best labels are kept at each position, so ``b >= L``
is exact Viterbi.  The END transition joins the scores at the last position
before pruning, so the final beam is ranked on full-sequence scores.

Updates (Huang, Fayong & Guo 2012).  With ``g_t`` the score of the gold prefix
``y[:t+1]`` and ``z^t`` the best prefix in the beam at ``t``:

- standard: the full sequences, ``y`` against the final best ``z``; with a
  narrow beam this may not be a violation (``w . Delta phi > 0``): counted;
- early: the first position where the gold prefix is not in the beam (or the
  end, if it stays in and loses): every such update is a violation;
- max-violation: the position maximising ``s(z^t) - g_t`` among those where the
  best prefix is not the gold one; again always a violation.

Structured PA / k-best MIRA solves, per sentence,

    min_w 1/2 ||w - w_old||^2 + C xi  (or + C xi^2)
    s.t.  w . (phi(y) - phi(z_j)) >= rho(y, z_j) - xi   for the k best z_j

(``rho`` the Hamming distance) through its dual over the k multipliers, with
an SMO-style pairwise method on the simplex ``sum(alpha) + alpha_slack = C``
for the hinge loss and Hildreth's coordinate ascent for the squared hinge
(``G + 1/(2C)`` is positive definite); both run to a KKT tolerance.

Averaging is lazy: with ``c`` the index of the current sentence,
``U += (c - 1) * Delta`` and the average of the iterates is ``W - U / c``.
Nothing here calls back into Python; loops over sentences run without the GIL.
The search lives in ``_sequence_search.pxd``, the k-best dual in
``_sequence_qp.pxd``, the entry checks in ``_sequence_checks.pxd``; the
options are the ``SequenceUpdate`` and ``SequenceLoss`` enums of
``_rules_sequence.pxd``.
"""

from libc.math cimport INFINITY, fabs, sqrt
from libc.stdlib cimport free, malloc
from libc.string cimport memset
from types import SimpleNamespace

from ._dataset cimport (
    Rows32, Rows64, check_length, get_row, make_rows, rows_t, wide_rows,
)
from ._rules_sequence cimport SequenceUpdate
from ._sequence_search cimport backtrace, beam_search, emissions, kbest_viterbi
from ._sequence_qp cimport solve_duals
from ._sequence_checks cimport check_sentences, check_training

from .._core.rules import check_kernel_rule


# ----------------------------------------------------------------- updates
cdef void add_delta(
    const rows_t *rows,
    Py_ssize_t start,
    const int *y,
    const int *z,
    Py_ssize_t upto,
    bint with_end,
    double a,
    double *W,
    double *Tr,
    double *U,
    double *UT,
    Py_ssize_t L,
    double c,
    bint average,
) noexcept nogil:
    """w += a * (phi(y[:upto+1]) - phi(z[:upto+1])), and U += c * that."""
    cdef Py_ssize_t Ls = L + 1
    cdef Py_ssize_t s, p, nnz, f, yi, zi, py, pz
    cdef const double *rd
    cdef double v
    ri = rows.indices
    py = L
    pz = L
    for s in range(upto + 1):
        yi = y[s]
        zi = z[s]
        if yi != zi:
            get_row(rows, start + s, &rd, &ri, &nnz)
            for p in range(nnz):
                v = a * rd[p]
                if v == 0.0:
                    continue
                f = (<Py_ssize_t> ri[p]) * L
                W[f + yi] += v
                W[f + zi] -= v
                if average:
                    U[f + yi] += c * v
                    U[f + zi] -= c * v
        if py != pz or yi != zi:
            Tr[py * Ls + yi] += a
            Tr[pz * Ls + zi] -= a
            if average:
                UT[py * Ls + yi] += c * a
                UT[pz * Ls + zi] -= c * a
        py = yi
        pz = zi
    if with_end and py != pz:
        Tr[py * Ls + L] += a
        Tr[pz * Ls + L] -= a
        if average:
            UT[py * Ls + L] += c * a
            UT[pz * Ls + L] -= c * a


cdef double row_dot(
    const rows_t *rows,
    Py_ssize_t r1,
    Py_ssize_t r2,
) noexcept nogil:
    """x_r1 . x_r2 (CSR rows with sorted indices, or dense rows)."""
    cdef const double *d1
    cdef const double *d2
    i1 = rows.indices
    i2 = rows.indices
    cdef Py_ssize_t n1, n2, p, q
    cdef double s = 0.0
    get_row(rows, r1, &d1, &i1, &n1)
    get_row(rows, r2, &d2, &i2, &n2)
    if rows.dense:
        for p in range(n1):
            s += d1[p] * d2[p]
        return s
    p = 0
    q = 0
    while p < n1 and q < n2:
        if i1[p] == i2[q]:
            s += d1[p] * d2[q]
            p += 1
            q += 1
        elif i1[p] < i2[q]:
            p += 1
        else:
            q += 1
    return s


cdef void transition_counts(
    const int *y, const int *z, Py_ssize_t T, Py_ssize_t L, double *cnt,
) noexcept nogil:
    """cnt = transition counts of y minus those of z, (L+1) x (L+1)."""
    cdef Py_ssize_t Ls = L + 1
    cdef Py_ssize_t s
    memset(cnt, 0, Ls * Ls * sizeof(double))
    cnt[L * Ls + y[0]] += 1.0
    cnt[L * Ls + z[0]] -= 1.0
    for s in range(1, T):
        cnt[y[s - 1] * Ls + y[s]] += 1.0
        cnt[z[s - 1] * Ls + z[s]] -= 1.0
    cnt[y[T - 1] * Ls + L] += 1.0
    cnt[z[T - 1] * Ls + L] -= 1.0


def solve_kbest_qp(
    const double[:, ::1] G,
    const double[::1] ell,
    double C,
    int loss,
    double[::1] alpha,
    double[::1] grad,
    double tol=1e-13,
    Py_ssize_t max_iter=100000,
):
    """The dual solver on its own (for the oracle tests): writes the
    multipliers into ``alpha``, returns the iterations used."""
    cdef Py_ssize_t k = ell.shape[0]
    cdef Py_ssize_t it
    cdef double scale = 1.0
    cdef Py_ssize_t j
    for j in range(k):
        if fabs(ell[j]) > scale:
            scale = fabs(ell[j])
    with nogil:
        it = solve_duals(&G[0, 0], &ell[0], k, C, loss, &alpha[0], &grad[0],
                         tol * scale, max_iter)
    return it


# ------------------------------------------------------------------ epochs
cdef tuple _perceptron_epoch(
    const rows_t *rows,
    const long long[::1] offsets,
    const long long[::1] order,
    const int[::1] labels,
    double[:, ::1] W,
    double[:, ::1] Tr,
    double[:, ::1] U,
    double[:, ::1] UT,
    bint average,
    double t0,
    int update,
    Py_ssize_t beam_width,
    bint record,
    double[::1] rec_margin,
    long long[::1] rec_length,
    int[::1] rec_pred,
):
    """One pass of the structured perceptron over ``order`` (sentence ids).

    Returns ``(t, n_updates, n_invalid, n_errors)``: the averaging counter
    after the pass, the updates made, the standard updates that were not
    violations, and the sentences whose prediction (before the update) was
    wrong.  With ``record``, ``rec_margin[k]`` / ``rec_length[k]`` hold the
    pre-update ``w . Delta phi`` and prefix length of the k-th sentence's
    update (length 0: none), and ``rec_pred`` at that sentence's tokens the
    predicted prefix."""
    cdef Py_ssize_t L = W.shape[1]
    check_sentences(rows, offsets, W, Tr)
    check_training(offsets, order, labels, L, W, Tr, U, UT, average)
    cdef Py_ssize_t n = order.shape[0]
    cdef Py_ssize_t b = beam_width if 0 < beam_width < L else L
    cdef Py_ssize_t Tmax = 0
    cdef Py_ssize_t m, s, T, start, t, upd_t, n_done, best_lab
    cdef long long n_updates = 0, n_invalid = 0, n_errors = 0
    cdef double tc = t0
    cdef double margin, v, vmax
    cdef bint final_gold
    cdef double *E
    cdef double *delta
    cdef int *bp
    cdef unsigned char *gold
    cdef int *beam
    cdef Py_ssize_t *n_beam
    cdef unsigned char *taken
    cdef double *g_score
    cdef unsigned char *gold_in
    cdef int *z
    cdef rows_t view = rows[0]  # read in the loop (see _dataset.pxd)
    cdef double *Up = &U[0, 0] if average else NULL
    cdef double *UTp = &UT[0, 0] if average else NULL
    for m in range(offsets.shape[0] - 1):
        if offsets[m + 1] - offsets[m] > Tmax:
            Tmax = offsets[m + 1] - offsets[m]
    if Tmax == 0 or n == 0:
        return tc + n, 0, 0, 0
    E = <double *> malloc(Tmax * L * sizeof(double))
    delta = <double *> malloc(Tmax * L * sizeof(double))
    bp = <int *> malloc(Tmax * L * sizeof(int))
    gold = <unsigned char *> malloc(Tmax * L)
    beam = <int *> malloc(Tmax * L * sizeof(int))
    n_beam = <Py_ssize_t *> malloc(Tmax * sizeof(Py_ssize_t))
    taken = <unsigned char *> malloc(L)
    g_score = <double *> malloc(Tmax * sizeof(double))
    gold_in = <unsigned char *> malloc(Tmax)
    z = <int *> malloc(Tmax * sizeof(int))
    if (E == NULL or delta == NULL or bp == NULL or gold == NULL or beam == NULL
            or n_beam == NULL or taken == NULL or g_score == NULL
            or gold_in == NULL or z == NULL):
        free(E); free(delta); free(bp); free(gold); free(beam); free(n_beam)
        free(taken); free(g_score); free(gold_in); free(z)
        raise MemoryError()
    try:
        with nogil:
            for m in range(n):
                s = order[m]
                start = offsets[s]
                T = offsets[s + 1] - start
                if record:
                    rec_length[m] = 0
                    rec_margin[m] = 0.0
                if T == 0:
                    continue
                tc += 1.0
                emissions(&view, start, T, &W[0, 0], L, E)
                beam_search(E, &Tr[0, 0], L, T, b, &labels[start],
                            update == SequenceUpdate.UPDATE_EARLY, delta, bp, gold,
                            beam, n_beam,
                            taken, g_score, gold_in, &n_done)
                upd_t = -1
                if update == SequenceUpdate.UPDATE_EARLY and n_done < T:
                    upd_t = n_done - 1
                    n_errors += 1
                else:
                    best_lab = beam[(T - 1) * L]
                    final_gold = gold_in[T - 1] and best_lab == labels[start + T - 1]
                    if not final_gold:
                        n_errors += 1
                        if update == SequenceUpdate.UPDATE_MAX_VIOLATION:
                            vmax = -INFINITY
                            for t in range(T):
                                best_lab = beam[t * L]
                                if gold[t * L + best_lab] and best_lab == labels[start + t]:
                                    continue  # the best prefix is the gold one
                                v = delta[t * L + best_lab] - g_score[t]
                                if v > vmax:
                                    vmax = v
                                    upd_t = t
                        elif update == SequenceUpdate.UPDATE_EARLY:
                            # the gold prefix was in the beam at every position
                            for t in range(T):
                                if not gold_in[t]:
                                    upd_t = t
                                    break
                            if upd_t < 0:
                                upd_t = T - 1
                        elif update == SequenceUpdate.UPDATE_STANDARD:
                            upd_t = T - 1
                        # no other update passes the entry (``_core/rules.py``)
                if upd_t < 0:
                    continue
                best_lab = beam[upd_t * L]
                backtrace(bp, L, upd_t, <int> best_lab, z)
                margin = g_score[upd_t] - delta[upd_t * L + best_lab]
                if margin > 0.0:
                    n_invalid += 1
                if record:
                    rec_length[m] = upd_t + 1
                    rec_margin[m] = margin
                    for t in range(upd_t + 1):
                        rec_pred[start + t] = z[t]
                add_delta(&view, start, &labels[start], z, upd_t, upd_t == T - 1,
                          1.0, &W[0, 0], &Tr[0, 0], Up, UTp, L, tc - 1.0, average)
                n_updates += 1
    finally:
        free(E); free(delta); free(bp); free(gold); free(beam); free(n_beam)
        free(taken); free(g_score); free(gold_in); free(z)
    return tc, n_updates, n_invalid, n_errors


cdef tuple _pa_epoch(
    const rows_t *rows,
    const long long[::1] offsets,
    const long long[::1] order,
    const int[::1] labels,
    double[:, ::1] W,
    double[:, ::1] Tr,
    double[:, ::1] U,
    double[:, ::1] UT,
    bint average,
    double t0,
    double C,
    int loss,
    Py_ssize_t k_best,
    Py_ssize_t beam_width,
    double tol,
    Py_ssize_t max_qp_iter,
    bint record,
    double[:, ::1] rec_alpha,
    const double[:, ::1] cost=None,
    bint sqrt_margin=False,
    bint max_loss=False,
):
    """One pass of structured PA / k-best MIRA over ``order`` (sentence ids).

    The cost of a sequence ``z`` against the gold ``y`` is
    ``rho(y, z) = sum_t cost[y_t, z_t]`` (``cost=None``: the Hamming distance)
    and the margin it must be beaten by is ``rho`` (``sqrt(rho)`` with
    ``sqrt_margin``, eq. 46 of Crammer et al. 2006).  The constraints are the
    ``k_best`` best sequences under the current weights (prediction-based), or
    with ``max_loss`` the ``k_best`` best under the loss-augmented score
    ``s(z) + rho(y, z)`` (eq. 51; the per-position cost is added to the
    emissions, so the same exact list Viterbi or beam search finds them; the
    caller refuses ``max_loss`` with ``sqrt_margin``, which does not add up
    over positions).  Search is exact list Viterbi, or the final beam when
    ``beam_width`` is below the number of labels.  ``n_errors`` counts the
    sentences whose (plain) best sequence is not the gold one.  Returns
    ``(t, n_updates, n_errors, max_qp_iterations)``; with ``record``,
    ``rec_alpha[k]`` holds the k-th sentence's multipliers."""
    cdef Py_ssize_t L = W.shape[1]
    check_sentences(rows, offsets, W, Tr)
    check_training(offsets, order, labels, L, W, Tr, U, UT, average)
    cdef Py_ssize_t Ls = L + 1
    cdef Py_ssize_t n = order.shape[0]
    cdef Py_ssize_t b = beam_width if 0 < beam_width < L else L
    cdef bint exact = b >= L
    cdef Py_ssize_t k = k_best
    cdef Py_ssize_t Tmax = 0
    cdef Py_ssize_t m, s, T, start, t, u, i, j, q, cnt, n_done, lab, it
    cdef Py_ssize_t max_it = 0
    cdef long long n_updates = 0, n_errors = 0
    cdef double tc = t0
    cdef double g, sc, dot, scale, kij, agree
    cdef bint any_loss, differs
    cdef double *Ea = NULL
    cdef const double *Es
    cdef const double *cp
    cdef double *hamming = NULL
    cdef Py_ssize_t cstride = L
    cdef const int *yy
    cdef int *zi
    cdef int *zj
    cdef double *E
    cdef double *delta
    cdef int *bp
    cdef unsigned char *gold
    cdef int *beam
    cdef Py_ssize_t *n_beam
    cdef unsigned char *taken
    cdef double *g_score
    cdef unsigned char *gold_in
    cdef double *dk
    cdef int *bl
    cdef int *br
    cdef int *nk
    cdef int *fj
    cdef int *fr
    cdef double *fs
    cdef int *paths
    cdef double *cnt_tr
    cdef double *K
    cdef double *G
    cdef double *ell
    cdef double *alpha
    cdef double *grad
    cdef unsigned char *diff
    cdef double *trp = &Tr[0, 0]
    cdef rows_t view = rows[0]  # read in the loop (see _dataset.pxd)
    cdef double *Up = &U[0, 0] if average else NULL
    cdef double *UTp = &UT[0, 0] if average else NULL
    if cost is not None and (cost.shape[0] < L or cost.shape[1] < L):
        raise ValueError(f"cost must be at least ({L}, {L})")
    for m in range(offsets.shape[0] - 1):
        if offsets[m + 1] - offsets[m] > Tmax:
            Tmax = offsets[m + 1] - offsets[m]
    if Tmax == 0 or n == 0:
        return tc + n, 0, 0, 0
    if cost is None:
        hamming = <double *> malloc(L * L * sizeof(double))
        if hamming == NULL:
            raise MemoryError()
        for i in range(L):
            for j in range(L):
                hamming[i * L + j] = 0.0 if i == j else 1.0
        cp = hamming
    else:
        cp = &cost[0, 0]
        cstride = cost.shape[1]
    Ea = <double *> malloc(Tmax * L * sizeof(double))
    E = <double *> malloc(Tmax * L * sizeof(double))
    delta = <double *> malloc(Tmax * L * sizeof(double))
    bp = <int *> malloc(Tmax * L * sizeof(int))
    gold = <unsigned char *> malloc(Tmax * L)
    beam = <int *> malloc(Tmax * L * sizeof(int))
    n_beam = <Py_ssize_t *> malloc(Tmax * sizeof(Py_ssize_t))
    taken = <unsigned char *> malloc(L)
    g_score = <double *> malloc(Tmax * sizeof(double))
    gold_in = <unsigned char *> malloc(Tmax)
    dk = <double *> malloc(Tmax * L * k * sizeof(double))
    bl = <int *> malloc(Tmax * L * k * sizeof(int))
    br = <int *> malloc(Tmax * L * k * sizeof(int))
    nk = <int *> malloc(Tmax * L * sizeof(int))
    fj = <int *> malloc(k * sizeof(int))
    fr = <int *> malloc(k * sizeof(int))
    fs = <double *> malloc(k * sizeof(double))
    paths = <int *> malloc(k * Tmax * sizeof(int))
    cnt_tr = <double *> malloc(k * Ls * Ls * sizeof(double))
    K = <double *> malloc(Tmax * Tmax * sizeof(double))
    G = <double *> malloc(k * k * sizeof(double))
    ell = <double *> malloc(k * sizeof(double))
    alpha = <double *> malloc(k * sizeof(double))
    grad = <double *> malloc(k * sizeof(double))
    diff = <unsigned char *> malloc(Tmax)
    if (E == NULL or delta == NULL or bp == NULL or gold == NULL or beam == NULL
            or n_beam == NULL or taken == NULL or g_score == NULL
            or gold_in == NULL or dk == NULL or bl == NULL or br == NULL
            or nk == NULL or fj == NULL or fr == NULL or fs == NULL
            or paths == NULL or cnt_tr == NULL or K == NULL or G == NULL
            or ell == NULL or alpha == NULL or grad == NULL or diff == NULL
            or Ea == NULL):
        free(Ea); free(hamming)
        free(E); free(delta); free(bp); free(gold); free(beam); free(n_beam)
        free(taken); free(g_score); free(gold_in); free(dk); free(bl); free(br)
        free(nk); free(fj); free(fr); free(fs); free(paths); free(cnt_tr)
        free(K); free(G); free(ell); free(alpha); free(grad); free(diff)
        raise MemoryError()
    try:
        with nogil:
            for m in range(n):
                s = order[m]
                start = offsets[s]
                T = offsets[s + 1] - start
                if record:
                    for j in range(k):
                        rec_alpha[m, j] = 0.0
                if T == 0:
                    continue
                tc += 1.0
                yy = &labels[start]
                emissions(&view, start, T, &W[0, 0], L, E)
                # the gold score and the k best sequences
                g = trp[L * Ls + yy[0]] + E[yy[0]]
                for t in range(1, T):
                    g += trp[yy[t - 1] * Ls + yy[t]] + E[t * L + yy[t]]
                g += trp[yy[T - 1] * Ls + L]
                Es = E
                if max_loss:
                    # the prediction, for the error count only
                    beam_search(E, &Tr[0, 0], L, T, b, NULL, False, delta, bp,
                                gold, beam, n_beam, taken, g_score, gold_in,
                                &n_done)
                    backtrace(bp, L, T - 1, beam[(T - 1) * L], paths)
                    for t in range(T):
                        if paths[t] != yy[t]:
                            n_errors += 1
                            break
                    # loss-augmented emissions: s(z) + rho(y, z)
                    for t in range(T):
                        for j in range(L):
                            Ea[t * L + j] = E[t * L + j] + cp[yy[t] * cstride + j]
                    Es = Ea
                if exact and k > 1:
                    cnt = kbest_viterbi(Es, &Tr[0, 0], L, T, k, dk, bl, br, nk,
                                        fj, fr, fs, paths)
                else:
                    beam_search(Es, &Tr[0, 0], L, T, b, NULL, False, delta, bp,
                                gold, beam, n_beam, taken, g_score, gold_in,
                                &n_done)
                    cnt = k if k < n_beam[T - 1] else n_beam[T - 1]
                    for q in range(cnt):
                        lab = beam[(T - 1) * L + q]
                        fs[q] = delta[(T - 1) * L + lab]
                        backtrace(bp, L, T - 1, <int> lab, paths + q * T)
                # losses; the gold sequence itself gives the trivial constraint
                any_loss = False
                for t in range(T):
                    diff[t] = 0
                for q in range(cnt):
                    zi = paths + q * T
                    sc = 0.0  # rho(y, z)
                    differs = False
                    for t in range(T):
                        if zi[t] != yy[t]:
                            sc += cp[yy[t] * cstride + zi[t]]
                            diff[t] = 1
                            differs = True
                    if max_loss:
                        fs[q] -= sc  # back to the model's score s(z)
                    elif q == 0 and differs:
                        n_errors += 1
                    ell[q] = (sqrt(sc) if sqrt_margin else sc) - (g - fs[q])
                    if differs and ell[q] > 0.0:
                        any_loss = True
                if not any_loss:
                    continue
                # Gram matrix of the feature differences
                for t in range(T):
                    if not diff[t]:
                        continue
                    for u in range(t, T):
                        if diff[u]:
                            dot = row_dot(&view, start + t, start + u)
                            K[t * Tmax + u] = dot
                            K[u * Tmax + t] = dot
                for q in range(cnt):
                    transition_counts(yy, paths + q * T, T, L, cnt_tr + q * Ls * Ls)
                for i in range(cnt):
                    zi = paths + i * T
                    for j in range(i, cnt):
                        zj = paths + j * T
                        dot = 0.0
                        for t in range(T):
                            if zi[t] == yy[t]:
                                continue
                            for u in range(T):
                                if zj[u] == yy[u]:
                                    continue
                                kij = K[t * Tmax + u]
                                agree = ((yy[t] == yy[u]) - (yy[t] == zj[u])
                                         - (zi[t] == yy[u]) + (zi[t] == zj[u]))
                                dot += kij * agree
                        for u in range(Ls * Ls):
                            dot += cnt_tr[i * Ls * Ls + u] * cnt_tr[j * Ls * Ls + u]
                        G[i * cnt + j] = dot
                        G[j * cnt + i] = dot
                scale = 1.0
                for q in range(cnt):
                    if fabs(ell[q]) > scale:
                        scale = fabs(ell[q])
                it = solve_duals(G, ell, cnt, C, loss, alpha, grad, tol * scale,
                                 max_qp_iter)
                if it > max_it:
                    max_it = it
                for q in range(cnt):
                    if record:
                        rec_alpha[m, q] = alpha[q]
                    if alpha[q] > 0.0:
                        add_delta(&view, start, yy, paths + q * T, T - 1, True,
                                  alpha[q], &W[0, 0], &Tr[0, 0], Up, UTp, L,
                                  tc - 1.0, average)
                n_updates += 1
    finally:
        free(E); free(delta); free(bp); free(gold); free(beam); free(n_beam)
        free(taken); free(g_score); free(gold_in); free(dk); free(bl); free(br)
        free(nk); free(fj); free(fr); free(fs); free(paths); free(cnt_tr)
        free(K); free(G); free(ell); free(alpha); free(grad); free(diff)
        free(Ea); free(hamming)
    return tc, n_updates, n_errors, max_it


cdef object _decode(
    const rows_t *rows,
    const long long[::1] offsets,
    const double[:, ::1] W,
    const double[:, ::1] Tr,
    Py_ssize_t beam_width,
    int[::1] out,
):
    """Best label sequence of every sentence (Viterbi, or beam search when
    ``0 < beam_width < L``), written at the sentence's tokens in ``out``."""
    cdef Py_ssize_t L = W.shape[1]
    check_sentences(rows, offsets, W, Tr)
    check_length(out.shape[0], offsets[offsets.shape[0] - 1], "out")
    cdef Py_ssize_t b = beam_width if 0 < beam_width < L else L
    cdef Py_ssize_t Tmax = 0
    cdef Py_ssize_t m, T, start, n_done
    cdef double *E
    cdef double *delta
    cdef int *bp
    cdef int *beam
    cdef Py_ssize_t *n_beam
    cdef unsigned char *taken
    cdef rows_t view = rows[0]  # read in the loop (see _dataset.pxd)
    for m in range(offsets.shape[0] - 1):
        if offsets[m + 1] - offsets[m] > Tmax:
            Tmax = offsets[m + 1] - offsets[m]
    if Tmax == 0:
        return
    E = <double *> malloc(Tmax * L * sizeof(double))
    delta = <double *> malloc(Tmax * L * sizeof(double))
    bp = <int *> malloc(Tmax * L * sizeof(int))
    beam = <int *> malloc(Tmax * L * sizeof(int))
    n_beam = <Py_ssize_t *> malloc(Tmax * sizeof(Py_ssize_t))
    taken = <unsigned char *> malloc(L)
    if (E == NULL or delta == NULL or bp == NULL or beam == NULL
            or n_beam == NULL or taken == NULL):
        free(E); free(delta); free(bp); free(beam); free(n_beam); free(taken)
        raise MemoryError()
    try:
        with nogil:
            for m in range(offsets.shape[0] - 1):
                start = offsets[m]
                T = offsets[m + 1] - start
                if T == 0:
                    continue
                emissions(&view, start, T, &W[0, 0], L, E)
                beam_search(E, &Tr[0, 0], L, T, b, NULL, False, delta, bp, NULL,
                            beam, n_beam, taken, NULL, NULL, &n_done)
                backtrace(bp, L, T - 1, beam[(T - 1) * L], &out[start])
    finally:
        free(E); free(delta); free(bp); free(beam); free(n_beam); free(taken)


def kbest(data, indices, indptr, dense, n_features, start, T, W, Tr, k, paths, scores):
    """The k best sequences of rows ``start:start + T`` of the row view
    ``(data, indices, indptr, dense, n_features)``, taken as one sentence (for
    tests); returns their count."""
    cdef Rows32 rows32
    cdef Rows64 rows64
    view = SimpleNamespace(
        data=data, indices=indices, indptr=indptr, dense=dense, n_features=n_features
    )
    if wide_rows(view):
        arrays = make_rows(view, &rows64)
        return _kbest[Rows64](&rows64, start, T, W, Tr, k, paths, scores)
    arrays = make_rows(view, &rows32)
    return _kbest[Rows32](&rows32, start, T, W, Tr, k, paths, scores)


cdef Py_ssize_t _kbest(
    const rows_t *rows,
    Py_ssize_t start,
    Py_ssize_t T,
    const double[:, ::1] W,
    const double[:, ::1] Tr,
    Py_ssize_t k,
    int[:, ::1] paths,
    double[::1] scores,
) except -1:
    """:func:`kbest` on the row view ``rows``."""
    cdef Py_ssize_t L = W.shape[1]
    cdef rows_t view = rows[0]  # read in the loop (see _dataset.pxd)
    cdef double *E = <double *> malloc(T * L * sizeof(double))
    cdef double *dk = <double *> malloc(T * L * k * sizeof(double))
    cdef int *bl = <int *> malloc(T * L * k * sizeof(int))
    cdef int *br = <int *> malloc(T * L * k * sizeof(int))
    cdef int *nk = <int *> malloc(T * L * sizeof(int))
    cdef int *fj = <int *> malloc(k * sizeof(int))
    cdef int *fr = <int *> malloc(k * sizeof(int))
    cdef Py_ssize_t cnt
    try:
        emissions(&view, start, T, &W[0, 0], L, E)
        cnt = kbest_viterbi(E, &Tr[0, 0], L, T, k, dk, bl, br, nk, fj, fr,
                            &scores[0], &paths[0, 0])
    finally:
        free(E); free(dk); free(bl); free(br); free(nk); free(fj); free(fr)
    return cnt


# ------------------------------------------------- the calls from Python
# Each takes the row view (``data``, ``indices``, ``indptr``, ``dense``,
# ``n_features``: a ``SequenceBatch``), the sentence offsets, the order and
# labels and the weights positionally, the options by keyword, and runs the
# specialisation of its index dtype on the view's struct (``_dataset.pxd``).

def perceptron_epoch(
    rows, offsets, order, labels, W, Tr, *, U, UT, average, t0, update,
    beam_width, record, rec_margin, rec_length, rec_pred,
):
    """One structured-perceptron epoch over the sentences ``order``:
    ``update`` a ``SequenceUpdate`` (``_rules_sequence.pxd``); see
    :func:`_perceptron_epoch`."""
    check_kernel_rule("sequence_perceptron", "update", update)
    cdef Rows32 rows32
    cdef Rows64 rows64
    if wide_rows(rows):
        arrays = make_rows(rows, &rows64)
        return _perceptron_epoch[Rows64](
            &rows64, offsets, order, labels, W, Tr, U, UT, average, t0, update,
            beam_width, record, rec_margin, rec_length, rec_pred,
        )
    arrays = make_rows(rows, &rows32)
    return _perceptron_epoch[Rows32](
        &rows32, offsets, order, labels, W, Tr, U, UT, average, t0, update,
        beam_width, record, rec_margin, rec_length, rec_pred,
    )


def pa_epoch(
    rows, offsets, order, labels, W, Tr, *, U, UT, average, t0, C, loss,
    k_best, beam_width, tol, max_qp_iter, record, rec_alpha, cost=None,
    sqrt_margin=False, max_loss=False,
):
    """One structured PA / k-best MIRA epoch over the sentences ``order``:
    ``loss`` a ``SequenceLoss`` (``_rules_sequence.pxd``); see :func:`_pa_epoch`."""
    check_kernel_rule("sequence_pa", "loss", loss)
    cdef Rows32 rows32
    cdef Rows64 rows64
    if wide_rows(rows):
        arrays = make_rows(rows, &rows64)
        return _pa_epoch[Rows64](
            &rows64, offsets, order, labels, W, Tr, U, UT, average, t0, C, loss,
            k_best, beam_width, tol, max_qp_iter, record, rec_alpha, cost,
            sqrt_margin, max_loss,
        )
    arrays = make_rows(rows, &rows32)
    return _pa_epoch[Rows32](
        &rows32, offsets, order, labels, W, Tr, U, UT, average, t0, C, loss,
        k_best, beam_width, tol, max_qp_iter, record, rec_alpha, cost,
        sqrt_margin, max_loss,
    )


def decode(rows, offsets, W, Tr, *, beam_width, out):
    """The best label sequence of every sentence (beam search; exact Viterbi
    when ``beam_width`` covers the labels) into ``out``; see
    :func:`_decode`."""
    cdef Rows32 rows32
    cdef Rows64 rows64
    if wide_rows(rows):
        arrays = make_rows(rows, &rows64)
        return _decode[Rows64](&rows64, offsets, W, Tr, beam_width, out)
    arrays = make_rows(rows, &rows32)
    return _decode[Rows32](&rows32, offsets, W, Tr, beam_width, out)
