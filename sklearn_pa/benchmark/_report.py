"""The report of every protocol: a text table, Markdown, CSV and a chart.

Every protocol returns a list of dicts ("rows"), one per estimator (per
estimator and setting for some), whose ``task`` key says how to lay them out:
``classification`` (the cross-validated and train/test tables), ``timing``,
``regression``, ``multilabel``, ``semi-supervised``, ``sequence``,
``stream-memory``, ``stream-dask`` and ``input-dtype``.  :func:`format_table`,
:func:`format_markdown`, :func:`write_output` and :func:`plot_results` take
the rows of any of them.
"""

import csv
import json
import math
import textwrap
from pathlib import Path

import numpy as np

from ._calibration import calibration_cells, calibration_title, plot_reliability
from ._drift import drift_cells, drift_title, plot_drift
from ._input_dtype import input_dtype_cells, input_dtype_title
from ._persistence import persistence_cells, persistence_title
from ._registry import PUBLISHED_SOURCE, REGISTRY
from ._stream_dask import n_worker_counts, plot_scaling
from ._stream_latency import plot_latency, stream_latency_cells

__all__ = ["format_markdown", "format_table", "plot_results", "write_output"]

#: The CSV columns of the accuracy tables and of progressive validation (the
#: other protocols write every key of their rows).
_CSV_FIELDS = [
    "dataset",
    "protocol",
    "estimator",
    "n_splits",
    "epochs",
    "random_state",
    "n_samples",
    "n_features",
    "n_classes",
    "accuracy_mean",
    "accuracy_std",
    "fit_time_mean",
    "fit_time_std",
    "fit_time_ratio",
    "reference",
    "published",
    "online_mse",
    "cumulative_loss",
    "progressive_time",
]


def _task(rows):
    return rows[0].get("task", "classification")


def _seconds(value):
    if value is None:
        return "n/a"
    return f"{value:.0f}" if value >= 100 else f"{value:#.3g}"


def _ratio(value):
    return "n/a" if value is None else f"{value:.2f}"


def _ratio_header(rows):
    reference = rows[0].get("reference")
    if reference is None:
        return "x peer"
    return "x " + reference.removeprefix("sklearn-")


def _has_published(rows):
    return any(row.get("published") is not None for row in rows)


# ------------------------------------------------------------------ titles
def _title(rows):
    first = rows[0]
    task = _task(rows)
    if task == "classification":
        title = (
            f"{first['dataset']} ({first['n_samples']} x {first['n_features']}, "
            f"{first['n_classes']} classes): {first['protocol']}, "
            f"{first['epochs']} epochs, random_state={first['random_state']}"
        )
        if first.get("cv_ignored") is not None:
            title += f"; --cv {first['cv_ignored']} is ignored on this data set"
        return title
    if task == "regression":
        return (
            f"{first['dataset']} ({first['n_samples']} x {first['n_features']}, "
            f"regression): {first['epochs']} epochs for the fit time, one "
            "progressive-validation pass for the online loss, "
            f"random_state={first['random_state']}"
        )
    if task == "timing":
        return (
            f"{first['dataset']} ({first['n_samples']} x {first['n_features']}): "
            f"fit time, {first['epochs']} epochs, {first['protocol']}"
        )
    if task == "multilabel":
        return (
            f"{first['dataset']} ({first['n_samples']} train / {first['n_test']} "
            f"test x {first['n_features']} features, {first['n_labels']} labels), "
            f"{first['epochs']} epochs"
        )
    if task == "semi-supervised":
        settings = first["settings"]
        n_folds = len(first["supervised"])
        return (
            f"20 Newsgroups subsets, 10-fold CV (fold 0 tunes c; {n_folds} folds "
            f"reported), unlabeled : labeled = {first['unlabeled_ratio']:g} : 1, "
            f"M = {settings['n_estimators']}, pi = "
            f"{settings['update_probability']:g}, weighting = "
            f"{settings['weighting']}, {first['epochs']} pass(es); accuracy (%)"
        )
    if task == "sequence":
        return (
            f"conll2000 ({first['n_train']} training / {first['n_test']} held-out "
            f"sentences), {first['epochs']} epochs, random_state="
            f"{first['random_state']}"
        )
    if task == "stream-memory":
        return (
            f"Streaming {first['n_rows']:,} sparse rows (2^18 features, 20 "
            f"non-zeros) in batches of {first['batch_size']:,}"
        )
    if task == "persistence":
        return persistence_title(rows)
    if task == "calibration":
        return calibration_title(rows)
    if task == "drift":
        return drift_title(rows)
    if task == "stream-latency":
        return (
            f"{first['dataset']} ({first['n_samples']} x {first['n_features']}) "
            "a few rows at a time: time of one call (CPU and wall, median and "
            "99th percentile, microseconds), CPU time per row, and that per-row "
            "time over the one of the largest batch"
        )
    if task == "stream-dask":
        return (
            f"stream-2m: {first['n_rows']} x {first['n_features']} sparse rows "
            f"({first['nnz']} non-zeros), {first['epochs']} epochs, accuracy on "
            f"{first['n_test']} held-out rows"
        )
    if task == "stream-file":
        return (
            f"stream-file: {first['n_rows']:,} x 2^18 sparse rows in a svmlight "
            f"file of {first['file_mib']:.0f} MiB, {first['epochs']} epoch(s), "
            f"accuracy on {first['n_test']} held-out rows"
        )
    if task == "input-dtype":
        return input_dtype_title(rows)
    raise ValueError(f"Unknown kind of rows {task!r}.")


