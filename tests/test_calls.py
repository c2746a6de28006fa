"""The compiled per-call entry (``sklearn_pa/_core/_calls.pyx``) against
NumPy and scipy: the cheap checks accept exactly what the full checks
accept in the kernels' form, and the small compiled helpers compute what
their NumPy expressions compute, bit for bit; the calibration margins a
second-order pass records are the margins of the model before each row;
every publication formed when read goes through one protocol."""

import ast
import pathlib
import re
import sys
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from numpy.testing import assert_allclose, assert_array_equal
from sklearn._config import _get_threadlocal_config

from sklearn_pa import AROWClassifier, SCWClassifier
from sklearn_pa._core import _calls
from sklearn_pa._core.batch import atomic_update, call_values
from sklearn_pa._core.publication import PublishedWhenReadMixin
from sklearn_pa.utils.discovery import all_estimators

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from probe import _estimators
from test_robustness import _classes_kw, _data, _make, _partial_fit

ROOT = pathlib.Path(__file__).resolve().parents[1] / "sklearn_pa"

_values = st.one_of(
    st.floats(-1e3, 1e3, allow_nan=False),
    st.sampled_from([np.nan, np.inf, -np.inf, 0.0, -0.0]),
)


@st.composite
def _csr_parts(draw):
    """CSR arrays, canonical or not: random indices (duplicates, unsorted,
    out of range), values (NaN, infinities), a broken ``indptr`` now and
    then."""
    n_rows = draw(st.integers(1, 4))
    n_features = draw(st.integers(1, 6))
    lengths = draw(st.lists(st.integers(0, 4), min_size=n_rows, max_size=n_rows))
    indptr = np.concatenate([[0], np.cumsum(lengths)])
    nnz = int(indptr[-1])
    indices = np.array(
        draw(st.lists(st.integers(-1, n_features), min_size=nnz, max_size=nnz)),
        dtype=np.int64,
    )
    data = np.array(draw(st.lists(_values, min_size=nnz, max_size=nnz)))
    if nnz and draw(st.booleans()):
        # a row of sorted, unique, in-range indices: the common case
        indices = np.concatenate(
            [
                np.sort(np.random.RandomState(r).permutation(n_features)[:n])
                for r, n in enumerate(lengths)
            ]
        ).astype(np.int64)
        lengths = [min(n, n_features) for n in lengths]
        indptr = np.concatenate([[0], np.cumsum(lengths)])
        nnz = int(indptr[-1])
        indices, data = indices[:nnz], data[:nnz]
    if draw(st.integers(0, 9)) == 0 and n_rows > 1:
        indptr[1], indptr[2] = indptr[2], indptr[1]  # decreasing
    return data, indices, indptr, n_features


def _canonical_reference(data, indices, indptr, n_features):
    """What the kernels read as it is, in plain Python."""
    if indptr[0] != 0 or indptr[-1] != data.shape[0]:
        return False
    if np.any(np.diff(indptr) < 0):
        return False
    for i in range(indptr.shape[0] - 1):
        row = indices[indptr[i] : indptr[i + 1]]
        if row.size and (
            np.any(np.diff(row) <= 0) or row.min() < 0 or row.max() >= n_features
        ):
            return False
    return bool(np.all(np.isfinite(data)))


@settings(max_examples=300, deadline=None)
@given(_csr_parts(), st.sampled_from(["int32", "int64"]), st.booleans())
def test_csr_check_is_the_reference(parts, index_dtype, float32):
    data, indices, indptr, n_features = parts
    indices, indptr = indices.astype(index_dtype), indptr.astype(index_dtype)
    if float32:
        with np.errstate(over="ignore"):
            data = data.astype(np.float32)
    expected = _canonical_reference(data, indices, indptr, n_features)
    assert _calls.csr_is_canonical(data, indices, indptr, n_features) == expected


def test_csr_check_refuses_other_dtypes():
    data, indptr = np.ones(1), np.array([0, 1], dtype=np.int32)
    with pytest.raises(TypeError):
        _calls.csr_is_canonical(data, np.array([0], dtype=np.int64), indptr, 2)
    with pytest.raises(TypeError):
        _calls.csr_is_canonical(data.astype(np.float16), indptr[:1], indptr, 2)


