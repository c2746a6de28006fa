"""The compiled mapping of token feature dicts to sparse rows
(``FeatureDictMapper``) gives the matrix, the vocabulary and the errors of
the plain Python mapping it replaces, transcribed here as the reference."""

import re
from collections import OrderedDict
from collections.abc import Mapping

import numpy as np
import pytest
import scipy.sparse as sp

from sklearn_pa.sequence._validation import FeatureDictMapper


def _reference(tokens, vocab, grow):
    """One token and one feature at a time, as DictVectorizer reads them."""
    indices, values = [], []
    indptr = np.zeros(len(tokens) + 1, dtype=np.int64)
    for n, tok in enumerate(tokens):
        for f, v in tok.items():
            if isinstance(v, str):
                f = f"{f}={v}"
                v = 1.0
            j = vocab.get(f)
            if j is None:
                if not grow:
                    continue
                j = vocab[f] = len(vocab)
            indices.append(j)
            values.append(v)
        indptr[n + 1] = len(indices)
    if any(isinstance(v, (complex, np.complexfloating)) for v in values):
        raise ValueError("Complex data not supported")
    raw = values
    try:
        values = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError, OverflowError) as exc:
        raise ValueError(f"must be numbers or strings: {exc}") from exc
    if values.size and not np.all(np.isfinite(values)):
        bad = int(np.flatnonzero(~np.isfinite(values))[0])
        name = next(f for f, j in vocab.items() if j == indices[bad])
        raise ValueError(f"Feature {name!r} has the value {raw[bad]!r}")
    X = sp.csr_matrix(
        (values, np.asarray(indices, dtype=np.int64), indptr),
        shape=(len(tokens), len(vocab)),
    )
    X.sum_duplicates()
    return X


def _same(a, b):
    assert a.shape == b.shape
    for name in ("data", "indices", "indptr"):
        got, want = getattr(a, name), getattr(b, name)
        assert got.dtype == want.dtype, name
        np.testing.assert_array_equal(got, want)


def _random_tokens(rng, n_tokens, kinds):
    words = ["a", "b", "c=d", "e", np.str_("a"), "ü"]
    tokens = []
    for _ in range(n_tokens):
        tok = {"bias": 1.0}
        for _ in range(rng.randint(0, 6)):
            name = f"f{rng.randint(8)}"
            kind = kinds[rng.randint(len(kinds))]
            if kind == "str":
                tok[name] = words[rng.randint(len(words))]
            elif kind == "float":
                tok[name] = float(rng.normal())
            elif kind == "int":
                tok[name] = int(rng.randint(-3, 4))
            elif kind == "bool":
                tok[name] = bool(rng.randint(2))
            elif kind == "float32":
                tok[name] = np.float32(rng.normal())
        if rng.randint(4) == 0:
            tok["c"] = 2.0  # the numeric feature named like "c=d"'s prefix
            tok["c=d"] = 3.0  # the same column as c="d"
        tokens.append(tok)
    return tokens


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize(
    "kinds", [("str", "float"), ("str", "float", "int", "bool", "float32")]
)
def test_matrix_and_vocabulary_are_the_reference_ones(seed, kinds):
    rng = np.random.RandomState(seed)
    tokens = _random_tokens(rng, 50, kinds)
    mapper = FeatureDictMapper()
    got = mapper.fit_transform(tokens)
    vocab = {}
    _same(got, _reference(tokens, vocab, grow=True))
    assert list(mapper.vocabulary_.items()) == list(vocab.items())
    # unseen features (and their values) are left out of transform
    other = _random_tokens(np.random.RandomState(seed + 100), 30, kinds)
    other.append({"unseen": float("nan"), "also": 1j, "f0": "new"})
    _same(mapper.transform(other), _reference(other, dict(vocab), grow=False))
    assert list(mapper.vocabulary_.items()) == list(vocab.items())


class _Lying(Mapping):
    """A mapping whose len() says less than it holds."""

    def __init__(self, items):
        self._items = dict(items)

    def __getitem__(self, key):
        return self._items[key]

    def __iter__(self):
        return iter(self._items)

    def __len__(self):
        return 0


def test_other_mappings_are_read_in_their_own_order():
    tok = OrderedDict([("x", 1.0), ("y", "v"), ("z", 2.0)])
    tok.move_to_end("x")
    plain = {"q": 4.0, "y": "w"}
    tokens = [tok, plain]
    vocab = {}
    mapper = FeatureDictMapper()
    _same(mapper.fit_transform(tokens), _reference(tokens, vocab, grow=True))
    assert list(mapper.vocabulary_) == list(vocab) == ["y=v", "z", "x", "q", "y=w"]
    with pytest.raises(ValueError, match="more features than its len"):
        FeatureDictMapper().fit_transform([_Lying({"a": 1.0})])


@pytest.mark.parametrize(
    "value, message",
    [
        (1j, "Complex data not supported"),
        (np.complex128(1 + 2j), "Complex data not supported"),
        (None, "has the value None"),
        ([1.0, 2.0], "must be numbers or strings"),
        (float("nan"), "has the value nan"),
        # (the scalar's repr: np.float32(inf) from numpy 2, inf before)
        (np.float32("inf"), "has the value " + re.escape(repr(np.float32("inf")))),
        (-np.inf, "has the value -inf"),
    ],
)
@pytest.mark.parametrize("position", [0, 3])
def test_bad_values_give_the_reference_errors(value, message, position):
    tokens = [{"bias": 1.0, "w": "x", "n": 2.0} for _ in range(5)]
    tokens[position] = dict(tokens[position], bad=value)
    with pytest.raises(ValueError, match=message) as reference:
        _reference(tokens, {}, grow=True)
    with pytest.raises(ValueError) as got:
        FeatureDictMapper().fit_transform(tokens)
    text = str(got.value)
    if "Complex" in message:
        assert text.startswith("Complex data not supported")
    elif "numbers or strings" in message:
        assert "must be numbers or strings" in text
    else:
        want = str(reference.value).split("; ")[0]
        assert text.startswith(want + ";")
