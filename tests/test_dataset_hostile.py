"""The file readers on hostile files: one ``zero_based="auto"`` rule for
every reader, scikit-learn's; errors that name the file and the line (huge
feature indices, carriage-return line ends); string targets whole whatever
the blocks."""

import io

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_array_equal
from sklearn.datasets import load_svmlight_files

from sklearn_pa.datasets import (
    iter_csv_file,
    iter_svmlight_file,
    read_csv_partitions,
    read_svmlight_partitions,
)

N_FEATURES = 6


def _svm_lines(rng, n, *, zero, indexed=True):
    """``n`` svmlight lines; indices in 1..5 (readable zero- or one-based
    in 6 columns), and ``zero``: the last row holds index 0;
    ``indexed=False``: label-only rows."""
    lines = []
    for _ in range(n):
        label = rng.choice([-1, 1])
        if not indexed:
            lines.append(f"{label}\n")
            continue
        idx = np.sort(rng.choice(np.arange(1, N_FEATURES), 2, replace=False))
        values = " ".join(f"{i}:{rng.randint(1, 9)}" for i in idx)
        lines.append(f"{label} {values}\n")
    if zero and indexed:
        lines[-1] = "1 0:1.5\n"
    return lines


# (lines of file 1, lines of file 2): the first lines without an index,
# zero- or one-based, the index 0 in the first or in a later file
LAYOUTS = {
    "one-based": [("idx1", 30), ("idx1", 20)],
    "zero-based": [("idx0", 30), ("idx1", 20)],
    "zero-based-in-the-second-file": [("idx1", 30), ("idx0", 20)],
    "label-only-then-one-based": [("none", 15), ("idx1", 20)],
    "label-only-then-zero-based": [("none", 15), ("idx0", 20)],
    "empty-first-file": [("empty", 0), ("idx1", 25)],
    "no-index-at-all": [("none", 10), ("none", 5)],
}


def _write(tmp_path, layout, seed=0):
    rng = np.random.RandomState(seed)
    paths = []
    for k, (kind, n) in enumerate(layout):
        if kind == "empty":
            lines = []
        else:
            lines = _svm_lines(rng, n, zero=kind == "idx0", indexed=kind != "none")
        path = tmp_path / f"part-{k}.svm"
        path.write_text("".join(lines))
        paths.append(str(path))
    return paths


def _sklearn(paths):
    parts = load_svmlight_files(paths, n_features=N_FEATURES, zero_based="auto")
    Xs, ys = parts[0::2], parts[1::2]
    return sp.vstack(Xs).toarray(), np.concatenate(ys)


@pytest.mark.parametrize("layout", list(LAYOUTS))
@pytest.mark.parametrize("n_partitions", [None, 3])
def test_zero_based_auto_agrees_with_scikit_learn(tmp_path, layout, n_partitions):
    paths = _write(tmp_path, LAYOUTS[layout])
    X_ref, y_ref = _sklearn(paths)
    X, y = read_svmlight_partitions(paths, N_FEATURES, n_partitions=n_partitions)
    assert_array_equal(X.compute().toarray(), X_ref)
    assert_array_equal(y.compute(), y_ref)
    # the stream over each file: scikit-learn on that file alone
    for path in paths:
        batches = list(iter_svmlight_file(path, N_FEATURES, batch_size=7))
        if not batches:
            continue
        X_it = sp.vstack([b[0] for b in batches]).toarray()
        X_one, _ = load_svmlight_files([path], n_features=N_FEATURES)
        assert_array_equal(X_it, X_one.toarray())


def test_a_row_without_indices_first_reads_one_based(tmp_path):
    """The reported case: the first lines hold no index; ``[1, 0, 2, 0]``
    must not come back shifted to ``[0, 1, 0, 2]``."""
    path = tmp_path / "a.svm"
    path.write_text("1\n" * 3 + "-1 1:1 3:2\n")
    for n_partitions in (None, 2):
        X, _ = read_svmlight_partitions(str(path), 4, n_partitions=n_partitions)
        assert_array_equal(X.compute().toarray()[-1], [1, 0, 2, 0])
    ((X_it, _),) = iter_svmlight_file(str(path), 4)
    assert_array_equal(X_it.toarray()[-1], [1, 0, 2, 0])