def test_an_equal_dtype_that_is_another_object_is_the_kernels_dtype():
    """numpy 1.x makes dtypes equal to float64 (or int64) that are other
    objects than numpy's own (the values of a scipy 1.9 CSR matrix built
    from a dense array); a dtype with metadata is one with numpy 2 too.  The
    cheap branch takes such a batch, the row view lends its arrays, and its
    labels are encoded as those of the plain dtype."""
    float64 = np.dtype(np.float64, metadata={"origin": "another object"})
    int64 = np.dtype(np.int64, metadata={"origin": "another object"})
    data = np.array([1.5, 2.0, -1.0]).view(float64)
    X = sp.csr_matrix(
        (data, np.array([1, 0, 2], np.int32), np.array([0, 1, 3], np.int32)),
        shape=(2, 3),
    )
    assert X.data.dtype == np.float64 and X.data.dtype is not np.dtype(np.float64)
    assert _calls.lean_rows(X, 3) is X
    view = _calls.RowView(X)
    assert view.data is X.data and view.indices is X.indices
    dense = np.array([[0.0, 1.5, 0.0], [2.0, 0.0, -1.0]]).view(float64)
    assert _calls.lean_rows(dense, 3) is dense
    classes = np.arange(3).view(int64)
    y = np.array([2, 0]).view(int64)
    labels, _ = _calls.encode_labels(classes, y)
    assert_array_equal(labels, _calls.encode_labels(np.arange(3), np.array([2, 0]))[0])


@settings(max_examples=200, deadline=None)
@given(_csr_parts())
def test_lean_rows_takes_canonical_finite_rows_only(parts):
    data, indices, indptr, n_features = parts
    if np.any(np.diff(indptr) < 0) or np.any(indices < 0):
        return  # (scipy refuses to build such a matrix)
    X = sp.csr_matrix((data, indices, indptr), shape=(len(indptr) - 1, n_features))
    expected = _canonical_reference(data, indices, indptr, n_features)
    got = _calls.lean_rows(X, n_features)
    assert (got is X) == expected
    assert _calls.lean_rows(X, n_features + 1) is None


@given(hnp.arrays(np.float64, hnp.array_shapes(max_dims=1), elements=_values))
def test_nonnegative_is_maximum_with_zero_to_the_bit(a):
    got = _calls.nonnegative(a)
    assert got.tobytes() == np.maximum(a, 0.0).tobytes()
    assert got is not a


@settings(deadline=None)
@given(
    hnp.arrays(np.float64, hnp.array_shapes(min_dims=2, max_dims=2), elements=_values),
    st.data(),
)
def test_rows_finite_reads_the_rows_given(a, data):
    rows = np.array(
        data.draw(st.lists(st.integers(0, a.shape[0] - 1), max_size=5)),
        dtype=np.int64,
    )
    assert _calls.rows_finite(a, rows) == bool(np.all(np.isfinite(a[rows])))
    assert _calls.rows_finite(a) == bool(np.all(np.isfinite(a)))
    with pytest.raises(IndexError):
        _calls.rows_finite(a, np.array([a.shape[0]]))


@settings(deadline=None)
@given(
    st.integers(1, 6),
    st.integers(1, 4),
    st.sampled_from(["same", "one"]),
    st.data(),
)
def test_pass_margins_keeps_the_rows_not_skipped(n, K, blocks, data):
    G = K if blocks == "same" else 1
    scores = data.draw(hnp.arrays(np.float64, (n, K), elements=_values))
    var = data.draw(hnp.arrays(np.float64, (n, G), elements=_values))
    labels = np.arange(n, dtype=np.int32)
    got_scores, got_var, got_idx = _calls.pass_margins(scores, var, labels)
    kept = ~np.isnan(scores[:, 0]) & ~np.isnan(var[:, 0])
    assert_array_equal(got_scores, scores[kept, 0] if K == 1 else scores[kept])
    assert_array_equal(got_var, var[kept])
    assert_array_equal(got_idx, labels[kept])
    assert got_idx.dtype == np.intp


