"""Classifiers that add a class when the stream first meets it
(``new_classes="add"``).

The reference is written out here, independently of ``ClassGrowth``: stop
the stream at the row where a class first appears, extend every learned
array by hand with the family's fresh-class initialisation, publish it
through the state protocol and continue.
"""

import pickle
import re

import numpy as np
import pytest
import scipy.sparse as sp
from _capabilities import OUTSIDE, discovered
from sklearn.base import clone

from sklearn_pa import (
    AROWClassifier,
    ConfidenceWeightedClassifier,
    KernelPassiveAggressiveClassifier,
    MIRAClassifier,
    OnlineBayesPointClassifier,
    PassiveAggressiveClassifier,
    SCWClassifier,
)
from sklearn_pa.utils import all_estimators

PA_RULES = ("support", "max_loss", "prediction", "ovr")

FAMILIES = [
    *[
        pytest.param(PassiveAggressiveClassifier, {"multiclass": m}, id=f"pa-{m}")
        for m in PA_RULES
    ],
    pytest.param(
        PassiveAggressiveClassifier,
        {"multiclass": "support", "loss": "squared_hinge", "C": 0.3},
        id="pa2-support",
    ),
    pytest.param(MIRAClassifier, {}, id="mira"),
    *[
        pytest.param(ConfidenceWeightedClassifier, {"multiclass": m}, id=f"cw-{m}")
        for m in ("support", "single", "sequential")
    ],
    pytest.param(
        ConfidenceWeightedClassifier,
        {"multiclass": "single", "covariance": "full"},
        id="cw-single-full",
    ),
    pytest.param(
        ConfidenceWeightedClassifier,
        {"multiclass": "support", "covariance": "full"},
        id="cw-support-full",
    ),
    pytest.param(AROWClassifier, {}, id="arow"),
    pytest.param(SCWClassifier, {}, id="scw"),
]
# every other public classifier, with its defaults
FAMILIES += [
    pytest.param(type(make()), {}, id=name)
    for name, make in discovered(
        "class growth",
        [lambda p=p: p.values[0]() for p in FAMILIES],
        type_filter="classifier",
    )
]


def _stream(n=90, n_features=6, seed=0, sparse=False):
    """Classes 0 and 2 from the start, then 1 at row 30 and 3 at row 55
    (so that the new classes land between and after the old ones)."""
    rng = np.random.RandomState(seed)
    y = np.concatenate(
        [
            rng.choice([0, 2], 30),
            [1],
            rng.choice([0, 1, 2], 24),
            [3],
            rng.choice([0, 1, 2, 3], n - 56),
        ]
    )
    centres = rng.randn(4, n_features) * 2
    X = centres[y] + rng.randn(n, n_features)
    if sparse:
        X[np.abs(X) < 0.5] = 0.0
        X = sp.csr_matrix(X)
    return X, y


def _split(est):
    ovr = getattr(est, "multiclass", None) == "ovr"
    return 1.0 if ovr and isinstance(est, PassiveAggressiveClassifier) else 0.5


def _per_class_blocks(est, n_classes):
    rule = getattr(est, "multiclass", "single")
    if isinstance(est, (AROWClassifier, SCWClassifier)):
        rule = "single"
    return n_classes > 2 and rule in ("single", "sequential")


def _extend_by_hand(est, state, new_classes):
    """The state of ``est`` (of ``est.classes_``) extended to
    ``new_classes``: fresh columns zero, a binary column ``w`` split into
    ``-split * w`` and ``+split * w``; covariance blocks of new classes the
    identity, a binary block halved for each old class."""
    old = est.classes_
    K0, K1 = old.shape[0], new_classes.shape[0]
    pos = np.searchsorted(new_classes, old)
    split = _split(est)

    def columns(A):
        out = np.zeros(A.shape[:-1] + (K1,))
        if K0 == 2:
            out[..., pos[0]] = -split * A[..., 0]
            out[..., pos[1]] = split * A[..., 0]
        else:
            out[..., pos] = A
        return out

    new = dict(state)
    for name in ("W", "b", "U", "bu"):
        if state.get(name) is not None:
            new[name] = np.ascontiguousarray(columns(state[name]))
    if "sigma" in state:
        sigma = state["sigma"]
        full = sigma.ndim == 3
        D = sigma.shape[1] if full else sigma.shape[0]
        scale = 0.5 if K0 == 2 else 1.0
        if _per_class_blocks(est, K1):
            if full:
                out = np.tile(np.eye(D), (K1, 1, 1))
                for j, p in enumerate(pos):
                    out[p] = sigma[0 if K0 == 2 else j] * scale
            else:
                out = np.ones((D, K1))
                for j, p in enumerate(pos):
                    out[:, p] = sigma[:, 0 if K0 == 2 else j] * scale
        else:
            out = sigma * scale
        new["sigma"] = np.ascontiguousarray(out)
    return new


