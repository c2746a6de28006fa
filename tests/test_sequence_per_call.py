"""A sequence tagger's later ``partial_fit`` on one sentence costs what that
sentence costs, and the compiled one-time passes of a fit give the batch of
the general path.

As ``test_per_call.py`` does for the linear learners: on a model of many
features, a one-sentence ``partial_fit`` must neither check, copy nor scan
the learned arrays, nor validate unchanged parameters again, nor allocate
more than a small fraction of the model; it must give the model of the full
path bit for bit; and a call that fails, even after the kernel pass, leaves
every learned array bit-identical.  No timings here (see the ``conll2000``
benchmark): these tests count forbidden calls and allocations.
"""

import copy
import tracemalloc

import numpy as np
import pytest
from test_robustness import _assert_same

from sklearn_pa import StructuredPassiveAggressive, StructuredPerceptron
from sklearn_pa.sequence import _base as sequence_base
from sklearn_pa.sequence import _validation as sequence_validation

TAGGERS = [
    ("perceptron averaged", lambda: StructuredPerceptron(random_state=0)),
    (
        "perceptron unaveraged",
        lambda: StructuredPerceptron(average=False, random_state=0),
    ),
    ("PA averaged", lambda: StructuredPassiveAggressive(random_state=0)),
    (
        "k-best MIRA with a cost",
        lambda: StructuredPassiveAggressive(
            k_best=2, average=False, cost=1 - np.eye(3), random_state=0
        ),
    ),
]
IDS = [name for name, _ in TAGGERS]
LABELS = np.array(["B", "I", "O"])


def _sentences(n_sentences, seed=0, n_words=40_000):
    """Sentences of feature dicts whose features are mostly rare: a model
    of many features (40 string features and a float a token)."""
    rng = np.random.RandomState(seed)
    X, y = [], []
    for _ in range(n_sentences):
        length = rng.randint(3, 9)
        tokens = []
        for _ in range(length):
            words = rng.randint(n_words, size=40)
            token = {f"f{k}": f"w{w}" for k, w in enumerate(words)}
            token["bias"] = 1.0
            tokens.append(token)
        X.append(tokens)
        y.append(LABELS[rng.randint(3, size=length)].tolist())
    return X, y


def _started(factory, X, y):
    est = factory()
    est.partial_fit(X[:300], y[:300], classes=LABELS)
    est.partial_fit(X[300:310], y[300:310])  # a later call: the record is set
    return est


def _state(values):
    """An estimator's attributes, its feature mapper as its vocabulary."""
    values = dict(values)
    values["vectorizer_"] = dict(values["vectorizer_"].vocabulary_)
    return values


def _model_bytes(est):
    return max(
        value.nbytes for value in est.__dict__.values() if isinstance(value, np.ndarray)
    )


@pytest.mark.parametrize("name, factory", TAGGERS, ids=IDS)
def test_one_sentence_partial_fit_does_no_work_proportional_to_the_model(
    name, factory, monkeypatch
):
    """A one-sentence ``partial_fit`` on a model of ~100,000 features: no
    check of the learned arrays (``check_state_array``, the public weights
    decoded), no publication of them (an average is computed when read),
    no scikit-learn parameter validation, and an allocation peak far below
    the model (a copy, a finiteness mask or an average of the weights, or a
    rebuilt vocabulary, would allocate about all of it)."""
    X, y = _sentences(340)
    est = _started(factory, X, y)
    model = _model_bytes(est)
    assert est.n_features_in_ > 50_000 and model >= 50_000 * 3 * 8

    def forbidden(*args, **kwargs):
        raise AssertionError("O(model) work on the per-call path")

    monkeypatch.setattr(sequence_base, "check_state_array", forbidden)
    for method in (
        "_decode_weights",
        "_continue_from_public",
        "_set_public",
        "_validate_params",
    ):
        monkeypatch.setattr(type(est), method, forbidden)
    # the parameters' own check (the cost matrix) is not run again either
    monkeypatch.setattr(type(est), "_check_params", forbidden)
    tracemalloc.start()
    try:
        for i in range(310, 330):
            tracemalloc.reset_peak()
            est.partial_fit(X[i : i + 1], y[i : i + 1])
            peak = tracemalloc.get_traced_memory()[1]
            assert peak < model / 20, (peak, model)
    finally:
        tracemalloc.stop()
    monkeypatch.undo()
    # the averaged weights are computed when read, and are the average
    coef = est.coef_
    if est.average:
        expected = (est._W - est._U / est.t_).T
        np.testing.assert_array_equal(coef, expected)


