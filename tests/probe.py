"""Hostile-input and fault probe of every public estimator.

Six classes of input, each judged by an oracle that needs no expected
figure:

``sequences``
    Random operation sequences (``partial_fit`` on batches of random size,
    scale, layout and dtype, batches with NaN, ``fit``, scores, pickling,
    copying, reading the learned attributes) on an estimator and on a twin
    that only learns: the scores of the two stay bit-identical, finite, of
    the right shape, and a refused batch leaves the model as it was.
``faults``
    A failure injected at the k-th Python call inside the package during a
    ``partial_fit`` call, for k sampled over all of them: the model is then
    exactly as before the call or as after it, never a mix.
``interrupts``
    A real ``SIGINT`` at a random moment of ``partial_fit``: the same
    oracle.
``threads``
    Several threads streaming into one estimator while another scores: no
    error, every row counted, every call recorded, the scores finite.
``pickles``
    Hostile pickles for :func:`~sklearn_pa.migration.load_sklearn_pickle`
    (calls that would write a marker file, in containers, at protocols 0 to
    5) and damaged genuine ones (bytes flipped, cut, inserted): no payload
    runs, the error is ``pickle.UnpicklingError`` or ``ValueError``; and
    the package's own pickles with NaN, infinity or a complex number in
    any float of their state: refused on load, naming it.
``files``
    Malformed svmlight and CSV files (bytes changed, cut, huge indices,
    CR-only line ends, NaN values, no rows): read as scikit-learn's
    ``load_svmlight_file`` reads the same bytes, or refused with a
    ``ValueError`` naming the file.

Each outcome is a case; a case is a *crash* (an exception an oracle does
not expect, such as ``IndexError`` or ``KeyError``), a *silent wrong
result* (no error, but the oracle's check fails) or an *unclear error*
(the expected exception type, but a message that does not say what is
wrong: numpy's own, or too short).  ``tests/test_probe.py`` runs every class
at the CI size; ``python tests/probe.py --size full`` runs the full size and
prints the report.
"""

import argparse
import copy
import io
import os
import pickle
import re
import signal
import sys
import tempfile
import threading
import time
import traceback
import warnings
from collections import Counter
from pathlib import Path

import numpy as np
import scipy.sparse as sp

sys.path.insert(0, str(Path(__file__).resolve().parent))

from test_migration import _Call, _payloads
from test_robustness import (
    ESTIMATORS,
    _assert_same,
    _classes_kw,
    _data,
    _is_matrix,
    _make,
    _output_bytes,
    _partial_fit,
)
from test_robustness_state import _float_leaves, _poisoned

import sklearn_pa

#: Cases of each class per size.
SIZES = {
    "ci": dict(
        sequences=2, length=12, faults=6, interrupts=3, threads=1, pickles=40,
        files=40,
    ),
    "full": dict(
        sequences=40, length=30, faults=60, interrupts=40, threads=6,
        pickles=600, files=400,
    ),
}  # fmt: skip

#: Messages that are numpy's or Python's own, not the package's.
_RAW = re.compile(
    r"cannot reshape|setting an array element|out of bounds|could not convert"
    r"|unsupported operand|object has no attribute|not subscriptable"
    r"|invalid literal|operands could not be broadcast|^\d+$|^'[^']*'$"
)
_PACKAGE = str(Path(sklearn_pa.__file__).resolve().parent)


def _own_words(message):
    """``message`` without what it quotes in parentheses (an error of the
    package that cites numpy's or Python's own says more than it)."""
    while True:
        shorter = re.sub(r"\([^()]*\)", "", message)
        if shorter == message:
            return message
        message = shorter


