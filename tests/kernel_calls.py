"""The kernel calls of the rule tests, written in the tests' own terms.

The rule tests describe one kernel call by the row view's arrays and the
rule's scalars (``rule, slack, C, epsilon``, where ``epsilon`` is MIRA's
margin beta and ``C`` the learning rate of the gradient rules, as the tests
were written); these helpers name every argument and call the kernel with
its row view, its state arrays and the ``RuleParams`` dict.
"""

from types import SimpleNamespace

from sklearn_pa._compiled import (
    _first_order,
    _kernel_pa,
    _multiplicative,
    _second_order,
    _sequence,
    _uniclass,
)
from sklearn_pa._compiled._rules import Rule
from sklearn_pa._core.rules import linear_params, spec


def row_view(data, indices, indptr, dense, n_features):
    """A row view (``_linear_epochs._RowView``'s attributes) from its arrays."""
    return SimpleNamespace(
        data=data, indices=indices, indptr=indptr, dense=dense, n_features=n_features
    )


def rule_params(rule, slack, C, epsilon, total_weight=0.0):
    """The kernel parameters of a rule given as ``(rule, slack, C, epsilon)``
    (``linear_params``: a key added to ``RuleParams`` comes with its default);
    a number that is no ``Rule`` passes as it is, for the kernels to refuse."""
    uses_rate = int(rule) in {int(r) for r in Rule} and spec(rule).learning_rate
    return linear_params(
        rule,
        slack=slack,
        C=C,
        epsilon=epsilon,
        margin=epsilon if rule == Rule.MIRA else 0.0,
        learning_rate=C if uses_rate else 0.0,
        total_weight=total_weight,
    )


def first_order_epoch(
    data,
    indices,
    indptr,
    dense,
    n_features,
    order,
    labels,
    targets,
    sample_weight,
    W,
    b,
    U,
    bu,
    weight_pos,
    weight_neg,
    margins,
    active,
    rule,
    slack,
    C,
    epsilon,
    intercept_sq,
    t0,
    average_start,
    loss_out,
    col_start=0,
    col_stop=-1,
    scores_out=None,
    label_indptr=None,
    label_indices=None,
    score_average=False,
):
    """``_first_order.epoch`` on these arrays and rule scalars."""
    return _first_order.epoch(
        row_view(data, indices, indptr, dense, n_features),
        order,
        W,
        b,
        U,
        bu,
        params=rule_params(rule, slack, C, epsilon),
        labels=labels,
        targets=targets,
        sample_weight=sample_weight,
        weight_pos=weight_pos,
        weight_neg=weight_neg,
        margins=margins,
        active=active,
        intercept_sq=intercept_sq,
        t0=t0,
        average_start=average_start,
        loss_out=loss_out,
        col_start=col_start,
        col_stop=col_stop,
        scores_out=scores_out,
        label_indptr=label_indptr,
        label_indices=label_indices,
        score_average=score_average,
    )


def multiplicative_epoch(
    data,
    indices,
    indptr,
    dense,
    n_features,
    order,
    targets,
    sample_weight,
    pos,
    neg,
    intercept,
    rule,
    rate,
    total,
    loss_out,
    scores_out=None,
):
    """``_multiplicative.epoch`` on these arrays and rule scalars."""
    return _multiplicative.epoch(
        row_view(data, indices, indptr, dense, n_features),
        order,
        pos,
        neg,
        params=rule_params(rule, 1, rate, 0.0, total_weight=total),
        targets=targets,
        sample_weight=sample_weight,
        intercept=intercept,
        loss_out=loss_out,
        scores_out=scores_out,
    )


def second_order_epoch(
    data,
    indices,
    indptr,
    dense,
    n_features,
    order,
    labels,
    sample_weight,
    W,
    b,
    S_diag,
    S_full,
    U,
    bu,
    class_weight,
    rule,
    step,
    phi,
    param,
    intercept,
    t0,
    average_start,
    loss_out,
    *,
    shrinkage=0.0,
    delta=0.0,
    floor=0.0,
):
    """``_second_order.epoch`` on these arrays and rule scalars."""
    return _second_order.epoch(
        row_view(data, indices, indptr, dense, n_features),
        order,
        params={
            "rule": int(rule),
            "step": int(step),
            "phi": float(phi),
            "param": float(param),
            "epsilon": 0.0,
            "shrinkage": float(shrinkage),
            "delta": float(delta),
            "floor": float(floor),
        },
        labels=labels,
        sample_weight=sample_weight,
        class_weight=class_weight,
        W=W,
        b=b,
        S_diag=S_diag,
        S_full=S_full,
        U=U,
        bu=bu,
        intercept=intercept,
        t0=t0,
        average_start=average_start,
        loss_out=loss_out,
    )


def uniclass_epoch(
    data,
    indices,
    indptr,
    dense,
    n_features,
    order,
    sample_weight,
    w,
    extra,
    slack,
    C,
    epsilon,
    learn,
    bound,
    loss_out,
):
    """``_uniclass.epoch`` on these arrays and rule scalars."""
    return _uniclass.epoch(
        row_view(data, indices, indptr, dense, n_features),
        order,
        w,
        extra,
        params={
            "slack": int(slack),
            "C": float(C),
            "epsilon": float(epsilon),
            "learn": bool(learn),
            "bound": float(bound),
        },
        sample_weight=sample_weight,
        loss_out=loss_out,
    )


def kernel_pa_block(
    K_RS,
    K_RR,
    F,
    rows,
    labels,
    targets,
    sample_weight,
    rule,
    slack,
    C,
    epsilon,
    alpha,
    alive,
    kdiag,
    stamp,
    row_slot,
    src_row,
    pos_S,
    pos_R,
    alive_list,
    alive_pos,
    counters,
    budget,
    policy,
    loss_out,
):
    """``_kernel_pa.block`` on these arrays and rule scalars."""
    return _kernel_pa.block(
        K_RS,
        K_RR,
        F,
        rows,
        params=rule_params(rule, slack, C, epsilon),
        labels=labels,
        targets=targets,
        sample_weight=sample_weight,
        alpha=alpha,
        alive=alive,
        kdiag=kdiag,
        stamp=stamp,
        row_slot=row_slot,
        src_row=src_row,
        pos_S=pos_S,
        pos_R=pos_R,
        alive_list=alive_list,
        alive_pos=alive_pos,
        counters=counters,
        budget=budget,
        policy=policy,
        loss_out=loss_out,
    )


def sequence_decode(
    data, indices, indptr, dense, n_features, offsets, W, Tr, beam_width, out
):
    """``_sequence.decode`` on these arrays."""
    return _sequence.decode(
        row_view(data, indices, indptr, dense, n_features),
        offsets,
        W,
        Tr,
        beam_width=beam_width,
        out=out,
    )