@pytest.mark.parametrize("name, factory", TAGGERS, ids=IDS)
def test_the_lean_path_gives_the_full_paths_model(name, factory, monkeypatch):
    """A stream of one-sentence calls gives bit for bit the model of the
    same stream through the full checks (the public weights decoded and
    continued from on every call)."""
    X, y = _sentences(360, n_words=3000)
    lean = _started(factory, X, y)
    full = copy.deepcopy(lean)
    for i in range(310, 340):
        lean.partial_fit(X[i : i + 1], y[i : i + 1])
        with monkeypatch.context() as m:
            m.setattr(type(full), "_trusted_state", lambda self: False)
            full.partial_fit(X[i : i + 1], y[i : i + 1])
            full.coef_  # noqa: B018 (published on every call)
    for attr in ("coef_", "transitions_", "start_transitions_", "end_transitions_"):
        np.testing.assert_array_equal(getattr(lean, attr), getattr(full, attr))
    assert lean.t_ == full.t_ and lean.n_updates_ == full.n_updates_
    assert [p.tolist() for p in lean.predict(X[340:])] == [
        p.tolist() for p in full.predict(X[340:])
    ]


@pytest.mark.parametrize("name, factory", TAGGERS, ids=IDS)
@pytest.mark.parametrize("failure", ["interrupt", "bad label"])
def test_a_failing_one_sentence_partial_fit_leaves_the_model_bit_identical(
    name, factory, failure, monkeypatch
):
    """A ``KeyboardInterrupt`` raised right after the kernel pass of a
    one-sentence call (the journal writes back the rows of its features),
    or a sentence refused by the checks, leaves every learned array and
    attribute bit-identical, and the stream goes on as if the call never
    happened."""
    X, y = _sentences(340)
    est = _started(factory, X, y)
    est.coef_  # noqa: B018 (a publication, not left pending)
    before = _state(copy.deepcopy(est.__dict__))
    if failure == "interrupt":
        run_epochs = sequence_base.run_epochs

        def interrupted(estimator, adapter, **kwargs):
            run_epochs(estimator, adapter, **kwargs)
            raise KeyboardInterrupt

        monkeypatch.setattr(sequence_base, "run_epochs", interrupted)
        with pytest.raises(KeyboardInterrupt):
            est.partial_fit(X[320:321], y[320:321])
        monkeypatch.undo()
    else:
        with pytest.raises(ValueError, match="not in classes"):
            est.partial_fit(X[320:321], [["B"] * (len(y[320]) - 1) + ["Z"]])
    _assert_same(_state(est.__dict__), before)
    twin = copy.deepcopy(est)
    est.partial_fit(X[321:323], y[321:323])
    twin.partial_fit(X[321:323], y[321:323])
    _assert_same(_state(est.__dict__), _state(twin.__dict__))


def test_a_parameter_changed_between_calls_is_validated_again():
    """The lean path trusts the parameters of the last validated call only:
    one set (or changed in place) since is validated again, and refused
    before anything moves."""
    X, y = _sentences(320, n_words=500)
    est = _started(
        lambda: StructuredPassiveAggressive(cost=1 - np.eye(3), random_state=0), X, y
    )
    before = _state(copy.deepcopy(est.__dict__))
    est.set_params(C=-1.0)
    with pytest.raises(ValueError, match="C"):
        est.partial_fit(X[310:311], y[310:311])
    est.set_params(C=1.0)
    est.cost[0, 1] = -1.0  # in place
    with pytest.raises(ValueError, match="negative"):
        est.partial_fit(X[310:311], y[310:311])
    before["cost"] = est.cost
    _assert_same(_state(est.__dict__), before)


def test_assigned_weights_are_checked_and_continued_from():
    """Weights assigned since the last call take the full path: checked
    (refused when they do not fit) and, without averaging, continued
    from."""
    X, y = _sentences(320, n_words=500)
    est = _started(lambda: StructuredPerceptron(average=False, random_state=0), X, y)
    est.coef_ = np.full_like(est.coef_, np.nan)
    with pytest.raises(ValueError, match="NaN"):
        est.partial_fit(X[310:311], y[310:311])
    est.coef_ = np.zeros_like(est.coef_)
    est.partial_fit(X[310:311], y[310:311])
    twin = _started(lambda: StructuredPerceptron(average=False, random_state=0), X, y)
    twin.coef_ = np.zeros_like(twin.coef_)
    with pytest.MonkeyPatch.context() as m:
        m.setattr(type(twin), "_trusted_state", lambda self: False)
        twin.partial_fit(X[310:311], y[310:311])
    np.testing.assert_array_equal(est.coef_, twin.coef_)


