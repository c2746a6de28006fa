"""Structured PA margins, per-position costs and the max-loss update.

Crammer et al. (2006, secs. 8-9) constrain the gold sequence ``y`` against a
rival ``z`` with margin ``sqrt(rho(y, z))`` (eq. 46), ``rho`` a sum of
per-position costs, and choose the rival either as the prediction (eq. 47) or
as the max-loss sequence ``argmax_z s(z) - s(y) + m(rho(y, z))`` (eq. 51).
Each variant's step is checked against the primal QP over the rivals found by
brute force over all ``L ** T`` sequences, solved by SLSQP (the method of
``test_oracle_sequence.py``).
"""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import minimize
from test_beam_reference import beam_search
from test_oracle_sequence import phi, primal_step

from sklearn_pa import StructuredPassiveAggressive

L, D_FEAT = 3, 3


def warm_model(rng, **params):
    pa = StructuredPassiveAggressive(average=False, shuffle=False, **params)
    warm = [rng.normal(size=(int(rng.integers(1, 5)), D_FEAT)) for _ in range(6)]
    warm_y = [rng.integers(0, L, size=w.shape[0]) for w in warm]
    pa.partial_fit(warm, warm_y, classes=np.arange(L))
    return pa


def weights(pa):
    return np.concatenate([pa._W.ravel(), pa._Tr.ravel()])


def hard_step(D, ell):
    """argmin_dw 1/2 ||dw||^2 s.t. D dw >= ell (plain PA), by SLSQP."""
    res = minimize(
        lambda v: 0.5 * v @ v,
        np.zeros(D.shape[1]),
        jac=lambda v: v,
        constraints=[
            {"type": "ineq", "fun": lambda v: D @ v - ell, "jac": lambda v: D}
        ],
        method="SLSQP",
        options={"ftol": 1e-14, "maxiter": 1000},
    )
    assert res.success, res.message
    return res.x


def rho(cost, y, z):
    return float(sum(cost[a, b] for a, b in zip(y, z)))


@settings(max_examples=40, deadline=None)
@given(
    k=st.integers(1, 4),
    T=st.integers(1, 4),
    C=st.one_of(st.just(np.inf), st.floats(0.05, 5.0)),
    loss=st.sampled_from(["hinge", "squared_hinge"]),
    margin=st.sampled_from(["linear", "sqrt"]),
    update=st.sampled_from(["prediction", "max_loss"]),
    custom_cost=st.booleans(),
    seed=st.integers(0, 2**31 - 1),
)
def test_step_matches_generic_solver(k, T, C, loss, margin, update, custom_cost, seed):
    if update == "max_loss" and margin == "sqrt":
        margin = "linear"  # refused (test_max_loss_refuses_sqrt_margin)
    if loss == "squared_hinge" and not np.isfinite(C):
        C = 1.0
    rng = np.random.default_rng(seed)
    if custom_cost:
        cost = rng.uniform(0.0, 3.0, size=(L, L))
        cost[rng.random((L, L)) < 0.2] = 0.0
        np.fill_diagonal(cost, 0.0)
    else:
        cost = 1.0 - np.eye(L)
    params = dict(
        C=C,
        loss=loss,
        k_best=k,
        margin=margin,
        update=update,
        cost=cost if custom_cost else None,
    )
    pa = warm_model(rng, **params)
    w0 = weights(pa)
    x = rng.normal(size=(T, D_FEAT))
    gold = tuple(rng.integers(0, L, size=T))
    m = np.sqrt if margin == "sqrt" else (lambda r: r)

    def key(z):
        s = phi(x, z, L) @ w0
        return -(s + rho(cost, gold, z)) if update == "max_loss" else -s

    rivals = sorted(itertools.product(range(L), repeat=T), key=key)[:k]
    pg = phi(x, gold, L)
    D = np.array([pg - phi(x, z, L) for z in rivals])
    ell = np.array([m(rho(cost, gold, z)) for z in rivals]) - D @ w0
    pa.partial_fit([x], [list(gold)])
    w1 = weights(pa)
    differs = np.array([z != gold for z in rivals])
    if not np.any(differs & (ell > 0)):
        np.testing.assert_array_equal(w1, w0)
        return
    if np.isfinite(C):
        dw_ref, _ = primal_step(D, ell, C, loss)
    else:
        dw_ref = hard_step(D, ell)
    np.testing.assert_allclose(
        w1 - w0, dw_ref, atol=1e-5 * max(1.0, np.abs(dw_ref).max())
    )