@settings(deadline=None)
@given(st.integers(1, 6), st.integers(1, 4), st.data())
def test_pass_margins_reads_the_labels_of_the_rows_in_pass_order(n, K, data):
    """With the pass's ``order``, row ``i`` of the recorded margins has the
    label of row ``order[i]`` of the batch; the arrays returned are new
    (whether or not a row was skipped)."""
    scores = data.draw(hnp.arrays(np.float64, (n, K), elements=_values))
    var = data.draw(hnp.arrays(np.float64, (n, 1), elements=_values))
    labels = np.arange(10, 10 + n, dtype=np.int32)
    order = np.array(data.draw(st.permutations(range(n))), dtype=np.int64)
    got_scores, got_var, got_idx = _calls.pass_margins(scores, var, labels, order)
    kept = ~np.isnan(scores[:, 0]) & ~np.isnan(var[:, 0])
    assert_array_equal(got_idx, labels[order][kept])
    assert_array_equal(got_scores, scores[kept, 0] if K == 1 else scores[kept])
    assert_array_equal(got_var, var[kept])
    assert not np.shares_memory(got_scores, scores)
    assert not np.shares_memory(got_var, var)


@settings(deadline=None)
@given(st.integers(0, 6), st.integers(1, 5), st.integers(1, 5), st.data())
def test_row_variances_are_the_blocks_mean_or_the_first_block(n, G, K, data):
    """One variance per row: the mean over the blocks where each of the
    ``K`` score columns has its own (``G == K > 1``), else the first
    block's, negative ones set to 0 and NaN kept, as numpy computes them."""
    var = data.draw(hnp.arrays(np.float64, (n, G), elements=_values))
    with np.errstate(all="ignore"):
        want = var.mean(axis=1) if (K > 1 and G == K) else var[:, 0].copy()
        want = np.where(want > 0, want, np.where(np.isnan(want), want, 0.0))
    got = _calls.row_variances(var, K)
    assert got.dtype == np.float64 and got.shape == (n,)
    assert_allclose(got, want, rtol=1e-12, atol=0)
    # a strided view reads the same values
    assert_array_equal(_calls.row_variances(np.asfortranarray(var), K), got)


def test_journal_carries_the_values_of_its_call_only():
    """What one step of a call hands to a later step lives in the call: an
    atomic block's values are gone when it ends (failed or not), and
    outside a block nothing is kept."""
    est = AROWClassifier()
    call_values()["x"] = 1
    assert "x" not in call_values()
    with atomic_update(est):
        call_values()["x"] = 1
        with atomic_update(est):
            assert "x" not in call_values()  # (a nested call has its own)
        assert call_values()["x"] == 1
    with pytest.raises(KeyError):
        with atomic_update(est):
            call_values()["y"] = 2
            raise KeyError
    assert not any(name in vars(est) for name in ("x", "y"))


@pytest.mark.parametrize("cls", [AROWClassifier, SCWClassifier])
@pytest.mark.parametrize("n_classes", [2, 3])
def test_one_row_calls_record_the_margins_of_the_model_before_them(cls, n_classes):
    """A one-row call records, to calibrate ``predict_proba``, the margins
    the model gave the row before learning it: those ``_margins`` gives."""
    rng = np.random.RandomState(0)
    X = sp.random(60, 30, density=0.3, format="csr", random_state=rng)
    y = rng.randint(n_classes, size=60)
    est = cls(random_state=0).partial_fit(X[:20], y[:20], classes=np.arange(n_classes))
    for i in range(20, 30):
        scores, var = est._margins(X[i : i + 1])
        est.partial_fit(X[i : i + 1], y[i : i + 1])
        recorded = est._calibration
        assert_allclose(recorded[0][-1], scores[0], rtol=1e-12, atol=1e-14)
        assert_allclose(recorded[1][-1], var[0], rtol=1e-12, atol=1e-14)
        assert recorded[2][-1] == y[i]


def test_a_batch_records_each_rows_margins_before_its_own_update():
    """The margins of a batch are its rows' scores before each row's
    update (progressive validation's scores), not a second scoring of the
    batch before the pass."""
    rng = np.random.RandomState(1)
    X = sp.random(80, 40, density=0.3, format="csr", random_state=rng)
    y = rng.randint(3, size=80)
    a = AROWClassifier(shuffle=False).partial_fit(X[:20], y[:20], classes=[0, 1, 2])
    b = AROWClassifier(shuffle=False).partial_fit(X[:20], y[:20], classes=[0, 1, 2])
    # (the first call records nothing: no model scored its rows)
    assert getattr(a, "_calibration", None) is None
    progressive = b.__sklearn_pa_prequential__(X[20:80], y[20:80])
    a.partial_fit(X[20:80], y[20:80])
    assert_allclose(a._calibration[0], progressive, rtol=1e-12, atol=1e-14)
    assert_array_equal(a._calibration[2], y[20:80])
    # a row of the batch is not scored by the model before the batch
    before = AROWClassifier(shuffle=False).partial_fit(
        X[:20], y[:20], classes=[0, 1, 2]
    )
    assert not np.allclose(a._calibration[0][-1], before._margins(X[79:80])[0][0])


