"""The chunked file readers: svmlight / LIBSVM and CSV in batches, against
scikit-learn's ``load_svmlight_file`` and pandas' ``read_csv``."""

import bz2
import gzip
import io
import lzma

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import dump_svmlight_file, load_svmlight_file
from sklearn.feature_extraction import FeatureHasher
from sklearn.feature_extraction.text import HashingVectorizer

from sklearn_pa import PassiveAggressiveClassifier
from sklearn_pa.datasets import _files, iter_csv_file, iter_svmlight_file


def _svmlight_data(n=57, n_features=30, seed=0):
    rng = np.random.default_rng(seed)
    X = sp.random(n, n_features, density=0.2, format="csr", random_state=seed)
    X.data = np.round(X.data * 10 - 5, 3)
    y = rng.integers(0, 3, n).astype(np.float64)
    return X, y


def _write_svmlight(path, X, y, zero_based=False, opener=open):
    buf = io.BytesIO()
    dump_svmlight_file(X, y, buf, zero_based=zero_based)
    with opener(path, "wb") as f:
        f.write(buf.getvalue())
    return buf.getvalue()


def _stack(batches):
    batches = list(batches)
    X = sp.vstack([b[0] for b in batches], format="csr")
    y = np.concatenate([b[1] for b in batches])
    return X, y, [b[0].shape[0] for b in batches]


@pytest.mark.parametrize(
    "suffix, opener",
    [("", open), (".gz", gzip.open), (".bz2", bz2.open), (".xz", lzma.open)],
)
@pytest.mark.parametrize("zero_based", [True, False])
def test_svmlight_round_trip(tmp_path, suffix, opener, zero_based):
    X, y = _svmlight_data()
    path = tmp_path / f"data.svm{suffix}"
    _write_svmlight(path, X, y, zero_based=zero_based, opener=opener)
    X_ref, y_ref = load_svmlight_file(
        io.BytesIO(_write_svmlight(tmp_path / "plain", X, y, zero_based)),
        n_features=30,
        zero_based=zero_based,
    )
    X_got, y_got, sizes = _stack(iter_svmlight_file(path, 30, batch_size=10))
    assert sizes == [10] * 5 + [7]
    assert X_got.shape == (57, 30)
    assert (X_got != X_ref).nnz == 0
    np.testing.assert_array_equal(y_got, y_ref)
    # "auto" finds the same as the file's own convention here (the data
    # have an index 0 in the first batch exactly when zero-based)
    X_auto, _, _ = _stack(iter_svmlight_file(str(path), 30, batch_size=10))
    assert (X_auto != X_ref).nnz == 0


def test_svmlight_blocks_smaller_than_a_batch(tmp_path, monkeypatch):
    """Batches cut at the right line whatever the read size."""
    X, y = _svmlight_data(n=40)
    path = tmp_path / "data.svm"
    _write_svmlight(path, X, y)
    for block in (1, 7, 64, 4096):
        monkeypatch.setattr(_files, "_BLOCK", block)
        X_got, y_got, sizes = _stack(iter_svmlight_file(path, 30, batch_size=13))
        assert sizes == [13, 13, 13, 1]
        assert (X_got != X).nnz == 0
        np.testing.assert_array_equal(y_got, y)


def test_svmlight_comments_qid_and_dtype():
    data = b"# a comment line\n1 qid:3 1:0.5 4:2 # trailing comment\n\n-1 qid:3 2:1.5\n"
    ((X, y),) = iter_svmlight_file(io.BytesIO(data), 4, dtype=np.float32)
    assert X.dtype == np.float32
    np.testing.assert_array_equal(X.toarray(), [[0.5, 0, 0, 2], [0, 1.5, 0, 0]])
    np.testing.assert_array_equal(y, [1, -1])


def test_truncated_last_line_that_parses_is_a_row():
    data = b"1 1:0.5\n-1 2:1.5\n1 3:2"
    X, y, sizes = _stack(iter_svmlight_file(io.BytesIO(data), 3, batch_size=2))
    assert sizes == [2, 1]
    np.testing.assert_array_equal(X.toarray()[2], [0, 0, 2])


def test_truncated_last_line_that_does_not_parse_names_the_line(tmp_path):
    path = tmp_path / "cut.svm"
    path.write_bytes(b"1 1:0.5\n-1 2:1.5\n1 3:0.25\n-1 2:")
    batches = iter_svmlight_file(path, 3, batch_size=2)
    X, _ = next(batches)  # the first batch is read
    assert X.shape == (2, 3)
    with pytest.raises(ValueError, match=r"cut\.svm, line 4: .*'-1 2:'"):
        next(batches)


