"""Golden outputs: what every estimator configuration learns on fixed data.

Each case fits one configuration on small fixed data (dense, and the same
rows as CSR) and records its public fitted arrays (``coef_``,
``intercept_``, ``center_``, covariances exposed as attributes, ...) and its
scores on fixed test rows (``decision_function``, else ``predict``).
``tests/test_golden.py`` compares a fresh fit with the stored outputs, so a
change of the engine that moves what a model learns fails, and the change
has to be made on purpose: re-record the cases that moved, by name,

    python tests/golden.py NAME [NAME ...]

which rewrites their arrays and copies every other stored array as it was
(``python tests/golden.py`` alone lists the cases; ``--all`` re-records
every one), and say in the commit which cases moved and why.
"""

import argparse
import io
import os
import sys
import warnings
import zipfile

import numpy as np
import scipy.sparse as sp

from sklearn_pa import (
    AdaGradClassifier,
    ALMAClassifier,
    AROWClassifier,
    AROWRegressor,
    ConfidenceWeightedClassifier,
    ConfidenceWeightedRegressor,
    ErrorProportionalRegressor,
    ExponentiatedGradientRegressor,
    GradientDescentRegressor,
    IELLIPClassifier,
    KernelPassiveAggressiveClassifier,
    KernelPassiveAggressiveRegressor,
    MIRAClassifier,
    NAROWClassifier,
    NHERDClassifier,
    NHERDRegressor,
    OnlineBayesPointClassifier,
    OnlineGradientDescentClassifier,
    PassiveAggressiveClassifier,
    PassiveAggressiveOneClass,
    PassiveAggressiveRegressor,
    PerceptronClassifier,
    ROMMAClassifier,
    SCWClassifier,
    SOPClassifier,
    StructuredPassiveAggressive,
    StructuredPerceptron,
)

PATH = os.path.join(os.path.dirname(__file__), "data", "golden_outputs.npz")

#: every case runs a fixed number of shuffled epochs without early stopping
EPOCHS = dict(max_iter=3, tol=None, shuffle=True, random_state=0)
#: the sequence taggers always run max_iter epochs
SEQ_EPOCHS = dict(max_iter=3, shuffle=True, random_state=0)


def _data(task):
    """Fixed train and test rows for a task (no randomness across versions:
    a seeded ``numpy.random.RandomState`` is stable by contract)."""
    rng = np.random.RandomState(42)
    n, d = 60, 7
    X = rng.normal(size=(n + 20, d)) * (rng.uniform(size=(n + 20, d)) < 0.7)
    X[:, 0] += 0.5
    w = rng.normal(size=(d, 4))
    if task == "binary":
        y = (X @ w[:, 0] > 0.3).astype(int)
    elif task == "multiclass":
        y = np.argmax(X @ w + 0.3 * rng.normal(size=(n + 20, 4)), axis=1)
    elif task == "multilabel":
        y = (X @ w[:, :3] > 0.2).astype(int)
        y[y.sum(axis=1) == 0, 0] = 1
    elif task == "semi":
        y = np.argmax(X @ w[:, :3], axis=1)
        y[::3] = -1
    elif task == "regression":
        y = X @ w[:, 0] + 0.1 * rng.normal(size=n + 20)
    elif task == "positive_regression":
        X = np.abs(X)
        y = X @ np.abs(w[:, 0]) / np.abs(w[:, 0]).sum()
    elif task == "boolean_regression":
        X = (X > 0.3).astype(float)
        y = X @ np.abs(w[:, 0]) / np.abs(w[:, 0]).sum()
    elif task == "oneclass":
        y = None
    else:  # pragma: no cover - a typo in CASES
        raise ValueError(task)
    return X[:n], (None if y is None else y[:n]), X[n:]


def _sequences():
    rng = np.random.RandomState(7)
    d, n_labels = 6, 3
    W = rng.normal(size=(d, n_labels))
    X, y = [], []
    for length in [3, 5, 4, 6, 2, 5, 7, 3, 4, 5]:
        Xs = rng.normal(size=(length, d)) * (rng.uniform(size=(length, d)) < 0.8)
        X.append(Xs)
        y.append(np.array(["ABC"[k] for k in np.argmax(Xs @ W, axis=1)]))
    return X[:8], y[:8], X[8:]


def _cost():
    c = np.ones((4, 4)) - np.eye(4)
    c[0, 3] = c[3, 0] = 3.0
    return c


