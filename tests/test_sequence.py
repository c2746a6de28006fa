"""Sequence taggers: search, updates, API compatibility, CoNLL-2000."""

import importlib.util
import itertools
import pickle
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from kernel_calls import sequence_decode
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning, NotFittedError
from sklearn.model_selection import (
    GridSearchCV,
    KFold,
    ShuffleSplit,
    cross_val_score,
)

from sklearn_pa import StructuredPassiveAggressive, StructuredPerceptron
from sklearn_pa._compiled import _sequence
from sklearn_pa.sequence import chunk_f1, chunking_features, iob_chunks
from sklearn_pa.sequence._validation import stack_sequences
from sklearn_pa.utils import all_estimators

TAGGERS = [StructuredPerceptron, StructuredPassiveAggressive]


# ----------------------------------------------------------------- helpers
def phi(x, z, L, upto=None):
    """Explicit feature vector (emissions, transitions) of the prefix
    z[:upto] of one sentence x (dense T x d)."""
    T = len(z) if upto is None else upto
    emis = np.zeros((x.shape[1], L))
    trans = np.zeros((L + 1, L + 1))
    prev = L
    for t in range(T):
        emis[:, z[t]] += x[t]
        trans[prev, z[t]] += 1
        prev = z[t]
    if T == len(z):
        trans[prev, L] += 1
    return emis, trans


def seq_score(x, z, W, Tr, upto=None):
    e, tr = phi(x, z, W.shape[1], upto)
    return float(np.sum(e * W) + np.sum(tr * Tr))


def brute_force(x, W, Tr):
    L = W.shape[1]
    best, arg = -np.inf, None
    for z in itertools.product(range(L), repeat=x.shape[0]):
        s = seq_score(x, z, W, Tr)
        if s > best:
            best, arg = s, z
    return np.array(arg), best


def decode(x, W, Tr, beam=0):
    out = np.zeros(x.shape[0], dtype=np.int32)
    d = x.shape[1]
    sequence_decode(
        np.ascontiguousarray(x).ravel(),
        np.arange(d, dtype=np.int32),
        np.zeros(0, np.int32),
        True,
        d,
        np.array([0, x.shape[0]], dtype=np.int64),
        np.ascontiguousarray(W),
        np.ascontiguousarray(Tr),
        beam,
        out,
    )
    return out


def make_tagging_data(n_seq=40, n_features=6, n_labels=3, seed=0, noise=0.0):
    """Sequences labelled by a hidden first-order model (separable when
    noise == 0)."""
    rng = np.random.default_rng(seed)
    W = rng.normal(size=(n_features, n_labels))
    Tr = rng.normal(size=(n_labels + 1, n_labels + 1))
    X, y = [], []
    for _ in range(n_seq):
        T = int(rng.integers(1, 7))
        x = rng.normal(size=(T, n_features))
        X.append(x)
        z = decode(x, W + noise * rng.normal(size=W.shape), Tr)
        y.append(z)
    return X, y


# ---------------------------------------------------------------- discovery
def test_discovery_keeps_taggers_out_of_tabular_checks():
    tabular = {name for name, _ in all_estimators()}
    taggers = {name for name, _ in all_estimators(type_filter="sequence_tagger")}
    assert taggers == {"StructuredPerceptron", "StructuredPassiveAggressive"}
    assert not tabular & taggers
    everything = {name for name, _ in all_estimators(type_filter="all")}
    assert everything == tabular | taggers
    classifiers = {name for name, _ in all_estimators(type_filter="classifier")}
    assert not classifiers & taggers


@pytest.mark.parametrize("Tagger", TAGGERS)
def test_docstring_has_example(Tagger):
    assert ">>> " in Tagger.__doc__


