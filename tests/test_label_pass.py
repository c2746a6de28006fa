"""One pass over the labels of a large integer ``y`` stands for scikit-learn's
type check, ``unique_labels`` and the check that every label is a class:
the same classes (values and dtype), the same errors, and no other pass."""

import numpy as np
import pytest
from sklearn.utils.multiclass import unique_labels

try:  # numpy >= 2
    from numpy.lib import _arraysetops_impl
except ImportError:  # numpy 1.x, the declared floor
    from numpy.lib import arraysetops as _arraysetops_impl

from sklearn_pa import AROWClassifier, PassiveAggressiveClassifier
from sklearn_pa._core import targets as _targets
from sklearn_pa._core.targets import integer_labels


@pytest.mark.parametrize("dtype", [np.int8, np.uint16, np.int32, np.int64, np.uint64])
@pytest.mark.parametrize("span", [1, 5, 300, 10**6])
@pytest.mark.parametrize("where", ["low", "high"])
def test_integer_labels_are_unique_labels(dtype, span, where):
    """Counted (a small range) or sorted, at either end of the dtype."""
    info = np.iinfo(dtype)
    if span > int(info.max) - int(info.min):
        pytest.skip("a range wider than the dtype")
    rng = np.random.RandomState(span)
    offsets = rng.randint(0, span + 1, size=200).astype(np.uint64)
    if where == "low":
        y = np.array([int(info.min) + int(o) for o in offsets], dtype=dtype)
    else:
        y = np.array([int(info.max) - int(o) for o in offsets], dtype=dtype)
    met = integer_labels(y)
    want = unique_labels(y)
    assert met.dtype == want.dtype == y.dtype
    np.testing.assert_array_equal(met, want)
    np.testing.assert_array_equal(met, np.unique(y))


@pytest.mark.parametrize(
    "y",
    [
        np.array([0.0, 1.0]),
        np.array(["a", "b"]),
        np.array([0, 1], dtype=object),
        [0, 1],
        np.array([[0], [1]]),
        np.array([], dtype=np.int64),
        np.array([True, False]),
    ],
)
def test_other_labels_take_the_full_checks(y):
    assert integer_labels(y) is None


@pytest.mark.parametrize("factory", [PassiveAggressiveClassifier, AROWClassifier])
def test_a_fit_reads_the_labels_once(factory, monkeypatch):
    """``fit`` on an integer ``y`` reads its labels once (scikit-learn's
    ``type_of_target`` and ``unique_labels`` are not called)."""
    rng = np.random.RandomState(0)
    X = rng.normal(size=(300, 4))
    y = rng.randint(0, 3, size=300)
    reference = factory(random_state=0).fit(X, y)

    def forbidden(*args, **kwargs):
        raise AssertionError("a second pass over the labels")

    monkeypatch.setattr(_targets, "type_of_target", forbidden)
    monkeypatch.setattr(_targets, "unique_labels", forbidden)
    sizes = []
    original = _arraysetops_impl._unique1d

    def counting(ar, *args, **kwargs):
        sizes.append(np.size(ar))
        return original(ar, *args, **kwargs)

    monkeypatch.setattr(_arraysetops_impl, "_unique1d", counting)
    est = factory(random_state=0).fit(X, y)
    assert sum(size == y.shape[0] for size in sizes) <= 1
    np.testing.assert_array_equal(est.classes_, reference.classes_)
    np.testing.assert_array_equal(est.coef_, reference.coef_)


def _error(call):
    with pytest.raises(ValueError) as info:
        call()
    return str(info.value)


@pytest.mark.parametrize("as_list", [False, True])
def test_the_errors_are_those_of_the_full_checks(as_list):
    """An integer array (one pass) and the same labels as a list (the full
    checks) are refused with the same message."""
    X = np.eye(4)

    def labels(values):
        return list(values) if as_list else np.asarray(values, dtype=np.int64)

    one_class = _error(
        lambda: PassiveAggressiveClassifier().fit(X, labels([1, 1, 1, 1]))
    )
    assert "greater than one" in one_class
    unknown = _error(
        lambda: PassiveAggressiveClassifier().partial_fit(
            X, labels([0, 1, 2, 7]), classes=[0, 1, 2]
        )
    )
    assert "y contains labels [7]" in unknown
    est = PassiveAggressiveClassifier().partial_fit(X, [0, 1, 2, 2], classes=[0, 1, 2])
    later = _error(lambda: est.partial_fit(X, labels([0, 5, 5, 1])))
    assert "y contains labels [5]" in later
    no_classes = _error(
        lambda: PassiveAggressiveClassifier().partial_fit(X, labels([0, 1, 0, 1]))
    )
    assert "classes must be passed" in no_classes


@pytest.mark.parametrize(
    "data",
    [
        [],
        [0.0, -0.0],
        [1.0, -3.0, 0.0, 2.5],
        [-0.0, 5e-300],
        [np.nan, 1.0],
        [1.0, np.inf, -2.0],
        list(np.random.RandomState(0).normal(size=1000)),
    ],
)
def test_value_range_is_numpys_three_passes(data):
    """The one pass of ``typical_feature_value``'s set-up gives the count
    and extremes of ``np.count_nonzero``, ``np.max`` and ``np.min``."""
    from sklearn_pa._compiled._scores import value_range

    data = np.asarray(data, dtype=np.float64)
    n_nonzero, largest, smallest = value_range(data)
    assert n_nonzero == np.count_nonzero(data)
    if data.size:
        np.testing.assert_array_equal([largest, smallest], [data.max(), data.min()])


@pytest.mark.parametrize(
    "classes, y",
    [
        (np.arange(3), np.array([2, 0, 1, 1])),
        (np.arange(2, dtype=np.uint8), np.array([1, 0, 1], dtype=np.uint8)),
        (np.array([1, 2, 3]), np.array([3, 1, 2])),
        (np.array([0, 2, 5]), np.array([5, 0, 2])),
        (np.array([0.0, 1.0]), np.array([1.0, 0.0])),
        (np.array(["a", "b"]), np.array(["b", "a"])),
    ],
)
def test_encoded_labels_are_the_class_indices(classes, y):
    labels, _ = _targets.MulticlassTargets().encode(classes, y)
    assert labels.dtype == np.int32 and labels.flags.c_contiguous
    np.testing.assert_array_equal(labels, np.searchsorted(classes, y))
