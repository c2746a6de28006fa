# Decoding for first-order Markov sequence models (``_sequence.pyx``): the
# emission scores of a sentence, beam search with recombination (exact Viterbi
# when the beam holds every label, with the early-update bookkeeping of Huang,
# Fayong & Guo 2012) and k-best Viterbi.  Inline, so that the sequence kernels
# compile their own copy.

from libc.math cimport INFINITY
from libc.string cimport memset

from ._dataset cimport get_row, rows_t

# --------------------------------------------------------------- emissions
cdef inline void emissions(
    const rows_t *rows,
    Py_ssize_t start,
    Py_ssize_t T,
    const double *W,
    Py_ssize_t L,
    double *E,
) noexcept nogil:
    cdef Py_ssize_t t, p, j, nnz
    cdef const double *rd
    ri = rows.indices
    cdef const double *w
    cdef double *e
    cdef double v
    for t in range(T):
        get_row(rows, start + t, &rd, &ri, &nnz)
        e = E + t * L
        for j in range(L):
            e[j] = 0.0
        for p in range(nnz):
            v = rd[p]
            if v == 0.0:
                continue
            w = W + (<Py_ssize_t> ri[p]) * L
            for j in range(L):
                e[j] += v * w[j]


# ------------------------------------------------------------------ search
cdef inline void select_beam(
    const double *score, Py_ssize_t L, Py_ssize_t b, int *beam,
    Py_ssize_t *n_beam, unsigned char *taken,
) noexcept nogil:
    """The ``b`` best labels, best first (ties: smaller label first)."""
    cdef Py_ssize_t q, j, arg
    cdef double m
    if b >= L:
        # keep everything, best first
        arg = 0
        for j in range(1, L):
            if score[j] > score[arg]:
                arg = j
        beam[0] = <int> arg
        q = 1
        for j in range(L):
            if j != arg:
                beam[q] = <int> j
                q += 1
        n_beam[0] = L
        return
    for j in range(L):
        taken[j] = 0
    for q in range(b):
        arg = -1
        m = -INFINITY
        for j in range(L):
            if not taken[j] and (arg < 0 or score[j] > m):
                m = score[j]
                arg = j
        taken[arg] = 1
        beam[q] = <int> arg
    n_beam[0] = b


cdef inline void beam_search(
    const double *E,
    const double *Tr,
    Py_ssize_t L,
    Py_ssize_t T,
    Py_ssize_t b,
    const int *y,
    bint stop_when_gold_falls,
    double *delta,
    int *bp,
    unsigned char *gold,
    int *beam,
    Py_ssize_t *n_beam,
    unsigned char *taken,
    double *g_score,
    unsigned char *gold_in,
    Py_ssize_t *n_done,
) noexcept nogil:
    """Beam search with recombination over positions 0..T-1.

    ``delta[t, j]``: best prefix score ending in label j at t (END included at
    the last position); ``bp`` its predecessor; ``beam[t, :n_beam[t]]`` the
    labels kept, best first.  With gold labels ``y``: ``gold[t, j]`` says the
    kept hypothesis (t, j) is the gold prefix, ``gold_in[t]`` that the gold
    prefix is in the beam, ``g_score[t]`` the gold prefix score.
    """
    cdef Py_ssize_t Ls = L + 1
    cdef Py_ssize_t t, j, q, pn, arg, i
    cdef double m, s, g
    cdef double *cur
    cdef const double *prev
    cdef const int *pb
    for j in range(L):
        delta[j] = Tr[L * Ls + j] + E[j]
        bp[j] = -1
        if T == 1:
            delta[j] += Tr[j * Ls + L]
    select_beam(delta, L, b, beam, &n_beam[0], taken)
    if y != NULL:
        g = Tr[L * Ls + y[0]] + E[y[0]]
        if T == 1:
            g += Tr[y[0] * Ls + L]
        g_score[0] = g
        for j in range(L):
            gold[j] = 0
        gold_in[0] = 0
        for q in range(n_beam[0]):
            if beam[q] == y[0]:
                gold_in[0] = 1
                gold[y[0]] = 1
    n_done[0] = 1
    for t in range(1, T):
        if y != NULL and stop_when_gold_falls and not gold_in[t - 1]:
            return
        prev = delta + (t - 1) * L
        cur = delta + t * L
        pb = beam + (t - 1) * L
        pn = n_beam[t - 1]
        for j in range(L):
            m = -INFINITY
            arg = -1
            for q in range(pn):
                i = pb[q]
                s = prev[i] + Tr[i * Ls + j]
                if arg < 0 or s > m:
                    m = s
                    arg = i
            s = m + E[t * L + j]
            if t == T - 1:
                s += Tr[j * Ls + L]
            cur[j] = s
            bp[t * L + j] = <int> arg
        select_beam(cur, L, b, beam + t * L, &n_beam[t], taken)
        if y != NULL:
            g = g_score[t - 1] + Tr[y[t - 1] * Ls + y[t]] + E[t * L + y[t]]
            if t == T - 1:
                g += Tr[y[t] * Ls + L]
            g_score[t] = g
            for j in range(L):
                gold[t * L + j] = 0
            gold_in[t] = 0
            if gold_in[t - 1] and bp[t * L + y[t]] == y[t - 1]:
                for q in range(n_beam[t]):
                    if beam[t * L + q] == y[t]:
                        gold_in[t] = 1
                        gold[t * L + y[t]] = 1
        n_done[0] = t + 1


