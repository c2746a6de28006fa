"""What each estimator configuration learns stays what it was (``golden.py``).

The stored outputs were produced by ``python tests/golden.py``.  A change
that moves them on purpose regenerates the file and says which cases moved
and why in its commit.
"""

import numpy as np
import pytest
from golden import CASES, PATH, outputs

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


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
@pytest.mark.parametrize("name", list(CASES))
def test_outputs_unchanged(stored, name, sparse):
    expected = {
        key.split("/", 1)[1]: value
        for key, value in stored.items()
        if key.split("/", 1)[0] == name
    }
    assert expected, f"no stored outputs for {name}: run python tests/golden.py"
    actual = outputs(name, sparse=sparse)
    assert sorted(actual) == sorted(expected)
    moved = [key for key in expected if not _close(actual[key], expected[key])]
    assert not moved, f"{name} ({'csr' if sparse else 'dense'}): {moved} moved"


def test_every_public_estimator_has_a_case():
    import sklearn_pa
    from sklearn_pa.utils import all_estimators

    covered = {type(CASES[name][1]()).__name__ for name in CASES}
    assert covered == {name for name, _ in all_estimators()} | {
        "StructuredPassiveAggressive",
        "StructuredPerceptron",
    }
    assert covered == set(sklearn_pa.__all__)