def _pa(**params):
    """PassiveAggressiveClassifier with the last iterate (``average=False``,
    its default before ``"epoch"``), unless a case asks for an average."""
    return PassiveAggressiveClassifier(**{"average": False, **params})


#: name -> (task, factory)
CASES = {
    # first-order classifiers
    "pa_binary_hinge": ("binary", lambda: _pa(**EPOCHS)),
    "pa_binary_pa": (
        "binary",
        lambda: _pa(C=np.inf, **EPOCHS),
    ),
    "pa_binary_sq": (
        "binary",
        lambda: _pa(loss="squared_hinge", C=0.1, **EPOCHS),
    ),
    "pa_binary_avg_noint": (
        "binary",
        lambda: _pa(average=True, fit_intercept=False, **EPOCHS),
    ),
    "pa_binary_classweight": (
        "binary",
        lambda: _pa(class_weight={0: 0.3, 1: 2.0}, weight_scaling="C", **EPOCHS),
    ),
    # the default weight_scaling="step": the weights multiply the step
    "pa_binary_classweight_step": (
        "binary",
        lambda: _pa(class_weight={0: 0.3, 1: 2.0}, **EPOCHS),
    ),
    **{
        f"pa_multi_{m}_{loss}": (
            "multiclass",
            lambda m=m, loss=loss: _pa(multiclass=m, loss=loss, C=0.5, **EPOCHS),
        )
        for m in ("support", "max_loss", "prediction", "ovr")
        for loss in ("hinge", "squared_hinge")
    },
    "pa_multi_support_avg": (
        "multiclass",
        lambda: _pa(average=3, **EPOCHS),
    ),
    "pa_multi_cost": (
        "multiclass",
        lambda: _pa(multiclass="max_loss", cost_matrix=_cost(), **EPOCHS),
    ),
    "pa_multilabel": ("multilabel", lambda: _pa(**EPOCHS)),
    # the default average="epoch": the last epoch's iterates averaged
    "pa_binary_default": ("binary", lambda: PassiveAggressiveClassifier(**EPOCHS)),
    "pa_multi_default": (
        "multiclass",
        lambda: PassiveAggressiveClassifier(**EPOCHS),
    ),
    "pa_multi_ovr_epoch_tol": (
        "multiclass",
        lambda: PassiveAggressiveClassifier(
            multiclass="ovr", max_iter=30, tol=1e-2, n_iter_no_change=2, random_state=0
        ),
    ),
    "pa_multilabel_default": (
        "multilabel",
        lambda: PassiveAggressiveClassifier(**EPOCHS),
    ),
    "mira_multi": ("multiclass", lambda: MIRAClassifier(**EPOCHS)),
    "mira_binary_avg": ("binary", lambda: MIRAClassifier(average=True, **EPOCHS)),
    # first-order regressors
    "par_eps": ("regression", lambda: PassiveAggressiveRegressor(**EPOCHS)),
    "par_sq_avg": (
        "regression",
        lambda: PassiveAggressiveRegressor(
            loss="squared_epsilon_insensitive", C=0.1, average=True, **EPOCHS
        ),
    ),
    "gd": ("regression", lambda: GradientDescentRegressor(**EPOCHS)),
    "gd_avg": (
        "regression",
        lambda: GradientDescentRegressor(average=True, **EPOCHS),
    ),
    "eg": ("positive_regression", lambda: ExponentiatedGradientRegressor(**EPOCHS)),
    "dpau": ("regression", lambda: ErrorProportionalRegressor(**EPOCHS)),
    "dpmu": (
        "boolean_regression",
        lambda: ErrorProportionalRegressor(update="multiplicative", **EPOCHS),
    ),
    # second-order
    "cw_binary": ("binary", lambda: ConfidenceWeightedClassifier(**EPOCHS)),
    "cw_binary_full": (
        "binary",
        lambda: ConfidenceWeightedClassifier(covariance="full", **EPOCHS),
    ),
    **{
        f"cw_{m}_{cov}": (
            "multiclass",
            lambda m=m, cov=cov: ConfidenceWeightedClassifier(
                multiclass=m, covariance=cov, **EPOCHS
            ),
        )
        for m in ("support", "single", "sequential")
        for cov in ("diagonal", "full")
    },
    "cw_single_avg": (
        "multiclass",
        lambda: ConfidenceWeightedClassifier(
            multiclass="single", average=True, **EPOCHS
        ),
    ),
    "arow_binary": ("binary", lambda: AROWClassifier(**EPOCHS)),
    "arow_multi_full": (
        "multiclass",
        lambda: AROWClassifier(covariance="full", **EPOCHS),
    ),
    "scw1_binary": ("binary", lambda: SCWClassifier(**EPOCHS)),
    "scw2_multi": ("multiclass", lambda: SCWClassifier(variant=2, **EPOCHS)),
    # the peer-library second-order rules (SOP, IELLIP, NHERD, NAROW)
    **{
        f"{name}_{task}_{cov}": (
            task,
            lambda cls=cls, cov=cov: cls(covariance=cov, **EPOCHS),
        )
        for name, cls in (
            ("sop", SOPClassifier),
            ("iellip", IELLIPClassifier),
            ("nherd", NHERDClassifier),
            ("narow", NAROWClassifier),
        )
        for task, cov in (("binary", "diagonal"), ("multiclass", "full"))
    },
    # diagonal AdaGrad (SOL), diagonal only
    "adagrad_binary": ("binary", lambda: AdaGradClassifier(**EPOCHS)),
    "adagrad_multiclass": ("multiclass", lambda: AdaGradClassifier(**EPOCHS)),
    **{
        f"nherd_{rule}_multiclass": (
            "multiclass",
            lambda rule=rule: NHERDClassifier(diagonal_rule=rule, **EPOCHS),
        )
        for rule in ("exact", "drop")
    },
    # second-order regression
    **{
        f"{name}_{cov}": (
            "regression",
            lambda cls=cls, cov=cov: cls(covariance=cov, **EPOCHS),
        )
        for name, cls in (
            ("arowr", AROWRegressor),
            ("cwr", ConfidenceWeightedRegressor),
            ("nherdr", NHERDRegressor),
        )
        for cov in ("diagonal", "full")
    },
    "arowr_avg_eps0": (
        "regression",
        lambda: AROWRegressor(epsilon=0.0, average=True, **EPOCHS),
    ),
    # Bayes point machine
    "obpm_multi": (
        "multiclass",
        lambda: OnlineBayesPointClassifier(n_estimators=4, **EPOCHS),
    ),
    "obpm_semi": (
        "semi",
        lambda: OnlineBayesPointClassifier(
            n_estimators=3, unlabeled_step=0.5, **EPOCHS
        ),
    ),
    # kernel and one-class
    "kpa_rbf": ("multiclass", lambda: KernelPassiveAggressiveClassifier(**EPOCHS)),
    "kpa_poly_budget": (
        "binary",
        lambda: KernelPassiveAggressiveClassifier(
            kernel="poly", degree=2, budget=10, **EPOCHS
        ),
    ),
    "kpar_rbf": ("regression", lambda: KernelPassiveAggressiveRegressor(**EPOCHS)),
    "oneclass_fixed": (
        "oneclass",
        lambda: PassiveAggressiveOneClass(epsilon=2.0, **EPOCHS),
    ),
    "oneclass_learn": (
        "oneclass",
        lambda: PassiveAggressiveOneClass(epsilon="learn", epsilon_bound=3.0, **EPOCHS),
    ),
    # sequence taggers
    "sp_exact": ("sequence", lambda: StructuredPerceptron(**SEQ_EPOCHS)),
    **{
        f"sp_beam_{u}": (
            "sequence",
            lambda u=u: StructuredPerceptron(beam_width=2, update=u, **SEQ_EPOCHS),
        )
        for u in ("standard", "early", "max_violation")
    },
    # classical margin learners (perceptron, OGD, ROMMA, ALMA)
    **{
        f"perceptron_{task}_{m}": (
            task,
            lambda m=m: PerceptronClassifier(multiclass=m, **EPOCHS),
        )
        for task in ("binary", "multiclass")
        for m in ("max", "uniform", "score")
        if task == "multiclass" or m == "max"
    },
    "perceptron_multiclass_avg": (
        "multiclass",
        lambda: PerceptronClassifier(average=True, **EPOCHS),
    ),
    **{
        f"ogd_{task}": (
            task,
            lambda: OnlineGradientDescentClassifier(eta=0.5, average=True, **EPOCHS),
        )
        for task in ("binary", "multiclass")
    },
    **{
        f"romma_{task}_{'aggressive' if a else 'mistakes'}": (
            task,
            lambda a=a: ROMMAClassifier(aggressive=a, **EPOCHS),
        )
        for task in ("binary", "multiclass")
        for a in (False, True)
    },
    **{
        f"alma_{task}": (task, lambda: ALMAClassifier(alpha=0.5, **EPOCHS))
        for task in ("binary", "multiclass")
    },
    "spa_k1": ("sequence", lambda: StructuredPassiveAggressive(**SEQ_EPOCHS)),
    "spa_k3": (
        "sequence",
        lambda: StructuredPassiveAggressive(k_best=3, average=False, **SEQ_EPOCHS),
    ),
}


