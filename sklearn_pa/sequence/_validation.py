"""Turning a list of sequences into one token matrix plus sentence offsets."""

from collections.abc import Mapping

import numpy as np
import scipy.sparse as sp
from sklearn.utils.validation import check_array

from .._compiled import _feature_dicts, _sequence_batch
from .._core.batch import canonical_csr, check_csr_structure

__all__ = [
    "FeatureDictMapper",
    "SequenceBatch",
    "encode_labels",
    "stack_labels",
    "stack_sequences",
]


class FeatureDictMapper:
    """Map token feature dicts to sparse rows, as
    :class:`~sklearn.feature_extraction.DictVectorizer` does (a string value
    ``v`` of feature ``f`` is the one-hot feature ``"f=v"``, a number its own
    value) in a single pass; features unseen at fit time are ignored.

    Attributes
    ----------
    vocabulary_ : dict
        Feature name to column index, in order of first appearance.
    """

    def __setstate__(self, state):
        """A saved vocabulary, checked: feature names to the column indices
        ``0, 1, ...`` in order (a damaged or edited file is refused)."""
        vocabulary = state.get("vocabulary_", {}) if isinstance(state, dict) else None
        if (
            not isinstance(vocabulary, dict)
            or not all(isinstance(key, str) for key in vocabulary)
            or [type(v) for v in vocabulary.values()].count(int) != len(vocabulary)
            or sorted(vocabulary.values()) != list(range(len(vocabulary)))
        ):
            raise ValueError(
                "The saved feature vocabulary of a tagger is not a dict from "
                "feature names to the column indices 0, 1, ...: the file was "
                "damaged or edited. Load another copy, or fit the model again."
            )
        self.__dict__.update(state)

    def fit_transform(self, tokens):
        self.vocabulary_ = {}
        return self._transform(tokens, grow=True)

    def transform(self, tokens):
        return self._transform(tokens, grow=False)

    @property
    def feature_names_(self):
        return list(self.vocabulary_)

    def _transform(self, tokens, grow):
        vocab = self.vocabulary_
        tokens = list(tokens)
        total = sum(map(len, tokens))
        indices = np.empty(total, dtype=np.int64)
        values = np.empty(total, dtype=np.float64)
        lengths = np.empty(len(tokens), dtype=np.int64)
        # (compiled: one lookup a feature; a value that is not a float or a
        # string is handed back, to be converted and checked here)
        n, others = _feature_dicts.map_tokens(
            tokens, vocab, grow, indices, values, lengths
        )
        indices, values = indices[:n], values[:n]
        raw = None
        if others:
            raw = values.tolist()
            for position, value in others:
                raw[position] = value
        values = _feature_values(values if raw is None else raw, indices, vocab)
        indptr = np.zeros(len(tokens) + 1, dtype=np.int64)
        np.cumsum(lengths, out=indptr[1:])
        X = sp.csr_matrix((values, indices, indptr), shape=(len(tokens), len(vocab)))
        X.sum_duplicates()
        return X


def _feature_values(raw, indices, vocab):
    """The float64 array of the feature values ``raw`` (a float64 array, or
    a list of the values as given; column ``indices`` of ``vocab``),
    refused when one is complex, not a number or not finite.

    A list of real numbers is one conversion; anything else takes the
    check of each value, which says what is wrong."""
    if isinstance(raw, np.ndarray):
        values = raw
    else:
        try:
            values = np.asarray(raw)
        except (TypeError, ValueError, OverflowError):
            values = None
        if values is not None and values.dtype.kind == "c":
            raise ValueError(_COMPLEX_VALUES)
        if values is None or values.ndim != 1 or values.dtype.kind not in "biuf":
            if any(isinstance(v, (complex, np.complexfloating)) for v in raw):
                raise ValueError(_COMPLEX_VALUES)
            try:
                values = np.asarray(raw, dtype=np.float64)
            except (TypeError, ValueError, OverflowError) as exc:
                raise ValueError(
                    "Feature dict values must be numbers or strings (a string "
                    f"value becomes a one-hot 'name=value' feature): {exc}"
                ) from exc
        else:
            values = values.astype(np.float64, copy=False)
    if values.size and not np.all(np.isfinite(values)):
        bad = int(np.flatnonzero(~np.isfinite(values))[0])
        name = next(f for f, j in vocab.items() if j == indices[bad])
        shown = raw[bad] if not isinstance(raw, np.ndarray) else float(raw[bad])
        raise ValueError(
            f"Feature {name!r} has the value {shown!r}; feature values "
            "must be finite numbers or strings (leave a missing feature "
            "out of its dict)."
        )
    return values


