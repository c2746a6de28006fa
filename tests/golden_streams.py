"""Golden streams: what every estimator configuration learns from a stream of
``partial_fit`` calls.

Each case of ``golden.CASES`` (every public estimator, every configuration
the golden fits record: class weights, cost matrices, ``weight_scaling``,
``average=int`` ...) learns the same fixed rows as a stream of batches of
uneven sizes (one row, a few, many), twice over, in four input forms:
dense float64, CSR float64, dense float32 and CSR float32, plus a dense
stream with per-sample weights where the estimator takes them.  What is
recorded: the scores on fixed test rows after the first pass and at the
end, and the public fitted arrays at the end.
``tests/test_golden_streams.py`` compares a fresh stream with the stored
outputs, so that a change of the call path (how a later call is checked,
set up and published) that moves what a stream learns fails; re-record on
purpose, by case name, as for ``golden.py``:

    python tests/golden_streams.py NAME [NAME ...]

(``--all`` re-records every case) and say in the commit which cases moved
and why.
"""

import argparse
import inspect
import os
import sys
import warnings

import numpy as np
from golden import CASES, _as_csr, _data, _sequences

PATH = os.path.join(os.path.dirname(__file__), "data", "golden_streams.npz")

#: the sizes of the batches of one pass, repeated until the rows run out
BATCH_SIZES = (1, 4, 1, 9, 2, 17, 1, 3)
#: the input forms of a stream (``weighted``: dense float64 with weights)
FORMS = ("dense", "csr", "dense32", "csr32", "weighted")


def _batches(n):
    """``[(start, stop), ...]`` of one pass over ``n`` rows."""
    out, start, i = [], 0, 0
    while start < n:
        stop = min(n, start + BATCH_SIZES[i % len(BATCH_SIZES)])
        out.append((start, stop))
        start, i = stop, i + 1
    return out


def _take(X, start, stop):
    return X[start:stop]


def _scores(est, X_test, task):
    if task == "sequence":
        return np.array([ord(t) for seq in est.predict(X_test) for t in seq], float)
    if hasattr(est, "decision_function"):
        return np.asarray(est.decision_function(X_test), float)
    return np.asarray(est.predict(X_test), float)


def applies(name, form):
    """Whether case ``name`` streams in ``form``: the taggers take no
    per-sample weights."""
    if form != "weighted":
        return True
    est = CASES[name][1]()
    return "sample_weight" in inspect.signature(est.partial_fit).parameters


def outputs(name, form):
    """Stream case ``name`` in ``form`` and return its outputs as a dict of
    float arrays."""
    task, factory = CASES[name]
    X, y, X_test = _sequences() if task == "sequence" else _data(task)
    if form.endswith("32"):
        X = [x.astype(np.float32) for x in X] if task == "sequence" else X
        X = X if task == "sequence" else X.astype(np.float32)
        X_test = (
            [x.astype(np.float32) for x in X_test]
            if task == "sequence"
            else X_test.astype(np.float32)
        )
    if form.startswith("csr"):
        X, X_test = _as_csr(X), _as_csr(X_test)
    n = len(X) if task == "sequence" else X.shape[0]
    weights = None
    if form == "weighted":
        weights = 0.25 + 1.75 * ((np.arange(n) * 7) % 5) / 4.0
    classes = None
    if task == "sequence":
        classes = np.unique(np.concatenate(y))
    elif task in ("binary", "multiclass"):
        classes = np.unique(y)
    elif task == "semi":
        classes = np.unique(y[y != -1])
    elif task == "multilabel":
        classes = np.arange(y.shape[1])
    est = factory()
    out = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for epoch in range(2):
            spans = _batches(n)
            if epoch == 1:
                spans = spans[::-1]
            for start, stop in spans:
                args = [_take(X, start, stop)]
                kwargs = {}
                if y is not None:
                    args.append(y[start:stop])
                if classes is not None:
                    kwargs["classes"] = classes
                if weights is not None:
                    kwargs["sample_weight"] = weights[start:stop]
                est.partial_fit(*args, **kwargs)
            out[f"scores_pass{epoch + 1}"] = _scores(est, X_test, task)
    for key, value in sorted(vars(est).items()):
        if key.startswith("_") or not key.endswith("_"):
            continue
        if hasattr(value, "toarray"):
            value = value.toarray()
        if isinstance(value, (int, float, np.number)) and not isinstance(value, bool):
            value = np.asarray(value)
        if isinstance(value, np.ndarray) and value.dtype.kind in "fiub":
            out[key] = np.asarray(value, dtype=float)
    # (a pending publication is formed when read: read the learned state)
    for key in ("coef_", "intercept_"):
        if key not in out and hasattr(est, key):
            value = getattr(est, key)
            if isinstance(value, np.ndarray) and value.dtype.kind in "fiub":
                out[key] = np.asarray(value, dtype=float)
    return out


def stream_cases():
    """Every ``(name, form)`` recorded."""
    return [(name, form) for name in CASES for form in FORMS if applies(name, form)]


def record(names=None):
    """(Re-)record the cases ``names`` (every case with None); every other
    stored array is kept as it is."""
    stored = {}
    if os.path.exists(PATH):
        with np.load(PATH) as f:
            stored = {key: f[key] for key in f.files}
    wanted = set(CASES if names is None else names)
    stored = {k: v for k, v in stored.items() if k.split("/", 1)[0] not in wanted}
    for name, form in stream_cases():
        if name not in wanted:
            continue
        for key, value in outputs(name, form).items():
            stored[f"{name}/{form}/{key}"] = value
    os.makedirs(os.path.dirname(PATH), exist_ok=True)
    tmp = PATH + ".tmp.npz"
    np.savez_compressed(tmp, **stored)
    os.replace(tmp, PATH)
    return len(stored)


def main(argv=None):
    parser = argparse.ArgumentParser(
        description="Record the golden streams of the cases named (the others "
        "are kept as they are stored); with no name, list the cases."
    )
    parser.add_argument("names", nargs="*", metavar="NAME", help="a case of CASES")
    parser.add_argument("--all", action="store_true", help="re-record every case")
    args = parser.parse_args(argv)
    if args.all:
        if args.names:
            parser.error("--all takes no case names")
        n = record()
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
    print(f"the archive now holds {n} arrays ({PATH})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