# ---------------------------------------------------------------- search
@settings(max_examples=40, deadline=None)
@given(
    T=st.integers(1, 4),
    L=st.integers(1, 3),
    d=st.integers(1, 3),
    seed=st.integers(0, 2**31 - 1),
)
def test_viterbi_is_brute_force_argmax(T, L, d, seed):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(T, d))
    W = rng.normal(size=(d, L))
    Tr = rng.normal(size=(L + 1, L + 1))
    z_bf, s_bf = brute_force(x, W, Tr)
    z = decode(x, W, Tr)
    assert seq_score(x, z, W, Tr) == pytest.approx(s_bf, abs=1e-9)
    np.testing.assert_array_equal(z, z_bf)
    # a beam at least as wide as the label set is exact
    np.testing.assert_array_equal(decode(x, W, Tr, beam=L), z_bf)
    np.testing.assert_array_equal(decode(x, W, Tr, beam=L + 3), z_bf)


@settings(max_examples=30, deadline=None)
@given(
    T=st.integers(1, 4),
    L=st.integers(1, 3),
    k=st.integers(1, 6),
    seed=st.integers(0, 2**31 - 1),
)
def test_kbest_viterbi_is_brute_force_top_k(T, L, k, seed):
    rng = np.random.default_rng(seed)
    d = 2
    x = rng.normal(size=(T, d))
    W = rng.normal(size=(d, L))
    Tr = rng.normal(size=(L + 1, L + 1))
    all_scores = sorted(
        (seq_score(x, z, W, Tr) for z in itertools.product(range(L), repeat=T)),
        reverse=True,
    )
    paths = np.zeros((k, T), dtype=np.int32)
    scores = np.zeros(k)
    cnt = _sequence.kbest(
        x.ravel(),
        np.arange(d, dtype=np.int32),
        np.zeros(0, np.int32),
        True,
        d,
        0,
        T,
        W,
        Tr,
        k,
        paths,
        scores,
    )
    assert cnt == min(k, L**T)
    np.testing.assert_allclose(scores[:cnt], all_scores[:cnt], atol=1e-9)
    for m in range(cnt):
        assert seq_score(x, paths[m], W, Tr) == pytest.approx(scores[m], abs=1e-9)
    assert len({tuple(p) for p in paths[:cnt]}) == cnt


def test_wide_beam_tagger_equals_viterbi_tagger():
    X, y = make_tagging_data(n_seq=60, n_labels=4, noise=0.5, seed=3)
    exact = StructuredPerceptron(max_iter=3, random_state=0).fit(X, y)
    wide = StructuredPerceptron(max_iter=3, beam_width=4, random_state=0).fit(X, y)
    np.testing.assert_array_equal(exact.coef_, wide.coef_)
    np.testing.assert_array_equal(exact.transitions_, wide.transitions_)
    for a, b in zip(exact.predict(X), wide.predict(X)):
        np.testing.assert_array_equal(a, b)


# ---------------------------------------------------------------- updates
def replay(tagger, X, y):
    """Re-apply the recorded perceptron updates with explicit feature vectors;
    returns the pre-update w . Delta phi of each and the final weights."""
    L = tagger.classes_.shape[0]
    W = np.zeros((X[0].shape[1], L))
    Tr = np.zeros((L + 1, L + 1))
    labels = [np.searchsorted(tagger.classes_, yi) for yi in y]
    margins = []
    for log in tagger._update_log_:
        for k, s in enumerate(log["order"]):
            n = log["length"][k]
            if n == 0:
                continue
            start = log["offsets"][s]
            z = log["pred"][start : start + n]
            gold = labels[s]
            eg, tg = phi(X[s], gold, L, upto=n)
            ez, tz = phi(X[s], np.r_[z, gold[n:]], L, upto=n)
            if n == len(gold):  # full sequences: both with END
                ez, tz = phi(X[s], z, L)
            margin = np.sum((eg - ez) * W) + np.sum((tg - tz) * Tr)
            assert margin == pytest.approx(log["margin"][k], abs=1e-8)
            margins.append(margin)
            W += eg - ez
            Tr += tg - tz
    return np.array(margins), W, Tr