class Report:
    """Counts and a few examples per class."""

    def __init__(self):
        self.counts = {}
        self.examples = {}
        self.signatures = Counter()

    def case(self, kind, outcome="ok", detail=""):
        counts = self.counts.setdefault(kind, Counter())
        counts["cases"] += 1
        if outcome != "ok":
            counts[outcome] += 1
            signature = re.sub(r"\d+", "N", detail.split("  File")[0])[:160]
            self.signatures[kind, outcome, signature] += 1
            examples = self.examples.setdefault(kind, [])
            if len(examples) < 8:
                examples.append(f"{outcome}: {detail}"[:400])

    def error(self, kind, exc, expected=(ValueError, TypeError), where=""):
        """Judge an exception the case's oracle expects to be clear."""
        from sklearn.exceptions import NotFittedError

        if not isinstance(exc, (*expected, NotFittedError)):
            tb = "".join(traceback.format_exception(exc)[-3:])
            self.case(kind, "crashes", f"{where} {type(exc).__name__}: {exc} {tb}")
        elif len(str(exc)) < 25 or _RAW.search(_own_words(str(exc))):
            self.case(kind, "unclear", f"{where} {type(exc).__name__}: {exc}")
        else:
            self.case(kind)

    def total(self, key):
        return sum(c[key] for c in self.counts.values())

    def text(self):
        lines = [f"{'class':<12}{'cases':>8}{'crashes':>9}{'silent':>8}{'unclear':>9}"]
        for kind, c in self.counts.items():
            lines.append(
                f"{kind:<12}{c['cases']:>8}{c['crashes']:>9}"
                f"{c['silent']:>8}{c['unclear']:>9}"
            )
        lines.append(
            f"{'total':<12}{self.total('cases'):>8}{self.total('crashes'):>9}"
            f"{self.total('silent'):>8}{self.total('unclear'):>9}"
        )
        if self.signatures:
            lines.append("-- findings (class, outcome, what: count)")
        for (kind, outcome, what), n in self.signatures.most_common(30):
            lines.append(f"   {kind} {outcome} x{n}: {what}")
        for kind, examples in self.examples.items():
            lines.append(f"-- {kind}")
            lines.extend("   " + e for e in examples)
        return "\n".join(lines)


def _estimators(stream=False):
    """(name, class) of every public estimator the suite runs; with
    ``stream``, those with partial_fit on a matrix."""
    out = []
    for param in ESTIMATORS:
        if param.marks:
            continue
        name, Estimator = param.values
        est = _make(name, Estimator)
        if stream and not hasattr(est, "partial_fit"):
            continue
        out.append((name, Estimator))
    return out


def _scores(est, X):
    out = {}
    for method in ("decision_function", "predict", "score_samples"):
        if hasattr(est, method):
            out[method] = getattr(est, method)(X)
    return out


def _finite(out):
    for value in out.values():
        parts = value if isinstance(value, list) else [value]
        for part in parts:
            part = np.asarray(part)
            if part.dtype.kind in "fc" and not np.isfinite(part).all():
                return False
    return True


def _same(a, b):
    try:
        _assert_same(a, b)
        return True
    except AssertionError:
        return False


# ------------------------------------------------------------ sequences
def _batch(rng, X, y, matrix):
    """A random batch and what it is: (X, y, hostile)."""
    n = len(X) if not matrix else X.shape[0]
    size = int(rng.choice([1, 1, 2, 5, 17]))
    rows = rng.randint(0, n, size)
    if not matrix:
        return [X[i] for i in rows], [y[i] for i in rows], False
    Xb, yb = X[rows].copy(), None if y is None else y[rows]
    kind = rng.choice(["plain", "scale", "zero", "dup", "nan", "csr", "f32"])
    if kind == "scale":
        Xb = Xb * 10.0 ** rng.randint(-6, 7)
    elif kind == "zero":
        Xb[:] = 0.0
    elif kind == "dup":
        Xb = np.repeat(Xb[:1], size, axis=0)
        yb = None if yb is None else np.repeat(yb[:1], size)
    elif kind == "nan":
        Xb[rng.randint(size), rng.randint(Xb.shape[1])] = np.nan
        return Xb, yb, True
    elif kind == "csr":
        Xb = sp.csr_matrix(Xb)
    elif kind == "f32":
        Xb = Xb.astype(np.float32)
    return Xb, yb, False


