"""Turning a list of sequences into one token matrix plus sentence offsets."""

from collections.abc import Mapping

import numpy as np
import scipy.sparse as sp
from sklearn.utils.validation import check_array

from .._validation import canonical_csr, check_csr_structure

__all__ = ["FeatureDictMapper", "SequenceBatch", "stack_sequences"]


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
        indices, values = [], []
        indptr = np.zeros(len(tokens) + 1, dtype=np.int64)
        append_i, append_v = indices.append, values.append
        for n, tok in enumerate(tokens):
            for f, v in tok.items():
                if type(v) is str:
                    f = f"{f}={v}"
                    v = 1.0
                j = vocab.get(f)
                if j is None:
                    if not grow:
                        continue
                    j = vocab[f] = len(vocab)
                append_i(j)
                append_v(v)
            indptr[n + 1] = len(indices)
        if any(isinstance(v, (complex, np.complexfloating)) for v in values):
            raise ValueError(
                "Complex data not supported: a feature dict holds a complex "
                "value. Pass real feature values."
            )
        try:
            values = np.asarray(values, dtype=np.float64)
        except (TypeError, ValueError) as exc:
            raise ValueError(
                "Feature dict values must be numbers or strings (a string "
                f"value becomes a one-hot 'name=value' feature): {exc}"
            ) from exc
        if values.size and not np.all(np.isfinite(values)):
            raise ValueError(
                "X contains NaN or infinity in a feature value; features must be "
                "finite."
            )
        X = sp.csr_matrix(
            (values, np.asarray(indices, dtype=np.int64), indptr),
            shape=(len(tokens), len(vocab)),
        )
        X.sum_duplicates()
        return X


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
        yi = np.asarray(yi)
        if yi.ndim != 1:
            raise ValueError(f"label sequence {i} must be 1-D, got shape {yi.shape}.")
        if yi.shape[0] != offsets[i + 1] - offsets[i]:
            raise ValueError(
                f"sequence {i} has {offsets[i + 1] - offsets[i]} tokens but "
                f"{yi.shape[0]} labels; pass one label per token."
            )
        parts.append(yi)
    flat = np.concatenate(parts) if parts else np.empty(0)
    if flat.dtype.kind == "f" and not np.all(np.isfinite(flat)):
        raise ValueError("y contains NaN or infinity; labels must be finite.")
    return flat