@settings(max_examples=30, deadline=None)
@given(
    beam_width=st.integers(1, L - 1),
    T=st.integers(1, 5),
    C=st.floats(0.05, 5.0),
    margin=st.sampled_from(["linear", "sqrt"]),
    update=st.sampled_from(["prediction", "max_loss"]),
    seed=st.integers(0, 2**31 - 1),
)
def test_beam_step_matches_generic_solver(beam_width, T, C, margin, update, seed):
    """With a beam narrower than the label set the rivals are the best of the
    final beam of the (loss-augmented) search: the plain-Python beam search
    of ``test_beam_reference`` with the per-position cost added to the
    emissions for max-loss."""
    if update == "max_loss":
        margin = "linear"
    rng = np.random.default_rng(seed)
    cost = rng.uniform(0.0, 3.0, size=(L, L))
    np.fill_diagonal(cost, 0.0)
    k = int(rng.integers(1, beam_width + 1))
    pa = warm_model(
        rng,
        C=C,
        k_best=k,
        beam_width=beam_width,
        margin=margin,
        update=update,
        cost=cost,
    )
    w0 = weights(pa)
    x = rng.normal(size=(T, D_FEAT))
    gold = tuple(int(v) for v in rng.integers(0, L, size=T))
    extra = cost[list(gold)] if update == "max_loss" else None
    final = beam_search(pa._W, pa._Tr, x, beam_width, extra)[-1]
    rivals = [z for _, z in final[:k]]
    m = np.sqrt if margin == "sqrt" else (lambda r: r)
    pg = phi(x, gold, L)
    D = np.array([pg - phi(x, z, L) for z in rivals])
    ell = np.array([m(rho(cost, gold, z)) for z in rivals]) - D @ w0
    pa.partial_fit([x], [list(gold)])
    w1 = weights(pa)
    differs = np.array([z != gold for z in rivals])
    if not np.any(differs & (ell > 0)):
        np.testing.assert_array_equal(w1, w0)
        return
    dw_ref, _ = primal_step(D, ell, C, "hinge")
    np.testing.assert_allclose(
        w1 - w0, dw_ref, atol=1e-5 * max(1.0, np.abs(dw_ref).max())
    )


def test_sqrt_and_linear_margins_differ_as_the_seed_says():
    """From zero weights the prediction of ``y = [0, 1, 2]`` is ``[0, 0, 0]``
    (rho = 2): the PA step meets the margin exactly, 2 or sqrt(2)."""
    x = np.eye(3)
    y = [0, 1, 2]
    for margin, want in (("linear", 2.0), ("sqrt", np.sqrt(2.0))):
        pa = StructuredPassiveAggressive(C=np.inf, average=False, margin=margin)
        pa.partial_fit([x[:1]], [[0]], classes=np.arange(3))
        W0, Tr0 = pa._W.copy(), pa._Tr.copy()
        z = pa.predict([x])[0]
        rival = [int(np.flatnonzero(pa.classes_ == t)[0]) for t in z]
        pa.partial_fit([x], [y])
        w = np.concatenate([pa._W.ravel(), pa._Tr.ravel()])
        gap = (phi(x, y, 3) - phi(x, rival, 3)) @ w
        assert rival == [0, 0, 0]  # all-zero weights: ties go to the first label
        assert gap == pytest.approx(want)
        assert not np.array_equal(pa._W, W0)
        assert not np.array_equal(pa._Tr, Tr0)


def test_max_loss_updates_where_prediction_does_not():
    """A correct prediction within the margin: the prediction-based rule sees
    no rival (the best sequence is the gold one) while max-loss does."""
    rng = np.random.default_rng(0)
    x = rng.normal(size=(4, D_FEAT))
    y = [0, 1, 2, 1]
    pred = StructuredPassiveAggressive(C=np.inf, average=False)
    pred.partial_fit([x], [y], classes=np.arange(L))
    for _ in range(3):
        pred.partial_fit([x], [y])
    assert pred.predict([x])[0].tolist() == y
    w0 = weights(pred)
    s_gold = phi(x, y, L) @ w0
    margins = [
        s_gold - phi(x, z, L) @ w0 - sum(a != b for a, b in zip(y, z))
        for z in itertools.product(range(L), repeat=4)
    ]
    assert min(margins) < 0  # some rival within its Hamming margin
    ml = StructuredPassiveAggressive(C=np.inf, average=False, update="max_loss")
    ml.partial_fit([x[:1]], [[0]], classes=np.arange(L))
    ml._W[...] = pred._W
    ml._Tr[...] = pred._Tr
    ml.partial_fit([x], [y])
    pred.partial_fit([x], [y])
    np.testing.assert_array_equal(weights(pred), w0)
    assert not np.array_equal(weights(ml), w0)


def test_max_loss_refuses_sqrt_margin():
    pa = StructuredPassiveAggressive(update="max_loss", margin="sqrt")
    with pytest.raises(ValueError, match="margin='linear'"):
        pa.fit([np.eye(2)], [[0, 1]])


@pytest.mark.parametrize(
    "cost, match",
    [
        (np.ones((2, 2)), "zero diagonal"),
        (-(1.0 - np.eye(2)), "negative"),
        (np.ones((3, 2)), "shape"),
        (np.full((2, 2), np.nan), "NaN"),
    ],
)
def test_cost_is_validated(cost, match):
    pa = StructuredPassiveAggressive(cost=cost)
    with pytest.raises(ValueError, match=match):
        pa.fit([np.eye(2)], [[0, 1]])
