"""The dataset loaders: local copies, verified downloads, clear offline errors."""

import bz2
import io
import shutil
import urllib.error

import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.linalg  # noqa: F401

from sklearn_pa.datasets import (
    NEWSGROUP_SUBSETS,
    SUPER_CATEGORIES,
    _usps,
    fetch_20newsgroups_multilabel,
    fetch_20newsgroups_subset,
    fetch_usps,
    multilabel_targets,
)


def _libsvm_bytes(rows):
    text = "".join(
        f"{label} " + " ".join(f"{j + 1}:{v}" for j, v in enumerate(x)) + "\n"
        for label, x in rows
    )
    return bz2.compress(text.encode())


class _FakeResponse(io.BytesIO):
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


@pytest.fixture
def tiny_usps(monkeypatch):
    """A 3-image stand-in for the LIBSVM files, with its md5 registered."""
    rng = np.random.default_rng(0)
    payload = _libsvm_bytes(
        [(label, rng.uniform(-1, 1, 256).round(3)) for label in (1, 5, 10)]
    )
    import hashlib

    md5 = hashlib.md5(payload).hexdigest()
    files = {
        "libsvm": {
            "train": ("usps.bz2", "https://example.invalid/usps.bz2", md5),
            "test": ("usps.t.bz2", "https://example.invalid/usps.t.bz2", md5),
        },
        "esl": _usps._FILES["esl"],
    }
    monkeypatch.setattr(_usps, "_FILES", files)
    return payload


def test_missing_file_offline_names_what_was_looked_for(tmp_path, tiny_usps):
    with pytest.raises(FileNotFoundError, match=r"usps[/\\]usps\.bz2"):
        fetch_usps(data_home=tmp_path, download_if_missing=False)
    assert not (tmp_path / "usps" / "usps.bz2").exists()


def test_download_is_verified_and_kept(tmp_path, tiny_usps, monkeypatch):
    calls = []

    def urlopen(url, timeout):
        calls.append(url)
        return _FakeResponse(tiny_usps)

    monkeypatch.setattr(_usps.urllib.request, "urlopen", urlopen)
    bunch = fetch_usps(data_home=tmp_path, subset="all")
    assert calls == [
        "https://example.invalid/usps.bz2",
        "https://example.invalid/usps.t.bz2",
    ]
    assert bunch.data.shape == (6, 256)
    np.testing.assert_array_equal(bunch.target, [0, 4, 9, 0, 4, 9])
    assert "USPS" in bunch.DESCR
    # the second call reads the local copy
    X, y = fetch_usps(data_home=tmp_path, subset="test", return_X_y=True)
    assert len(calls) == 2 and X.shape == (3, 256)


def test_corrupt_download_is_not_kept(tmp_path, tiny_usps, monkeypatch):
    monkeypatch.setattr(
        _usps.urllib.request,
        "urlopen",
        lambda url, timeout: _FakeResponse(tiny_usps + b"x"),
    )
    with pytest.raises(OSError, match="md5"):
        fetch_usps(data_home=tmp_path)
    assert list((tmp_path / "usps").iterdir()) == []


def test_failed_download_says_where_to_put_the_file(tmp_path, tiny_usps, monkeypatch):
    def urlopen(url, timeout):
        raise urllib.error.URLError("no route to host")

    monkeypatch.setattr(_usps.urllib.request, "urlopen", urlopen)
    with pytest.raises(FileNotFoundError, match="download of .* failed"):
        fetch_usps(data_home=tmp_path)


def test_esl_variant_is_local_only(tmp_path):
    with pytest.raises(FileNotFoundError, match="not downloadable"):
        fetch_usps(data_home=tmp_path, variant="esl")


def test_invalid_subset():
    with pytest.raises(ValueError, match="subset"):
        fetch_usps(subset="validation")


@pytest.mark.realdata
def test_local_copies(data_dir, tmp_path):
    X, y = fetch_usps(data_home=data_dir, variant="esl", return_X_y=True)
    assert X.shape == (7291, 256) and y.shape == (7291,)
    assert set(np.unique(y)) == set(range(10))
    assert X.min() >= -1 and X.max() <= 1
    test = fetch_usps(data_home=data_dir, variant="esl", subset="test")
    assert test.data.shape == (2007, 256)
    # the LIBSVM test file is the published one (its md5 is checked on
    # download; here, on the local copy) and shares the ESL labels
    (tmp_path / "usps").mkdir()
    shutil.copy(data_dir / "usps" / "usps.t.bz2", tmp_path / "usps")
    assert (
        _usps._md5(tmp_path / "usps" / "usps.t.bz2")
        == _usps._FILES["libsvm"]["test"][2]
    )
    X_lib, y_lib = fetch_usps(
        data_home=tmp_path, subset="test", download_if_missing=False, return_X_y=True
    )
    assert X_lib.shape == (2007, 256)
    np.testing.assert_array_equal(y_lib, test.target)


# ------------------------------------------------------------ 20 Newsgroups
def test_multilabel_targets_adds_the_super_category():
    names = ["alt.atheism", "comp.graphics", "rec.autos", "sci.med", "talk.x"]
    Y, columns = multilabel_targets(np.array([0, 1, 2, 3, 4, 1]), names)
    assert columns == names + list(SUPER_CATEGORIES)
    assert Y.shape == (6, len(names) + len(SUPER_CATEGORIES))
    np.testing.assert_array_equal(Y[:, : len(names)].argmax(axis=1), [0, 1, 2, 3, 4, 1])
    # alt.* has no super-category; the others get exactly theirs
    np.testing.assert_array_equal(Y.sum(axis=1), [1, 2, 2, 2, 2, 2])
    np.testing.assert_array_equal(
        Y[:, len(names) :].argmax(axis=1)[1:], [0, 1, 2, 3, 0]
    )


