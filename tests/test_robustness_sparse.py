"""Malformed sparse input: every path that reads a sparse ``X`` checks its
structure first (:func:`sklearn_pa._core.batch.check_csr_structure`).

A CSR matrix built with ``check=False``, or whose arrays were assigned, is
trusted by scipy's products and conversions and by the compiled kernels: an
index out of range or an ``indptr`` past the end of ``data`` used to read or
write outside the arrays (a segmentation fault, a heap abort, or scores read
from other memory).  Those cases run in a subprocess, so that a regression
fails the test instead of killing the test run.
"""

import numpy as np
import pytest
import scipy.sparse as sp
from test_robustness import ESTIMATORS, _classes_kw, _data, _make, _partial_fit
from test_robustness_state import _run_isolated

from sklearn_pa import (
    ExponentiatedGradientRegressor,
    KernelPassiveAggressiveClassifier,
    KernelPassiveAggressiveRegressor,
    PassiveAggressiveClassifier,
)
from sklearn_pa._core.batch import check_csr_structure


def _raw_csr(data, indices, indptr, shape):
    """A CSR matrix holding these arrays as they are (no check)."""
    X = sp.csr_matrix(shape)
    X.data, X.indices, X.indptr = data, indices, indptr
    return X


def _malformed(X):
    """(what is wrong, a CSR matrix with the arrays of X so broken)."""
    X = sp.csr_matrix(X)
    d, i, p = X.data, X.indices, X.indptr
    n_features = X.shape[1]

    def index(value):
        bad = i.copy()
        bad[len(bad) // 2] = value
        return _raw_csr(d, bad, p, X.shape)

    def pointer(edit):
        bad = p.copy()
        edit(bad)
        return _raw_csr(d, i, bad, X.shape)

    def swap(a):
        a[2], a[3] = a[3], a[2]

    return [
        ("index = n_features", index(n_features)),
        ("negative index", index(-1)),
        ("index 1e8", index(10**8)),
        ("indptr[-1] past data", pointer(lambda a: a.__setitem__(-1, a[-1] + 50))),
        ("indptr decreasing", pointer(swap)),
        ("indptr[0] = 2", pointer(lambda a: a.__setitem__(0, 2))),
    ]


# --------------------------------------------------------- the one check
def test_valid_matrices_pass_unchanged():
    rng = np.random.default_rng(0)
    X = sp.random(30, 7, density=0.3, format="csr", random_state=rng)
    for M in (
        X,
        sp.csr_array(X),
        X.tocsc(),
        X.tocoo(),
        sp.csr_matrix((0, 7)),
        sp.csr_matrix((5, 7)),
        X.toarray(),
    ):
        assert check_csr_structure(M) is M
    wide = X.copy()
    wide.indices = wide.indices.astype(np.int64)
    wide.indptr = wide.indptr.astype(np.int64)
    assert check_csr_structure(wide) is wide
    # a narrower bound: the columns an estimator was fitted on
    with pytest.raises(ValueError, match=r"index \(3\) lies outside \[0, 3\)"):
        check_csr_structure(sp.csr_matrix(np.eye(5)), 3)


@pytest.mark.parametrize("what, X", _malformed(np.arange(1.0, 41.0).reshape(8, 5)))
def test_each_fault_is_named(what, X):
    expected = {
        "index = n_features": r"column index \(5\) lies outside \[0, 5\)",
        "negative index": r"column index \(-1\) lies outside",
        "index 1e8": r"column index \(100000000\)",
        "indptr[-1] past data": r"indptr runs from 0 to 90, but it must run",
        "indptr decreasing": r"indptr decreases at row 2",
        "indptr[0] = 2": r"indptr runs from 2 to 40",
    }[what]
    pattern = "X is not a valid CSR matrix: (a )?" + expected
    with pytest.raises(ValueError, match=pattern):
        check_csr_structure(X)


def test_csc_and_coo_are_checked_on_their_own_axes():
    X = sp.random(6, 4, density=0.5, format="csc", random_state=0)
    bad = X.copy()
    bad.indices = bad.indices.copy()
    bad.indices[0] = 6  # a row index of a CSC matrix
    with pytest.raises(ValueError, match=r"CSC matrix: a row index \(6\)"):
        check_csr_structure(bad)
    coo = X.tocoo()
    coo.col = coo.col.copy()
    coo.col[0] = -3
    with pytest.raises(ValueError, match=r"COO matrix: a column index lies outside"):
        check_csr_structure(coo)


# ---------------------------------------------------------- every estimator
_ESTIMATOR_BODY = """
import copy, sys, warnings
import numpy as np
import scipy.sparse as sp
sys.path.insert(0, ".")
from sklearn_pa.utils import all_estimators
from test_robustness import _assert_same, _classes_kw, _data, _fit, _make
from test_robustness_sparse import _malformed

name = {name!r}
Estimator = dict(all_estimators(type_filter="all"))[name]
est = _make(name, Estimator)
X, y = _data(name, est)
sequences = isinstance(X, list)
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    _fit(est, X, y)
methods = ["fit", "partial_fit", "predict", "decision_function", "predict_proba",
           "predict_log_proba", "score_samples", "score"]
checked = 0
for what, bad in _malformed(X[0] if sequences else X):
    bad_X = [bad] + list(X[1:]) if sequences else bad
    for method in methods:
        if not hasattr(est, method):
            continue
        print(what, method, flush=True)
        model = copy.deepcopy(est)
        before = copy.deepcopy(model)
        args = (bad_X,)
        if method in ("fit", "partial_fit", "score") and y is not None:
            args = (bad_X, y)
        kwargs = _classes_kw(model, y) if method == "partial_fit" else {{}}
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                getattr(model, method)(*args, **kwargs)
        except ValueError as exc:
            assert "is not a valid CSR matrix" in str(exc), (what, method, exc)
        else:
            raise AssertionError(f"{{method}} accepted X with {{what}}")
        if method != "fit":
            _assert_same(model, before)
        checked += 1
print("checked", checked)
"""


@pytest.mark.parametrize("name, Estimator", ESTIMATORS)
def test_malformed_csr_is_refused_on_every_path(name, Estimator):
    """fit, partial_fit and every prediction method refuse a CSR matrix (a
    sequence of a tagger) with an index out of range, a negative one, an
    ``indptr`` past the end of ``data``, decreasing or not starting at 0,
    with a ValueError, and a refused call leaves the model as it was (items
    1-3 and 13 of the third hostile-input round: segmentation faults, a
    heap abort and scores read from other memory before)."""
    out = _run_isolated(_ESTIMATOR_BODY.format(name=name))
    assert "checked" in out


def test_kernel_pa_partial_fit_refuses_what_fit_refuses():
    """indptr[0] = 2 was refused by fit and accepted by partial_fit."""
    X = np.arange(1.0, 41.0).reshape(8, 5)
    bad = dict(_malformed(X))["indptr[0] = 2"]
    for method in ("fit", "partial_fit"):
        est = KernelPassiveAggressiveClassifier()
        kw = {"classes": [0, 1]} if method == "partial_fit" else {}
        with pytest.raises(ValueError, match="indptr runs from 2"):
            getattr(est, method)(bad, [0, 1] * 4, **kw)


@pytest.mark.parametrize(
    "Estimator", [KernelPassiveAggressiveClassifier, KernelPassiveAggressiveRegressor]
)
def test_assigned_malformed_support_vectors_are_refused(Estimator):
    rng = np.random.default_rng(0)
    X = sp.random(30, 5, density=0.6, format="csr", random_state=rng)
    y = rng.integers(0, 2, 30)
    est = Estimator(max_iter=2).fit(X, y)
    sv = est.support_vectors_.copy()
    sv.indices = sv.indices.copy()
    sv.indices[0] = 5
    est.support_vectors_ = sv
    with pytest.raises(ValueError, match="support_vectors_ is not a valid sparse"):
        est.partial_fit(X, y)


# ------------------------------------------------------ duplicate entries
def _duplicates_summing_to_inf(X):
    """X as CSR, with its first entry given twice as 1e308 (the two sum to
    infinity)."""
    X = sp.csr_matrix(X)
    data = np.r_[1e308, 1e308, X.data[1:]]
    indices = np.r_[X.indices[0], X.indices].astype(np.int32)
    indptr = X.indptr.copy()
    indptr[1:] += 1
    return sp.csr_matrix((data, indices, indptr), shape=X.shape)


@pytest.mark.parametrize("name, Estimator", ESTIMATORS)
def test_duplicates_summing_to_inf_are_refused_by_fit_and_partial_fit(name, Estimator):
    """Entries finite alone but summing to inf: a clear error on fit as on
    partial_fit (fit said "intercept's constant feature would be nan",
    kernel PA "gamma='scale' overflow", and EG accepted it)."""
    est = _make(name, Estimator)
    X, y = _data(name, est)
    if isinstance(X, list):
        bad_X = [_duplicates_summing_to_inf(X[0])] + list(X[1:])
    else:
        bad_X = _duplicates_summing_to_inf(X)
    for method in ("fit", "partial_fit"):
        model = _make(name, Estimator)
        kwargs = _classes_kw(model, y) if method == "partial_fit" else {}
        with pytest.raises(ValueError, match="duplicate entries .* sum is infinity"):
            if method == "fit":
                model.fit(bad_X) if y is None else model.fit(bad_X, y)
            else:
                _partial_fit(model, bad_X, y, **kwargs)


def test_non_monotone_indptr_gets_a_clear_error_not_a_runtime_error():
    X = np.arange(1.0, 41.0).reshape(8, 5)
    bad = dict(_malformed(X))["indptr decreasing"]
    for Est in (PassiveAggressiveClassifier, ExponentiatedGradientRegressor):
        y = [0, 1] * 4 if Est is PassiveAggressiveClassifier else np.arange(8.0)
        with pytest.raises(ValueError, match="indptr decreases at row 2"):
            Est().fit(bad, y)
