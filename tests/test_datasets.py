"""The dataset loaders: local copies, verified downloads, clear offline errors."""

import bz2
import io
import shutil
import urllib.error

import numpy as np
import pytest

from sklearn_pa.datasets import _usps, fetch_usps


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