@pytest.mark.parametrize("update", ["early", "max_violation"])
@pytest.mark.parametrize("beam_width", [1, 2, None])
def test_every_violation_fixing_update_is_a_violation(update, beam_width):
    X, y = make_tagging_data(n_seq=80, n_labels=4, noise=0.8, seed=1)
    tagger = StructuredPerceptron(
        update=update,
        beam_width=beam_width,
        average=False,
        max_iter=4,
        random_state=0,
    )
    tagger._record_updates = True
    tagger.fit(X, y)
    margins, W, Tr = replay(tagger, X, y)
    assert margins.size == tagger.n_updates_ > 0
    assert np.all(margins <= 1e-9)
    assert tagger.n_invalid_updates_ == 0
    np.testing.assert_allclose(tagger.coef_.T, W, atol=1e-9)
    np.testing.assert_allclose(tagger.transitions_, Tr[:-1, :-1], atol=1e-9)


def test_standard_update_with_narrow_beam_counts_invalid_updates():
    X, y = make_tagging_data(n_seq=150, n_labels=5, noise=1.0, seed=2)
    tagger = StructuredPerceptron(
        update="standard", beam_width=1, average=False, max_iter=5, random_state=0
    )
    tagger._record_updates = True
    tagger.fit(X, y)
    margins, _, _ = replay(tagger, X, y)
    assert tagger.n_invalid_updates_ == int(np.sum(margins > 0))
    assert tagger.n_invalid_updates_ > 0
    exact = StructuredPerceptron(update="standard", max_iter=5, random_state=0)
    assert exact.fit(X, y).n_invalid_updates_ == 0


@pytest.mark.parametrize("update", ["standard", "early", "max_violation"])
def test_converges_on_separable_data_within_bound(update):
    """The violation-fixing perceptron makes at most R^2 / delta^2 updates,
    with R and delta measured for the generating model's weights."""
    X, y = make_tagging_data(n_seq=30, n_features=4, n_labels=3, seed=5)
    rng = np.random.default_rng(5)
    W = rng.normal(size=(4, 3))
    Tr = rng.normal(size=(4, 4))
    u = np.concatenate([W.ravel(), Tr.ravel()])
    norm_u = np.linalg.norm(u)
    R, delta = 0.0, np.inf
    # every (gold prefix, other prefix) pair of equal length: the updates'
    # Delta phi are among them
    for x, z in zip(X, y):
        for n in range(1, len(z) + 1):
            for other in itertools.product(range(3), repeat=n):
                if tuple(z[:n]) == other:
                    continue
                full = n == len(z)
                eg, tg = phi(x, z, 3, upto=n)
                eo, to = phi(x, np.r_[other, z[n:]].astype(int), 3, upto=n)
                if full:
                    eo, to = phi(x, np.array(other), 3)
                d = np.concatenate([(eg - eo).ravel(), (tg - to).ravel()])
                R = max(R, np.linalg.norm(d))
                if full:
                    delta = min(delta, d @ u / norm_u)
    assert delta > 0  # separable by u with full sequences
    tagger = StructuredPerceptron(update=update, max_iter=1000, random_state=0)
    tagger.fit(X, y)
    final = StructuredPerceptron(update=update, average=False, random_state=0)
    final.set_params(max_iter=tagger.max_iter)
    # train until an epoch makes no update
    final = StructuredPerceptron(update=update, average=False, shuffle=False)
    final.partial_fit(X, y, classes=np.arange(3))
    epochs = 1
    while True:
        before = final.n_updates_
        final.partial_fit(X, y)
        epochs += 1
        if final.n_updates_ == before or epochs > 500:
            break
    assert final.n_updates_ == before
    if update == "standard":
        assert final.n_updates_ <= R**2 / delta**2
    assert final.score(X, y) == 1.0


