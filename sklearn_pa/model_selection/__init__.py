"""Progressive (prequential) validation of online learners, and the search
of a learning rate on it.

Each sample of a stream is first predicted by the model learned from the
samples before it, then learned: the online evaluation of the online
learning literature (cumulative loss, online mistakes), and river's
``evaluate.progressive_val_score``.  Every prediction is made on a sample
the model has not seen, so the whole stream is a test set and a training set
at once.
"""

from ._learning_rate import search_learning_rate
from ._predict import progressive_val_predict
from ._score import progressive_val_score

__all__ = [
    "progressive_val_predict",
    "progressive_val_score",
    "search_learning_rate",
]