@pytest.mark.parametrize(
    "line, reason",
    [
        (b"1 2:abc", ""),
        (b"x 2:0.5", ""),
        (b"1 3:0.5 2:0.5", ""),  # indices not sorted
        (b"1 9:0.5", "beyond n_features=5"),
    ],
)
def test_malformed_row_names_its_line_and_nothing_of_its_batch_is_learned(
    tmp_path, line, reason
):
    X, y = _svmlight_data(n=12, n_features=5)
    y = np.where(y > 0, 1.0, -1.0)
    good = io.BytesIO()
    dump_svmlight_file(X, y, good, zero_based=False)
    lines = good.getvalue().splitlines(keepends=True)
    lines.insert(7, line + b"\n")  # line 8: in the second batch of 5
    path = tmp_path / "bad.svm"
    path.write_bytes(b"".join(lines))
    model = PassiveAggressiveClassifier(random_state=0)
    seen = []
    with pytest.raises(ValueError, match=rf"bad\.svm, line 8: .*{reason}"):
        for Xb, yb in iter_svmlight_file(path, 5, batch_size=5):
            model.partial_fit(Xb, yb, classes=[-1, 1])
            seen.append(Xb.shape[0])
    assert seen == [5]
    ref = PassiveAggressiveClassifier(random_state=0)
    ref.partial_fit(X[:5], y[:5], classes=[-1, 1])
    np.testing.assert_array_equal(model.coef_, ref.coef_)


class _Unseekable(io.BytesIO):
    def seekable(self):
        return False


def test_zero_based_auto_is_scikit_learns():
    """One-based unless an index of the file is 0, as load_svmlight_file:
    a file that can be read twice is scanned first; a stream that cannot
    is decided on its first batch with an index, and a later 0 is an error
    that says what to do."""
    one_based = b"1 1:1\n1 3:1\n1 2:1\n"
    ((X, _),) = iter_svmlight_file(io.BytesIO(one_based), 3)
    np.testing.assert_array_equal(X.toarray(), np.eye(3)[[0, 2, 1]])
    zero_based = b"1 0:1\n1 2:1\n"
    ((X, _),) = iter_svmlight_file(io.BytesIO(zero_based), 3)
    np.testing.assert_array_equal(X.toarray(), np.eye(3)[[0, 2]])
    late_zero = b"1 1:1\n1 2:1\n1 0:1\n"
    batches = iter_svmlight_file(io.BytesIO(late_zero), 3, batch_size=2)
    X = sp.vstack([X for X, _ in batches]).toarray()
    X_ref, _ = load_svmlight_file(io.BytesIO(late_zero), n_features=3)
    np.testing.assert_array_equal(X, X_ref.toarray())
    np.testing.assert_array_equal(X, np.eye(3)[[1, 2, 0]])
    batches = iter_svmlight_file(_Unseekable(late_zero), 3, batch_size=2)
    next(batches)
    with pytest.raises(ValueError, match="line 3: .*pass zero_based=True"):
        next(batches)
    with pytest.raises(ValueError, match="line 1: .*beyond n_features=3"):
        next(iter_svmlight_file(io.BytesIO(b"1 3:1\n"), 3, zero_based=True))


def test_svmlight_partial_fit_equals_fit_on_the_loaded_file(tmp_path):
    X, y = _svmlight_data(n=300, n_features=20, seed=3)
    path = tmp_path / "data.svm.gz"
    _write_svmlight(path, X, y, opener=gzip.open)
    streamed = PassiveAggressiveClassifier(random_state=0, shuffle=False)
    for Xb, yb in iter_svmlight_file(path, 20, batch_size=300):
        streamed.partial_fit(Xb, yb, classes=[0, 1, 2])
    X_all, y_all = load_svmlight_file(path, n_features=20)
    ref = PassiveAggressiveClassifier(random_state=0, shuffle=False)
    ref.partial_fit(X_all, y_all, classes=[0, 1, 2])
    np.testing.assert_array_equal(streamed.coef_, ref.coef_)


@pytest.mark.parametrize(
    "suffix, opener", [("", open), (".gz", gzip.open), (".bz2", bz2.open)]
)
@pytest.mark.parametrize("zero_based", [True, False])
def test_n_features_is_inferred_as_load_svmlight_file_does(
    tmp_path, suffix, opener, zero_based
):
    """Without n_features the whole file's largest index sets the width,
    though it appears only in the last batch."""
    X, y = _svmlight_data(n=57, n_features=30)
    X = sp.csr_matrix(X.toarray()[:, :25])
    X = sp.hstack([X, sp.csr_matrix(([0.5], ([56], [4])), shape=(57, 5))], "csr")
    assert X.shape == (57, 30) and X[:50, 25:].nnz == 0
    if zero_based:
        X[0, 0] = 1.0  # the first batch says zero-based
    path = tmp_path / f"data.svm{suffix}"
    _write_svmlight(path, X, y, zero_based=zero_based, opener=opener)
    X_ref, y_ref = load_svmlight_file(str(path))
    assert X_ref.shape == (57, 30)
    X_got, y_got, _ = _stack(iter_svmlight_file(path, batch_size=10))
    assert X_got.shape == X_ref.shape
    assert (X_got != X_ref).nnz == 0
    np.testing.assert_array_equal(y_got, y_ref)
    # a file object: read from its position, sought back after the first pass
    with opener(path, "rb") as handle:
        X_obj, _, _ = _stack(iter_svmlight_file(handle, batch_size=10))
    assert (X_obj != X_ref).nnz == 0


