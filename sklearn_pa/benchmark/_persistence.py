"""Saving and loading a 20 Newsgroups model in each format: file size, save
and load time, and whether the loaded model predicts exactly as the saved
one (``python -m sklearn_pa.benchmark --dataset 20newsgroups-persistence``).

The formats: ``pickle`` (protocol 5), ``joblib`` (uncompressed and with
``compress=3``), ``skops.io`` (stored and deflated; loaded with
:func:`sklearn_pa.persistence.trusted_types`) and ONNX (written with
:func:`sklearn_pa.onnx.to_onnx`, loaded as an onnxruntime session; its
labels are compared, in float32).  skops and ONNX run when installed.
"""

import os
import pickle
import tempfile
import time
import warnings
import zipfile

import numpy as np

from ._progress import Progress

__all__ = ["FORMATS", "LEARNERS", "persistence_cells", "run_persistence"]


def _pa():
    from .. import PassiveAggressiveClassifier

    return PassiveAggressiveClassifier(random_state=0)


def _arow():
    from .. import AROWClassifier

    return AROWClassifier(random_state=0)


#: learner name -> factory
LEARNERS = {"PA": _pa, "AROW": _arow}


def _pickle_save(model, path):
    with open(path, "wb") as file:
        pickle.dump(model, file, protocol=5)


def _pickle_load(path):
    with open(path, "rb") as file:
        return pickle.load(file)


def _joblib(compress):
    import joblib

    return (lambda model, path: joblib.dump(model, path, compress=compress)), (
        joblib.load
    )


def _skops(compression):
    def save(model, path):
        import skops.io as sio

        sio.dump(model, path, compression=compression)

    def load(path):
        import skops.io as sio

        from ..persistence import trusted_types

        return sio.load(path, trusted=trusted_types())

    return save, load


def _onnx_save(model, path):
    from ..onnx import to_onnx

    n_features = model.n_features_in_
    onx = to_onnx(model, np.zeros((1, n_features), dtype=np.float32))
    with open(path, "wb") as file:
        file.write(onx.SerializeToString())


def _onnx_load(path):
    import onnxruntime as rt

    return rt.InferenceSession(path, providers=["CPUExecutionProvider"])


#: format -> (save(model, path), load(path), module it needs or None)
FORMATS = {
    "pickle": (_pickle_save, _pickle_load, None),
    "joblib": (*_joblib(0), "joblib"),
    "joblib compress=3": (*_joblib(3), "joblib"),
    "skops": (*_skops(zipfile.ZIP_STORED), "skops"),
    "skops deflated": (*_skops(zipfile.ZIP_DEFLATED), "skops"),
    "onnx": (_onnx_save, _onnx_load, "onnxruntime"),
}


def _available(module):
    if module is None:
        return True
    try:
        __import__(module)
    except ImportError:
        return False
    return module != "onnxruntime" or _available("skl2onnx")


def _predictions(loaded, X, fmt):
    if fmt == "onnx":
        dense = X.toarray().astype(np.float32) if hasattr(X, "toarray") else X
        return loaded.run(["label"], {"X": np.asarray(dense, dtype=np.float32)})[0]
    return loaded.predict(X)


def _median_time(function, args, repeats):
    times = []
    result = None
    for _ in range(repeats):
        start = time.perf_counter()
        result = function(*args)
        times.append(time.perf_counter() - start)
    return float(np.median(times)), result


def run_persistence(data, names=None, *, repeats=5, verbose=False):
    """Fit each learner on the training rows, then save and load it in each
    format.

    Parameters
    ----------
    data : Bunch
        ``name``, ``X``, ``y`` and ``X_test`` (the loaded model predicts the
        first 100 test rows, compared with the fitted model's predictions).
    names : list of str, default=None
        Learners of :data:`LEARNERS` (all when None).
    repeats : int, default=5
        Saves and loads timed per format (their median is reported).
    verbose : bool or int, default=False
        A line per learner.

    Returns
    -------
    rows : list of dict
        ``estimator``, ``format``, ``size_bytes``, ``save_ms``, ``load_ms``
        and ``identical`` (the loaded model's predictions equal the fitted
        model's; for ONNX, those of the fitted model on the float32 rows).
    """
    names = list(LEARNERS) if names is None else list(names)
    unknown = [n for n in names if n not in LEARNERS]
    if unknown:
        raise ValueError(
            f"Unknown learner(s): {', '.join(unknown)}. The persistence "
            f"protocol has: {', '.join(LEARNERS)}."
        )
    X, y = data.X, np.asarray(data.y)
    X_check = (data.X_test if data.X_test is not None else X)[:100]
    progress = Progress(len(names), verbose=verbose)
    progress.log(
        f"Saving and loading models of {data.name} ({X.shape[0]} x {X.shape[1]})"
    )
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        for name in names:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                model = LEARNERS[name]().fit(X, y)
            X_float32 = X_check.astype(np.float32)
            for fmt, (save, load, module) in FORMATS.items():
                if not _available(module):
                    continue
                path = os.path.join(folder, f"{name}-{fmt.replace(' ', '-')}")
                save_s, _ = _median_time(save, (model, path), repeats)
                load_s, loaded = _median_time(load, (path,), repeats)
                if fmt == "onnx":
                    expected = model.predict(X_float32.astype(np.float64))
                    got = _predictions(loaded, X_float32, fmt)
                else:
                    expected = model.predict(X_check)
                    got = _predictions(loaded, X_check, fmt)
                rows.append(
                    {
                        "task": "persistence",
                        "dataset": data.name,
                        "n_samples": X.shape[0],
                        "n_features": X.shape[1],
                        "estimator": name,
                        "format": fmt,
                        "size_bytes": os.path.getsize(path),
                        "save_ms": 1e3 * save_s,
                        "load_ms": 1e3 * load_s,
                        "identical": bool(np.array_equal(got, expected)),
                    }
                )
            progress.step(name)
    return rows


def persistence_cells(rows):
    """The header and the cells of the persistence table."""
    header = ["estimator", "format", "size (MB)", "save (ms)", "load (ms)", "same"]
    body = [
        [
            row["estimator"],
            row["format"],
            f"{row['size_bytes'] / 1e6:.2f}",
            f"{row['save_ms']:.1f}",
            f"{row['load_ms']:.1f}",
            "yes" if row["identical"] else "NO",
        ]
        for row in rows
    ]
    return header, body


def persistence_title(rows):
    first = rows[0]
    return (
        f"{first['dataset']} ({first['n_samples']} x {first['n_features']}): a "
        "fitted model saved and loaded in each format (median of the timed "
        "repeats), and whether the loaded model predicts as the fitted one"
    )