def test_publications_formed_when_read_have_one_protocol():
    """No estimator module defines its own ``__getattr__``: a publication
    left pending is stated in ``_publishes_when_read`` and formed by
    :class:`PublishedWhenReadMixin`; every public estimator whose state a
    call may leave pending has it."""
    own = []
    for path in ROOT.rglob("*.py"):
        if "model_selection" in path.parts or "benchmark" in path.parts:
            continue  # (wrappers of other objects, not estimators' state)
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.FunctionDef) and node.name == "__getattr__":
                own.append(path.relative_to(ROOT).as_posix())
    assert own == ["_core/publication.py"]
    for name, cls in all_estimators():
        stated = [
            p for k in cls.__mro__ for p in vars(k).get("_publishes_when_read", ())
        ]
        if stated:
            assert issubclass(cls, PublishedWhenReadMixin), name
            for _marker, names, form in stated:
                assert callable(getattr(cls, form)), (name, form)
                assert all(n.endswith("_") for n in names), (name, names)


def _injected_at_each_call(call, n_points=12):
    """Run ``call()`` once per injection point, a fault (an exception)
    raised at the k-th Python call into the package's code, for ``n_points``
    values of k spread over the call; yields each k."""
    package = str(ROOT)
    count = [0]

    def counting(frame, event, arg):
        if event == "call" and frame.f_code.co_filename.startswith(package):
            count[0] += 1

    sys.settrace(counting)
    try:
        call()
    finally:
        sys.settrace(None)
    n_calls = count[0]
    for k in sorted(set(np.linspace(1, n_calls, n_points).astype(int))):
        seen = [0]

        def inject(frame, event, arg, k=k, seen=seen):
            if event == "call" and frame.f_code.co_filename.startswith(package):
                seen[0] += 1
                if seen[0] == k:
                    raise _Injected(k)

        sys.settrace(inject)
        try:
            call()
        except Exception:
            pass
        finally:
            sys.settrace(None)
        yield k


class _Injected(Exception):
    pass


@pytest.mark.parametrize("name, Estimator", _estimators(stream=True))
def test_a_fault_anywhere_in_a_call_leaves_scikit_learns_configuration(name, Estimator):
    """A call that enters scikit-learn's configuration (the parameters
    validated once, inputs already checked assumed finite) puts it back
    whatever fails in it: a fault at any of its Python calls leaves the
    thread's configuration as it was (a later call then still refuses NaN)."""
    est = _make(name, Estimator)
    X, y = _data(name, est)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _partial_fit(est, X, y, **_classes_kw(est, y))
        before = dict(_get_threadlocal_config())
        yb = None if y is None else y[:5]
        for k in _injected_at_each_call(
            lambda: _partial_fit(est, X[:5], yb) and _scores(est, X[:3])
        ):
            assert dict(_get_threadlocal_config()) == before, (name, k)


def _scores(est, X):
    for method in ("decision_function", "predict", "score_samples"):
        if hasattr(est, method):
            getattr(est, method)(X)
    return True


# ----------------------------------------------------------------------------
# The journal's copy of the rows a batch reads, the labels' encoding, the
# row view: against NumPy