# ------------------------------------------------------------------- cells
def _classification_cells(rows):
    header = ["estimator", "accuracy (%)", "fit time (s)", _ratio_header(rows)]
    with_published = _has_published(rows)
    if with_published:
        header.append("published (%)")
    body = []
    for row in rows:
        accuracy = f"{100 * row['accuracy_mean']:.2f}"
        if row["accuracy_std"] is not None:
            accuracy += f" ± {100 * row['accuracy_std']:.2f}"
        cells = [
            row["estimator"],
            accuracy,
            _seconds(row["fit_time_mean"]),
            _ratio(row["fit_time_ratio"]),
        ]
        if with_published:
            figure = row.get("published")
            cells.append("" if figure is None else f"{100 * figure:.2f}")
        body.append(cells)
    return header, body


def _regression_cells(rows):
    header = [
        "estimator",
        "online MSE",
        "progressive (s)",
        "fit time (s)",
        _ratio_header(rows),
    ]
    body = [
        [
            row["estimator"],
            f"{row['online_mse']:.4f}",
            _seconds(row["progressive_time"]),
            _seconds(row["fit_time_mean"]),
            _ratio(row["fit_time_ratio"]),
        ]
        for row in rows
    ]
    return header, body


def _timing_cells(rows):
    reference = rows[0]["reference"]
    ratio = "relative" if reference is None else f"x {reference}"
    header = ["estimator", "fit time (s)", ratio]
    body = [
        [row["estimator"], f"{row['fit_time_min']:.3f}", _ratio(row["fit_time_ratio"])]
        for row in rows
    ]
    return header, body


def _multilabel_cells(rows):
    header = ["estimator", "LRAP", "coverage", "micro-F1", "fit (s)"]
    if rows[0].get("reference") is not None:
        header.append(_ratio_header(rows))
    body = []
    for row in rows:
        cells = [
            row["estimator"],
            f"{row['lrap']:.4f}",
            f"{row['coverage_error']:.3f}",
            f"{row['f1_micro']:.4f}",
            f"{row['fit_time']:.2f}",
        ]
        if len(header) == 6:
            cells.append(_ratio(row["fit_time_ratio"]))
        body.append(cells)
    return header, body


def _semi_cells(rows):
    header = [
        "estimator",
        "subset",
        "c",
        "supervised",
        "semi",
        "gain",
        "won/tied/lost",
        "paper",
    ]
    body = []
    for row in rows:
        sup, semi = np.array(row["supervised"]), np.array(row["semi"])
        diff = semi - sup
        paper = row["seed_table"]
        body.append(
            [
                row["estimator"],
                row["subset"],
                f"{row['step']:g}",
                f"{100 * sup.mean():.2f}",
                f"{100 * semi.mean():.2f}",
                f"{100 * diff.mean():+.2f} ± {100 * diff.std():.2f}",
                f"{(diff > 0).sum()}/{(diff == 0).sum()}/{(diff < 0).sum()}",
                "n/a"
                if paper is None
                else f"{paper[0]:.2f} -> {paper[1]:.2f} ({paper[1] - paper[0]:+.2f})",
            ]
        )
    return header, body


def _sequence_cells(rows):
    header = ["estimator", "token accuracy (%)", "chunk F1", "fit time (s)"]
    body = []
    for row in rows:
        if row["fit_time"] is None:
            body.append([row["estimator"], "skipped", "", row.get("note", "")])
            continue
        body.append(
            [
                row["estimator"],
                f"{100 * row['accuracy']:.2f}",
                f"{100 * row['chunk_f1']:.2f}",
                f"{row['fit_time']:.2f}",
            ]
        )
    return header, body