# ---------------------------------------------------------------- PA
def test_pa_k1_single_step_is_closed_form():
    X, y = make_tagging_data(n_seq=20, n_labels=3, noise=0.5, seed=7)
    for loss in ["hinge", "squared_hinge"]:
        pa = StructuredPassiveAggressive(C=0.3, loss=loss, average=False, shuffle=False)
        pa.partial_fit(X[:10], y[:10], classes=np.arange(3))
        W0, Tr0 = pa._W.copy(), pa._Tr.copy()
        x, gold = X[10], y[10]
        z = decode(x, W0, Tr0)
        pa.partial_fit([x], [gold])
        e, t = phi(x, gold, 3)
        ez, tz = phi(x, z, 3)
        d2 = np.sum((e - ez) ** 2) + np.sum((t - tz) ** 2)
        ell = np.sum(z != gold) - (np.sum((e - ez) * W0) + np.sum((t - tz) * Tr0))
        if ell <= 0 or d2 == 0:
            tau = 0.0
        elif loss == "hinge":
            tau = min(0.3, ell / d2)
        else:
            tau = ell / (d2 + 1 / (2 * 0.3))
        np.testing.assert_allclose(pa._W, W0 + tau * (e - ez), atol=1e-12)
        np.testing.assert_allclose(pa._Tr, Tr0 + tau * (t - tz), atol=1e-12)


def test_pa_learns_separable_data():
    X, y = make_tagging_data(n_seq=30, n_features=4, n_labels=3, seed=5)
    for k in [1, 3]:
        pa = StructuredPassiveAggressive(
            C=np.inf, k_best=k, average=False, max_iter=200, random_state=0
        )
        assert pa.fit(X, y).score(X, y) == 1.0


# ---------------------------------------------------------------- input
def _sparse_and_dicts(X):
    Xs = [sp.csr_matrix(x) for x in X]
    Xd = [[{f"f{j}": v for j, v in enumerate(row)} for row in x] for x in X]
    return Xs, Xd


@pytest.mark.parametrize("Tagger", TAGGERS)
def test_dense_sparse_and_dicts_agree(Tagger):
    X, y = make_tagging_data(n_seq=30, noise=0.5, seed=4)
    Xs, Xd = _sparse_and_dicts(X)
    dense = Tagger(max_iter=3, random_state=0).fit(X, y)
    sparse = Tagger(max_iter=3, random_state=0).fit(Xs, y)
    dicts = Tagger(max_iter=3, random_state=0).fit(Xd, y)
    np.testing.assert_allclose(dense.coef_, sparse.coef_, atol=1e-10)
    np.testing.assert_allclose(dense.coef_, dicts.coef_, atol=1e-10)
    for a, b, c in zip(dense.predict(X), sparse.predict(Xs), dicts.predict(Xd)):
        np.testing.assert_array_equal(a, b)
        np.testing.assert_array_equal(a, c)


@pytest.mark.parametrize("Tagger", TAGGERS)
def test_string_labels_and_predict_shapes(Tagger):
    X, y = make_tagging_data(n_seq=30, noise=0.3, seed=4)
    names = np.array(["B-NP", "I-NP", "O"])
    ys = [names[z] for z in y]
    tagger = Tagger(max_iter=3, random_state=0).fit(X, ys)
    pred = tagger.predict(X)
    assert isinstance(pred, list) and len(pred) == len(X)
    assert all(p.shape == (x.shape[0],) for p, x in zip(pred, X))
    assert set(np.concatenate(pred)) <= set(names)
    assert 0.5 < tagger.score(X, ys) <= 1.0


@pytest.mark.parametrize("Tagger", TAGGERS)
def test_partial_fit_matches_fit_without_shuffle(Tagger):
    X, y = make_tagging_data(n_seq=30, noise=0.5, seed=6)
    fitted = Tagger(max_iter=3, shuffle=False).fit(X, y)
    online = Tagger(shuffle=False)
    online.partial_fit(X, y, classes=np.arange(3))
    online.partial_fit(X, y)
    online.partial_fit(X, y)
    np.testing.assert_allclose(fitted.coef_, online.coef_, atol=1e-12)
    np.testing.assert_allclose(fitted.transitions_, online.transitions_, atol=1e-12)


