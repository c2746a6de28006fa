"""Early and max-violation updates against a plain-Python beam search.

The reference is written from the pseudocode of Huang, Fayong & Guo (2012)
as the seed (003) gives it::

    function FIND_VIOLATION(x, y, w)
      for i in 1..|x|
        B[i] = BEST(x, B[i-1], k)          # the k best hypotheses
        if y[:i] not in B[i]:
          return (x, y[:i], B[i][0])       # early update
      return (x, y, B[|x|][0])

in the package's variant of BEST: the extensions of the hypotheses of
``B[i-1]`` by every label are merged by their last label (only the best
survives; with first-order features two prefixes ending in the same label
get the same score increments from then on, so the lower one can never
overtake it) and the k best labels are kept; the END transition joins the
score at the last position.  Max-violation runs the search to the end and,
when the final best sequence is wrong, updates on the prefix pair maximising
``s(z[:i]) - s(y[:i])`` over the positions whose best prefix is not gold.
The updates are compared one by one with the compiled kernel: the same
prefix length, the same predicted prefix, the same ``w . Delta phi``, and
the same weights after every sentence, for beam widths 1 to 4.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sklearn_pa import StructuredPerceptron


def prefix_phi(x, z, n, L):
    """Features of the first n labels of z (END only for the full sequence)."""
    emis = np.zeros((x.shape[1], L))
    trans = np.zeros((L + 1, L + 1))
    prev = L  # START
    for t in range(n):
        emis[:, z[t]] += x[t]
        trans[prev, z[t]] += 1.0
        prev = z[t]
    if n == len(x):
        trans[prev, L] += 1.0
    return emis, trans


def score(W, Tr, x, z, n):
    emis, trans = prefix_phi(x, z, n, W.shape[1])
    return float(np.sum(emis * W) + np.sum(trans * Tr))


def beam_search(W, Tr, x, beam_width, extra=None):
    """Beam search with merging by last label; B[i] is a list of
    (score, prefix) for position i, best first.  ``extra[i, j]`` is added to
    the score of label j at position i (a loss-augmented search)."""
    L = W.shape[1]
    T = len(x)
    B = []
    hyps = [(0.0, ())]
    for i in range(T):
        best = {}
        for s, prefix in hyps:  # best first: ties keep the earlier hypothesis
            prev = prefix[-1] if prefix else L
            for j in range(L):
                v = s + Tr[prev, j] + x[i] @ W[:, j]
                if extra is not None:
                    v += extra[i, j]
                if i == T - 1:
                    v += Tr[j, L]
                if j not in best or v > best[j][0]:
                    best[j] = (v, prefix + (j,))
        ranked = sorted(best.values(), key=lambda h: (-h[0], h[1][-1]))
        hyps = ranked[:beam_width]
        B.append(hyps)
    return B


def find_violation(W, Tr, x, y, beam_width, update):
    """The update as a list of equally good choices ``(n, z)``: the first n
    labels of y against the prefix z; empty when there is no update.

    Max-violation can tie exactly: once the gold and the best prefix carry
    the same label, further equal labels add the same score to both, so the
    violation is the same at several positions (with the same Delta phi);
    every position within rounding of the maximum is returned."""
    T = len(x)
    y = tuple(y)
    B = beam_search(W, Tr, x, beam_width)
    if update == "early":
        for i in range(T):
            if y[: i + 1] not in [p for _, p in B[i]]:
                return [(i + 1, B[i][0][1])]
        return [(T, B[T - 1][0][1])] if B[T - 1][0][1] != y else []
    # max-violation
    if B[T - 1][0][1] == y:
        return []
    candidates = []
    for i in range(T):
        s, z = B[i][0]
        if z == y[: i + 1]:
            continue
        candidates.append((s - score(W, Tr, x, y, i + 1), i + 1, z))
    top = max(v for v, _, _ in candidates)
    scale = 1.0 + max(abs(v) for v, _, _ in candidates)
    return [(n, z) for v, n, z in candidates if v >= top - 1e-9 * scale]


@pytest.mark.parametrize("update", ["early", "max_violation"])
@pytest.mark.parametrize("beam_width", [1, 2, 3, 4])
@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), L=st.integers(2, 5))
def test_updates_match_the_reference_beam_search(update, beam_width, seed, L):
    rng = np.random.default_rng(seed)
    d = 3
    X = [rng.normal(size=(int(rng.integers(1, 7)), d)) for _ in range(12)]
    y = [rng.integers(0, L, size=len(x)) for x in X]
    tagger = StructuredPerceptron(
        update=update, beam_width=beam_width, average=False, shuffle=False
    )
    tagger.partial_fit([X[0][:1]], [y[0][:1]], classes=np.arange(L))
    # random weights: no score ties, so no tie-breaking rule is tested
    W = rng.normal(size=(d, L))
    Tr = rng.normal(size=(L + 1, L + 1))
    tagger._W[...] = W
    tagger._Tr[...] = Tr
    tagger._record_updates = True
    n_updates = 0
    warm_updates = tagger.n_updates_
    for x, yy in zip(X, y):
        expected = find_violation(W, Tr, x, yy, beam_width, update)
        tagger.partial_fit([x], [yy])
        log = tagger._update_log_[-1]
        n = int(log["length"][0])
        if not expected:
            assert n == 0
        else:
            choices = dict(expected)
            assert n in choices
            z_ref = choices[n]
            assert tuple(log["pred"][:n]) == z_ref
            eg, tg = prefix_phi(x, yy, n, L)
            ez, tz = prefix_phi(x, z_ref, n, L)
            margin = np.sum((eg - ez) * W) + np.sum((tg - tz) * Tr)
            assert log["margin"][0] == pytest.approx(margin, abs=1e-9)
            assert margin <= 1e-9  # a violation
            W = W + eg - ez
            Tr = Tr + tg - tz
            n_updates += 1
        np.testing.assert_allclose(tagger._W, W, atol=1e-9)
        np.testing.assert_allclose(tagger._Tr, Tr, atol=1e-9)
    assert n_updates == tagger.n_updates_ - warm_updates


def test_merging_is_exact_for_first_order_features():
    """With the beam as wide as the label set, merging by last label loses
    nothing: the search returns the exact argmax over all L ** T sequences."""
    import itertools

    rng = np.random.default_rng(0)
    L, d = 3, 2
    for _ in range(20):
        T = int(rng.integers(1, 6))
        x = rng.normal(size=(T, d))
        W = rng.normal(size=(d, L))
        Tr = rng.normal(size=(L + 1, L + 1))
        best = max(
            itertools.product(range(L), repeat=T), key=lambda z: score(W, Tr, x, z, T)
        )
        assert beam_search(W, Tr, x, L)[-1][0][1] == best
