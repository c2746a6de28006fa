"""CoNLL-2000 chunking: loader, the feature template, chunk F1."""

import zipfile
from pathlib import Path

from sklearn.datasets import get_data_home
from sklearn.utils import Bunch

__all__ = ["chunk_f1", "chunking_features", "iob_chunks", "load_conll2000"]

_CONLL_ZIP = Path("nltk_data") / "corpora" / "conll2000.zip"


def load_conll2000(data_home=None, n_sentences=None):
    """Load the CoNLL-2000 chunking training split (NLTK's ``conll2000.zip``).

    8936 sentences of the Wall Street Journal (211727 tokens), each token
    with its part-of-speech tag and its IOB chunk tag.

    Parameters
    ----------
    data_home : str or path-like, default=None
        Folder holding ``nltk_data/corpora/conll2000.zip`` (an NLTK data tree).
        ``None`` is scikit-learn's :func:`~sklearn.datasets.get_data_home`.
    n_sentences : int, default=None
        Keep only the first ``n_sentences`` sentences.

    Returns
    -------
    data : :class:`~sklearn.utils.Bunch`
        ``sentences``: list of lists of (word, pos) pairs; ``target``: list of
        lists of IOB chunk tags; ``DESCR``: a description.

    Examples
    --------
    >>> from sklearn_pa.sequence import load_conll2000
    >>> data = load_conll2000("/path/to/data")  # doctest: +SKIP
    >>> data.sentences[0][0], data.target[0][0]  # doctest: +SKIP
    (('Confidence', 'NN'), 'B-NP')
    """
    home = Path(get_data_home() if data_home is None else data_home)
    path = home / _CONLL_ZIP
    if not path.is_file():
        raise FileNotFoundError(
            f"{path} not found: put NLTK's conll2000.zip (the nltk_data package "
            "'conll2000') there, e.g. with nltk.download('conll2000', "
            f"download_dir='{home / 'nltk_data'}'), or pass data_home=."
        )
    with zipfile.ZipFile(path) as archive:
        text = archive.read("conll2000/train.txt").decode("ascii")
    sentences, target = [], []
    for block in text.strip().split("\n\n"):
        rows = [line.split() for line in block.splitlines() if line.strip()]
        if not rows:
            continue
        sentences.append([(word, pos) for word, pos, _ in rows])
        target.append([chunk for _, _, chunk in rows])
        if n_sentences is not None and len(sentences) >= n_sentences:
            break
    return Bunch(
        sentences=sentences,
        target=target,
        DESCR=(
            "CoNLL-2000 chunking shared task, training split (WSJ sections "
            "15-18): words, POS tags and IOB chunk tags."
        ),
    )


def chunking_features(sentence):
    """The chunking feature template: one feature dict per token.

    For token ``i`` (with ``w`` the words, ``p`` the POS tags, padded with
    ``<s>`` / ``</s>``): a bias; the word, its lowercase form, its 2- and
    3-letter suffixes, whether it is capitalised or a number; the words
    ``w[i-2] .. w[i+2]``, the word bigrams ``w[i-1]|w[i]`` and ``w[i]|w[i+1]``;
    the tags ``p[i-2] .. p[i+2]``, the tag bigrams ``p[i-2]|p[i-1]``,
    ``p[i-1]|p[i]``, ``p[i]|p[i+1]``, ``p[i+1]|p[i+2]``.  String values
    become one-hot ``name=value`` features under
    :class:`~sklearn.feature_extraction.DictVectorizer` and CRFsuite alike.

    Parameters
    ----------
    sentence : list of (word, pos) pairs
        One sentence.

    Returns
    -------
    features : list of dict
        One dict per token.

    Examples
    --------
    >>> from sklearn_pa.sequence import chunking_features
    >>> feats = chunking_features([("He", "PRP"), ("reckons", "VBZ")])
    >>> feats[1]["w[0]"], feats[1]["p[-1]|p[0]"], feats[1]["suf3"]
    ('reckons', 'PRP|VBZ', 'ons')
    """
    words = ["<s2>", "<s1>"] + [w for w, _ in sentence] + ["</s1>", "</s2>"]
    tags = ["<s2>", "<s1>"] + [p for _, p in sentence] + ["</s1>", "</s2>"]
    out = []
    for i in range(2, len(sentence) + 2):
        word = words[i]
        f = {
            "bias": 1.0,
            "lower": word.lower(),
            "suf2": word[-2:],
            "suf3": word[-3:],
            "istitle": float(word.istitle()),
            "isdigit": float(word.isdigit()),
            "w[-1]|w[0]": f"{words[i - 1]}|{word}",
            "w[0]|w[1]": f"{word}|{words[i + 1]}",
            "p[-2]|p[-1]": f"{tags[i - 2]}|{tags[i - 1]}",
            "p[-1]|p[0]": f"{tags[i - 1]}|{tags[i]}",
            "p[0]|p[1]": f"{tags[i]}|{tags[i + 1]}",
            "p[1]|p[2]": f"{tags[i + 1]}|{tags[i + 2]}",
        }
        for d in (-2, -1, 0, 1, 2):
            f[f"w[{d}]"] = words[i + d]
            f[f"p[{d}]"] = tags[i + d]
        out.append(f)
    return out


def iob_chunks(tags):
    """The chunks of an IOB tag sequence, as ``(type, start, end)`` (end
    exclusive), with the CoNLL evaluation's reading: a chunk starts at
    ``B-X``, or at ``I-X`` after ``O`` or a chunk of another type.

    Parameters
    ----------
    tags : sequence of str
        IOB tags such as ``B-NP``, ``I-NP``, ``O``.

    Returns
    -------
    chunks : list of tuple
        ``(type, start, end)`` per chunk.

    Examples
    --------
    >>> from sklearn_pa.sequence import iob_chunks
    >>> iob_chunks(["B-NP", "I-NP", "B-VP", "O", "I-NP"])
    [('NP', 0, 2), ('VP', 2, 3), ('NP', 4, 5)]
    """
    chunks = []
    kind, begin = None, 0
    for i, tag in enumerate(list(tags) + ["O"]):
        tag = str(tag)
        prefix, _, typ = tag.partition("-")
        starts = prefix == "B" or (prefix == "I" and typ != kind)
        ends = kind is not None and (prefix in ("B", "O") or typ != kind or starts)
        if ends:
            chunks.append((kind, begin, i))
            kind = None
        if starts:
            kind, begin = typ, i
    return chunks


def chunk_f1(y_true, y_pred):
    """Chunk-level F1 (the CoNLL-2000 measure) over sequences of IOB tags.

    Parameters
    ----------
    y_true, y_pred : list of sequences of str
        True and predicted IOB tags, sequence by sequence.

    Returns
    -------
    f1 : float
        Harmonic mean of chunk precision and recall (exact span and type).

    Examples
    --------
    >>> from sklearn_pa.sequence import chunk_f1
    >>> chunk_f1([["B-NP", "I-NP", "B-VP"]], [["B-NP", "I-NP", "B-NP"]])
    0.5
    """
    n_true = n_pred = n_correct = 0
    for t, p in zip(y_true, y_pred, strict=True):
        ct, cp = set(iob_chunks(t)), set(iob_chunks(p))
        n_true += len(ct)
        n_pred += len(cp)
        n_correct += len(ct & cp)
    if n_correct == 0:
        return 0.0
    precision, recall = n_correct / n_pred, n_correct / n_true
    return 2 * precision * recall / (precision + recall)