@pytest.mark.parametrize(
    "text",
    [
        "1 1:2 # a comment 0:3\n-1 2:1\n",
        "1 qid:0 1:2\n-1 qid:0 3:1\n",
        "1 00:2 3:1\n-1 1:1\n",
        "# 0:1 in a comment line\n1 1:1\n",
        "1 1:0 2:0.0\n-1\t0:1\n",
        "1 10:1\n-1 20:1\n",
        "1\n-1 # 3:1\n",
    ],
    ids=["comment", "qid", "00", "comment-line", "tab", "10-20", "no-index"],
)
def test_index_zero_is_found_as_scikit_learn_finds_it(tmp_path, text):
    path = tmp_path / "a.svm"
    path.write_text(text)
    X_ref, _ = load_svmlight_files([str(path)], n_features=21, zero_based="auto")
    X, _ = read_svmlight_partitions(str(path), 21)
    assert_array_equal(X.compute().toarray(), X_ref.toarray())
    ((X_it, _),) = iter_svmlight_file(str(path), 21)
    assert_array_equal(X_it.toarray(), X_ref.toarray())
    with open(path, "rb") as f:
        ((X_it, _),) = iter_svmlight_file(f, 21)
    assert_array_equal(X_it.toarray(), X_ref.toarray())


class _Unseekable(io.RawIOBase):
    def __init__(self, data):
        self.buffer = io.BytesIO(data)

    def readable(self):
        return True

    def seekable(self):
        return False

    def readinto(self, b):
        chunk = self.buffer.read(len(b))
        b[: len(chunk)] = chunk
        return len(chunk)


def test_a_late_index_0_is_read_zero_based_or_named(tmp_path):
    """An index 0 far after the first batch: scikit-learn reads the file
    zero-based, and so does every reader that can read the file twice; a
    stream that cannot be read twice has decided one-based on its first
    batch and says so, naming the line and the way out."""
    lines = _svm_lines(np.random.RandomState(1), 10_005, zero=False)
    lines[10_003] = "1 0:2.0\n"
    path = tmp_path / "late.svm"
    path.write_text("".join(lines))
    X_ref, _ = load_svmlight_files([str(path)], n_features=N_FEATURES)
    for n_partitions in (None, 3):
        X, _ = read_svmlight_partitions(
            str(path), N_FEATURES, n_partitions=n_partitions
        )
        assert_array_equal(X.compute().toarray(), X_ref.toarray())
    X_it = sp.vstack([X for X, _ in iter_svmlight_file(str(path), N_FEATURES)])
    assert_array_equal(X_it.toarray(), X_ref.toarray())
    stream = io.BufferedReader(_Unseekable(path.read_bytes()))
    with pytest.raises(ValueError, match=r"line 10004.*zero_based=True"):
        list(iter_svmlight_file(stream, N_FEATURES))


@pytest.mark.parametrize(
    "index", ["99999999999999999999999", str(2**63 - 1), str(2**64), "-5"]
)
@pytest.mark.parametrize("line", [1, 3])
def test_a_huge_feature_index_names_its_file_and_line(tmp_path, index, line):
    lines = ["1 1:1 2:2\n", "-1 3:1\n", "1 2:1\n", "-1 1:4\n"]
    lines[line - 1] = f"1 1:1 {index}:2\n"
    path = tmp_path / "huge.svm"
    path.write_text("".join(lines))
    match = rf"huge.svm, line {line}: "
    with pytest.raises(ValueError, match=match):
        list(iter_svmlight_file(str(path), 10, batch_size=2))
    with pytest.raises(ValueError, match=match):
        read_svmlight_partitions(str(path), 10, zero_based=False)[0].compute()
    with pytest.raises(ValueError, match=match):
        read_svmlight_partitions(str(path), 10)[0].compute()