def test_averaging_is_mean_of_iterates():
    X, y = make_tagging_data(n_seq=25, noise=0.5, seed=8)
    raw = StructuredPerceptron(average=False, shuffle=False)
    raw.partial_fit(X[:1], y[:1], classes=np.arange(3))
    iterates = [raw.coef_.copy()]
    for i in range(1, len(X)):
        raw.partial_fit(X[i : i + 1], y[i : i + 1])
        iterates.append(raw.coef_.copy())
    avg = StructuredPerceptron(max_iter=1, shuffle=False).fit(X, y)
    np.testing.assert_allclose(avg.coef_, np.mean(iterates, axis=0), atol=1e-12)


# ---------------------------------------------------------------- API checks
@pytest.mark.parametrize("Tagger", TAGGERS)
def test_clone_params_pickle(Tagger):
    X, y = make_tagging_data(n_seq=20, noise=0.3)
    tagger = Tagger(max_iter=2, random_state=0, beam_width=3)
    params = tagger.get_params()
    assert params["beam_width"] == 3
    cloned = clone(tagger)
    assert cloned.get_params() == params
    tagger.set_params(max_iter=3)
    assert tagger.max_iter == 3
    tagger.fit(X, y)
    restored = pickle.loads(pickle.dumps(tagger))
    for a, b in zip(tagger.predict(X), restored.predict(X)):
        np.testing.assert_array_equal(a, b)
    assert not hasattr(clone(tagger), "coef_")


@pytest.mark.parametrize("Tagger", TAGGERS)
def test_cross_val_score_and_grid_search(Tagger):
    X, y = make_tagging_data(n_seq=40, noise=0.3, seed=9)
    scores = cross_val_score(Tagger(max_iter=3, random_state=0), X, y, cv=3)
    assert scores.shape == (3,) and np.all(scores > 0.5)
    grid = GridSearchCV(Tagger(random_state=0), {"max_iter": [1, 3]}, cv=KFold(3)).fit(
        X, y
    )
    assert grid.best_params_["max_iter"] in (1, 3)
    assert len(grid.predict(X)) == len(X)


@pytest.mark.parametrize("Tagger", TAGGERS)
def test_not_fitted(Tagger):
    X, _ = make_tagging_data(n_seq=3)
    with pytest.raises(NotFittedError):
        Tagger().predict(X)


@pytest.mark.parametrize(
    "Tagger, params",
    [
        (StructuredPerceptron, {"update": "late"}),
        (StructuredPerceptron, {"beam_width": 0}),
        (StructuredPerceptron, {"max_iter": 0}),
        (StructuredPassiveAggressive, {"C": -1.0}),
        (StructuredPassiveAggressive, {"loss": "log"}),
        (StructuredPassiveAggressive, {"k_best": 0}),
        (StructuredPassiveAggressive, {"k_best": 3, "beam_width": 2}),
        (StructuredPerceptron, {"early_stopping": "yes"}),
        (StructuredPerceptron, {"validation_fraction": 1.0}),
        (StructuredPassiveAggressive, {"validation_fraction": 0.0}),
    ],
)
def test_invalid_params(Tagger, params):
    X, y = make_tagging_data(n_seq=5)
    with pytest.raises(ValueError):
        Tagger(**params).fit(X, y)


@pytest.mark.parametrize("Tagger", TAGGERS)
def test_bad_input_leaves_model_unchanged(Tagger):
    X, y = make_tagging_data(n_seq=20, noise=0.3)
    tagger = Tagger(random_state=0).fit(X, y)
    coef = tagger.coef_.copy()
    bad_nan = [x.copy() for x in X]
    bad_nan[-1][0, 0] = np.nan
    cases = [
        (bad_nan, y, "NaN"),
        (X, y[:-1], "labels per token|one label sequence"),
        ([x[:, :2] for x in X], y, "features"),
        (X, [np.full_like(z, 7) for z in y], "not in classes"),
        (np.zeros((3, 4)), y, "list of sequences"),
        (X, [z[:-1] if len(z) > 1 else z[:0] for z in y], "one label per token"),
    ]
    for Xb, yb, match in cases:
        with pytest.raises(ValueError, match=match):
            tagger.partial_fit(Xb, yb)
        np.testing.assert_array_equal(tagger.coef_, coef)
    with pytest.raises(ValueError, match="classes must be passed"):
        Tagger().partial_fit(X, y)