INITIAL = np.array([0, 2])  # the classes announced on the first call


def _reference(est, X, y, batches):
    """The model of ``est`` (unfitted) on the stream ``X, y`` fed in
    ``batches`` (lists of row slices), cut by hand at each row where a
    class other than ``INITIAL`` first appears."""
    labels, first = np.unique(y, return_index=True)
    starts = sorted(first[~np.isin(labels, INITIAL)])
    model = clone(est).set_params(new_classes="error")
    rows = np.arange(y.shape[0])
    pieces = []
    for s in batches:
        part = rows[s]
        # cut the batch where a class first appears
        cuts = [i for i in starts if part[0] < i <= part[-1]]
        bounds = [part[0], *cuts, part[-1] + 1]
        pieces += [slice(a, b) for a, b in zip(bounds[:-1], bounds[1:])]
    classes = INITIAL
    for s in pieces:
        seen = np.union1d(classes, np.unique(y[s]))
        if not hasattr(model, "coef_"):
            model.partial_fit(X[s], y[s], classes=seen)
        else:
            if seen.shape[0] > classes.shape[0]:
                learner = model.__sklearn_pa_state__()
                state = _extend_by_hand(model, learner.get(), seen)
                scale = model.intercept_scaling_
                model = clone(model)
                learner = model.__sklearn_pa_state__()
                learner.initialise(
                    X.shape[1],
                    classes=seen,
                    scale=scale,
                    random_state=np.random.RandomState(0),
                )
                learner.set(state)
            model.partial_fit(X[s], y[s])
        classes = seen
    return model


def _assert_same_model(a, b):
    np.testing.assert_array_equal(a.classes_, b.classes_)
    sa, sb = a.__sklearn_pa_state__().get(), b.__sklearn_pa_state__().get()
    # (the state of a growing model also carries its classes, for mixing)
    sa.pop("classes", None), sb.pop("classes", None)
    assert sa.keys() == sb.keys()
    for key in sa:
        if isinstance(sa[key], np.ndarray):
            np.testing.assert_allclose(sa[key], sb[key], rtol=0, atol=1e-12)
        else:
            assert sa[key] == sb[key], key
    np.testing.assert_allclose(a.coef_, b.coef_, rtol=0, atol=1e-12)
    np.testing.assert_allclose(a.intercept_, b.intercept_, rtol=0, atol=1e-12)


BATCHINGS = {
    "rows": [slice(i, i + 1) for i in range(90)],
    "uneven": [slice(0, 7), slice(7, 40), slice(40, 41), slice(41, 90)],
    "one": [slice(0, 90)],
}


@pytest.mark.parametrize("Estimator, params", FAMILIES)
@pytest.mark.parametrize("batching", ["uneven", "one"])
@pytest.mark.parametrize("average", [False, True])
def test_growth_is_the_model_cut_and_extended_by_hand(
    Estimator, params, batching, average
):
    X, y = _stream(sparse=batching == "one")
    est = Estimator(
        **params, new_classes="add", shuffle=False, average=average, random_state=0
    )
    grown = clone(est)
    for n, s in enumerate(BATCHINGS[batching]):
        grown.partial_fit(X[s], y[s], classes=INITIAL if n == 0 else None)
    expected = _reference(est, X, y, BATCHINGS[batching])
    _assert_same_model(grown, expected)
    np.testing.assert_array_equal(grown.classes_, [0, 1, 2, 3])