@pytest.mark.parametrize("header", [True, False])
@pytest.mark.parametrize("where", ["everywhere", "data"])
def test_carriage_return_line_ends_name_the_file_and_line(tmp_path, header, where):
    head = "a,b,label" if header else "0.5,1.0,spam"
    body = "1.0,2.0,ham\r3.0,4.0,spam\r"
    text = head + ("\r" if where == "everywhere" else "\n") + body
    path = tmp_path / "mac.csv"
    path.write_bytes(text.encode())
    label = "label" if header else 2
    line = 1 if where == "everywhere" else 2
    _refused_at(path, line, target_column=label, header=header, target_dtype=str)


def _refused_at(path, line, **options):
    """Both CSV readers refuse ``path`` with a ValueError naming the file
    and ``line``."""
    match = rf"{path.name}, line {line}: "
    with pytest.raises(ValueError, match=match):
        list(iter_csv_file(str(path), **options))
    with pytest.raises(ValueError, match=match):
        X, y = read_csv_partitions(str(path), **options)
        X.compute()


LABEL_SETS = [("spam", "ham"), ("s", "a-much-longer-label", "mid"), ("yes", "no")]


@pytest.mark.parametrize("labels", LABEL_SETS, ids=lambda t: "-".join(t))
@pytest.mark.parametrize("target_dtype", [str, bytes])
@pytest.mark.parametrize("layout", ["header-only-first", "header-only-last", "tiny"])
def test_string_targets_come_back_whole_with_empty_blocks(
    tmp_path, labels, target_dtype, layout
):
    rng = np.random.RandomState(0)
    rows = [f"{rng.rand():.3f},{labels[k % len(labels)]}\n" for k in range(7)]
    full = tmp_path / "full.csv"
    full.write_text("x,label\n" + "".join(rows))
    empty = tmp_path / "empty.csv"
    empty.write_text("x,label\n")
    if layout == "header-only-first":
        paths, n_partitions = [str(empty), str(full)], None
    elif layout == "header-only-last":
        paths, n_partitions = [str(full), str(empty)], None
    else:  # more partitions than lines: most blocks are empty
        paths, n_partitions = [str(full)], 40
    X, y = read_csv_partitions(
        paths,
        target_column="label",
        target_dtype=target_dtype,
        n_partitions=n_partitions,
    )
    expected = [labels[k % len(labels)] for k in range(7)]
    if target_dtype is bytes:
        expected = [e.encode() for e in expected]
    got = y.compute()
    assert got.dtype == object
    assert list(got) == expected
    assert X.compute().shape == (7, 1)


@pytest.mark.parametrize("header", [True, False])
@pytest.mark.parametrize("line", [1, 2, 4])
def test_bytes_of_another_encoding_name_the_file_and_line(tmp_path, header, line):
    """A byte that is not UTF-8 text, on the first line (the header, or the
    first row read as one) or on a data line, is refused with a ValueError
    naming the file and the line; read with the file's encoding, it loads."""
    head = "a,b,label" if header else "0.5,1.0,spam"
    lines = [head, "1.0,2.0,ham", "3.0,4.0,spam", "5.0,6.0,caf\u00e9"]
    raw = [s.encode("latin-1") for s in lines]
    bad = line - 1
    # (in a column's name, or in a row's label)
    at = 1 if (header and bad == 0) else len(raw[bad]) - 1
    raw[bad] = raw[bad][:at] + b"\xe9" + raw[bad][at:]
    path = tmp_path / "latin.csv"
    path.write_bytes(b"\n".join(raw) + b"\n")
    label = "label" if header else 2
    _refused_at(path, line, target_column=label, header=header, target_dtype=str)
    if line == 1:
        # (a header or a first row that latin-1 reads is read as it is)
        batches = list(
            iter_csv_file(
                str(path),
                target_column=label,
                header=header,
                target_dtype=str,
                encoding="latin-1",
            )
        )
        assert sum(X.shape[0] for X, _ in batches) == 4 - header