def _as_csr(X):
    if isinstance(X, list):
        return [sp.csr_matrix(x) for x in X]
    return sp.csr_matrix(X)


def outputs(name, sparse=False):
    """Fit case ``name`` and return its outputs as a dict of float arrays."""
    task, factory = CASES[name]
    X, y, X_test = _sequences() if task == "sequence" else _data(task)
    if sparse:
        X, X_test = _as_csr(X), _as_csr(X_test)
    est = factory()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est.fit(X) if y is None else est.fit(X, y)
    out = {}
    for key, value in sorted(vars(est).items()):
        if key.startswith("_") or not key.endswith("_"):
            continue
        if sp.issparse(value):
            value = value.toarray()
        if isinstance(value, (int, float, np.number)) and not isinstance(value, bool):
            value = np.asarray(value)
        if isinstance(value, np.ndarray) and value.dtype.kind in "fiub":
            out[key] = np.asarray(value, dtype=float)
    if task == "sequence":
        out["predict"] = np.array(
            [ord(t) for seq in est.predict(X_test) for t in seq], dtype=float
        )
    elif hasattr(est, "decision_function"):
        out["decision_function"] = np.asarray(est.decision_function(X_test), float)
    else:
        out["predict"] = np.asarray(est.predict(X_test), float)
    return out