@pytest.mark.parametrize(
    "Estimator, params",
    [
        pytest.param(PassiveAggressiveClassifier, {}, id="pa"),
        pytest.param(MIRAClassifier, {}, id="mira"),
        pytest.param(ConfidenceWeightedClassifier, {}, id="cw"),
    ],
)
def test_growth_row_by_row(Estimator, params):
    X, y = _stream()
    est = Estimator(**params, new_classes="add", shuffle=False, average=True)
    grown = clone(est)
    for n, s in enumerate(BATCHINGS["rows"]):
        grown.partial_fit(X[s], y[s], classes=INITIAL if n == 0 else None)
    _assert_same_model(grown, _reference(est, X, y, BATCHINGS["rows"]))


@pytest.mark.parametrize("Estimator, params", FAMILIES)
def test_rows_before_a_class_do_not_see_it(Estimator, params):
    """The rows before a class's first appearance are learned by a model
    without it, even within the batch that brings it."""
    X, y = _stream()
    k = 30  # class 1 first appears here
    est = Estimator(**params, new_classes="add", shuffle=False)
    before = clone(est).partial_fit(X[:k], y[:k], classes=INITIAL)
    whole = clone(est)
    scores = whole.__sklearn_pa_prequential__(X[: k + 10], y[: k + 10], classes=INITIAL)
    # the scores of the rows before k are those of the binary model, in
    # the columns of the final classes (-inf for the class not met yet)
    binary = clone(est).set_params(new_classes="error")
    binary_scores = binary.__sklearn_pa_prequential__(X[:k], y[:k], classes=[0, 2])
    split = _split(est)
    np.testing.assert_allclose(scores[:k, 0], -split * binary_scores, atol=1e-12)
    np.testing.assert_allclose(scores[:k, 2], split * binary_scores, atol=1e-12)
    # row k itself is predicted by the model before it, without class 1
    assert np.all(scores[: k + 1, 1] == -np.inf)
    assert np.all(np.isfinite(scores[k, [0, 2]]))
    assert np.all(np.isfinite(scores[k + 1 :]))
    np.testing.assert_array_equal(before.classes_, [0, 2])


@pytest.mark.parametrize("Estimator, params", FAMILIES)
def test_binary_predictions_survive_the_third_class(Estimator, params):
    """At the third class, the binary model's column becomes its two
    classes' columns: every earlier row keeps its prediction (a new class
    that has learned nothing yet never wins)."""
    X, y = _stream()
    est = Estimator(**params, new_classes="add", random_state=0)
    est.partial_fit(X[:30], y[:30], classes=INITIAL)
    before = est.predict(X)
    binary_scores = est.decision_function(X)
    # the growth alone, before the new class's row teaches anything
    est._grow_classes(np.array([0, 1, 2]))
    np.testing.assert_array_equal(est.classes_, [0, 1, 2])
    np.testing.assert_array_equal(est.predict(X[binary_scores != 0]), before)
    scores = est.decision_function(X)
    split = _split(est)
    np.testing.assert_allclose(scores[:, 2] - scores[:, 0], 2 * split * binary_scores)
    np.testing.assert_array_equal(scores[:, 1], 0.0)


@pytest.mark.parametrize("Estimator, params", FAMILIES)
def test_one_class_predicts_it_then_starts_binary(Estimator, params):
    outside = OUTSIDE["class growth from one class"]
    if Estimator.__name__ in outside and not params:
        pytest.skip(outside[Estimator.__name__])
    X, y = _stream()
    # one class for 10 rows, then a second one
    y = np.where((np.arange(y.shape[0]) < 10) | (y < 2), 7, 8)
    y[10] = 8
    est = Estimator(
        **params, new_classes="add", shuffle=False, average=False, intercept_scaling=1.0
    )
    est.partial_fit(X[:10], y[:10])
    np.testing.assert_array_equal(est.classes_, [7])
    np.testing.assert_array_equal(est.predict(X), np.full(X.shape[0], 7))
    np.testing.assert_array_equal(est.coef_, 0.0)
    assert est.t_ == 11.0
    if hasattr(est, "predict_proba"):
        np.testing.assert_array_equal(est.predict_proba(X[:3]), np.ones((3, 1)))
    # the next class: a binary model that starts at zero at row 10
    est.partial_fit(X[10:40], y[10:40])
    ref = clone(est).set_params(new_classes="error")
    ref.partial_fit(X[10:40], y[10:40], classes=[7, 8])
    assert est.t_ == 41.0
    np.testing.assert_allclose(est.coef_, ref.coef_, atol=1e-12)
    np.testing.assert_allclose(est.intercept_, ref.intercept_, atol=1e-12)