@st.composite
def _weights_and_rows(draw):
    """A weight matrix (C-contiguous or a strided view, float64 or float32,
    NaN and infinities now and then) and int32 or int64 row indices."""
    n_rows = draw(st.integers(1, 6))
    n_cols = draw(st.integers(0, 4))
    W = np.array(
        draw(st.lists(_values, min_size=n_rows * n_cols, max_size=n_rows * n_cols)),
        dtype=np.float64,
    ).reshape(n_rows, n_cols)
    layout = draw(st.sampled_from(["c", "fortran", "strided", "float32"]))
    if layout == "fortran":
        W = np.asfortranarray(W)
    elif layout == "strided":
        W = np.repeat(W, 2, axis=1)[:, ::2]
    elif layout == "float32":
        W = W.astype(np.float32)
    rows = np.array(
        draw(st.lists(st.integers(0, n_rows - 1), min_size=0, max_size=8)),
        dtype=draw(st.sampled_from([np.int32, np.int64])),
    )
    return W, rows


@settings(max_examples=300, deadline=None)
@given(_weights_and_rows())
def test_the_journals_row_copy_is_take(parts):
    """The journal keeps ``W.take(rows, axis=0)`` bit for bit, in an array
    of its own, whatever the layout and dtypes; a batch whose rows read a
    NaN or an infinity is refused with the full check's message."""
    W, rows = parts
    journal = _calls.Journal()
    saved = journal.save(W, rows)
    if W.size == 0:
        assert saved is None
    else:
        want = W.take(rows, axis=0)
        assert saved.dtype == want.dtype and saved.shape == want.shape
        assert_array_equal(saved, want)
        assert saved.base is None
    if W.dtype != np.float64:
        return
    b = np.zeros(max(W.shape[1], 1))
    empty = np.zeros((0, W.shape[1])), np.zeros(0)
    finite = bool(np.isfinite(W[rows]).all())
    journal = _calls.Journal()
    est = AROWClassifier()
    if finite:
        journal.save_weights(est, rows, W, b, *empty)
    else:
        with pytest.raises(ValueError, match="coef_ of AROWClassifier contains NaN"):
            journal.save_weights(est, rows, W, b, *empty)
    # every entry saved is written back on a restore
    before = W.copy()
    if W.size:
        W[...] = 7.0
        journal.restore()
        rows_saved = np.unique(rows)
        assert_array_equal(W[rows_saved], before[rows_saved])


@settings(max_examples=300, deadline=None)
@given(
    st.integers(1, 6),
    st.booleans(),
    st.sampled_from([np.int32, np.int64, np.uint8, np.float64]),
    st.data(),
)
def test_encode_labels_is_searchsorted(n_classes, from_zero, dtype, data):
    """The kernel's labels are the index of each label in the sorted
    classes (classes ``0 .. n - 1`` being their own indices), as int32."""
    start = 0 if from_zero else data.draw(st.integers(1, 5))
    classes = np.arange(start, start + 2 * n_classes, 2 if not from_zero else 1)
    classes = classes[:n_classes].astype(dtype)
    y = data.draw(st.lists(st.sampled_from(classes.tolist()), max_size=6))
    y = np.asarray(y, dtype=dtype)
    labels, targets = _calls.encode_labels(classes, y)
    assert labels.dtype == np.int32 and labels.flags.c_contiguous
    assert_array_equal(labels, np.searchsorted(classes, y))
    assert targets.shape == (1,)


@pytest.mark.parametrize(
    "X",
    [
        sp.csr_matrix(np.array([[0.0, 1.5, 0.0], [2.0, 0.0, -1.0]])),
        sp.csr_array(np.array([[0.0, 1.5, 0.0], [2.0, 0.0, -1.0]], np.float32)),
        np.array([[0.0, 1.5, 0.0], [2.0, 0.0, -1.0]]),
        np.asfortranarray(np.array([[0.0, 1.5], [2.0, 0.0]], np.float32)),
        sp.csr_matrix((0, 4)),
        sp.csc_matrix(np.eye(3)),
    ],
)
def test_the_row_view_reads_every_row_as_given(X):
    """The row view holds every row's values at its indices (a CSR batch in
    the kernels' form lends its own arrays), float32 kept as float32."""
    view = _calls.RowView(X)
    dense = X.toarray() if sp.issparse(X) else np.asarray(X)
    assert view.n_features == X.shape[1] and view.checked_csr is False
    want_dtype = np.float32 if X.dtype == np.float32 else np.float64
    assert view.data.dtype == want_dtype
    assert view.indices.dtype == view.indptr.dtype or view.dense
    got = np.zeros(X.shape, dtype=want_dtype)
    for i in range(X.shape[0]):
        if view.dense:
            got[i] = view.data[i * X.shape[1] : (i + 1) * X.shape[1]]
        else:
            a, b = view.indptr[i], view.indptr[i + 1]
            got[i, view.indices[a:b]] = view.data[a:b]
    assert_array_equal(got, dense)
    if type(X) in (sp.csr_matrix, sp.csr_array) and X.nnz:
        assert view.data is X.data and view.indices is X.indices


