"""The USPS handwritten digits in LIBSVM format."""

import bz2
import hashlib
import os
import shutil
import tempfile
import urllib.error
import urllib.request
from pathlib import Path

import numpy as np
from sklearn.datasets import get_data_home, load_svmlight_file
from sklearn.utils import Bunch
from sklearn.utils._param_validation import StrOptions, validate_params

_N_FEATURES = 256
_LIBSVM_URL = "https://www.csie.ntu.edu.tw/~cjlin/libsvmtools/datasets/multiclass/"

# (file name, download URL or None, md5 of the compressed file)
_FILES = {
    "libsvm": {
        "train": (
            "usps.bz2",
            _LIBSVM_URL + "usps.bz2",
            "ec16c51db3855ca6c91edd34d0e9b197",
        ),
        "test": (
            "usps.t.bz2",
            _LIBSVM_URL + "usps.t.bz2",
            "8ea070ee2aca1ac39742fdd1ef5ed118",
        ),
    },
    "esl": {
        "train": ("usps_esl.bz2", None, "20f008785c70c0f3a1b712bcab5c4115"),
        "test": ("usps_esl.t.bz2", None, "e7a58aa0b6761b277064adff9a96a893"),
    },
}

_DESCR = """\
USPS handwritten digits
-----------------------

16 x 16 grey-level images of handwritten digits scanned from envelopes by the
U.S. Postal Service (J. J. Hull, "A database for handwritten text recognition
research", IEEE PAMI 16(5), 1994), in LIBSVM format: 256 features in [-1, 1],
7291 training and 2007 test images, 10 classes.

=================   ==============
Classes                         10
Samples (train)               7291
Samples (test)                2007
Features                       256
Feature range              [-1, 1]
=================   ==============

``variant="libsvm"`` is the copy of the LIBSVM data sets page (C.-J. Lin),
downloaded and checksum-verified when missing.  ``variant="esl"`` is the
"ZIP code" version distributed with The Elements of Statistical Learning
(Hastie, Tibshirani and Friedman), with the same split and order but
different preprocessing (no smoothing); it is read from a local copy only.
Never train on one variant and test on the other.

The LIBSVM labels 1..10 stand for the digits 0..9; ``target`` holds the digits.
"""


def _md5(path):
    digest = hashlib.md5()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _download(url, path, md5):
    """Fetch ``url`` into ``path`` through a temporary file; keep it only if
    its checksum is ``md5``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".part")
    try:
        with os.fdopen(fd, "wb") as out, urllib.request.urlopen(url, timeout=60) as r:
            shutil.copyfileobj(r, out)
        got = _md5(tmp)
        if got != md5:
            raise OSError(
                f"The file downloaded from {url} has md5 {got}, expected {md5}: "
                "it is corrupt or not the published file, and was not kept. "
                "Try again later, or place a verified copy at "
                f"{path}."
            )
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


def _load(path):
    with bz2.open(path, "rb") as f:
        X, y = load_svmlight_file(f, n_features=_N_FEATURES)
    return X.toarray(), y.astype(np.int64) - 1


@validate_params(
    {
        "data_home": [str, os.PathLike, None],
        "subset": [StrOptions({"train", "test", "all"})],
        "variant": [StrOptions({"libsvm", "esl"})],
        "download_if_missing": ["boolean"],
        "return_X_y": ["boolean"],
    },
    prefer_skip_nested_validation=True,
)
def fetch_usps(
    *,
    data_home=None,
    subset="train",
    variant="libsvm",
    download_if_missing=True,
    return_X_y=False,
):
    """Load the USPS handwritten digits (classification, 10 classes).

    =================   ==============
    Classes                         10
    Samples (train)               7291
    Samples (test)                2007
    Features                       256
    Feature range              [-1, 1]
    =================   ==============

    The files are looked for in ``<data_home>/usps/``.  A missing LIBSVM file
    is downloaded from the LIBSVM data sets page and kept only if its md5
    checksum matches the published file.

    Parameters
    ----------
    data_home : str or path-like, default=None
        The folder holding (or receiving) the ``usps`` subfolder.  ``None``
        means scikit-learn's data home, :func:`sklearn.datasets.get_data_home`.
    subset : {"train", "test", "all"}, default="train"
        The standard split to load; ``"all"`` is the training images followed
        by the test images.
    variant : {"libsvm", "esl"}, default="libsvm"
        ``"libsvm"``: the LIBSVM copy (``usps.bz2``, ``usps.t.bz2``),
        downloadable.  ``"esl"``: the Elements of Statistical Learning version
        (``usps_esl.bz2``, ``usps_esl.t.bz2``), same split and order,
        different preprocessing; local copies only.
    download_if_missing : bool, default=True
        Download a missing LIBSVM file.  If False, a missing file raises
        :class:`FileNotFoundError`.
    return_X_y : bool, default=False
        Return ``(data, target)`` instead of a Bunch.

    Returns
    -------
    data : :class:`~sklearn.utils.Bunch`
        ``data`` (n_samples, 256) float64 ndarray, ``target`` (n_samples,)
        int64 digits 0..9, ``target_names`` the digits, ``feature_names``,
        ``DESCR`` and ``files`` (the paths read).
    (data, target) : tuple if ``return_X_y`` is True.

    Raises
    ------
    FileNotFoundError
        If a file is missing and cannot be downloaded (offline, or
        ``download_if_missing=False``, or the ``"esl"`` variant); the message
        names every file looked for.

    Examples
    --------
    >>> from sklearn_pa.datasets import fetch_usps
    >>> X, y = fetch_usps(subset="test", return_X_y=True)  # doctest: +SKIP
    >>> X.shape  # doctest: +SKIP
    (2007, 256)
    """
    root = Path(get_data_home(data_home) if data_home is None else data_home)
    folder = root.expanduser() / "usps"
    subsets = ("train", "test") if subset == "all" else (subset,)
    files = [_FILES[variant][s] for s in subsets]
    paths = [folder / name for name, _, _ in files]

    missing = [
        (p, url, md5) for p, (_, url, md5) in zip(paths, files) if not p.is_file()
    ]
    if missing:
        looked_for = ", ".join(str(p) for p, _, _ in missing)
        if variant == "esl":
            raise FileNotFoundError(
                f"USPS (esl variant) not found: looked for {looked_for}. This "
                "variant is not downloadable; place the LIBSVM-format files "
                f"there, or use variant='libsvm'."
            )
        if not download_if_missing:
            raise FileNotFoundError(
                f"USPS not found: looked for {looked_for}. Pass "
                "download_if_missing=True to download it from the LIBSVM data "
                "sets page, or point data_home at a folder whose 'usps' "
                "subfolder holds these files."
            )
        for path, url, md5 in missing:
            try:
                _download(url, path, md5)
            except urllib.error.URLError as exc:
                raise FileNotFoundError(
                    f"USPS not found locally (looked for {looked_for}) and the "
                    f"download of {url} failed ({exc.reason}). Download it on a "
                    f"machine that is online and copy it to {path}."
                ) from exc

    parts = [_load(p) for p in paths]
    X = np.vstack([X for X, _ in parts])
    y = np.concatenate([y for _, y in parts])
    if return_X_y:
        return X, y
    return Bunch(
        data=X,
        target=y,
        target_names=np.arange(10),
        feature_names=np.array(
            [f"pixel_{i}" for i in range(_N_FEATURES)], dtype=object
        ),
        DESCR=_DESCR,
        files=[str(p) for p in paths],
    )