@pytest.mark.parametrize("Estimator, params", FAMILIES)
def test_rejected_batch_with_a_new_label_changes_nothing(Estimator, params):
    X, y = _stream()
    est = Estimator(**params, new_classes="add", average=True, random_state=0)
    est.partial_fit(X[:20], y[:20])
    state = est.__sklearn_pa_state__().get()
    coef, t = est.coef_.copy(), est.t_
    X_bad = X[20:40].copy()
    X_bad[-1, 0] = np.nan  # after the new class's first row
    y_bad = y[20:40].copy()
    y_bad[5] = 9  # a new label, cutting the batch before the bad row
    with pytest.raises(ValueError):
        est.partial_fit(X_bad, y_bad)
    np.testing.assert_array_equal(est.classes_, [0, 2])
    np.testing.assert_array_equal(est.coef_, coef)
    assert est.t_ == t
    after = est.__sklearn_pa_state__().get()
    for key, value in state.items():
        if isinstance(value, np.ndarray):
            np.testing.assert_array_equal(after[key], value)
    # a label of another type is refused too, before anything moves
    with pytest.raises(ValueError):
        est.partial_fit(X[20:22], np.array(["a", "b"]))
    np.testing.assert_array_equal(est.classes_, [0, 2])


@pytest.mark.parametrize("Estimator, params", FAMILIES)
def test_pickle_and_clone_after_growth(Estimator, params):
    X, y = _stream()
    est = Estimator(**params, new_classes="add", random_state=0, average=True)
    est.partial_fit(X[:60], y[:60])
    copy = pickle.loads(pickle.dumps(est))
    np.testing.assert_array_equal(copy.predict(X), est.predict(X))
    est.partial_fit(X[60:], y[60:])
    copy.partial_fit(X[60:], y[60:])
    _assert_same_model(copy, est)
    fresh = clone(est)
    assert fresh.get_params()["new_classes"] == "add"
    assert not hasattr(fresh, "classes_")
    fresh.partial_fit(X, y)
    np.testing.assert_array_equal(fresh.classes_, [0, 1, 2, 3])


def test_announced_classes_and_class_weight_of_later_classes():
    X, y = _stream()
    est = PassiveAggressiveClassifier(
        new_classes="add", class_weight={3: 2.0, 1: 0.5}, random_state=0
    )
    est.partial_fit(X[:20], y[:20], classes=[0, 2, 5])
    np.testing.assert_array_equal(est.classes_, [0, 2, 5])
    est.partial_fit(X[20:], y[20:])
    np.testing.assert_array_equal(est.classes_, [0, 1, 2, 3, 5])
    assert est.coef_.shape == (5, X.shape[1])


def test_default_still_refuses_a_new_label():
    X, y = _stream()
    est = PassiveAggressiveClassifier().partial_fit(X[:20], y[:20], classes=[0, 2])
    with pytest.raises(ValueError, match="not in classes"):
        est.partial_fit(X[20:40], y[20:40])
    with pytest.raises(ValueError, match="new_classes='add'"):
        PassiveAggressiveClassifier().partial_fit(X[:20], y[:20])


def _with_new_classes():
    for name, Estimator in all_estimators(type_filter="classifier"):
        if "new_classes" in Estimator().get_params():
            yield pytest.param(Estimator(), "set new_classes='add'", id=name)
    yield pytest.param(
        OnlineBayesPointClassifier(),
        r"OnlineBayesPointClassifier\(PassiveAggressiveClassifier\(new_classes='add'",
        id="OnlineBayesPointClassifier",
    )


@pytest.mark.parametrize("est, remedy", list(_with_new_classes()))
def test_unknown_label_error_names_new_classes_add(est, remedy):
    """Every learner that can grow its classes says so when a later batch
    meets a label it does not know (as the missing-classes error does)."""
    X, y = _stream()
    est.partial_fit(X[:20], y[:20], classes=[0, 2])
    with pytest.raises(ValueError, match="not in classes") as error:
        est.partial_fit(X[20:40], y[20:40])
    assert re.search(remedy, str(error.value)), str(error.value)
    assert "classes on the first call to partial_fit" in str(error.value)