_COMPLEX_VALUES = (
    "Complex data not supported: a feature dict holds a complex "
    "value. Pass real feature values."
)


class SequenceBatch:
    """Every token of a batch of sequences as the rows of one matrix.

    ``data, indices, indptr`` is the kernel's row view (a dense matrix passes
    its flat data, ``arange(n_features)`` as indices and an empty indptr);
    sentence ``s`` owns rows ``offsets[s]:offsets[s + 1]``.
    """

    def __init__(self, X, offsets):
        self.offsets = offsets
        self.n_tokens = int(offsets[-1])
        self.n_features = X.shape[1]
        if sp.issparse(X):
            # duplicates summed (refused if they sum to infinity), indices
            # sorted (sparse dot products)
            X = canonical_csr(sp.csr_matrix(X))
            self.dense = False
            index_dtype = X.indices.dtype
            data = np.ascontiguousarray(X.data, dtype=np.float64)
            indices = np.ascontiguousarray(X.indices)
            if data.size == 0:  # keep a valid pointer for the kernel
                data = np.zeros(1)
                indices = np.zeros(1, dtype=index_dtype)
            self.data, self.indices = data, indices
            self.indptr = np.ascontiguousarray(X.indptr, dtype=index_dtype)
        else:
            X = np.ascontiguousarray(X, dtype=np.float64)
            self.dense = True
            self.data = X.reshape(-1) if X.size else np.zeros(1)
            self.indices = np.arange(max(self.n_features, 1), dtype=np.int32)
            self.indptr = np.zeros(0, dtype=np.int32)

    @classmethod
    def from_canonical_rows(cls, values, columns, row_starts, offsets, n_features):
        """The batch of canonical CSR rows (float64 ``values``, int32
        ``columns`` sorted and unique within each row, int32 ``row_starts``)
        made by :func:`~sklearn_pa._compiled._sequence_batch.map_sentences`,
        taken as they are: what ``SequenceBatch(csr_matrix, offsets)``
        makes of the same matrix, without scipy's checks and copies."""
        batch = cls.__new__(cls)
        batch.offsets = offsets
        batch.n_tokens = int(offsets[-1])
        batch.n_features = n_features
        batch.dense = False
        if values.size == 0:  # keep a valid pointer for the kernel
            values = np.zeros(1)
            columns = np.zeros(1, dtype=np.int32)
        batch.data, batch.indices, batch.indptr = values, columns, row_starts
        return batch


def _sequence_kind(seq):
    if sp.issparse(seq):
        return "sparse"
    if isinstance(seq, (list, tuple)) and (
        len(seq) == 0 or isinstance(seq[0], Mapping)
    ):
        return "dicts"
    return "array"


