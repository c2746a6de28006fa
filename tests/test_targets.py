"""The target strategies (``sklearn_pa._core.targets``): one object per kind of
target, chosen once per fit or first partial_fit, that every target-dependent
step of a linear classifier asks."""

import pickle
import re
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import clone

from sklearn_pa import (
    AROWClassifier,
    MIRAClassifier,
    OnlineBayesPointClassifier,
    PassiveAggressiveClassifier,
)
from sklearn_pa._compiled._rules import Rule
from sklearn_pa._core.targets import (
    BinaryTargets,
    MulticlassTargets,
    MultilabelTargets,
    TargetStrategy,
    is_indicator_matrix,
    single_label_targets,
)

PACKAGE = Path(__file__).resolve().parents[1] / "sklearn_pa"


def _data(n=60, n_features=5, seed=0):
    rng = np.random.RandomState(seed)
    X = rng.randn(n, n_features)
    y3 = np.argmax(X[:, :3], axis=1)
    Y = np.column_stack([X[:, 0] > 0, X[:, 1] > 0, X[:, 0] + X[:, 2] > 0]).astype(int)
    return X, y3, Y


def test_no_multilabel_mode_flag_in_source():
    """The estimators ask their strategy: no ``_multilabel`` flag, set or
    read, anywhere in the package."""
    # an attribute ``._multilabel`` or a name "_multilabel" given to getattr /
    # setattr (the module ``benchmark/_multilabel.py`` is no flag)
    flag = re.compile(r"(?<!from )\._multilabel\b|[\"']_multilabel[\"']")
    offenders = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for lineno, line in enumerate(path.read_text().splitlines(), 1):
            if flag.search(line):
                offenders.append(f"{path.relative_to(PACKAGE)}:{lineno}: {line}")
    assert not offenders, "\n".join(offenders)


@pytest.mark.parametrize(
    "y, expected",
    [
        (np.array([0, 1, 1, 0]), False),
        (np.array([[0], [1], [1], [0]]), False),
        (np.array([[0, 1], [1, 1], [1, 0], [0, 0]]), True),
        (sp.csr_matrix(np.array([[0, 1], [1, 1]])), True),
    ],
)
def test_is_indicator_matrix(y, expected):
    assert is_indicator_matrix(y) is expected


def test_strategy_chosen_from_the_targets():
    X, y3, Y = _data()
    binary = PassiveAggressiveClassifier(max_iter=2, tol=None).fit(X, y3 > 0)
    multi = PassiveAggressiveClassifier(max_iter=2, tol=None).fit(X, y3)
    ml = PassiveAggressiveClassifier(max_iter=2, tol=None).fit(X, Y)
    assert binary._target_strategy == BinaryTargets()
    assert multi._target_strategy == MulticlassTargets()
    assert ml._target_strategy == MultilabelTargets()
    assert ml._target_strategy != MulticlassTargets()
    assert single_label_targets(np.arange(2)) == BinaryTargets()
    assert single_label_targets(np.arange(5)) == MulticlassTargets()
    # refitting chooses again, from the new targets
    assert multi.fit(X, Y)._target_strategy == MultilabelTargets()
    assert multi.coef_.shape == (3, X.shape[1])
    # an estimator without multilabel support never picks the multilabel kind
    with pytest.raises(ValueError):
        AROWClassifier().fit(X, Y)


def test_n_columns_and_encoding():
    classes = np.array(["a", "b", "c"])
    y = np.array(["c", "a", "b", "c"])
    assert BinaryTargets().n_columns(classes[:2]) == 1
    assert MulticlassTargets().n_columns(classes) == 3
    assert MultilabelTargets().n_columns(np.arange(4)) == 4
    labels, targets = MulticlassTargets().encode(classes, y)
    assert labels.dtype == np.int32 and labels.flags.c_contiguous
    np.testing.assert_array_equal(labels, [2, 0, 1, 2])
    assert targets.shape == (1,)
    Y = np.array([[0, 1, 1], [0, 0, 0], [1, 0, 1]])
    labels, _ = MultilabelTargets().encode(np.arange(3), Y)
    assert labels.shape == (3,) and labels.dtype == np.int32
    assert MulticlassTargets().label_arrays(y) == {}


@pytest.mark.parametrize("sparse", [False, True])
def test_multilabel_label_arrays_are_sorted_csr(sparse):
    Y = np.array([[0, 1, 1], [0, 0, 0], [1, 0, 1]])
    if sparse:
        Y = sp.csr_matrix(Y)
        Y.data[0] = 0  # an explicit zero is not a relevant label
    arrays = MultilabelTargets().label_arrays(Y)
    assert arrays["label_indptr"].dtype == np.int64
    assert arrays["label_indices"].dtype == np.int32
    expected = [[2], [], [0, 2]] if sparse else [[1, 2], [], [0, 2]]
    indptr, indices = arrays["label_indptr"], arrays["label_indices"]
    got = [indices[indptr[i] : indptr[i + 1]].tolist() for i in range(3)]
    assert got == expected