def test_bayes_point_grows_from_a_list_of_labels():
    X, y = _stream()
    est = OnlineBayesPointClassifier(PassiveAggressiveClassifier(new_classes="add"))
    est.partial_fit(X[:20], list(y[:20]), classes=[0, 2])
    est.partial_fit(X[20:], list(y[20:]))
    np.testing.assert_array_equal(est.classes_, [0, 1, 2, 3])


def test_growth_refuses_what_has_fixed_classes():
    X, y = _stream()
    cost = np.ones((3, 3)) - np.eye(3)
    with pytest.raises(ValueError, match="cost_matrix"):
        PassiveAggressiveClassifier(new_classes="add", cost_matrix=cost).partial_fit(
            X, y
        )
    Y = np.column_stack([y == 0, y == 1, y >= 2]).astype(int)
    with pytest.raises(ValueError, match="multilabel"):
        PassiveAggressiveClassifier(new_classes="add").partial_fit(X, Y)


def test_string_labels_stay_sorted():
    X, y = _stream()
    names = np.array(["delta", "alpha", "charlie", "bravo"])[y]
    est = PassiveAggressiveClassifier(new_classes="add", random_state=0)
    for s in BATCHINGS["uneven"]:
        est.partial_fit(X[s], names[s])
    np.testing.assert_array_equal(est.classes_, ["alpha", "bravo", "charlie", "delta"])
    assert set(est.predict(X)) <= set(est.classes_)


def test_check_for_new_labels_does_not_touch_the_model(monkeypatch):
    """A batch without a new label never grows the model (the check is a
    sort of the batch's labels, not a pass over the weights)."""
    X, y = _stream()
    est = PassiveAggressiveClassifier(new_classes="add", random_state=0)
    est.partial_fit(X, y)
    calls = []
    monkeypatch.setattr(
        type(est), "_grow_classes", lambda self, c: calls.append(c), raising=True
    )
    est.partial_fit(X[:5], y[:5])
    assert calls == []


def test_progressive_scores_never_know_a_class_before_its_row():
    """In the compiled progressive pass, the first row of each class is
    predicted without it; the very first row (no class known) is not
    predicted at all; and the batches do not matter."""
    X, y = _stream()
    est = PassiveAggressiveClassifier(new_classes="add", shuffle=False)
    scores = clone(est).__sklearn_pa_prequential__(X, y)
    assert np.all(np.isnan(scores[0]))
    labels, first = np.unique(y, return_index=True)
    for label, row in zip(labels, first):
        if row > 0:
            assert scores[row, label] == -np.inf
            assert np.argmax(scores[row]) != label
    for batches in (BATCHINGS["uneven"], BATCHINGS["rows"]):
        model = clone(est)
        parts = [model.__sklearn_pa_prequential__(X[s], y[s]) for s in batches]
        # (each batch's scores are in the columns of the model after it)
        final = model.classes_
        mapped = []
        for s, part in zip(batches, parts):
            part = np.reshape(part, (s.stop - s.start, -1))
            known = np.unique(y[: s.stop])
            if known.shape[0] < final.shape[0]:
                full = np.full((part.shape[0], final.shape[0]), -np.inf)
                cols = np.searchsorted(final, known)
                if known.shape[0] >= 3:
                    full[:, cols] = part
                else:
                    full = None  # (the binary and one-class forms: not compared)
                part = full
            mapped.append(part)
        for s, part in zip(batches, mapped):
            if part is not None:
                np.testing.assert_allclose(part, scores[s], atol=1e-12)


