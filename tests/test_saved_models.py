"""Models saved by this and earlier versions (``tests/data/saved_models/``,
written once by ``tests/saved_models.py``) load, with ``pickle`` and with
``skops.io``, and predict exactly what they predicted when saved: the same
labels, and the same decision values and probabilities to the last bits
that the numeric libraries of the run round differently."""

import pickle
import warnings

import numpy as np
import pytest
from saved_models import ROOT, outputs, unflat

import sklearn_pa
from sklearn_pa.persistence import trusted_types
from sklearn_pa.utils import all_estimators

FOLDERS = sorted(path for path in ROOT.iterdir() if path.is_dir())
SAVED = [
    pytest.param(folder, path.stem, id=f"{folder.name}-{path.stem}")
    for folder in FOLDERS
    for path in sorted(folder.glob("*.npz"))
]


def test_the_newest_folder_has_every_public_estimator():
    """A new public estimator fails here until a release saves it (``python
    tests/saved_models.py`` writes the folder of the package's version)."""
    assert FOLDERS, f"no saved models in {ROOT}"
    newest = FOLDERS[-1]
    saved = {path.stem for path in newest.glob("*.npz")}
    names = {name for name, _ in all_estimators(["all", "meta_estimator"])}
    missing = sorted(names - saved)
    assert not missing, (
        f"{newest} has no saved {missing}; the next release writes them "
        f"(python tests/saved_models.py --missing, version {sklearn_pa.__version__})"
    )


def _assert_equal(have, want, label, method):
    """Labels exactly; decision values and probabilities to the last bits
    (a later numpy, scipy or BLAS rounds a sum or a special function
    otherwise, a few units of 1e-16 on these models)."""
    if np.asarray(want).dtype.kind in "fc":
        scale = max(float(np.abs(want).max()), 1.0) if np.size(want) else 1.0
        np.testing.assert_allclose(
            have, want, rtol=1e-12, atol=1e-13 * scale, err_msg=f"{label} {method}"
        )
    else:
        np.testing.assert_array_equal(have, want, err_msg=f"{label} {method}")


def _assert_outputs(model, stored, label):
    X = unflat(stored, "X")
    got = outputs(model, X)
    expected = {
        key[len("out_") :]
        for key in stored.files
        if key.startswith("out_") and not key.endswith("__lengths")
    }
    assert set(got) == expected, label
    for method in expected:
        want = unflat(stored, f"out_{method}")
        have = got[method]
        if isinstance(want, list):
            assert len(have) == len(want), (label, method)
            for h, w in zip(have, want):
                _assert_equal(h, w, label, method)
        else:
            _assert_equal(have, want, label, method)


@pytest.mark.parametrize("folder, name", SAVED)
def test_a_saved_pickle_loads_and_predicts_as_it_did(folder, name):
    stored = np.load(folder / f"{name}.npz")
    if np.lib.NumpyVersion(np.__version__) < "1.26.0":
        pytest.skip("numpy before 1.26 cannot read the arrays numpy 2 pickles")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with open(folder / f"{name}.pkl", "rb") as file:
            model = pickle.load(file)
    assert type(model).__name__ == name
    _assert_outputs(model, stored, f"{folder.name}/{name}.pkl")


@pytest.mark.parametrize("folder, name", SAVED)
def test_a_saved_skops_file_loads_and_predicts_as_it_did(folder, name):
    sio = pytest.importorskip("skops.io")
    stored = np.load(folder / f"{name}.npz")
    model = sio.load(folder / f"{name}.skops", trusted=trusted_types())
    assert type(model).__name__ == name
    _assert_outputs(model, stored, f"{folder.name}/{name}.skops")