def test_zero_feature_tokens():
    X = [np.zeros((3, 2)), np.zeros((2, 2))]
    y = [[0, 1, 0], [1, 1]]
    for Tagger in TAGGERS:
        tagger = Tagger(max_iter=5, random_state=0).fit(X, y)
        assert np.all(np.isfinite(tagger.transitions_))
        assert tagger.coef_.shape == (2, 2)


# ---------------------------------------------------------------- CoNLL
def test_chunks_and_f1():
    assert iob_chunks(["I-NP", "I-NP", "O", "B-VP", "I-VP", "I-PP"]) == [
        ("NP", 0, 2),
        ("VP", 3, 5),
        ("PP", 5, 6),
    ]
    assert chunk_f1([["B-NP", "O"]], [["B-NP", "O"]]) == 1.0
    assert chunk_f1([["B-NP", "I-NP"]], [["B-NP", "B-NP"]]) == 0.0


_TAGS = ["O", "B-NP", "I-NP", "B-VP", "I-VP", "B-PP", "I-PP"]
_tag_sequences = st.lists(
    st.lists(st.sampled_from(_TAGS), min_size=1, max_size=12), min_size=1, max_size=6
)


@pytest.mark.skipif(
    importlib.util.find_spec("seqeval") is None,
    reason="seqeval (the oracle; in the test extra) is not installed",
)
@settings(max_examples=200, deadline=None)
@given(data=st.data(), y_true=_tag_sequences)
def test_chunk_f1_matches_seqeval(data, y_true):
    """The CoNLL measure against seqeval's (conlleval's reading of IOB2 tags,
    I-X after O or another type opening a chunk), as an oracle."""
    from seqeval import metrics

    y_pred = [
        data.draw(st.lists(st.sampled_from(_TAGS), min_size=len(t), max_size=len(t)))
        for t in y_true
    ]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # seqeval: no chunk to score
        expected = metrics.f1_score(y_true, y_pred)
    assert chunk_f1(y_true, y_pred) == pytest.approx(expected, abs=1e-12)


def test_chunking_features_template():
    feats = chunking_features([("The", "DT"), ("dog", "NN"), ("ran", "VBD")])
    assert len(feats) == 3
    assert feats[0]["w[-1]"] == "<s1>" and feats[0]["p[-2]"] == "<s2>"
    assert feats[1]["w[1]"] == "ran" and feats[1]["p[-1]|p[0]"] == "DT|NN"
    assert feats[2]["p[1]|p[2]"] == "</s1>|</s2>"
    batch, mapper = stack_sequences([feats], fit_vectorizer=True)
    assert batch.n_tokens == 3 and "w[0]=dog" in mapper.vocabulary_


# ---------------------------------------------------------- early stopping
def _trained_sequences(tagger):
    """The sequences each recorded pass of ``tagger`` trained on."""
    return [set(entry["order"].tolist()) for entry in tagger._update_log_]


def _held_out(n_seq, fraction, seed):
    """The sequences that early stopping holds out, split as scikit-learn's
    SGD estimators split their rows."""
    cv = ShuffleSplit(n_splits=1, test_size=fraction, random_state=seed)
    return next(cv.split(np.zeros((n_seq, 1))))


@pytest.mark.parametrize("Tagger", TAGGERS)
def test_early_stopping_defaults_train_on_every_sequence(Tagger):
    tagger = Tagger()
    assert tagger.early_stopping is False
    assert tagger.validation_fraction == 0.1
    X, y = make_tagging_data(n_seq=20, noise=0.5, seed=3)
    tagger = Tagger(max_iter=3, random_state=0)
    tagger._record_updates = True
    tagger.fit(X, y)
    assert tagger.validation_scores_ is None
    assert _trained_sequences(tagger) == [set(range(20))] * 3