def _npy(value):
    """The bytes ``np.savez`` stores for one array."""
    buffer = io.BytesIO()
    np.lib.format.write_array(buffer, np.asanyarray(value), allow_pickle=False)
    return buffer.getvalue()


def record(names):
    """Re-record the cases ``names`` in the stored outputs: their arrays are
    replaced, every other member of the archive is copied as it was (its
    bytes and its zip entry); a case not stored yet is added."""
    fresh = {
        f"{name}/{key}.npy": _npy(value)
        for name in names
        for key, value in outputs(name).items()
    }
    prefixes = tuple(f"{name}/" for name in names)
    kept = []
    if os.path.exists(PATH):
        with zipfile.ZipFile(PATH) as old:
            kept = [
                (info, old.read(info))
                for info in old.infolist()
                if not info.filename.startswith(prefixes)
            ]
    os.makedirs(os.path.dirname(PATH), exist_ok=True)
    tmp = PATH + ".tmp"
    with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as new:
        for info, data in kept:
            new.writestr(info, data)
        for member, data in fresh.items():
            new.writestr(member, data)
    os.replace(tmp, PATH)
    return len(fresh)


def record_all():
    """Re-record every case: the archive is written anew."""
    arrays = {}
    for name in CASES:
        for key, value in outputs(name).items():
            arrays[f"{name}/{key}"] = value
    os.makedirs(os.path.dirname(PATH), exist_ok=True)
    np.savez_compressed(PATH, **arrays)
    return len(arrays)


def main(argv=None):
    parser = argparse.ArgumentParser(
        description="Record the golden outputs of the cases named (the others "
        "are kept as they are stored); with no name, list the cases."
    )
    parser.add_argument("names", nargs="*", metavar="NAME", help="a case of CASES")
    parser.add_argument(
        "--all", action="store_true", help="re-record every case (rewrites all)"
    )
    args = parser.parse_args(argv)
    if args.all:
        if args.names:
            parser.error("--all takes no case names")
        n = record_all()
        print(f"wrote {n} arrays of {len(CASES)} cases to {PATH}")
        return 0
    if not args.names:
        print("the cases (record some with NAME..., every one with --all):")
        print("\n".join(f"  {name}" for name in CASES))
        return 2
    unknown = [name for name in args.names if name not in CASES]
    if unknown:
        parser.error(f"no case named {', '.join(unknown)}")
    n = record(args.names)
    print(f"wrote {n} arrays of {len(args.names)} case(s) to {PATH}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