def test_subsets_name_real_newsgroups():
    for name, groups in NEWSGROUP_SUBSETS.items():
        assert len(groups) == int(name.split("-")[1])
        assert len(set(groups)) == len(groups)


@pytest.mark.parametrize(
    "fetch",
    [
        lambda **kw: fetch_20newsgroups_multilabel(**kw),
        lambda **kw: fetch_20newsgroups_subset("sb-7-1", **kw),
    ],
    ids=["multilabel", "subset"],
)
def test_newsgroups_missing_cache_is_not_downloaded(fetch, tmp_path, monkeypatch):
    """``download_if_missing=False`` reaches scikit-learn's loader: an empty
    data home gives its error and nothing is fetched or written."""

    def no_network(*args, **kwargs):  # pragma: no cover - must not be reached
        raise AssertionError("nothing may be downloaded")

    monkeypatch.setattr(urllib.request, "urlopen", no_network)
    monkeypatch.setattr(urllib.request, "urlretrieve", no_network)
    with pytest.raises(OSError, match="not found"):
        fetch(data_home=tmp_path, download_if_missing=False)
    assert not any(p.is_file() for p in tmp_path.rglob("*"))


def test_unknown_subset_lists_the_available_ones():
    with pytest.raises(ValueError, match="Unknown subset 'sb-9-9'.*sb-7-1"):
        fetch_20newsgroups_subset("sb-9-9")


def test_newsgroups_invalid_parameters():
    with pytest.raises(ValueError, match="subset"):
        fetch_20newsgroups_multilabel(subset="validation")
    with pytest.raises(ValueError, match="n_per_class"):
        fetch_20newsgroups_subset("sb-7-1", n_per_class=0)


@pytest.mark.realdata
def test_20newsgroups_multilabel_local(data_dir):
    home = data_dir / "sklearn"
    data = fetch_20newsgroups_multilabel(data_home=home, download_if_missing=False)
    assert sp.issparse(data.data) and data.data.format == "csr"
    assert data.data.shape[0] == data.target.shape[0] == 11314
    assert data.target.shape == (11314, 24)
    assert len(data.target_names) == 24
    assert data.target_names[20:] == list(SUPER_CATEGORIES)
    assert set(data.target.sum(axis=1)) == {1, 2}
    np.testing.assert_array_equal(data.target[:, :20].argmax(axis=1), data.newsgroup)
    # every comp.* document carries the "comp" label, and only those
    comp = np.array([n.startswith("comp.") for n in data.target_names[:20]])
    np.testing.assert_array_equal(data.target[:, 20], comp[data.newsgroup])
    assert "super-category" in data.DESCR
    # the named subsets use real newsgroup names
    for groups in NEWSGROUP_SUBSETS.values():
        assert set(groups) <= set(data.target_names[:20])
    X, Y = fetch_20newsgroups_multilabel(
        data_home=home, subset="test", download_if_missing=False, return_X_y=True
    )
    assert X.shape[0] == Y.shape[0] == 7532 and X.shape[1] == data.data.shape[1]


@pytest.mark.realdata
def test_20newsgroups_subset_local(data_dir):
    home = data_dir / "sklearn"
    data = fetch_20newsgroups_subset(
        "sb-8-1", data_home=home, download_if_missing=False
    )
    assert data.target_names == list(NEWSGROUP_SUBSETS["sb-8-1"])
    assert data.data.shape[0] == 4000
    np.testing.assert_array_equal(np.bincount(data.target), [500] * 8)
    # only used columns are kept, and the feature names follow them
    assert np.all(np.asarray(data.data.sum(axis=0)).ravel() > 0)
    assert len(data.feature_names) == data.data.shape[1]
    np.testing.assert_allclose(sp.linalg.norm(data.data, axis=1) <= 1 + 1e-12, True)
    assert "sb-8-1" in data.DESCR
    # the draw is seeded: same seed same rows, n_per_class honoured
    X1, y1 = fetch_20newsgroups_subset(
        "sb-8-1",
        data_home=home,
        n_per_class=50,
        random_state=3,
        download_if_missing=False,
        return_X_y=True,
    )
    X2, y2 = fetch_20newsgroups_subset(
        "sb-8-1",
        data_home=home,
        n_per_class=50,
        random_state=3,
        download_if_missing=False,
        return_X_y=True,
    )
    assert X1.shape[0] == 400
    assert (X1 != X2).nnz == 0
    np.testing.assert_array_equal(y1, y2)


def test_benchmark_loaders_read_the_data_folder_only(tmp_path):
    """The benchmark loaders pass ``download_if_missing=False`` and say where
    they looked."""
    from sklearn_pa.benchmark import load_dataset, load_subset
    from sklearn_pa.benchmark._semi_supervised import SUBSETS

    assert SUBSETS is NEWSGROUP_SUBSETS
    with pytest.raises(FileNotFoundError, match=str(tmp_path)):
        load_dataset("20newsgroups-multilabel", tmp_path)
    with pytest.raises(OSError, match="not found"):
        load_subset("sb-7-1", tmp_path)