@pytest.mark.parametrize("kernel", ["linear", "rbf"])
@pytest.mark.parametrize("batching", ["rows", "uneven", "one"])
def test_kernel_pa_growth_is_the_model_cut_and_extended_by_hand(kernel, batching):
    """Kernel PA: the dual coefficients of a new class are zero on every
    support vector; at the third class the binary coefficients a become
    -a/2 and +a/2 (the max-loss rule)."""
    X, y = _stream()
    params = dict(kernel=kernel, gamma=0.1, shuffle=False, random_state=0)
    grown = KernelPassiveAggressiveClassifier(**params, new_classes="add")
    for n, s in enumerate(BATCHINGS[batching]):
        grown.partial_fit(X[s], y[s], classes=INITIAL if n == 0 else None)
    # by hand: stop at each first appearance, extend dual_coef_, continue
    ref = KernelPassiveAggressiveClassifier(**params)
    ref.partial_fit(X[:30], y[:30], classes=INITIAL)
    for k, stop, classes in ((30, 55, [0, 1, 2]), (55, 90, [0, 1, 2, 3])):
        alpha = ref.dual_coef_
        if alpha.shape[0] == 1:
            new = np.vstack([-alpha / 2, np.zeros_like(alpha), alpha / 2])
        else:
            new = np.vstack([alpha, np.zeros((1, alpha.shape[1]))])
        ref.dual_coef_ = new
        ref.classes_ = np.array(classes)
        ref.partial_fit(X[k:stop], y[k:stop])
    np.testing.assert_array_equal(grown.classes_, ref.classes_)
    np.testing.assert_allclose(grown.dual_coef_, ref.dual_coef_, rtol=0, atol=1e-12)
    np.testing.assert_array_equal(grown.support_vectors_, ref.support_vectors_)
    np.testing.assert_allclose(
        grown.decision_function(X), ref.decision_function(X), atol=1e-12
    )
    copy = pickle.loads(pickle.dumps(grown))
    np.testing.assert_array_equal(copy.predict(X), grown.predict(X))


def test_kernel_pa_one_class_and_rejected_batch():
    X, y = _stream()
    est = KernelPassiveAggressiveClassifier(new_classes="add", random_state=0)
    est.partial_fit(X[:1], y[:1])
    np.testing.assert_array_equal(est.predict(X), np.full(X.shape[0], y[0]))
    assert est.dual_coef_.shape[1] == 0
    est.partial_fit(X[1:40], y[1:40])
    before = est.dual_coef_.copy(), est.classes_.copy()
    X_bad = X[40:60].copy()
    X_bad[-1, 0] = np.inf
    y_bad = y[40:60].copy()
    y_bad[3] = 11
    with pytest.raises(ValueError):
        est.partial_fit(X_bad, y_bad)
    np.testing.assert_array_equal(est.dual_coef_, before[0])
    np.testing.assert_array_equal(est.classes_, before[1])


@pytest.mark.parametrize("batching", ["rows", "uneven", "one"])
@pytest.mark.parametrize("multiclass", ["support", "ovr"])
def test_bayes_point_growth_is_the_model_cut_and_extended_by_hand(batching, multiclass):
    """The online Bayes point machine over a base estimator with
    new_classes="add": every copy's columns grow as the base's would, the
    mistake counts are kept; unlabeled rows (-1) are no class."""
    X, y = _stream()
    y = y.copy()
    y[[5, 31, 40, 70]] = -1  # unlabeled rows, one right after class 1 appears
    base = PassiveAggressiveClassifier(
        new_classes="add", multiclass=multiclass, intercept_scaling=1.0
    )
    params = dict(n_estimators=4, shuffle=False, random_state=0, unlabeled_step=0.5)
    grown = OnlineBayesPointClassifier(estimator=base, **params)
    for n, s in enumerate(BATCHINGS[batching]):
        grown.partial_fit(X[s], y[s], classes=INITIAL if n == 0 else None)
    split = 1.0 if multiclass == "ovr" else 0.5
    ref = OnlineBayesPointClassifier(
        estimator=clone(base).set_params(new_classes="error"), **params
    )
    labels, first = np.unique(y, return_index=True)
    cuts = sorted(first[~np.isin(labels, [-1, *INITIAL])])
    rng = None
    for start, stop in zip([0, *cuts], [*cuts, y.shape[0]]):
        if start == 0:
            ref.partial_fit(X[:stop], y[:stop], classes=INITIAL)
            continue
        new = np.union1d(ref.classes_, y[start : start + 1])
        learner = ref.__sklearn_pa_state__()
        state = learner.get()
        K0, M, D = ref.classes_.shape[0], 4, X.shape[1]
        W = state["W"].reshape(D, M, -1)
        b = state["b"].reshape(M, -1)
        pos = np.searchsorted(new, ref.classes_)
        W2, b2 = np.zeros((D, M, new.shape[0])), np.zeros((M, new.shape[0]))
        if K0 == 2:
            W2[..., pos[0]], W2[..., pos[1]] = -split * W[..., 0], split * W[..., 0]
            b2[..., pos[0]], b2[..., pos[1]] = -split * b[..., 0], split * b[..., 0]
        else:
            W2[..., pos], b2[..., pos] = W, b
        state.update(W=W2.reshape(D, -1), b=b2.reshape(-1))
        rng = ref._rng
        scale = ref.intercept_scaling_
        ref = clone(ref)
        learner = ref.__sklearn_pa_state__()
        learner.initialise(D, classes=new, scale=scale, random_state=rng)
        learner.set(state)
        ref.partial_fit(X[start:stop], y[start:stop])
    np.testing.assert_array_equal(grown.classes_, [0, 1, 2, 3])
    np.testing.assert_array_equal(grown.classes_, ref.classes_)
    np.testing.assert_allclose(grown.coef_, ref.coef_, rtol=0, atol=1e-12)
    np.testing.assert_allclose(grown.intercept_, ref.intercept_, rtol=0, atol=1e-12)
    np.testing.assert_array_equal(grown.n_mistakes_, ref.n_mistakes_)
    copy = pickle.loads(pickle.dumps(grown))
    np.testing.assert_array_equal(copy.predict(X), grown.predict(X))


