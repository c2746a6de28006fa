"""Structured prediction over sequences: first-order Markov taggers.

``X`` is a list of sequences (each a 2-D array, a sparse matrix, or a list of
feature dicts, one row or dict per token) and ``y`` a list of label sequences,
so scikit-learn's splitters, ``cross_val_score`` and ``GridSearchCV`` split
whole sequences.
"""

from ._conll import chunk_f1, chunking_features, iob_chunks, load_conll2000
from ._structured import StructuredPassiveAggressive, StructuredPerceptron

__all__ = [
    "StructuredPassiveAggressive",
    "StructuredPerceptron",
    "chunk_f1",
    "chunking_features",
    "iob_chunks",
    "load_conll2000",
]