@pytest.mark.parametrize("n_sentences", [1, 40])
def test_the_compiled_batch_is_the_general_paths(n_sentences):
    """The compiled mapping of feature-dict sentences and string labels
    gives the rows, vocabulary, classes and codes of the general path
    (FeatureDictMapper, scipy's canonical CSR, np.unique and searchsorted),
    in fit and in transform; input it does not take falls back to it."""
    X, y = _sentences(n_sentences, n_words=50)
    X[0][0]["istitle"] = 0.0  # explicit zeros are kept
    X[0][1]["p=a=b"] = 2.5  # a number, then the pair p="a=b": one column
    X[-1][-1]["p"] = "a=b"
    fast, vec = sequence_validation.stack_sequences(X, fit_vectorizer=True)
    mapped = sequence_validation._map_dict_sentences
    try:
        sequence_validation._map_dict_sentences = lambda *args: None
        slow, slow_vec = sequence_validation.stack_sequences(X, fit_vectorizer=True)
        slow_t, _ = sequence_validation.stack_sequences(X[::-1], vectorizer=vec)
    finally:
        sequence_validation._map_dict_sentences = mapped
    fast_t, _ = sequence_validation.stack_sequences(X[::-1], vectorizer=vec)
    assert list(vec.vocabulary_.items()) == list(slow_vec.vocabulary_.items())
    for a, b in ((fast, slow), (fast_t, slow_t)):
        assert (a.n_features, a.n_tokens, a.dense) == (
            b.n_features,
            b.n_tokens,
            b.dense,
        )
        for attr in ("data", "indices", "indptr", "offsets"):
            got, want = getattr(a, attr), getattr(b, attr)
            assert got.dtype == want.dtype, attr
            np.testing.assert_array_equal(got, want)
    classes, codes = sequence_validation.encode_labels(y, fast.offsets)
    flat = sequence_validation.stack_labels(y, fast.offsets, len(y))
    want = np.unique(flat)
    assert classes.dtype == want.dtype
    np.testing.assert_array_equal(classes, want)
    np.testing.assert_array_equal(codes, np.searchsorted(want, flat))
    # not the common form: the general path
    odd = [[dict(t, n=1) for t in s] for s in X]  # an int value
    assert sequence_validation._map_dict_sentences(odd, None, True) is None
    assert (
        sequence_validation.encode_labels([["A\x00"] * len(s) for s in y], fast.offsets)
        is None
    )


@pytest.mark.parametrize("name, factory", TAGGERS, ids=IDS)
def test_one_sentence_predict_reads_only_its_features(name, factory, monkeypatch):
    """``predict`` on one sentence after a ``partial_fit`` (an average left
    to be computed when read) and once the weights are published neither
    builds the decoding weights of the whole model nor computes the
    average, allocates a small fraction of the model, and gives the labels
    of the full path, with exact and beam decoding."""
    X, y = _sentences(330)
    est = _started(factory, X, y)
    model = _model_bytes(est)

    def forbidden(*args, **kwargs):
        raise AssertionError("O(model) work in a one-sentence predict")

    for read_weights in (False, True):
        one = slice(310 + read_weights, 311 + read_weights)
        est.partial_fit(X[one], y[one])
        if read_weights:
            assert est.coef_ is not None  # published: read from the public weights
        for beam in (None, 2):
            est.set_params(beam_width=beam)
            with monkeypatch.context() as m:
                m.setattr(type(est), "_decode_weights", forbidden)
                m.setattr(type(est), "_set_public", forbidden)
                tracemalloc.start()
                try:
                    got = est.predict(X[320:322])
                    peak = tracemalloc.get_traced_memory()[1]
                finally:
                    tracemalloc.stop()
            assert peak < model / 20, (peak, model)
            with monkeypatch.context() as m:
                m.setattr(sequence_base, "lean_decode", lambda est, batch: None)
                want = est.predict(X[320:322])
            for g, w in zip(got, want):
                np.testing.assert_array_equal(g, w)