@pytest.mark.parametrize("name, Estimator", _estimators(stream=True))
def test_later_calls_never_ask_for_an_attribute_they_lack(name, Estimator):
    """A later ``partial_fit`` and the scores read only attributes the
    estimator has, or a publication it left pending: a lookup that misses
    asks the publications (a Python frame, the estimator's lock) on every
    call."""
    est = _make(name, Estimator)
    X, y = _data(name, est)
    publications = getattr(type(est), "_pending_publications", ())
    declared = {n for _, names, _ in publications for n in names}
    asked = []
    original = PublishedWhenReadMixin.__getattr__

    def spy(self, attribute):
        asked.append(attribute)
        return original(self, attribute)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _partial_fit(est, X, y, **_classes_kw(est, y))
        _partial_fit(est, X[:3], None if y is None else y[:3])
        methods = [
            getattr(est, m)
            for m in ("decision_function", "predict", "score_samples")
            if hasattr(est, m)
        ]
        PublishedWhenReadMixin.__getattr__ = spy
        try:
            for i in range(3, 6):
                rows = slice(i, i + 1)
                _partial_fit(est, X[rows], None if y is None else y[rows])
                for method in methods:
                    method(X[rows])
        finally:
            PublishedWhenReadMixin.__getattr__ = original
    assert set(asked) <= declared, (name, sorted(set(asked) - declared))


# ------------------------------------------ indices past a compiled module's
# wraparound: a negative position handed to an array's item slot as it is
# failed on numpy 2.5 (IndexError), while older numpy wrapped it


@settings(deadline=None, max_examples=50)
@given(st.integers(0, 300), st.integers(0, 10**6))
def test_with_index_appends_the_index(n, extra):
    features = np.arange(n, dtype=np.int64) * 3
    got = _calls.with_index(features, extra)
    assert got.dtype == np.int64
    assert_array_equal(got, np.append(features, extra))


def test_a_sparse_second_order_batch_journaled_by_its_rows_learns_the_same(
    monkeypatch,
):
    # a batch whose write log would be too large saves the rows its
    # features index instead (with_index adds the intercept's row)
    import sklearn_pa.second_order._epochs as epochs_module

    rng = np.random.RandomState(0)
    X = sp.random(60, 40, density=0.2, format="csr", random_state=rng)
    y = rng.randint(3, size=60)
    logged = AROWClassifier(random_state=0).partial_fit(
        X[:10], y[:10], classes=[0, 1, 2]
    )
    rows = AROWClassifier(random_state=0).partial_fit(X[:10], y[:10], classes=[0, 1, 2])
    logged.partial_fit(X[10:], y[10:])
    monkeypatch.setattr(epochs_module, "LOGGED_ENTRIES_MAX", 0)
    rows.partial_fit(X[10:], y[10:])
    assert_array_equal(rows.coef_, logged.coef_)
    assert_array_equal(rows.intercept_, logged.intercept_)


def test_no_compiled_module_without_wraparound_indexes_from_the_end():
    """A module compiled with ``wraparound=False`` hands a negative index
    to the indexed object as it is: a typed memoryview reads before its
    start, an array's item slot refuses it on numpy 2.5.  Its sources
    write positions from the start (slices, which wrap in any case, are
    left alone)."""
    package = pathlib.Path(__file__).resolve().parents[1] / "sklearn_pa"
    found = []
    for build in package.rglob("meson.build"):
        if "wraparound=False" not in build.read_text():
            continue
        for source in sorted(build.parent.glob("*.pyx")):
            for number, line in enumerate(source.read_text().splitlines(), 1):
                code = line.split("#", 1)[0]
                for inside in re.findall(r"\w\[([^\[\]]*)\]", code):
                    if any(
                        re.fullmatch(r"\s*-\s*\w+\s*", part)
                        for part in inside.split(",")
                    ):
                        found.append(f"{source.name}:{number}: {line.strip()}")
    assert not found, found
