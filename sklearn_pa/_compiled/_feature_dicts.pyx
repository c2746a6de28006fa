"""Token feature dicts to the columns and values of sparse rows, in one
compiled pass (the mapping of :class:`~sklearn_pa.sequence._validation.
FeatureDictMapper`): one dict lookup a feature, no Python-level loop."""

from cpython.float cimport PyFloat_AS_DOUBLE, PyFloat_CheckExact
from cpython.unicode cimport PyUnicode_Check


def map_tokens(list tokens, dict vocab, bint grow, long long[::1] indices,
               double[::1] values, long long[::1] lengths):
    """Write the column and value of every feature of ``tokens`` (a list
    of mappings) into ``indices`` and ``values``, token by token, and each
    token's number of features into ``lengths``.

    A string value ``v`` of feature ``f`` is the feature ``"f=v"`` of value
    1 (a ``str`` subclass too); any other value is the feature ``f``'s own.
    ``vocab`` maps a feature name to its column: with ``grow`` a new name
    takes the next column (``len(vocab)``), else a feature it lacks is left
    out.  ``indices`` and ``values`` hold at least the total number of
    features.  A value that is neither a ``float`` nor a string is written
    as 0 and listed in ``others``.

    Returns ``(n, others)``: the number of features written and the list of
    ``(position, value)`` of the other values, for the caller to convert
    and check.
    """
    cdef Py_ssize_t t, n_tokens = len(tokens), n = 0, start
    cdef list others = []
    # the column of each (name, string value) pair met, by name: a pair
    # met again costs two small lookups and no new string (only for exact
    # str names and values, whose equality means an equal "name=value")
    cdef dict by_name = {}
    cdef object tok, f, v, j, sub, name
    for t in range(n_tokens):
        tok = tokens[t]
        start = n
        items = (<dict>tok).items() if type(tok) is dict else tok.items()
        for f, v in items:
            if PyUnicode_Check(v):
                sub = None
                j = None
                if type(f) is str and type(v) is str:
                    sub = by_name.get(f)
                    if sub is None:
                        sub = by_name[f] = {}
                    j = (<dict>sub).get(v)
                if j is None:
                    name = f"{f}={v}"
                    j = vocab.get(name)
                    if j is None:
                        if grow:
                            j = len(vocab)
                            vocab[name] = j
                        else:
                            j = -1
                    if sub is not None:
                        (<dict>sub)[v] = j
                if j == -1:
                    continue
            else:
                j = vocab.get(f)
                if j is None:
                    if not grow:
                        continue
                    j = len(vocab)
                    vocab[f] = j
            if n >= indices.shape[0]:
                raise ValueError(
                    "a feature dict holds more features than its len() says"
                )
            indices[n] = <long long>j
            if PyUnicode_Check(v):
                values[n] = 1.0
            elif PyFloat_CheckExact(v):
                values[n] = PyFloat_AS_DOUBLE(v)
            else:
                values[n] = 0.0
                others.append((n, v))
            n += 1
        lengths[t] = n - start
    return n, others