def stack_sequences(X, vectorizer=None, fit_vectorizer=False):
    """Validate ``X`` (a list of sequences) and stack its tokens.

    Returns ``(batch, vectorizer)``; ``vectorizer`` is the fitted
    :class:`FeatureDictMapper` when the sequences are lists of feature dicts
    (fitted here when ``fit_vectorizer``), else None.
    """
    if isinstance(X, np.ndarray) and X.dtype != object:
        raise ValueError(
            "X must be a list of sequences (each a 2-D array, a sparse matrix or "
            "a list of feature dicts, one row or dict per token), got a "
            f"{X.ndim}-D array of shape {X.shape}; wrap a single sequence as [X]."
        )
    if sp.issparse(X) or isinstance(X, (str, bytes, Mapping)):
        raise ValueError(
            "X must be a list of sequences, not a single matrix; wrap one "
            "sequence as [X]."
        )
    try:
        X = list(X)
    except TypeError as exc:
        raise ValueError(
            f"X must be a list of sequences, got {type(X).__name__}."
        ) from exc
    if len(X) == 0:
        raise ValueError("X holds no sequence; pass at least one.")
    fast = _map_dict_sentences(X, vectorizer, fit_vectorizer)
    if fast is not None:
        return fast
    kinds = {_sequence_kind(seq) for seq in X}
    lengths = np.empty(len(X), dtype=np.int64)
    if kinds == {"dicts"}:
        tokens = []
        for i, seq in enumerate(X):
            if not all(isinstance(tok, Mapping) for tok in seq):
                raise ValueError(
                    f"sequence {i} mixes feature dicts with other items; every "
                    "token of a list-of-dicts sequence must be a dict."
                )
            lengths[i] = len(seq)
            tokens.extend(seq)
        if fit_vectorizer:
            if not tokens:
                raise ValueError("X holds no token; pass non-empty sequences.")
            vectorizer = FeatureDictMapper()
            Xs = vectorizer.fit_transform(tokens)
        else:
            if vectorizer is None:
                raise ValueError(
                    "this estimator was fitted on arrays, not on feature dicts; "
                    "pass X in the form it was fitted on."
                )
            Xs = vectorizer.transform(tokens)
    elif "dicts" in kinds:
        raise ValueError(
            "X mixes sequences of feature dicts with arrays; pass one kind only."
        )
    else:
        if vectorizer is not None and not fit_vectorizer:
            raise ValueError(
                "this estimator was fitted on sequences of feature dicts; pass "
                "X in that form."
            )
        vectorizer = None
        mats = []
        for i, seq in enumerate(X):
            if sp.issparse(seq):
                try:
                    mat = check_csr_structure(seq)
                except ValueError as exc:
                    raise ValueError(f"sequence {i}: {exc}") from None
            else:
                mat = np.asarray(seq)
                if mat.ndim != 2:
                    raise ValueError(
                        f"sequence {i} must be 2-D (n_tokens, n_features), got "
                        f"shape {mat.shape}; reshape a 1-D feature vector per "
                        "token into rows."
                    )
            if np.iscomplexobj(mat):
                raise ValueError(
                    f"Complex data not supported: sequence {i} holds complex "
                    "values. Pass real features (e.g. the real and imaginary "
                    "parts as separate columns)."
                )
            if mats and mat.shape[1] != mats[0].shape[1]:
                raise ValueError(
                    f"sequence {i} has {mat.shape[1]} features, sequence 0 has "
                    f"{mats[0].shape[1]}; every token needs the same features."
                )
            lengths[i] = mat.shape[0]
            mats.append(mat)
        if kinds == {"array"}:
            Xs = np.concatenate([np.asarray(m, dtype=np.float64) for m in mats])
        else:
            Xs = sp.vstack([sp.csr_matrix(m) for m in mats], format="csr")
        Xs = check_array(
            Xs,
            accept_sparse="csr",
            dtype=np.float64,
            ensure_min_samples=0,
            input_name="X",
        )
    offsets = np.zeros(len(X) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    return SequenceBatch(Xs, offsets), vectorizer


def _map_dict_sentences(X, vectorizer, fit_vectorizer):
    """``(batch, vectorizer)`` of ``X`` (a list) through the compiled pass
    over its feature dicts when every sentence is a list (or tuple) of
    ``dict`` tokens with ``str`` and ``float`` values, else None (the
    general path of :func:`stack_sequences`, whose results are the same)."""
    if fit_vectorizer:
        vectorizer = FeatureDictMapper()
        vectorizer.vocabulary_ = {}
    elif not (
        type(vectorizer) is FeatureDictMapper
        and type(vectorizer.__dict__.get("vocabulary_")) is dict
    ):
        return None
    vocab = vectorizer.vocabulary_
    mapped = _sequence_batch.map_sentences(X, vocab, fit_vectorizer)
    if mapped is None:
        return None
    values, columns, row_starts, offsets = mapped
    batch = SequenceBatch.from_canonical_rows(
        values, columns, row_starts, offsets, len(vocab)
    )
    return batch, vectorizer


def encode_labels(y, offsets, classes=None):
    """``(classes, codes)`` of the label sequences ``y`` through the
    compiled pass, when ``y`` is a list of lists (or tuples) of ``str``
    labels, one per token of ``offsets``: ``classes`` sorted (the fitted
    ones when given) and the int32 code of every token's label in it, what
    :func:`stack_labels`, ``np.unique`` and ``searchsorted`` give.  None
    for any other ``y`` (or a label not in ``classes``): the general path
    then says what is wrong."""
    if type(y) is not list:
        return None
    index = None
    if classes is not None:
        if not (isinstance(classes, np.ndarray) and classes.dtype.kind == "U"):
            return None
        listed = classes.tolist()
        if any(a >= b for a, b in zip(listed, listed[1:])):
            return None  # (not the sorted, unique classes searchsorted reads)
        index = {label: code for code, label in enumerate(listed)}
    encoded = _sequence_batch.encode_str_labels(y, offsets, index)
    if encoded is None:
        return None
    codes, seen = encoded
    if classes is not None:
        return classes, codes
    labels = sorted(seen)
    # (NumPy's strings drop trailing NULs: such labels take the general path)
    if any(label.endswith("\x00") for label in labels):
        return None
    rank = np.empty(len(labels), dtype=np.int32)
    for position, label in enumerate(labels):
        rank[seen[label]] = position
    return np.array(labels), rank[codes]


def stack_labels(y, offsets, n_sequences):
    """All labels of ``y`` (a list of label sequences) in one 1-D array."""
    if isinstance(y, str) or (isinstance(y, np.ndarray) and y.dtype != object):
        if not (isinstance(y, np.ndarray) and y.ndim == 2):
            raise ValueError(
                "y must be a list of label sequences, one per sequence of X."
            )
    y = list(y)
    if len(y) != n_sequences:
        raise ValueError(
            f"X has {n_sequences} sequences but y has {len(y)}; pass one label "
            "sequence per sequence."
        )
    parts = []
    for i, yi in enumerate(y):
        yi = _label_sequence(yi, i)
        if yi.ndim != 1:
            raise ValueError(f"label sequence {i} must be 1-D, got shape {yi.shape}.")
        if yi.shape[0] != offsets[i + 1] - offsets[i]:
            raise ValueError(
                f"sequence {i} has {offsets[i + 1] - offsets[i]} tokens but "
                f"{yi.shape[0]} labels; pass one label per token."
            )
        parts.append(yi)
    if len({p.dtype.kind in "US" for p in parts if p.size}) > 1:
        raise ValueError(
            "y mixes label sequences of strings and of numbers; use one type "
            "for every label."
        )
    flat = np.concatenate(parts) if parts else np.empty(0)
    if flat.dtype.kind == "f" and not np.all(np.isfinite(flat)):
        raise ValueError("y contains NaN or infinity; labels must be finite.")
    return flat


def _label_sequence(yi, i):
    """Label sequence ``i`` as a 1-D array, refused when it holds None or
    NaN, or mixes strings with numbers (numpy would turn them all into
    strings: 1 into '1', NaN into 'nan')."""
    array = np.asarray(yi)
    if array.dtype.kind in "OU" and not (
        isinstance(yi, np.ndarray) and array.dtype.kind == "U"
    ):
        values = array.tolist() if isinstance(yi, np.ndarray) else list(yi)
        types = set(map(type, values))
        if not types <= {str, np.str_}:
            for v in values:
                if v is None or (isinstance(v, float) and v != v):
                    raise ValueError(
                        f"label sequence {i} holds {v!r}; every token needs a "
                        "label (NaN and None are not labels)."
                    )
            if any(issubclass(t, str) for t in types):
                raise ValueError(
                    f"label sequence {i} mixes strings and numbers "
                    f"({sorted(t.__name__ for t in types)}); use one type for "
                    "every label."
                )
    return array