def _stream_memory_cells(rows):
    header = [
        "estimator",
        "first peak MiB",
        "max peak MiB",
        "held MiB",
        "growth",
        "time s",
    ]
    body = [
        [
            row["estimator"],
            f"{row['first_peak_mib']:.2f}",
            f"{row['max_peak_mib']:.2f}",
            f"{row['held_mib']:.2f}",
            f"{row['growth']:.3f}",
            f"{row['seconds']:.1f}",
        ]
        for row in rows
    ]
    return header, body


#: The stream-dask columns: header, width, row key, format.
_STREAM_DASK_COLUMNS = [
    ("wall time (s)", 13, "wall_time", ".1f"),
    ("speed-up", 8, "speedup", ".2f"),
    ("kernel (s)", 10, "kernel_time", ".2f"),
    ("overhead/epoch (s)", 18, "overhead_per_epoch", ".3f"),
    ("driver/epoch (s)", 16, "driver_per_epoch", ".4f"),
]


def _stream_dask_value(row, key, spec):
    """A timing cell; ``-`` where it does not apply (the serial fit has no
    mixing overhead) or the row predates the column."""
    value = row.get(key)
    if value is None or (isinstance(value, float) and np.isnan(value)):
        return "-"
    return format(value, spec)


def _stream_dask_cells(rows):
    header = ["estimator", "training", "workers"]
    header += [c[0] for c in _STREAM_DASK_COLUMNS] + ["accuracy"]
    body = [
        [row["estimator"], row["training"], str(row["workers"])]
        + [_stream_dask_value(row, k, f) for _, _, k, f in _STREAM_DASK_COLUMNS]
        + [f"{row['accuracy']:.4f}"]
        for row in rows
    ]
    return header, body


def _stream_file_cells(rows):
    header = [
        "estimator",
        "training",
        "read (s)",
        "fit (s)",
        "wall time (s)",
        "peak RSS (MiB)",
        "RSS growth (MiB)",
        "accuracy",
    ]
    body = [
        [
            row["estimator"],
            row["training"],
            f"{row['read_time']:.1f}",
            f"{row['fit_time']:.1f}",
            f"{row['wall_time']:.1f}",
            f"{row['peak_rss_mib']:.0f}",
            f"{row['rss_growth_mib']:.0f}",
            f"{row['accuracy']:.4f}",
        ]
        for row in rows
    ]
    return header, body


_CELLS = {
    "classification": _classification_cells,
    "regression": _regression_cells,
    "timing": _timing_cells,
    "multilabel": _multilabel_cells,
    "semi-supervised": _semi_cells,
    "sequence": _sequence_cells,
    "stream-memory": _stream_memory_cells,
    "stream-latency": stream_latency_cells,
    "stream-dask": _stream_dask_cells,
    "stream-file": _stream_file_cells,
    "input-dtype": input_dtype_cells,
    "persistence": persistence_cells,
    "calibration": calibration_cells,
    "drift": drift_cells,
}


def _cells(rows):
    return _CELLS[_task(rows)](rows)


def _columns(rows):
    """What the accuracy and fit time columns are: over which folds, of
    which fit, and what the ``±`` is."""
    first = rows[0]
    n_splits, epochs = first["n_splits"], first["epochs"]
    passes = f"{epochs} epoch{'s' if epochs != 1 else ''}"
    if n_splits > 1:
        accuracy = f"on the held-out fold; mean ± std over the {n_splits} folds"
        fit = f"wall clock of one fit ({passes}); mean over the folds"
    else:
        accuracy = "on the held-out test set (one split: no ±)"
        fit = f"wall clock of the fit ({passes})"
    return ["", "columns:", f"  accuracy (%)  {accuracy}", f"  fit time (s)  {fit}"]


def _legend(rows):
    """One line per estimator of the table (its registry summary) and one for
    the ratio column, so that the table reads without ``--list``."""
    names = [row["estimator"] for row in rows]
    width = max(len(name) for name in [*names, "x peer"]) + 2
    lines = ["", "legend:"]
    for name in dict.fromkeys(names):
        entry = REGISTRY.get(name)
        if entry is not None:
            lines.append(f"  {name:<{width}}{entry.summary}")
    reference = rows[0].get("reference")
    if reference is not None:
        column = "x " + reference.removeprefix("sklearn-")
        lines.append(
            f"  {column:<{width}}fit time over {reference}'s (the first "
            "scikit-learn peer of the run); below 1 is faster"
        )
    return lines


