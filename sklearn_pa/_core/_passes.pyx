"""The epoch adapters' calls of a pass they bound before, compiled.

An epoch adapter (:class:`~sklearn_pa._core.epochs._LinearEpochs`,
:class:`~sklearn_pa.second_order._epochs._SecondOrderEpochs`) keeps the
kernel's bound pass (``FirstOrderPass``, ``SecondOrderPass``: the weights,
the rule and the column arrays, checked once) while those stay the same
objects.  The pass that makes it goes through the kernel's checked entry,
``epoch``, called with keywords (the kernels' calling convention, which
``tests/test_kernels_api.py`` states); a later pass with the same objects
calls the bound pass's ``run`` here, with the positional arguments that
method documents, which spares the parsing of ``epoch``'s twenty-odd
keywords on every later pass (about half a microsecond of a one-row
call); these functions are the only places that list the arguments by
position, each beside the signature it follows.
"""

__all__ = ["bound_first_order_run", "bound_second_order_run"]


def bound_first_order_run(
    bound, adapter, order, long long t0, long long average_start, loss_out,
    Py_ssize_t col_start, Py_ssize_t col_stop, write_log,
):
    """``adapter``'s pass over the rows ``order`` of columns ``col_start:
    col_stop`` by its bound first-order pass ``bound``
    (``_first_order.FirstOrderPass.run``), the sample counter starting at
    ``t0``; returns the kernel's ``(mistakes, updates, skipped,
    overflow)``."""
    cdef dict extra = adapter.label_arrays
    # FirstOrderPass.run(rows, order, U, bu, labels, targets, sample_weight,
    # t0, average_start, loss_out, col_start, col_stop, scores_out,
    # label_indptr, label_indices, score_average, write_log)
    return bound.run(
        adapter.rows,
        order,
        adapter.U_,
        adapter.bu_,
        adapter.labels,
        adapter.targets,
        adapter.sample_weight,
        t0,
        average_start,
        loss_out,
        col_start,
        col_stop,
        adapter.scores_out,
        extra.get("label_indptr"),
        extra.get("label_indices"),
        extra.get("score_average", False),
        write_log,
    )


def bound_second_order_run(
    bound, adapter, order, long long t0, loss_out, write_log,
):
    """``adapter``'s pass over the rows ``order`` by its bound second-order
    pass ``bound`` (``_second_order.SecondOrderPass.run``), the sample
    counter starting at ``t0``; returns the kernel's ``(mistakes, updates,
    skipped, overflow)``."""
    # SecondOrderPass.run(rows, order, labels, sample_weight, U, bu, t0,
    # average_start, loss_out, scores_out, var_out, targets, write_log)
    return bound.run(
        adapter.rows,
        order,
        adapter.labels,
        adapter.sample_weight,
        adapter.U_,
        adapter.bu_,
        t0,
        <long long> adapter.avg_start,
        loss_out,
        adapter.scores_out,
        adapter.var_out,
        adapter.targets,
        write_log,
    )
