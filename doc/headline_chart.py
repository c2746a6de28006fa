"""Draw ``doc/_static/headline.png``, the chart of the front page and of the
benchmarks page, from figures printed on the benchmarks page.

Every figure below is copied from a table of ``doc/benchmarks.rst``, and the
command that printed it is beside it (``tests/test_docs.py`` checks that
each figure and command is on that page)::

    python doc/headline_chart.py
"""

from pathlib import Path

#: 20 Newsgroups, train/test, 5 epochs: test accuracy (%) and fit time (s)
#: ("Against scikit-learn on text").
TEXT_COMMAND = (
    "python -m sklearn_pa.benchmark --dataset 20newsgroups --epochs 5 \\\n"
    "        --estimators sklearn-SGD-pa1 LinearSVC PA-default SPA-I PA-I-maxloss \\\n"
    "        PA-I-avg PA-I-ovr-avg CW-k1 SCW-II AROW"
)
TEXT = {
    # label: (accuracy %, fit time s, from scikit-learn)
    "sklearn SGD pa1": (81.09, 0.569, True),
    "LinearSVC (batch)": (82.51, 2.07, True),
    "PA-default": (81.20, 0.132, False),
    "PA-I OvR, averaged": (81.90, 0.187, False),
    "CW k=1": (82.85, 0.293, False),
    "SCW-II": (82.87, 0.304, False),
    "AROW": (82.54, 0.306, False),
}

#: One ``partial_fit`` call on a live stream of 20 Newsgroups rows: median
#: CPU time (microseconds) of a call of 1 and of 1000 rows
#: ("One row at a time: the cost of a call").
STREAM_COMMAND = "python -m sklearn_pa.benchmark --dataset stream-latency"
STREAM = {
    "PA-default": (18.9, 3240),
    "AROW": (24.6, 5994),
    "CW": (25.5, 3019),
    "SGD-pa1": (4135, 8254),
}

OUT = Path(__file__).resolve().parent / "_static" / "headline.png"


def main(out=OUT):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 3.9))
    for label, (accuracy, seconds, reference) in TEXT.items():
        left.scatter(
            seconds,
            accuracy,
            s=45,
            marker="s" if reference else "o",
            color="0.45" if reference else "C0",
            zorder=3,
        )
        left.annotate(
            label,
            (seconds, accuracy),
            xytext=(6, {"SCW-II": 3, "CW k=1": -10}.get(label, -3)),
            textcoords="offset points",
            fontsize=8,
        )
    left.set_xscale("log")
    left.set_xlim(0.09, 5)
    left.set_ylim(80.8, 83.2)
    left.set_xlabel("fit time, 5 epochs (s, log scale)")
    left.set_ylabel("test accuracy (%)")
    left.set_title("20 Newsgroups: accuracy against fit time", fontsize=10)
    left.grid(alpha=0.3)
    left.scatter([], [], marker="o", color="C0", label="sklearn_pa")
    left.scatter([], [], marker="s", color="0.45", label="scikit-learn")
    left.legend(fontsize=8, loc="upper right")

    names = list(STREAM)
    width = 0.38
    for j, (batch, color) in enumerate([(0, "C0"), (1, "C1")]):
        values = [STREAM[name][batch] / (1 if batch == 0 else 1000) for name in names]
        positions = [i + (j - 0.5) * width for i in range(len(names))]
        right.bar(
            positions,
            values,
            width,
            color=color,
            label="1-row call" if batch == 0 else "per row of a 1000-row call",
        )
    right.set_yscale("log")
    right.set_xticks(
        range(len(names)), [n.replace("SGD-pa1", "sklearn SGD pa1") for n in names]
    )
    right.set_ylabel("CPU time per row (µs, log scale)")
    right.set_title("A live stream: partial_fit CPU time per row", fontsize=10)
    right.legend(fontsize=8, loc="upper left")
    right.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return out


if __name__ == "__main__":
    print(main())