def _same_as_pa(rows):
    """A note when PA-I or PA-II score exactly as PA: their bound C never
    binds on these data (every step ``loss / ||x||^2`` stays below C), so the
    three rules make the same, or nearly the same, steps."""
    accuracy = {row["estimator"]: row["accuracy_mean"] for row in rows}
    if "PA" not in accuracy:
        return []
    same = [n for n in ("PA-I", "PA-II") if accuracy.get(n) == accuracy["PA"]]
    if not same:
        return []
    note = (
        f"{' and '.join(same)} score exactly as PA: with C=1 the bound never "
        "binds on these features (||x||^2 is large, so every step loss / "
        "||x||^2 stays below C, and PA-II's 1/(2C) is small beside ||x||^2). "
        "Pass --set C=0.001 (or scale the features down) to see the rules differ."
    )
    return ["", *textwrap.wrap(note, 79, break_on_hyphens=False)]


def _footer(rows):
    task = _task(rows)
    if task == "classification":
        lines = _columns(rows) + _legend(rows) + _same_as_pa(rows)
        if _has_published(rows):
            lines += [
                "",
                PUBLISHED_SOURCE.get(rows[0]["dataset"], "published: see PUBLISHED"),
            ]
        return lines
    if task == "semi-supervised":
        lines = ["", "tuning fold (fold 0), accuracy (%) by unlabeled step c:"]
        for row in rows:
            tried = ", ".join(f"{c:g}: {100 * a:.2f}" for c, a in row["tuning"].items())
            lines.append(f"  {row['estimator']} {row['subset']}: {tried}")
        return lines
    return []


def _aligned(header, body, left=(0,)):
    """Lines of an aligned table: columns in ``left`` left-aligned, the others
    right-aligned, two spaces apart."""
    widths = [max(len(line[i]) for line in [header, *body]) for i in range(len(header))]

    def line(cells):
        out = [
            cell.ljust(width) if i in left else cell.rjust(width)
            for i, (cell, width) in enumerate(zip(cells, widths))
        ]
        return "  ".join(out).rstrip()

    rule = "  ".join("-" * width for width in widths)
    return [line(header), rule, *map(line, body)]


def _stream_dask_text(rows):
    """The layout of the Dask stream report (fixed widths)."""
    columns = " ".join(f"{h:>{w}}" for h, w, _, _ in _STREAM_DASK_COLUMNS)
    lines = [
        _title(rows),
        f"{'estimator':<10} {'training':<18} {'workers':>7} {columns} {'accuracy':>9}",
    ]
    for row in rows:
        cells = " ".join(
            f"{_stream_dask_value(row, k, f):>{w}}"
            for _, w, k, f in _STREAM_DASK_COLUMNS
        )
        lines.append(
            f"{row['estimator']:<10} {row['training']:<18} {row['workers']:>7} "
            f"{cells} {row['accuracy']:>9.4f}"
        )
    return "\n".join(lines)


def format_table(rows):
    """Format benchmark rows as an aligned plain-text table.

    Parameters
    ----------
    rows : list of dict
        Rows returned by one run of a protocol (all from one data set), e.g.
        :func:`~sklearn_pa.benchmark.run_benchmark`.

    Returns
    -------
    table : str
        A title line (data set, protocol, epochs), then one line per row.
        For the accuracy tables: accuracy mean ± std in percent, mean fit
        time per fold in seconds, and fit time relative to the reference
        scikit-learn estimator (column ``x <reference>``, ``n/a`` without
        one), and the published figure where there is one.

    Examples
    --------
    >>> from sklearn_pa.benchmark import format_table, run_benchmark
    >>> rows = run_benchmark("digits", ["PA-I"], cv=2, epochs=1)
    >>> print(format_table(rows).splitlines()[2])
    estimator  accuracy (%)  fit time (s)  x peer
    """
    if not rows:
        return "(no results)"
    task = _task(rows)
    if task == "stream-dask":
        return _stream_dask_text(rows)
    header, body = _cells(rows)
    # the semi-supervised table keeps its columns left-aligned
    left = tuple(range(len(header))) if task == "semi-supervised" else (0,)
    return "\n".join([_title(rows), "", *_aligned(header, body, left), *_footer(rows)])