cdef inline void backtrace(
    const int *bp, Py_ssize_t L, Py_ssize_t t, int j, int *path,
) noexcept nogil:
    """The prefix path[0..t] ending in label j at position t."""
    cdef Py_ssize_t s = t
    while s >= 0:
        path[s] = j
        if s > 0:
            j = bp[s * L + j]
        s -= 1


cdef inline Py_ssize_t kbest_viterbi(
    const double *E,
    const double *Tr,
    Py_ssize_t L,
    Py_ssize_t T,
    Py_ssize_t k,
    double *dk,
    int *bl,
    int *br,
    int *nk,
    int *fj,
    int *fr,
    double *fs,
    int *paths,
) noexcept nogil:
    """The k best label sequences (exact list Viterbi), best first.

    ``paths[m * T + t]`` is the m-th sequence, ``fs[m]`` its score; returns how
    many there are (``min(k, L ** T)``)."""
    cdef Py_ssize_t Ls = L + 1
    cdef Py_ssize_t t, j, i, r, n, pos, base, pbase, m, cnt
    cdef int jj, rr, pj
    cdef double s, tr, add
    for j in range(L):
        base = j * k
        dk[base] = Tr[L * Ls + j] + E[j]
        if T == 1:
            dk[base] += Tr[j * Ls + L]
        bl[base] = -1
        br[base] = -1
        nk[j] = 1
    for t in range(1, T):
        for j in range(L):
            base = (t * L + j) * k
            n = 0
            for i in range(L):
                pbase = ((t - 1) * L + i) * k
                tr = Tr[i * Ls + j]
                for r in range(nk[(t - 1) * L + i]):
                    s = dk[pbase + r] + tr
                    if n == k and not (s > dk[base + k - 1]):
                        break  # the rest of this list is no better
                    pos = n if n < k else k - 1
                    while pos > 0 and dk[base + pos - 1] < s:
                        dk[base + pos] = dk[base + pos - 1]
                        bl[base + pos] = bl[base + pos - 1]
                        br[base + pos] = br[base + pos - 1]
                        pos -= 1
                    dk[base + pos] = s
                    bl[base + pos] = <int> i
                    br[base + pos] = <int> r
                    if n < k:
                        n += 1
            add = E[t * L + j]
            if t == T - 1:
                add += Tr[j * Ls + L]
            for r in range(n):
                dk[base + r] += add
            nk[t * L + j] = <int> n
    # the k best over the last position
    cnt = 0
    for j in range(L):
        base = ((T - 1) * L + j) * k
        for r in range(nk[(T - 1) * L + j]):
            s = dk[base + r]
            if cnt == k and not (s > fs[k - 1]):
                break
            pos = cnt if cnt < k else k - 1
            while pos > 0 and fs[pos - 1] < s:
                fs[pos] = fs[pos - 1]
                fj[pos] = fj[pos - 1]
                fr[pos] = fr[pos - 1]
                pos -= 1
            fs[pos] = s
            fj[pos] = <int> j
            fr[pos] = <int> r
            if cnt < k:
                cnt += 1
    for m in range(cnt):
        jj = fj[m]
        rr = fr[m]
        t = T - 1
        while t >= 0:
            paths[m * T + t] = jj
            if t > 0:
                base = (t * L + jj) * k + rr
                pj = bl[base]
                rr = br[base]
                jj = pj
            t -= 1
    return cnt
