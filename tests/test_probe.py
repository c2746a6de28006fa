"""The hostile-input and fault probe (``tests/probe.py``) at the CI size:
random operation sequences, injected failures at the package's internal
calls, timed interrupts, threads, hostile and damaged pickles, malformed
files, each over every public estimator it applies to (found by
discovery).  ``python tests/probe.py --size full`` runs the full size."""

import pytest
from probe import PROBES, run


@pytest.mark.parametrize("kind", list(PROBES))
def test_probe_finds_no_crash_no_silent_wrong_result_no_unclear_error(kind):
    report = run("ci", [kind])
    counts = report.counts[kind]
    assert counts["cases"] >= 20, counts
    bad = {key: counts[key] for key in ("crashes", "silent", "unclear")}
    assert bad == {"crashes": 0, "silent": 0, "unclear": 0}, report.text()


def test_probe_oracles_catch_what_they_look_for(tmp_path):
    """The oracles are not blind: a crash, a silent wrong result and an
    unclear error are each counted."""
    from probe import Report

    report = Report()
    report.error("x", IndexError("index 3 is out of bounds"))
    report.error("x", ValueError("cannot reshape array of size 5 into shape (1,4)"))
    report.error("x", ValueError("coef_ of X has shape (3,), but the model needs (4,)"))
    report.case("x", "silent", "scores differ")
    assert report.counts["x"] == {
        "cases": 4, "crashes": 1, "unclear": 1, "silent": 1
    }  # fmt: skip