@pytest.mark.parametrize("Tagger", TAGGERS)
def test_early_stopping_scores_held_out_sequences_never_trained_on(Tagger):
    X, y = make_tagging_data(n_seq=40, noise=0.8, seed=4)
    train, held = _held_out(40, 0.25, seed=7)
    tagger = Tagger(
        early_stopping=True, validation_fraction=0.25, max_iter=4, random_state=7
    )
    tagger._record_updates = True
    tagger.fit(X, y)
    assert len(tagger.validation_scores_) == 4 == tagger.n_iter_
    assert _trained_sequences(tagger) == [set(train.tolist())] * 4
    assert not set(held.tolist()) & set(train.tolist())
    # the last score is the token accuracy of the fitted model on them
    score = tagger.score([X[i] for i in held], [y[i] for i in held])
    assert tagger.validation_scores_[-1] == pytest.approx(score, abs=1e-15)
    assert all(0.0 <= s <= 1.0 for s in tagger.validation_scores_)
    # loss_curve_ is the fraction of the training sequences mispredicted
    assert len(tagger.loss_curve_) == 4
    n_train = len(train)
    assert all(abs(v * n_train - round(v * n_train)) < 1e-9 for v in tagger.loss_curve_)


@pytest.mark.parametrize("Tagger", TAGGERS)
def test_early_stopping_stops_when_the_held_out_score_stalls(Tagger):
    X, y = make_tagging_data(n_seq=60, seed=5)
    tol, patience = 1e-4, 3
    tagger = Tagger(
        early_stopping=True,
        tol=tol,
        n_iter_no_change=patience,
        max_iter=200,
        random_state=0,
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        tagger.fit(X, y)
    scores = tagger.validation_scores_
    assert tagger.n_iter_ < 200
    assert len(scores) == tagger.n_iter_ == len(tagger.loss_curve_)
    # it stopped because the last `patience` scores were not tol above the
    # best before them, and not earlier
    assert max(scores[-patience:]) < max(scores[:-patience]) + tol
    # without early stopping the same tagger runs every pass
    full = Tagger(tol=None, max_iter=tagger.n_iter_ + 5, random_state=0).fit(X, y)
    assert full.n_iter_ == tagger.n_iter_ + 5


@pytest.mark.parametrize("Tagger", TAGGERS)
def test_early_stopping_needs_a_sequence_on_each_side(Tagger):
    X, y = make_tagging_data(n_seq=1)
    tagger = Tagger(early_stopping=True)
    with pytest.raises(ValueError, match="no training or no validation sequence"):
        tagger.fit(X, y)
    assert not hasattr(tagger, "coef_")


@pytest.mark.parametrize("Tagger", TAGGERS)
def test_partial_fit_trains_on_every_sequence_with_early_stopping(Tagger):
    X, y = make_tagging_data(n_seq=10, seed=6)
    tagger = Tagger(early_stopping=True, random_state=0)
    tagger._record_updates = True
    tagger.partial_fit(X, y, classes=np.arange(3))
    assert _trained_sequences(tagger) == [set(range(10))]
    assert tagger.validation_scores_ is None


@pytest.mark.realdata
def test_conll2000_perceptron_learns(data_dir):
    from sklearn_pa.sequence import load_conll2000

    data = load_conll2000(data_dir, n_sentences=1200)
    assert data.sentences[0][0] == ("Confidence", "NN")
    assert data.target[0][0] == "B-NP"
    X = [chunking_features(s) for s in data.sentences]
    y = data.target
    tagger = StructuredPerceptron(max_iter=3, random_state=0).fit(X[:1000], y[:1000])
    pred = tagger.predict(X[1000:])
    assert tagger.score(X[1000:], y[1000:]) > 0.88
    assert chunk_f1(y[1000:], pred) > 0.80