def test_n_features_inference_skips_comments_and_qid():
    data = b"1 qid:77 2:1 # 40:1 in a comment\n# 50:2\n-1 qid:3 3:0.5\n"
    ((X, y),) = iter_svmlight_file(io.BytesIO(data))
    assert X.shape == (2, 3)  # one-based: indices 2 and 3
    np.testing.assert_array_equal(X.toarray(), [[0, 1, 0], [0, 0, 0.5]])


class _Pipe(io.RawIOBase):
    """A file object that cannot seek (a pipe)."""

    def __init__(self, data):
        self._data = io.BytesIO(data)

    def readable(self):
        return True

    def seekable(self):
        return False

    def readinto(self, buffer):
        chunk = self._data.read(len(buffer))
        buffer[: len(chunk)] = chunk
        return len(chunk)


def test_n_features_inference_needs_a_seekable_file():
    with pytest.raises(ValueError, match="not seekable.*Pass n_features"):
        next(iter_svmlight_file(_Pipe(b"1 1:1\n")))
    # with n_features a pipe streams
    ((X, _),) = iter_svmlight_file(_Pipe(b"1 1:1\n"), 2)
    assert X.shape == (1, 2)
    with pytest.raises(ValueError, match="no feature index.*Pass n_features"):
        next(iter_svmlight_file(io.BytesIO(b"1\n-1 # 3:1\n")))


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"n_features": 0}, "n_features must be a positive integer"),
        ({"n_features": 3, "batch_size": 0}, "batch_size must be a positive"),
        ({"n_features": 3, "zero_based": "yes"}, "zero_based must be"),
    ],
)
def test_svmlight_parameters_are_checked(kwargs, match):
    with pytest.raises(ValueError, match=match):
        next(iter_svmlight_file(io.BytesIO(b"1 1:1\n"), **kwargs))


def test_text_mode_file_is_refused(tmp_path):
    path = tmp_path / "a.svm"
    path.write_text("1 1:1\n")
    with open(path) as f, pytest.raises(TypeError, match="binary mode"):
        next(iter_svmlight_file(f, 3))


# ------------------------------------------------------------------- CSV
def _csv_text(n=23, seed=0):
    rng = np.random.default_rng(seed)
    a = np.round(rng.normal(size=n), 4)
    b = rng.integers(-5, 5, n)
    c = np.round(rng.uniform(size=n), 3)
    label = rng.integers(0, 2, n)
    lines = ["a,b,label,c"] + [f"{a[i]},{b[i]},{label[i]},{c[i]}" for i in range(n)]
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("suffix, opener", [("", open), (".gz", gzip.open)])
def test_csv_round_trip_against_pandas(tmp_path, suffix, opener):
    pd = pytest.importorskip("pandas")
    path = tmp_path / f"data.csv{suffix}"
    with opener(path, "wb") as f:
        f.write(_csv_text().encode())
    frame = pd.read_csv(path)
    batches = list(iter_csv_file(path, target_column="label", batch_size=5))
    assert [b[0].shape[0] for b in batches] == [5, 5, 5, 5, 3]
    X = np.vstack([b[0] for b in batches])
    y = np.concatenate([b[1] for b in batches])
    assert X.flags.c_contiguous and X.dtype == np.float64
    np.testing.assert_array_equal(X, frame[["a", "b", "c"]].to_numpy(float))
    np.testing.assert_array_equal(y, frame["label"].to_numpy(float))
    # by index, without a header
    body = _csv_text().split("\n", 1)[1].encode()
    batches = list(
        iter_csv_file(io.BytesIO(body), target_column=2, header=False, batch_size=50)
    )
    np.testing.assert_array_equal(batches[0][0], X)