def probe_sequences(report, rng, size):
    for name, Estimator in _estimators():
        for _ in range(size["sequences"]):
            est = _make(name, Estimator)
            X, y = _data(name, est, seed=int(rng.randint(1000)))
            matrix = _is_matrix(X)
            twin = copy.deepcopy(est)
            started = False
            for _ in range(size["length"]):
                op = rng.choice(["partial_fit"] * 4 + ["fit", "score", "persist"])
                if not hasattr(est, "partial_fit") and op == "partial_fit":
                    op = "fit"
                if not started and op in ("score", "persist"):
                    op = "partial_fit" if hasattr(est, "partial_fit") else "fit"
                where = f"{name} {op}"
                try:
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        if op == "partial_fit":
                            kw = {} if started else _classes_kw(est, y)
                            Xb, yb, hostile = (
                                (X, y, False)
                                if not started
                                else _batch(rng, X, y, matrix)
                            )
                            before = copy.deepcopy(est.__dict__) if hostile else None
                            try:
                                _partial_fit(est, Xb, yb, **kw)
                            except (ValueError, TypeError) as exc:
                                if not hostile:
                                    raise
                                report.error("sequences", exc, where=where)
                                if not _same(est.__dict__, before):
                                    report.case(
                                        "sequences", "silent",
                                        f"{where}: a refused batch moved the model",
                                    )  # fmt: skip
                                continue
                            if hostile:
                                report.case(
                                    "sequences", "silent",
                                    f"{where}: a batch with NaN was learned",
                                )  # fmt: skip
                                continue
                            _partial_fit(twin, Xb, yb, **kw)
                            started = True
                        elif op == "fit":
                            for model in (est, twin):
                                model.fit(X) if y is None else model.fit(X, y)
                            started = True
                        elif op == "score":
                            for attr in ("coef_", "center_", "intercept_"):
                                getattr(est, attr, None)  # publication
                        elif op == "persist":
                            how = rng.choice(["pickle", "deepcopy"])
                            est = (
                                pickle.loads(pickle.dumps(est))
                                if how == "pickle"
                                else copy.deepcopy(est)
                            )
                        out, ref = _scores(est, X), _scores(twin, X)
                except Exception as exc:  # (judged)
                    report.error("sequences", exc, where=where)
                    break
                n = len(X) if not matrix else X.shape[0]
                wrong = None
                if any(_output_bytes(out[m]) != _output_bytes(ref[m]) for m in out):
                    wrong = "scores differ from the twin that only learned"
                elif not _finite(out):
                    wrong = "non-finite scores"
                elif any(
                    (len(v) if isinstance(v, list) else np.shape(v)[0]) != n
                    for v in out.values()
                ):
                    wrong = "scores of the wrong length"
                report.case(
                    "sequences", "silent" if wrong else "ok", f"{where}: {wrong}"
                )


# --------------------------------------------------------------- faults
class _Injected(Exception):
    pass


def _package_calls(call, *args, limit=None):
    """Run ``call(*args)`` counting the Python calls made in the package's code;
    with ``limit``, raise :class:`_Injected` at call number ``limit``."""
    count = [0]

    def trace(frame, event, arg):
        if event == "call" and frame.f_code.co_filename.startswith(_PACKAGE):
            count[0] += 1
            if limit is not None and count[0] == limit:
                raise _Injected(f"injected at call {limit}")
        return None

    sys.settrace(trace)
    try:
        call(*args)
    finally:
        sys.settrace(None)
    return count[0]


def _before_or_after(report, kind, where, est, before, after):
    if _same(est.__dict__, before.__dict__) or _same(est.__dict__, after.__dict__):
        report.case(kind)
    else:
        report.case(kind, "silent", f"{where}: the model is half moved")


def probe_faults(report, rng, size):
    # (a fault injected into a generator's finalizer is printed as
    # "Exception ignored": the call goes on, and is judged as any other)
    hook, sys.unraisablehook = sys.unraisablehook, lambda unraisable: None
    try:
        _probe_faults(report, rng, size)
    finally:
        sys.unraisablehook = hook


def _probe_faults(report, rng, size):
    for name, Estimator in _estimators(stream=True):
        est = _make(name, Estimator)
        X, y = _data(name, est)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            _partial_fit(est, X, y, **_classes_kw(est, y))
            matrix = _is_matrix(X)
            for j in range(size["faults"]):
                batch = _batch(rng, X, y, matrix)
                if batch[2]:
                    continue
                Xb, yb = batch[0], batch[1]
                before = copy.deepcopy(est)
                after = copy.deepcopy(est)
                n_calls = _package_calls(_partial_fit, after, Xb, yb)
                k = int(rng.randint(1, n_calls + 1))
                where = f"{name} call {k}/{n_calls}"
                try:
                    _package_calls(_partial_fit, est, Xb, yb, limit=k)
                except _Injected:
                    pass
                except Exception as exc:
                    report.error("faults", exc, where=where)
                _before_or_after(report, "faults", where, est, before, after)
                est = after if j % 2 else est  # go on from either