def test_kernel_weights():
    classes = np.arange(3)
    cw = np.array([1.0, 2.0, 3.0])
    pos, neg, margins = MulticlassTargets().kernel_weights(cw, classes, 3, Rule.OVR)
    np.testing.assert_array_equal(pos, cw)
    np.testing.assert_array_equal(neg, np.ones(3))
    np.testing.assert_array_equal(margins, 1 - np.eye(3))
    pos, neg, _ = MulticlassTargets().kernel_weights(cw, classes, 3, Rule.SUPPORT)
    np.testing.assert_array_equal(neg, cw)
    pos, neg, _ = BinaryTargets().kernel_weights(cw[:2], classes[:2], 1, Rule.BINARY)
    np.testing.assert_array_equal(pos, cw[:2])
    np.testing.assert_array_equal(neg, cw[:2])


@pytest.mark.parametrize("kind", ["binary", "multiclass", "multilabel"])
def test_predict_is_the_strategy_reading_of_the_scores(kind):
    X, y3, Y = _data()
    y = {"binary": np.where(y3 > 0, "yes", "no"), "multiclass": y3, "multilabel": Y}
    clf = PassiveAggressiveClassifier(max_iter=3, tol=None, random_state=0)
    clf.fit(X, y[kind])
    scores = clf.decision_function(X)
    expected = clf._target_strategy.predict(clf.classes_, scores)
    np.testing.assert_array_equal(clf.predict(X), expected)
    if kind == "multilabel":
        np.testing.assert_array_equal(expected, (scores > 0).astype(np.int64))
    elif kind == "binary":
        np.testing.assert_array_equal(expected, clf.classes_[(scores > 0).astype(int)])
    else:
        np.testing.assert_array_equal(expected, clf.classes_[scores.argmax(axis=1)])


def test_validation_split_by_kind():
    y = np.repeat([0, 1], 50)
    tr, va = MulticlassTargets().validation_split(
        y, validation_fraction=0.2, random_state=0
    )
    assert np.bincount(y[va]).tolist() == [10, 10]  # stratified
    Y = np.zeros((100, 3), dtype=int)
    tr, va = MultilabelTargets().validation_split(
        Y, validation_fraction=0.2, random_state=0
    )
    assert tr.shape == (80,) and va.shape == (20,)
    assert np.intersect1d(tr, va).size == 0


def test_partial_fit_keeps_the_first_form():
    X, y3, Y = _data()
    ml = PassiveAggressiveClassifier().partial_fit(X, Y, classes=np.arange(3))
    coef = ml.coef_.copy()
    with pytest.raises(ValueError, match="multilabel indicator y of 3 columns"):
        ml.partial_fit(X, y3)
    single = PassiveAggressiveClassifier().partial_fit(X, y3, classes=np.arange(3))
    with pytest.raises(ValueError, match="cannot switch to a multilabel"):
        single.partial_fit(X, Y)
    # refused before any change
    np.testing.assert_array_equal(ml.coef_, coef)
    assert ml._target_strategy == MultilabelTargets()
    assert single._target_strategy == MulticlassTargets()


@pytest.mark.parametrize("y_kind", ["multiclass", "multilabel"])
def test_pickle_clone_and_continue(y_kind):
    X, y3, Y = _data()
    y = y3 if y_kind == "multiclass" else Y
    clf = PassiveAggressiveClassifier(max_iter=3, tol=None, random_state=0)
    clf.fit(X, y)
    loaded = pickle.loads(pickle.dumps(clf))
    assert loaded._target_strategy == clf._target_strategy
    np.testing.assert_array_equal(loaded.predict(X), clf.predict(X))
    # both continue the same way
    clf.partial_fit(X, y)
    loaded.partial_fit(X, y)
    np.testing.assert_allclose(loaded.coef_, clf.coef_, rtol=0, atol=1e-12)
    # warm_start continues from the fitted strategy's weights
    warm = clone(clf).set_params(warm_start=True, max_iter=1)
    assert not hasattr(warm, "_target_strategy")
    warm.fit(X, y)
    warm.fit(X, y)
    assert warm._target_strategy == clf._target_strategy


def test_strategies_are_stateless_values():
    for strategy in (BinaryTargets(), MulticlassTargets(), MultilabelTargets()):
        assert isinstance(strategy, TargetStrategy)
        assert pickle.loads(pickle.dumps(strategy)) == strategy
        assert hash(strategy) == hash(type(strategy)())
        assert vars(strategy) == {}
    assert MultilabelTargets.multi_output and not MulticlassTargets.multi_output


def test_meta_estimator_hands_its_classes_to_fresh_copies():
    """OnlineBayesPointClassifier continues a stream with a fresh base
    estimator given the classes: the base adopts the single-label strategy."""
    X, y3, _ = _data()
    bpm = OnlineBayesPointClassifier(n_estimators=3, random_state=0)
    bpm.partial_fit(X[:30], y3[:30], classes=np.arange(3))
    bpm.partial_fit(X[30:], y3[30:])
    assert bpm.predict(X).shape == (X.shape[0],)
    mira = MIRAClassifier(max_iter=2, tol=None).fit(X, y3 > 0)
    assert mira._target_strategy == BinaryTargets()