def test_csv_text_columns_are_hashed(tmp_path):
    pd = pytest.importorskip("pandas")
    path = tmp_path / "text.csv"
    path.write_text(
        "x,title,colour,label\n"
        '1.5,"cheap pills, now",red,spam\n'
        "2.0,meeting at noon,blue,ham\n"
        '-1.0,"re: noon, again",red,ham\n'
    )
    frame = pd.read_csv(path)
    vectorizer = HashingVectorizer(n_features=64)
    categories = FeatureHasher(n_features=8, input_type="string")
    ((X, y),) = iter_csv_file(
        path,
        target_column="label",
        text_columns=["title", "colour"],
        hasher=vectorizer,
        target_dtype=str,
    )
    assert X.shape == (3, 1 + 2 * 64)
    np.testing.assert_array_equal(X[:, 0].toarray().ravel(), frame["x"])
    np.testing.assert_allclose(
        X[:, 1:65].toarray(), vectorizer.transform(frame["title"]).toarray()
    )
    np.testing.assert_array_equal(y, ["spam", "ham", "ham"])
    ((X, _),) = iter_csv_file(
        path,
        target_column=-1,
        text_columns=[2, "title"],
        hasher=categories,
        target_dtype=str,
    )
    assert X.shape == (3, 1 + 2 * 8)
    expected = categories.transform([[v] for v in frame["colour"]]).toarray()
    # in the order of text_columns
    np.testing.assert_array_equal(X[:, 1:9].toarray(), expected)


@pytest.mark.parametrize(
    "line",
    ["0.5,1,1,abc", "0.5,,1,0.25", "0.5,1,1", "0.5,1,1,0.25,9"],
    ids=["not-a-number", "missing", "short", "long"],
)
def test_csv_malformed_row_names_its_line(tmp_path, line):
    text = _csv_text(n=12).split("\n")
    text.insert(8, line)  # line 9 of the file, in the second batch of 5
    path = tmp_path / "bad.csv"
    path.write_text("\n".join(text))
    batches = iter_csv_file(path, target_column="label", batch_size=5)
    assert next(batches)[0].shape == (5, 3)
    with pytest.raises(ValueError, match=r"bad\.csv, line 9: .*(field|fields)"):
        next(batches)


def test_csv_truncated_last_line():
    data = b"a,b,label\n1,2,0\n3,4,1"
    X, y = next(iter_csv_file(io.BytesIO(data), target_column="label"))
    np.testing.assert_array_equal(X, [[1, 2], [3, 4]])
    cut = b"a,b,label\n1,2,0\n3,4,1\n5,"
    with pytest.raises(ValueError, match="line 4: "):
        next(iter_csv_file(io.BytesIO(cut), target_column="label"))


def test_csv_columns_are_checked():
    data = b"a,b,label\n1,2,0\n"
    with pytest.raises(ValueError, match="'lab' is not a column"):
        next(iter_csv_file(io.BytesIO(data), target_column="lab"))
    with pytest.raises(ValueError, match="out of range"):
        next(iter_csv_file(io.BytesIO(data), target_column=3))
    with pytest.raises(TypeError, match="HashingVectorizer"):
        next(
            iter_csv_file(
                io.BytesIO(data), target_column=2, text_columns=["a"], hasher=object()
            )
        )
    assert list(iter_csv_file(io.BytesIO(b""), target_column=0)) == []


def test_progressive_validation_reads_the_file_in_batches(tmp_path):
    from sklearn_pa.model_selection import progressive_val_score

    X, y = _svmlight_data(n=120, n_features=10, seed=5)
    path = tmp_path / "stream.svm.bz2"
    _write_svmlight(path, X, y, opener=bz2.open)
    est = PassiveAggressiveClassifier(random_state=0)
    from_file = progressive_val_score(
        est, iter_svmlight_file(path, 10, batch_size=25), classes=[0, 1, 2]
    )
    in_memory = progressive_val_score(
        est,
        ((X[i : i + 25], y[i : i + 25]) for i in range(0, 120, 25)),
        classes=[0, 1, 2],
    )
    assert from_file == in_memory


def test_memory_is_that_of_a_batch_not_of_the_file(tmp_path, monkeypatch):
    import tracemalloc

    X, y = _svmlight_data(n=20_000, n_features=200, seed=6)
    path = tmp_path / "big.svm"
    _write_svmlight(path, X, y)
    size = path.stat().st_size
    monkeypatch.setattr(_files, "_BLOCK", 1 << 16)
    tracemalloc.start()
    try:
        n_rows = 0
        for Xb, _ in iter_svmlight_file(path, 200, batch_size=500):
            n_rows += Xb.shape[0]
            del Xb
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert n_rows == 20_000
    assert size > 6 * 2**20
    # a few batches and blocks, not the file
    assert peak < size / 5, (peak, size)


def test_a_bad_line_after_an_undecided_first_batch_is_the_one_named():
    """zero_based='auto' is decided on whole batches, not on the prefixes
    parsed to find a bad line: an index 0 before the bad line is no error."""
    data = b"1 2:1\n1 0:1\n1 2:x\n"
    with pytest.raises(ValueError, match="line 3: .*'1 2:x'"):
        next(iter_svmlight_file(io.BytesIO(data), 3))