def format_markdown(rows):
    """Format benchmark rows as a Markdown table.

    Parameters
    ----------
    rows : list of dict
        Rows returned by one run of a protocol (all from one data set).

    Returns
    -------
    table : str
        The title as a paragraph, then a pipe table with the columns of
        :func:`format_table`.

    Examples
    --------
    >>> from sklearn_pa.benchmark import format_markdown, run_benchmark
    >>> rows = run_benchmark("digits", ["PA-I"], cv=2, epochs=1)
    >>> format_markdown(rows).splitlines()[2]
    '| estimator | accuracy (%) | fit time (s) | x peer |'
    """
    if not rows:
        return "(no results)\n"
    header, body = _cells(rows)
    lines = [
        _title(rows),
        "",
        "| " + " | ".join(header) + " |",
        "| --- | " + " | ".join("---:" for _ in header[1:]) + " |",
    ]
    lines += ["| " + " | ".join(cells) + " |" for cells in body]
    lines += _footer(rows)
    return "\n".join(lines) + "\n"


def _csv_value(value):
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, (list, tuple, dict)):
        if isinstance(value, dict):
            value = {str(key): item for key, item in value.items()}
        return json.dumps(value)
    if isinstance(value, np.generic):
        return _csv_value(value.item())
    return value


def _csv_fields(rows):
    if _task(rows) in ("classification", "regression"):
        return _CSV_FIELDS
    fields = ["dataset"]
    for row in rows:
        fields += [key for key in row if key not in fields and key != "task"]
    return fields


def write_output(rows, path):
    """Write benchmark rows to a CSV or Markdown file, chosen by extension.

    Parameters
    ----------
    rows : list of dict
        Rows returned by one run of a protocol.
    path : str or path-like
        Output file: ``.csv`` writes every field of every row (accuracies as
        fractions, times in seconds, empty cells for missing values, lists
        and dicts as JSON); ``.md`` or ``.markdown`` writes
        :func:`format_markdown`.

    Raises
    ------
    ValueError
        If the extension is not one of these.

    Examples
    --------
    >>> from sklearn_pa.benchmark import run_benchmark, write_output
    >>> rows = run_benchmark("digits", ["PA-I"], cv=2, epochs=1)
    >>> write_output(rows, "results.csv")  # doctest: +SKIP
    """
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix == ".csv":
        fields = _csv_fields(rows) if rows else _CSV_FIELDS
        with path.open("w", newline="", encoding="utf-8") as f:
            writer = csv.DictWriter(f, fieldnames=fields, extrasaction="ignore")
            writer.writeheader()
            for row in rows:
                writer.writerow({key: _csv_value(row.get(key)) for key in fields})
    elif suffix in (".md", ".markdown"):
        path.write_text(format_markdown(rows), encoding="utf-8")
    else:
        raise ValueError(
            f"Cannot tell the output format of {str(path)!r}: use a .csv or .md "
            "file name."
        )


def _plot_values(rows):
    """(labels, values, errors, markers, marker label, x label, notes)."""
    task = _task(rows)
    labels = [row["estimator"] for row in rows]
    errors = markers = notes = None
    marker_label = None
    if task == "classification":
        values = [100 * row["accuracy_mean"] for row in rows]
        errors = [100 * (row["accuracy_std"] or 0.0) for row in rows]
        markers = [
            None if row.get("published") is None else 100 * row["published"]
            for row in rows
        ]
        marker_label, xlabel = "published", "accuracy (%)"
        notes = [
            f"{v:.2f}%"
            + (
                ""
                if row["fit_time_ratio"] is None
                else f", {row['fit_time_ratio']:.2f}x time"
            )
            for v, row in zip(values, rows)
        ]
    elif task == "regression":
        values = [row["online_mse"] for row in rows]
        xlabel = "online MSE (progressive validation)"
    elif task == "timing":
        values = [row["fit_time_min"] for row in rows]
        xlabel = "minimum fit time (s)"
    elif task == "multilabel":
        values = [row["lrap"] for row in rows]
        xlabel = "label ranking average precision"
        notes = [f"{row['lrap']:.4f}, fit {row['fit_time']:.2f} s" for row in rows]
    elif task == "semi-supervised":
        labels = [f"{row['estimator']} {row['subset']}" for row in rows]
        values = [100 * row["semi_mean"] for row in rows]
        markers = [100 * row["supervised_mean"] for row in rows]
        marker_label, xlabel = "supervised", "semi-supervised accuracy (%)"
    elif task == "sequence":
        values = [100 * (row["chunk_f1"] or 0.0) for row in rows]
        xlabel = "chunk F1"
    elif task == "stream-memory":
        values = [row["max_peak_mib"] for row in rows]
        xlabel = "max peak traced memory of partial_fit (MiB)"
    elif task == "input-dtype":
        labels = [f"{row['estimator']} {row['dtype']}" for row in rows]
        values, xlabel = [row["peak_mib"] for row in rows], "peak beyond X (MiB)"
        notes = [f"fit {row['fit_time']:.2f} s" for row in rows]
    elif task == "stream-file":
        labels = [f"{row['estimator']} {row['training']}" for row in rows]
        values = [row["peak_rss_mib"] for row in rows]
        xlabel = "peak resident memory (MiB)"
        notes = [
            f"{row['wall_time']:.1f} s, accuracy {row['accuracy']:.4f}" for row in rows
        ]
    else:  # stream-dask
        labels = [f"{row['estimator']} {row['training']}" for row in rows]
        values = [row["wall_time"] for row in rows]
        xlabel = "wall time (s)"
        notes = [f"accuracy {row['accuracy']:.4f}" for row in rows]
    if notes is None:
        notes = [f"{v:.4g}" for v in values]
    return labels, values, errors, markers, marker_label, xlabel, notes


