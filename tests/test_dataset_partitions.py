"""Data files as dask arrays read block by block (one file or one byte range
each), and parameter mixing on them: on threads and on a Dask cluster."""

import gzip
import io

import numpy as np
import pytest
import scipy.sparse as sp
from local_cluster import local_client
from sklearn.datasets import dump_svmlight_file, load_svmlight_file

from sklearn_pa import PassiveAggressiveClassifier

dask = pytest.importorskip("dask")
distributed = pytest.importorskip("distributed")
da = pytest.importorskip("dask.array")

from sklearn_pa.datasets import (  # noqa: E402
    read_csv_partitions,
    read_svmlight_partitions,
)
from sklearn_pa.distributed import fit_parameter_mixing  # noqa: E402


def _data(n=200, n_features=12, seed=0):
    rng = np.random.default_rng(seed)
    X = sp.random(n, n_features, density=0.3, format="csr", random_state=seed)
    X.data = np.round(X.data * 4 - 2, 3)
    w = rng.normal(size=n_features)
    y = np.where(X @ w > 0, 1.0, -1.0)
    return X, y


def _svmlight_bytes(X, y):
    buf = io.BytesIO()
    dump_svmlight_file(X, y, buf, zero_based=False)
    return buf.getvalue()


@pytest.mark.parametrize("n_partitions", [1, 2, 3, 7, 64])
@pytest.mark.parametrize("trailing_newline", [True, False])
def test_byte_ranges_hold_every_line_once(tmp_path, n_partitions, trailing_newline):
    X, y = _data(n=50)
    data = _svmlight_bytes(X, y)
    if not trailing_newline:
        data = data.rstrip(b"\n")
    path = tmp_path / "data.svm"
    path.write_bytes(data)
    Xd, yd = read_svmlight_partitions(path, 12, n_partitions=n_partitions)
    assert Xd.numblocks == (n_partitions, 1)
    assert np.isnan(Xd.chunks[0]).all()
    X_got, y_got = dask.compute(Xd, yd, scheduler="sync")
    assert (X_got != X).nnz == 0
    np.testing.assert_array_equal(y_got, y)


def test_files_patterns_and_compressed_files(tmp_path):
    X, y = _data(n=90)
    (tmp_path / "part-0.svm").write_bytes(_svmlight_bytes(X[:40], y[:40]))
    with gzip.open(tmp_path / "part-1.svm.gz", "wb") as f:
        f.write(_svmlight_bytes(X[40:], y[40:]))
    pattern = str(tmp_path / "part-*")
    Xd, yd = read_svmlight_partitions(pattern, 12)
    assert Xd.numblocks == (2, 1)
    # n_partitions cuts the plain file only
    Xd, yd = read_svmlight_partitions(pattern, 12, n_partitions=4)
    assert Xd.numblocks[0] >= 3
    X_got, y_got = dask.compute(Xd, yd, scheduler="sync")
    assert (X_got != X).nnz == 0
    np.testing.assert_array_equal(y_got, y)
    with pytest.raises(FileNotFoundError, match="No file matches"):
        read_svmlight_partitions(str(tmp_path / "nothing-*"), 12)


def test_a_malformed_line_is_named_by_its_line_in_the_file(tmp_path):
    X, y = _data(n=40)
    lines = _svmlight_bytes(X, y).splitlines(keepends=True)
    lines[30] = b"1 4:oops\n"
    path = tmp_path / "bad.svm"
    path.write_bytes(b"".join(lines))
    # read when computed, in the block of the third range
    Xd, yd = read_svmlight_partitions(path, 12, n_partitions=3, zero_based=False)
    with pytest.raises(ValueError, match=r"bad\.svm, line 31: .*'1 4:oops'"):
        dask.compute(Xd, yd, scheduler="sync")
    # zero_based="auto" scans the bytes for an index 0 at once, and the
    # block that parses the line names it
    Xd, yd = read_svmlight_partitions(path, 12, n_partitions=3)
    with pytest.raises(ValueError, match=r"bad\.svm, line 31: .*'1 4:oops'"):
        dask.compute(Xd, yd, scheduler="sync")


def test_csv_partitions_against_pandas(tmp_path):
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(0)
    frames = []
    for i in range(2):
        frame = pd.DataFrame(rng.normal(size=(30, 3)).round(4), columns=list("abc"))
        frame["label"] = rng.integers(0, 2, 30)
        frame.to_csv(tmp_path / f"part-{i}.csv", index=False)
        frames.append(frame)
    frame = pd.concat(frames)
    paths = [tmp_path / "part-0.csv", tmp_path / "part-1.csv"]
    Xd, yd = read_csv_partitions(paths, target_column="label", n_partitions=5)
    assert Xd.numblocks[0] >= 4
    X, y = dask.compute(Xd, yd, scheduler="sync")
    np.testing.assert_array_equal(X, frame[["a", "b", "c"]].to_numpy())
    np.testing.assert_array_equal(y, frame["label"].to_numpy(float))


def _in_memory_blocks(Xd, yd):
    """The same blocks, computed, as dask arrays of known chunks."""
    blocks = [
        dask.compute(x, y, scheduler="sync")
        for x, y in zip(Xd.to_delayed()[:, 0], yd.to_delayed())
    ]
    X = da.concatenate(
        [da.from_array(x, chunks=x.shape, asarray=False) for x, _ in blocks]
    )
    y = da.concatenate([da.from_array(b, chunks=b.shape) for _, b in blocks])
    return X, y


@pytest.fixture(scope="module")
def client():
    with local_client() as client:
        yield client


def test_mixing_on_files_equals_mixing_on_the_same_blocks(tmp_path, client):
    X, y = _data(n=300, seed=4)
    path = tmp_path / "train.svm"
    path.write_bytes(_svmlight_bytes(X, y))
    est = PassiveAggressiveClassifier(random_state=0)
    Xd, yd = read_svmlight_partitions(path, 12, n_partitions=3)
    kw = {"n_epochs": 3, "classes": [-1.0, 1.0]}
    threads = fit_parameter_mixing(est, Xd, yd, n_jobs=2, **kw)
    cluster = fit_parameter_mixing(est, Xd, yd, client=client, **kw)
    memory = fit_parameter_mixing(est, *_in_memory_blocks(Xd, yd), n_jobs=2, **kw)
    # read on the workers, on threads, or held in memory: the same model,
    # to the last bit
    np.testing.assert_array_equal(threads.coef_, memory.coef_)
    np.testing.assert_array_equal(cluster.coef_, memory.coef_)
    np.testing.assert_array_equal(cluster.intercept_, memory.intercept_)
    assert cluster.score(X, y) > 0.8
    X_all, _ = load_svmlight_file(path, n_features=12)
    np.testing.assert_array_equal(cluster.predict(X_all), memory.predict(X_all))


def test_unknown_block_sizes_must_match_block_by_block(tmp_path):
    X, y = _data(n=60)
    path = tmp_path / "train.svm"
    path.write_bytes(_svmlight_bytes(X, y))
    Xd, _ = read_svmlight_partitions(path, 12, n_partitions=3)
    _, yd = read_svmlight_partitions(path, 12, n_partitions=2)
    with pytest.raises(ValueError, match="3 row blocks but y has 2"):
        fit_parameter_mixing(PassiveAggressiveClassifier(), Xd, yd, n_jobs=2)