@pytest.mark.parametrize(
    "Estimator, params",
    [
        pytest.param(PassiveAggressiveClassifier, {"average": True}, id="pa"),
        pytest.param(PassiveAggressiveClassifier, {"multiclass": "ovr"}, id="ovr"),
        pytest.param(ConfidenceWeightedClassifier, {"multiclass": "single"}, id="cw"),
    ],
)
def test_mixing_models_of_different_classes_is_over_the_union(Estimator, params):
    """Parameter mixing of two models that met different classes: each is
    extended by hand to the union of their classes, then averaged."""
    X, y = _stream()
    est = Estimator(**params, new_classes="add", shuffle=False, random_state=0)
    rows_a = np.isin(y, [0, 1, 2])
    rows_b = np.isin(y, [0, 2])  # a binary model
    a = clone(est).partial_fit(X[rows_a], y[rows_a], classes=[0, 2])
    b = clone(est).partial_fit(X[rows_b], y[rows_b], classes=[0, 2])
    learner = clone(est).__sklearn_pa_state__()
    prior = learner.initialise(X.shape[1], classes=np.array([0, 2]), scale=1.0)
    states = [m.__sklearn_pa_state__().get() for m in (a, b)]
    mixed = learner.mix(states, np.array([0.25, 0.75]), prior=prior)
    np.testing.assert_array_equal(mixed["classes"], [0, 1, 2])
    grown_b = _extend_by_hand(b, states[1], np.array([0, 1, 2]))
    for key in ("W", "b", "sigma"):
        if key in states[0]:
            expected = 0.25 * states[0][key] + 0.75 * grown_b[key]
            np.testing.assert_allclose(mixed[key], expected, rtol=0, atol=1e-12)
    model = learner.set(mixed)
    np.testing.assert_array_equal(model.classes_, [0, 1, 2])
    assert model.coef_.shape == (3, X.shape[1])
    model.partial_fit(X[:10], y[:10])  # and it goes on, meeting class 3 later
    model.partial_fit(X[55:], y[55:])
    np.testing.assert_array_equal(model.classes_, [0, 1, 2, 3])


def test_announced_classes_are_known_at_the_first_row():
    """A class announced by ``classes`` is known from the first row of its
    batch: its decision value is finite there (not -inf)."""
    X, y = _stream()
    est = PassiveAggressiveClassifier(new_classes="add", shuffle=False)
    est.partial_fit(X[:30], y[:30], classes=INITIAL)
    scores = est.__sklearn_pa_prequential__(X[30:40], y[30:40], classes=[0, 1, 2])
    assert np.all(np.isfinite(scores))
    scores = clone(est).__sklearn_pa_prequential__(X[30:40], y[30:40])
    assert np.all(np.isnan(scores[0]))  # a first call knows no class