def plot_results(rows, path):
    """Draw benchmark rows as a bar chart and save it (PNG, or any format
    matplotlib knows from the extension).

    The chart is drawn on a :class:`matplotlib.figure.Figure` of its own:
    neither pyplot's state nor the global backend (of a notebook, say) is
    touched.  For the accuracy tables the bars are the mean accuracies with
    their standard deviation across folds; a published figure, where there
    is one, is drawn as a red diamond on its bar, and the fit time relative
    to the reference is written beside each bar.  The other protocols draw
    their main figure (LRAP, online MSE, chunk F1, peak memory, wall time,
    semi-supervised accuracy with the supervised one as the diamond).

    Parameters
    ----------
    rows : list of dict
        Rows returned by one run of a protocol (all from one data set).
    path : str or path-like
        The image file to write.

    Raises
    ------
    ImportError
        If matplotlib is not installed (``pip install matplotlib``).

    Examples
    --------
    >>> from sklearn_pa.benchmark import plot_results, run_benchmark
    >>> rows = run_benchmark("digits", ["PA-I"], cv=2, epochs=1)
    >>> plot_results(rows, "digits.png")  # doctest: +SKIP
    """
    try:
        from matplotlib.figure import Figure
    except ImportError as exc:
        raise ImportError(
            "--plot needs matplotlib: pip install matplotlib (or the 'benchmark' extra)"
        ) from exc
    if _task(rows) == "stream-dask" and n_worker_counts(rows) > 1:
        plot_scaling(rows, path, Figure, _title(rows))
        return
    own = {
        "stream-latency": plot_latency,
        "drift": plot_drift,
        "calibration": plot_reliability,
    }.get(_task(rows))
    if own is not None:
        own(rows, path, Figure, _title(rows))
        return
    labels, values, errors, markers, marker_label, xlabel, notes = _plot_values(rows)
    values = np.asarray(values, dtype=float)
    err = np.zeros_like(values) if errors is None else np.asarray(errors, float)
    positions = np.arange(len(rows))[::-1]
    fig = Figure(figsize=(7, 0.45 * len(rows) + 1.5))
    ax = fig.subplots()
    ax.barh(
        positions,
        values,
        xerr=None if errors is None else err,
        color="tab:blue",
        alpha=0.8,
        capsize=3,
    )
    points = []
    if markers is not None:
        points = [(p, m) for p, m in zip(positions, markers) if m is not None]
    if points:
        pos, marks = zip(*points)
        ax.scatter(marks, pos, marker="D", s=30, color="tab:red", label=marker_label)
        ax.legend(loc="best", fontsize=8)
    marks = [m for _, m in points]
    low = min([*(values - err), *marks])
    high = max([*(values + err), *marks])
    span = max(high - low, abs(high) * 0.05, 1e-12)
    if xlabel.endswith("(%)"):
        ax.set_xlim(max(0.0, low - 0.15 * span), min(100.0, high + 0.6 * span) + 0.5)
    else:
        ax.set_xlim(min(0.0, low), high + 0.6 * span)
    for pos, value, e, note in zip(positions, values, err, notes):
        ax.text(value + e + 0.05 * span, pos, note, va="center", fontsize=8)
    ax.set_yticks(positions, labels)
    ax.set_xlabel(xlabel)
    ax.set_title(_title(rows), fontsize=8, wrap=True)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
