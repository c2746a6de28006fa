"""The smoke test of an installed wheel: run it from outside the source tree.

Imports the package, fits every public estimator on the digits (the
classifiers on the labels, the regressors on a linear
function of the pixels, the
one-class learner on the images, the sequence taggers on each image as a
sequence of its 8 rows labelled with the digit) and scores it on held-out
rows, then lists the benchmark's data sets and estimators
(``python -m sklearn_pa.benchmark --list``).  Used by ``.ci/wheel`` and by
cibuildwheel's ``test-command`` (``pyproject.toml``).
"""

import importlib
import subprocess
import sys
from pathlib import Path

import numpy as np
from sklearn.base import is_classifier, is_outlier_detector, is_regressor
from sklearn.datasets import load_digits

import sklearn_pa
from sklearn_pa.utils import all_estimators
from sklearn_pa.utils.discovery import is_sequence_tagger

# held-out score a working estimator reaches on the digits; far above chance
# (accuracy 0.1, R^2 0), far below what every estimator reaches (the figures
# of a run are printed)
# (the taggers see one row of an image at a time: a row alone is ambiguous;
# the one-class learner's score is the fraction of held-out rows it accepts)
FLOOR = {
    "classifier": 0.9,
    "regressor": 0.8,
    "outlier_detector": 0.8,
    "sequence_tagger": 0.45,
}


def main():
    package = Path(sklearn_pa.__file__).parent
    print(f"sklearn_pa {sklearn_pa.__version__} from {package}")
    for module in ("sklearn_pa._compiled._first_order", "sklearn_pa.utils._shuffle"):
        path = importlib.import_module(module).__file__
        if Path(path).suffix not in {".so", ".pyd"}:
            raise SystemExit(f"{module} is not compiled: {path}")
        print(f"{module}: {Path(path).name}")

    X, y = load_digits(return_X_y=True)
    X = X / 16.0
    rng = np.random.RandomState(0)
    order = rng.permutation(len(y))
    train, test = order[:1400], order[1400:]
    # the regressors' target: a linear function of the pixels, with noise
    coef = rng.uniform(-1, 1, X.shape[1])
    target = X @ coef + rng.normal(0, 0.1, len(y))
    failures = []
    names = all_estimators(type_filter="all")
    for name, Estimator in names:
        est = Estimator()
        if "random_state" in est.get_params():
            est.set_params(random_state=0)
        if is_sequence_tagger(Estimator):
            kind = "sequence_tagger"
            seqs = [image.reshape(8, 8) for image in X]
            labels = [np.full(8, label) for label in y]
            est.fit([seqs[i] for i in train], [labels[i] for i in train])
            predicted = est.predict([seqs[i] for i in test])
            score = np.mean(np.concatenate(predicted) == np.repeat(y[test], 8))
        elif is_classifier(est):
            kind = "classifier"
            score = est.fit(X[train], y[train]).score(X[test], y[test])
        elif is_regressor(est):
            kind = "regressor"
            # EG+- learns weights of L1 norm at most total_weight (1 by
            # default): its target is scaled to weights of norm 0.5
            scale = 1.0
            if "total_weight" in est.get_params():
                scale = 0.5 * est.total_weight / np.abs(coef).sum()
            t = target * scale
            score = est.fit(X[train], t[train]).score(X[test], t[test])
        elif is_outlier_detector(est):
            kind = "outlier_detector"
            # inliers: a tenth or so flagged, with the default radius
            score = np.mean(est.fit(X[train]).predict(X[test]) == 1)
        else:
            failures.append(f"{name}: of no kind the smoke test knows")
            continue
        ok = score >= FLOOR[kind]
        print(f"  {name:40s} {kind:16s} {score:7.3f}{'' if ok else '  FAILED'}")
        if not ok:
            failures.append(f"{name}: held-out score {score:.3f}")
    print(f"{len(names)} estimators fitted on the digits")

    # the full-covariance kernel calls BLAS through scipy.linalg.cython_blas:
    # a wheel built against one scipy runs on another
    full = sklearn_pa.ConfidenceWeightedClassifier(covariance="full", random_state=0)
    score = full.fit(X[train], y[train]).score(X[test], y[test])
    print(f"  ConfidenceWeightedClassifier(covariance='full')  {score:7.3f}")
    if score < FLOOR["classifier"]:
        failures.append(f"ConfidenceWeightedClassifier(covariance='full'): {score:.3f}")

    listing = subprocess.run(
        [sys.executable, "-m", "sklearn_pa.benchmark", "--list"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    print(f"python -m sklearn_pa.benchmark --list: {len(listing.splitlines())} lines")
    if "digits" not in listing or "PassiveAggressiveClassifier" not in listing:
        failures.append("the benchmark's --list lacks the digits or the PA classifier")
    if failures:
        raise SystemExit("smoke test failed:\n  " + "\n  ".join(failures))
    print("smoke test passed")


if __name__ == "__main__":
    main()