# ----------------------------------------------------------- interrupts
def probe_interrupts(report, rng, size):
    if not hasattr(signal, "setitimer"):
        return
    previous = signal.signal(signal.SIGALRM, signal.default_int_handler)
    try:
        for name, Estimator in _estimators(stream=True):
            est = _make(name, Estimator)
            X, y = _data(name, est, n=400)
            if not _is_matrix(X):
                continue
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                _partial_fit(est, X[:50], None if y is None else y[:50],
                             **_classes_kw(est, y))  # fmt: skip
                hits = 0
                n = X.shape[0]
                for _ in range(size["interrupts"] * 40):
                    i = int(rng.randint(0, max(n - 100, 1)))
                    Xb, yb = X[i : i + 100], None if y is None else y[i : i + 100]
                    before = copy.deepcopy(est)
                    try:
                        signal.setitimer(signal.ITIMER_REAL, rng.uniform(1e-5, 3e-3))
                        _partial_fit(est, Xb, yb)
                        signal.setitimer(signal.ITIMER_REAL, 0)
                        continue
                    except KeyboardInterrupt:
                        signal.setitimer(signal.ITIMER_REAL, 0)
                    except Exception as exc:
                        signal.setitimer(signal.ITIMER_REAL, 0)
                        report.error("interrupts", exc, where=name)
                        continue
                    after = copy.deepcopy(before)
                    _partial_fit(after, Xb, yb)
                    _before_or_after(report, "interrupts", name, est, before, after)
                    hits += 1
                    if hits >= size["interrupts"]:
                        break
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


# -------------------------------------------------------------- threads
def _learn(est, X, y, rows, barrier, errors):
    barrier.wait()
    for i in rows:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                _partial_fit(est, X[i : i + 1], None if y is None else y[i : i + 1])
        except Exception as exc:
            errors.append(exc)


def _score(est, X, barrier, errors):
    barrier.wait()
    for _ in range(30):
        try:
            if not _finite(_scores(est, X)):
                errors.append(AssertionError("non-finite scores"))
        except Exception as exc:
            errors.append(exc)


def probe_threads(report, rng, size):
    for name, Estimator in _estimators(stream=True):
        for _ in range(size["threads"]):
            est = _make(name, Estimator)
            X, y = _data(name, est, seed=int(rng.randint(1000)))
            n = len(X) if not _is_matrix(X) else X.shape[0]
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                _partial_fit(est, X, y, **_classes_kw(est, y))
            serial = copy.deepcopy(est)
            t0, calls0 = est.t_, len(est.loss_curve_)
            errors, barrier = [], threading.Barrier(4)
            plans = [[int(i) for i in rng.randint(0, n, 30)] for _ in range(3)]

            threads = [
                threading.Thread(target=_learn, args=(est, X, y, p, barrier, errors))
                for p in plans
            ]
            threads.append(
                threading.Thread(target=_score, args=(est, X, barrier, errors))
            )
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                for rows in plans:
                    for i in rows:
                        _partial_fit(
                            serial, X[i : i + 1], None if y is None else y[i : i + 1]
                        )
            for exc in errors:
                if isinstance(exc, AssertionError):
                    report.case("threads", "silent", f"{name}: {exc}")
                else:
                    report.error("threads", exc, expected=(), where=name)
            wrong = None
            if est.t_ != serial.t_ or serial.t_ == t0:
                wrong = f"t_ {est.t_} where the serial stream has {serial.t_}"
            elif len(est.loss_curve_) != calls0 + 90:
                wrong = f"{len(est.loss_curve_) - calls0} calls recorded of 90"
            report.case("threads", "silent" if wrong else "ok", f"{name}: {wrong}")


# -------------------------------------------------------------- pickles
def _sklearn_models():
    from sklearn.linear_model import SGDClassifier, SGDRegressor

    rng = np.random.RandomState(0)
    X = rng.randn(60, 5)
    y, y3 = (X[:, 0] > 0).astype(int), np.arange(60) % 3
    sgd = dict(penalty=None, learning_rate="pa1", eta0=0.5, random_state=0)
    models = [
        SGDClassifier(**sgd).fit(X, y),
        SGDClassifier(**sgd, average=True).fit(X, y3),
        SGDClassifier(**sgd, class_weight="balanced").fit(X, y3),
        SGDRegressor(**sgd, loss="epsilon_insensitive").fit(X, X[:, 1]),
    ]
    sparse = SGDClassifier(**sgd).fit(X, y3)
    sparse.sparsify()
    models.append(sparse)
    return models, X


