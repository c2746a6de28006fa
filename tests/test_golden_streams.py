"""What each estimator configuration learns from a stream of ``partial_fit``
calls stays what it was (``golden_streams.py``).

The stored outputs were produced by ``python tests/golden_streams.py --all``
before the call path was restructured.  A change that moves them on purpose
re-records the cases that moved (``python tests/golden_streams.py NAME...``)
and says which and why in its commit.
"""

import golden_streams
import numpy as np
import pytest
from golden import CASES
from golden_streams import FORMS, PATH, outputs, stream_cases

# relative to the largest magnitude of the stored array
RTOL = 1e-12


@pytest.fixture(scope="module")
def stored():
    with np.load(PATH) as f:
        return {key: f[key] for key in f.files}


def _close(actual, expected):
    scale = max(1.0, float(np.max(np.abs(expected), initial=0.0)))
    return actual.shape == expected.shape and np.all(
        np.abs(actual - expected) <= RTOL * scale
    )


@pytest.mark.parametrize(("name", "form"), stream_cases())
def test_stream_unchanged(stored, name, form):
    prefix = f"{name}/{form}/"
    expected = {
        key[len(prefix) :]: value
        for key, value in stored.items()
        if key.startswith(prefix)
    }
    assert expected, (
        f"no stored stream for {name} ({form}): "
        f"run python tests/golden_streams.py {name}"
    )
    actual = outputs(name, form)
    assert sorted(actual) == sorted(expected)
    moved = [key for key in expected if not _close(actual[key], expected[key])]
    assert not moved, f"{name} ({form}): {moved} moved"


def test_every_case_streams_in_every_form_it_takes():
    cases = stream_cases()
    assert {name for name, _ in cases} == set(CASES)
    for name in CASES:
        forms = {form for case, form in cases if case == name}
        assert {"dense", "csr", "dense32", "csr32"} <= forms <= set(FORMS)


def test_the_batches_cover_every_row_once_with_single_rows():
    spans = golden_streams._batches(60)
    rows = [i for start, stop in spans for i in range(start, stop)]
    assert rows == list(range(60))
    assert any(stop - start == 1 for start, stop in spans)
    assert any(stop - start > 10 for start, stop in spans)
