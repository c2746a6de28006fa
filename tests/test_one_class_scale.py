"""The one-class PA's centre between ``partial_fit`` calls: a scale times a
vector (``sklearn_pa/one_class/_one_class.py``).

A call keeps the centre as ``a * v`` with its squared norm, so that a
one-row call costs the row's non-zeros; ``center_`` is published when read.
These tests check that the stream is the same whether or not ``center_`` is
read between calls, survives a pickle, agrees with a stream that folds the
scale after every call (to rounding) and with one pass of ``fit`` (bit for
bit, the folds of a tiny scale included), and that a batch failing after a
fold of the whole centre leaves the model bit-identical.
"""

import copy
import pickle
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from test_robustness import _assert_same

from sklearn_pa import PassiveAggressiveOneClass

FACTORIES = {
    "fixed": lambda: PassiveAggressiveOneClass(epsilon=0.5, random_state=0),
    "learned": lambda: PassiveAggressiveOneClass(
        epsilon="learn", epsilon_bound=10.0, random_state=0
    ),
    # plain PA on a tiny ball: each step keeps about 1e-3 of the centre, so
    # the scale falls below 1e-9 every few rows and is folded
    "folding": lambda: PassiveAggressiveOneClass(
        C=np.inf, epsilon=1e-3, random_state=0
    ),
}


def _rows(n_rows=80, n_features=400, seed=0):
    rng = np.random.RandomState(seed)
    X = sp.random(
        n_rows, n_features, density=20 / n_features, format="csr", random_state=rng
    )
    X.data = rng.uniform(-1, 1, X.data.shape[0])
    return X


@pytest.mark.parametrize("name", list(FACTORIES))
def test_reading_the_centre_or_a_pickle_leaves_the_stream_bit_identical(name):
    X = _rows()
    quiet, reader = FACTORIES[name](), FACTORIES[name]()
    for est in (quiet, reader):
        est.partial_fit(X[:20])
    for i in range(20, 80):
        quiet.partial_fit(X[i : i + 1])
        reader.partial_fit(X[i : i + 1])
        reader.center_  # noqa: B018 (published after every call)
        if i == 50:
            quiet = pickle.loads(pickle.dumps(quiet))
    assert "center_" not in quiet.__dict__
    np.testing.assert_array_equal(quiet.center_, reader.center_)
    np.testing.assert_array_equal(quiet._extra, reader._extra)
    np.testing.assert_array_equal(quiet.score_samples(X), reader.score_samples(X))
    # the published centre is a new array: the stream does not move it
    published = quiet.center_.copy()
    held = quiet.center_
    quiet.partial_fit(X[:5])
    np.testing.assert_array_equal(held, published)


@pytest.mark.parametrize("name", list(FACTORIES))
def test_the_scaled_stream_is_the_folded_stream_to_rounding(name):
    """A stream that folds the scale after every call (the centre
    published as an array, as before the scale was carried) learns the same
    centre and radius, to rounding, and scores the same."""
    X = _rows()
    scaled, folded = FACTORIES[name](), FACTORIES[name]()
    for i in range(0, 80, 4):
        scaled.partial_fit(X[i : i + 4])
        folded.partial_fit(X[i : i + 4])
        folded._publish(folded.center_.copy(), folded._extra)
        assert "_scale_pending" not in folded.__dict__
    scale = np.abs(folded.center_).max()
    np.testing.assert_allclose(scaled.center_, folded.center_, atol=1e-10 * scale)
    np.testing.assert_allclose(scaled.epsilon_, folded.epsilon_, rtol=1e-10)
    np.testing.assert_allclose(
        scaled.score_samples(X[:10]), folded.score_samples(X[:10]), rtol=1e-10
    )


@pytest.mark.parametrize("name", list(FACTORIES))
@pytest.mark.parametrize("sparse", [True, False], ids=["csr", "dense"])
def test_one_partial_fit_call_is_one_pass_of_fit_bit_for_bit(name, sparse):
    """From a new model, one call is one unshuffled pass of ``fit``: the
    same steps on the same scaled centre, the folds of a tiny scale
    included (the call stops before each and goes on after saving the
    centre)."""
    X = _rows(n_rows=40)
    if not sparse:
        X = X.toarray()
    stream = FACTORIES[name]().set_params(shuffle=False).partial_fit(X)
    fitted = FACTORIES[name]().set_params(max_iter=1, shuffle=False).fit(X)
    np.testing.assert_array_equal(stream.center_, fitted.center_)
    np.testing.assert_array_equal(stream._extra, fitted._extra)
    assert stream.loss_curve_ == fitted.loss_curve_
    if name == "folding":
        assert stream._scale_state[0] >= 1e-9


def test_a_batch_failing_after_a_fold_leaves_the_model_bit_identical():
    """The fold of a tiny scale rewrites every entry of the centre: the call
    saves it whole first, so that a batch failing later (a row whose
    distance overflows, its warning an error) is rolled back bit for bit."""
    X = _rows()
    est = FACTORIES["folding"]()
    est.partial_fit(X[:20])
    before = copy.deepcopy(est.__dict__)
    batch = X[20:30].tolil()
    batch[8, 3] = 1e200
    batch = batch.tocsr()
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        with pytest.raises((RuntimeWarning, ValueError)):
            est.partial_fit(batch)
    _assert_same(est.__dict__, before)
    twin = copy.deepcopy(est)
    est.partial_fit(X[30:40])
    twin.partial_fit(X[30:40])
    np.testing.assert_array_equal(est.center_, twin.center_)


def test_an_assigned_centre_restarts_the_stream_from_it():
    X = _rows()
    est = FACTORIES["fixed"]().partial_fit(X[:20])
    twin = copy.deepcopy(est)
    est.center_ = np.zeros(400)
    twin._publish(np.zeros(400), twin._extra.copy())
    for i in range(20, 30):
        est.partial_fit(X[i : i + 1])
        twin.partial_fit(X[i : i + 1])
    np.testing.assert_array_equal(est.center_, twin.center_)
    with pytest.raises(AttributeError, match="no attribute"):
        est.not_an_attribute_  # noqa: B018


@pytest.mark.parametrize("name", list(FACTORIES))
@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("edit", ["shift", "one entry", "zero"])
def test_a_centre_edited_in_place_is_the_model(name, sparse, edit):
    """center_ written in place after partial_fit (the published copy of the
    scaled centre) is the model, as the same values assigned as a new array
    are: score_samples, predict and the next partial_fit read it."""
    X = _rows()
    if not sparse:
        X = X.toarray()
    edited = FACTORIES[name]().partial_fit(X[:20])
    assigned = copy.deepcopy(edited)
    centre = edited.center_
    if edit == "shift":
        centre += 0.5
    elif edit == "one entry":
        centre[7] = 3.0
    else:
        centre[:] = 0.0
    assigned.center_ = np.array(centre)
    for method in ("score_samples", "decision_function", "predict"):
        np.testing.assert_array_equal(
            getattr(edited, method)(X), getattr(assigned, method)(X)
        )
    for i in range(20, 26):
        edited.partial_fit(X[i : i + 1])
        assigned.partial_fit(X[i : i + 1])
    np.testing.assert_array_equal(edited.center_, assigned.center_)
    np.testing.assert_array_equal(edited.score_samples(X), assigned.score_samples(X))