def probe_pickles(report, rng, size):
    from sklearn_pa.migration import load_sklearn_pickle

    with tempfile.TemporaryDirectory() as tmp:
        marker = Path(tmp) / "marker"
        # the migration tests' payloads, and a global that is not a call
        payloads = [*_payloads(marker).values(), _Call(getattr, os, "system")]
        models, X = _sklearn_models()
        n = size["pickles"]
        # hostile: a payload, bare or nested, in a genuine model or not
        for i in range(n // 3):
            payload = payloads[i % len(payloads)]
            model = copy.deepcopy(models[int(rng.randint(len(models)))])
            where = rng.choice(["bare", "list", "dict", "state", "coef_"])
            if where == "bare":
                obj = payload
            elif where == "list":
                obj = [1, [payload]]
            elif where == "dict":
                obj = {"coef_": {"x": (payload,)}}
            else:
                setattr(model, "extra" if where == "state" else "coef_", [payload])
                obj = model
            protocol = int(rng.randint(0, pickle.HIGHEST_PROTOCOL + 1))
            try:
                data = pickle.dumps(obj, protocol=protocol)
            except Exception:  # (not picklable at this protocol)
                continue
            try:
                load_sklearn_pickle(data)
                report.case("pickles", "silent", f"payload {i} {where} loaded")
            except pickle.UnpicklingError:
                report.case("pickles")
            except Exception as exc:
                report.error("pickles", exc, expected=(), where=f"payload {where}")
            if marker.exists():
                report.case("pickles", "silent", f"payload {i} {where} RAN")
                marker.unlink()
        # damaged genuine pickles
        for _ in range(n // 3):
            model = models[int(rng.randint(len(models)))]
            data = bytearray(pickle.dumps(model, protocol=int(rng.randint(0, 6))))
            how = rng.choice(["flip", "cut", "insert"])
            at = int(rng.randint(len(data)))
            if how == "flip":
                data[at] = int(rng.randint(256))
            elif how == "cut":
                data = data[:at]
            else:
                data[at:at] = bytes(rng.randint(0, 256, 4).astype(np.uint8))
            try:
                loaded = load_sklearn_pickle(bytes(data))
            except (pickle.UnpicklingError, ValueError) as exc:
                clear = (pickle.UnpicklingError, ValueError)
                report.error("pickles", exc, expected=clear, where=f"damaged {how}")
                continue
            except Exception as exc:
                report.error("pickles", exc, expected=(), where=f"damaged ({how})")
                continue
            try:
                out = _scores(loaded, X)
                ok = _finite(out)
            except Exception as exc:
                report.case(
                    "pickles", "silent", f"damaged ({how}) loads, scores: {exc}"
                )
                continue
            report.case("pickles", "ok" if ok else "silent", f"damaged ({how})")
        # the package's own pickles with a non-finite float
        estimators = _estimators(stream=True)
        for _ in range(n - 2 * (n // 3)):
            name, Estimator = estimators[int(rng.randint(len(estimators)))]
            est = _make(name, Estimator)
            Xd, yd = _data(name, est)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                _partial_fit(est, Xd, yd, **_classes_kw(est, yd))
            state = est.__getstate__()
            params = set(Estimator._get_param_names())
            leaves = [
                path
                for path in _float_leaves(
                    {k: v for k, v in state.items() if k not in params}
                )
            ]
            path = leaves[int(rng.randint(len(leaves)))]
            bad = [np.nan, np.inf, -np.inf, 1j][int(rng.randint(4))]
            est.__dict__.update(_poisoned(state, path, bad))
            try:
                data = pickle.dumps(est)
            except Exception as exc:
                report.error("pickles", exc, where=f"{name} dump {path}")
                continue
            try:
                pickle.loads(data)
                report.case("pickles", "silent", f"{name}: {bad} in {path} loaded")
            except ValueError as exc:
                if str(path[0]) in str(exc):
                    report.case("pickles")
                else:
                    report.case("pickles", "unclear", f"{name} {path}: {exc}")
            except Exception as exc:
                report.error("pickles", exc, expected=(), where=f"{name} {path}")


# ---------------------------------------------------------------- files
def _svmlight_text(rng, n=30, d=8):
    lines = []
    for _ in range(n):
        idx = np.sort(rng.choice(np.arange(1, d + 1), rng.randint(1, 4), replace=False))
        feats = " ".join(f"{j}:{rng.randn():.6g}" for j in idx)
        lines.append(f"{rng.randint(2)} {feats}")
    return "\n".join(lines) + "\n"


def _csv_text(rng, n=30):
    rows = ["a,b,label"] + [
        f"{rng.randn():.6g},{rng.randn():.6g},{rng.randint(2)}" for _ in range(n)
    ]
    return "\n".join(rows) + "\n"


_JUNK = [b":", b" ", b"\n", b"\r", b"x", b"-", b"1e999", b"nan", b"\x00", b"\xe9",
         b"99999999999999999999:1", b",", b"#", b"0:1"]  # fmt: skip


def _damage(rng, data):
    how = rng.choice(["junk", "cut", "cr", "huge", "empty", "header"])
    if how == "junk":
        at = int(rng.randint(len(data)))
        return how, data[:at] + _JUNK[int(rng.randint(len(_JUNK)))] + data[at + 1 :]
    if how == "cut":
        return how, data[: int(rng.randint(len(data)))]
    if how == "cr":
        return how, data.replace(b"\n", b"\r")
    if how == "huge":
        return how, data.replace(b" 1:", b" 123456789012345678901234567890:", 1)
    if how == "empty":
        return how, b""
    return how, data.split(b"\n", 1)[0] + b"\n"


def probe_files(report, rng, size):
    from sklearn.datasets import load_svmlight_file

    from sklearn_pa.datasets import iter_csv_file, iter_svmlight_file

    with tempfile.TemporaryDirectory() as tmp:
        for i in range(size["files"]):
            svm = i % 2 == 0
            text = (_svmlight_text if svm else _csv_text)(rng).encode()
            how, data = _damage(rng, text)
            path = Path(tmp) / f"damaged{i}.{'svm' if svm else 'csv'}"
            path.write_bytes(data)
            where = f"{path.name} ({how})"
            try:
                if svm:
                    batches = list(
                        iter_svmlight_file(path, 8, batch_size=7, zero_based=False)
                    )
                else:
                    batches = list(
                        iter_csv_file(path, target_column="label", batch_size=7)
                    )
            except ValueError as exc:
                # clear: it names the file (and the line, where there is one),
                # or the column the file lacks
                clear = (
                    path.name in str(exc) and len(str(exc)) > len(str(path)) + 20
                ) or "is not a column of the file" in str(exc)
                report.case("files", "ok" if clear else "unclear", f"{where}: {exc}")
                continue
            except Exception as exc:
                report.error("files", exc, expected=(), where=where)
                continue
            Xs = [b[0] for b in batches]
            wrong = None
            if svm:
                try:
                    X_ref, y_ref = load_svmlight_file(
                        io.BytesIO(data), n_features=8, zero_based=False
                    )
                except Exception:  # (scikit-learn refuses it)
                    X_ref = None
                if X_ref is not None and Xs:
                    X_got = sp.vstack(Xs).tocsr()
                    y_got = np.concatenate([b[1] for b in batches])
                    if (
                        X_got.shape != X_ref.shape
                        or (X_got != X_ref).nnz
                        or not (np.array_equal(y_got, y_ref))
                    ):
                        wrong = "differs from load_svmlight_file"
            else:
                for X in Xs:
                    X = X.toarray() if sp.issparse(X) else np.asarray(X)
                    if X.ndim != 2 or X.shape[1] != 2:
                        wrong = f"a batch of shape {X.shape}"
            report.case("files", "silent" if wrong else "ok", f"{where}: {wrong}")


PROBES = {
    "sequences": probe_sequences,
    "faults": probe_faults,
    "interrupts": probe_interrupts,
    "threads": probe_threads,
    "pickles": probe_pickles,
    "files": probe_files,
}


def run(size="ci", classes=None, seed=0):
    """Run the probe's classes (all by default) at ``size``; returns the
    :class:`Report`."""
    report = Report()
    for kind in classes or PROBES:
        PROBES[kind](report, np.random.RandomState(seed), SIZES[size])
    return report


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", choices=sorted(SIZES), default="ci")
    parser.add_argument("--classes", nargs="*", choices=sorted(PROBES))
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    tic = time.perf_counter()
    report = run(args.size, args.classes, args.seed)
    print(report.text())
    print(f"{time.perf_counter() - tic:.0f} s")
    bad = sum(report.total(k) for k in ("crashes", "silent", "unclear"))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
