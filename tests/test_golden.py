"""What each estimator configuration learns stays what it was (``golden.py``).

The stored outputs were produced by ``python tests/golden.py``.  A change
that moves them on purpose re-records the cases that moved
(``python tests/golden.py NAME...``) and says which and why in its commit.
"""

import shutil
import zipfile

import golden
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
    assert expected, f"no stored outputs for {name}: run python tests/golden.py {name}"
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
    # every learner exported; a meta-estimator learns through them (its
    # outputs: tests/test_calibration.py, tests/test_saved_models.py)
    meta = {name for name, _ in all_estimators("meta_estimator")}
    assert covered == set(sklearn_pa.__all__) - meta


def test_recording_a_case_keeps_every_other_stored_array(tmp_path, monkeypatch, capsys):
    path = tmp_path / "golden_outputs.npz"
    shutil.copy(PATH, path)
    monkeypatch.setattr(golden, "PATH", str(path))
    name = "pa_binary_hinge"
    assert golden.main([]) == 2  # no name: the cases are listed, nothing written
    assert name in capsys.readouterr().out
    with pytest.raises(SystemExit):
        golden.main(["no_such_case"])
    assert golden.main([name]) == 0
    with zipfile.ZipFile(PATH) as before, zipfile.ZipFile(path) as after:
        old = {i.filename: (i, before.read(i)) for i in before.infolist()}
        new = {i.filename: (i, after.read(i)) for i in after.infolist()}
    assert sorted(old) == sorted(new)
    for member, (info, data) in old.items():
        if member.startswith(f"{name}/"):
            continue
        assert new[member][1] == data, member
        assert new[member][0].date_time == info.date_time, member
    with np.load(path) as f, np.load(PATH) as stored_f:
        recorded = [k for k in f.files if k.startswith(f"{name}/")]
        assert recorded and all(_close(f[k], stored_f[k]) for k in recorded)
