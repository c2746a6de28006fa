"""Models saved by each version of the package, kept so that every later
version is tested to load them and predict what they predicted.

``tests/data/saved_models/<version>/`` holds, for every public estimator
(discovered), the model after one ``partial_fit`` batch (the variants of
``tests/test_robustness.py``, default parameters) saved with ``pickle``
(``<Name>.pkl``) and with ``skops.io`` (``<Name>.skops``), and the rows and
outputs it gave (``<Name>.npz``).  ``tests/test_saved_models.py`` loads every
folder; it never writes one.

A release writes the folder of its version, once::

    python tests/saved_models.py

which refuses to replace a folder that exists: files saved by a version are
what that version saved, and are never made again.  A new estimator of the
version in development adds its own files (``python tests/saved_models.py
--missing`` writes only those of estimators the folder does not hold).
"""

import pickle
import sys
import warnings
import zipfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).parent / "data" / "saved_models"

#: rows of the reference outputs
N_ROWS = 12


def _flat(value, key, out):
    """Store ``value`` (an array, or a list of arrays of several lengths,
    as a tagger's X and predictions) under ``key`` in ``out``."""
    if isinstance(value, list):
        out[f"{key}__lengths"] = np.array([len(v) for v in value], dtype=np.int64)
        value = np.concatenate([np.asarray(v) for v in value])
    out[key] = np.asarray(value)


def unflat(stored, key):
    """What :func:`_flat` stored under ``key``."""
    value = stored[key]
    lengths = f"{key}__lengths"
    if lengths not in stored:
        return value
    ends = np.cumsum(stored[lengths])
    return list(np.split(value, ends[:-1]))


METHODS = ("decision_function", "predict", "score_samples", "predict_proba")


def outputs(est, X):
    """Every prediction-like output of ``est`` on ``X``, by method name."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return {m: getattr(est, m)(X) for m in METHODS if hasattr(est, m)}


def models():
    """``(name, estimator, X)`` for every public estimator, after one
    ``partial_fit`` batch, with the rows its outputs are stored for."""
    sys.path.insert(0, str(Path(__file__).parent))
    from test_robustness import VARIANTS, _trained

    for param in VARIANTS:
        name, Estimator, variant = param.values
        if variant:
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            est, X, _ = _trained(name, Estimator, variant)
        yield name, est, X[:N_ROWS]
    # the meta-estimators, around the classifier they take by default
    from sklearn.datasets import make_classification

    from sklearn_pa.utils import all_estimators

    X, y = make_classification(
        n_samples=80, n_features=6, n_informative=4, n_classes=3, random_state=0
    )
    for name, Meta in all_estimators("meta_estimator"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            est = Meta().partial_fit(X, y, classes=np.unique(y))
        yield name, est, X[:N_ROWS]


def write(folder, missing_only=False):
    """Save every model, its rows and its outputs in ``folder`` (new); with
    ``missing_only``, those of the estimators ``folder`` does not hold yet
    (a file there is never replaced)."""
    import skops.io as sio

    folder.mkdir(parents=True, exist_ok=missing_only)
    for name, est, X in models():
        if missing_only and any(folder.glob(f"{name}.*")):
            continue
        with open(folder / f"{name}.pkl", "wb") as file:
            pickle.dump(est, file, protocol=4)
        sio.dump(est, folder / f"{name}.skops", compression=zipfile.ZIP_DEFLATED)
        stored = {}
        _flat(X if isinstance(X, list) else np.asarray(X), "X", stored)
        for method, value in outputs(est, X).items():
            _flat(value, f"out_{method}", stored)
        np.savez(folder / f"{name}.npz", **stored)


if __name__ == "__main__":
    import sklearn_pa

    target = ROOT / sklearn_pa.__version__
    missing_only = sys.argv[1:] == ["--missing"]
    if target.exists() and not missing_only:
        sys.exit(
            f"{target} exists: the models saved by version "
            f"{sklearn_pa.__version__} are kept as they were saved (--missing "
            "adds those of estimators it does not hold yet)."
        )
    write(target, missing_only=missing_only)
    print(f"{len(list(target.glob('*.pkl')))} models in {target}")
