"""The write log of the compiled first-order pass: the pre-image of each
entry the pass writes, logged by the pass just before the write
(``_compiled/_write_log.pyx``), is what a ``partial_fit`` call's journal
keeps of the weights, and writing it back puts every entry back.

A call keeps what its steps write, not every row of the weights its batch
indexes; a weight a row reads that is NaN or infinite is still refused with
the full check's message, before the call changes anything visible.
"""

import copy

import numpy as np
import pytest
import scipy.sparse as sp
from _capabilities import estimators_for
from hypothesis import given, settings
from hypothesis import strategies as st
from kernel_calls import row_view, rule_params
from numpy.testing import assert_array_equal
from sklearn.base import is_classifier

from sklearn_pa import PassiveAggressiveClassifier
from sklearn_pa._compiled import _first_order, _second_order, _write_log
from sklearn_pa._compiled._rules import Rule, SecondOrderRule, Slack
from sklearn_pa._core import epochs
from sklearn_pa.second_order._epochs import logged_per_value

# (rule, number of weight columns for K classes)
RULES = [
    (Rule.BINARY, lambda K: 1),
    (Rule.OVR, lambda K: K),
    (Rule.MAX_LOSS, lambda K: K),
    (Rule.SUPPORT, lambda K: K),
    (Rule.MIRA, lambda K: K),
    (Rule.REGRESSION, lambda K: 1),
    (Rule.PERCEPTRON_UNIFORM, lambda K: K),
]


def _random_rows(rng, n_rows, n_features, dense):
    """Random rows, about 70 % non-zero (a few features read by many rows),
    and their row view, dense or CSR: ``(X, rows)``."""
    X = rng.normal(size=(n_rows, n_features)) * (rng.rand(n_rows, n_features) < 0.7)
    if dense:
        rows = row_view(
            X.ravel(),
            np.arange(n_features, dtype=np.int32),
            np.zeros(1, dtype=np.int32),
            True,
            n_features,
        )
        return X, rows
    X = sp.csr_matrix(X)
    return X, row_view(X.data, X.indices, X.indptr, False, n_features)


def _epoch(rows, order, W, b, U, bu, rule, labels, targets, t0, log):
    K = W.shape[1]
    n = labels.shape[0]
    return _first_order.epoch(
        rows,
        order,
        W,
        b,
        U,
        bu,
        params=rule_params(rule, Slack.HINGE, 0.7, 0.1),
        labels=labels,
        targets=targets,
        sample_weight=np.ones(n),
        weight_pos=np.ones(max(K, 2)),
        weight_neg=np.ones(max(K, 2)),
        margins=np.ones((max(K, 2), max(K, 2))),
        active=np.ones(K, dtype=np.uint8),
        intercept_sq=1.0,
        t0=t0,
        average_start=1,
        loss_out=np.zeros(K),
        write_log=log,
    )


@settings(max_examples=150, deadline=None)
@given(
    rule=st.sampled_from(RULES),
    n_classes=st.integers(2, 4),
    n_features=st.integers(1, 6),
    n_rows=st.integers(1, 12),
    averaged=st.booleans(),
    dense=st.booleans(),
    t0=st.integers(0, 5),
    seed=st.integers(0, 2**31 - 1),
)
def test_undoing_a_log_puts_every_entry_back(
    rule, n_classes, n_features, n_rows, averaged, dense, t0, seed
):
    """A pass with a write log writes the weights a pass without one
    writes, bit for bit; undoing the log then gives back every weight,
    average and intercept as it was, though a few features are written by
    many rows (the log holds an entry many times: the latest is undone
    first)."""
    rule, columns = rule
    rng = np.random.RandomState(seed)
    K = columns(n_classes)
    X, rows = _random_rows(rng, n_rows, n_features, dense)
    labels = rng.randint(2 if K == 1 else K, size=n_rows).astype(np.int32)
    targets = rng.normal(size=n_rows)
    order = rng.permutation(n_rows).astype(np.int64)
    W = rng.normal(size=(n_features, K))
    b = rng.normal(size=K)
    U = rng.normal(size=(n_features, K)) if averaged else np.zeros((0, K))
    bu = rng.normal(size=K) if averaged else np.zeros(0)
    before = [a.copy() for a in (W, b, U, bu)]
    plain = [a.copy() for a in (W, b, U, bu)]
    expected = _epoch(rows, order, *plain, rule, labels, targets, t0, None)
    log = _write_log.WriteLog((W, b, U, bu))
    result = _epoch(rows, order, W, b, U, bu, rule, labels, targets, t0, log)
    assert result == expected
    for got, want in zip((W, b, U, bu), plain):
        assert_array_equal(got, want)
    assert not log.failed and not log.nonfinite_read
    if result[1]:  # (rows that took a step)
        assert len(log) > 0
    log.undo()
    assert len(log) == 0
    for got, want in zip((W, b, U, bu), before):
        assert_array_equal(got, want)


@pytest.mark.parametrize("average", [False, True])
@pytest.mark.parametrize("multiclass", ["max_loss", "support"])
def test_a_one_row_call_keeps_the_entries_its_step_writes(
    average, multiclass, monkeypatch
):
    """A later one-row call of a multiclass PA on a wide model keeps, for
    its journal, the entries its step writes: the columns its step moves
    (two for the max-loss rule, the support classes and the true one
    for SPA) at the row's features and the intercepts, and as many of the
    average's accumulators."""
    rng = np.random.RandomState(0)
    n_features, nnz, n_classes = 50_000, 30, 10
    X = sp.random(
        200, n_features, density=nnz / n_features, format="csr", random_state=rng
    )
    X.data = rng.uniform(-1, 1, X.data.shape[0])
    y = rng.randint(n_classes, size=200)
    est = PassiveAggressiveClassifier(
        average=average, multiclass=multiclass, random_state=0
    )
    est.partial_fit(X[:100], y[:100], classes=np.arange(n_classes))
    est.partial_fit(X[100:101], y[100:101])
    seen = []
    check = epochs.check_writes

    def spy(estimator, writes):
        seen.append(len(writes))
        return check(estimator, writes)

    monkeypatch.setattr(epochs, "check_writes", spy)
    n_steps = 0
    for i in range(101, 140):
        t = est.t_
        est.partial_fit(X[i : i + 1], y[i : i + 1])
        assert est.t_ == t + 1
        entries = seen[-1]
        if entries:
            n_steps += 1
            per_column = (X[i].nnz + 1) * (2 if average else 1)
            n_columns, rest = divmod(entries, per_column)
            assert rest == 0
            if multiclass == "max_loss":
                # (the true class and the one of largest loss)
                assert n_columns == 2
            else:
                assert 2 <= n_columns <= n_classes
    assert len(seen) == 39 and n_steps > 10


def _unaveraged(Estimator):
    """The estimator with its last iterate published (``coef_`` a view of
    the weights the pass reads), and a fixed seed."""
    est = Estimator()
    params = est.get_params()
    est.set_params(
        **{k: v for k, v in (("average", False), ("random_state", 0)) if k in params}
    )
    return est


@pytest.mark.parametrize("name, Estimator", estimators_for("write log"))
@pytest.mark.parametrize("form", ["csr", "dense"])
def test_a_nan_weight_a_later_row_reads_is_refused_before_any_change(
    name, Estimator, form
):
    """A NaN written in place into ``coef_`` at a feature only the last
    row of a CSR batch reads (every row of a dense batch reads every
    feature) is refused with the full check's message, after the rows
    before it were learned: the call then leaves the model as it was (their
    writes undone).  A NaN no row of the batch reads is no weight the call
    reads: the call learns."""
    rng = np.random.RandomState(0)
    X = np.abs(rng.normal(size=(40, 6)))
    X[:, 5] = 0.0
    est = _unaveraged(Estimator)
    if is_classifier(est):
        y = rng.randint(3, size=40)
        est.partial_fit(X[:20], y[:20], classes=[0, 1, 2])
    else:
        y = rng.normal(size=40)
        est.partial_fit(X[:20], y[:20])
    est.partial_fit(X[20:21], y[20:21])
    batch = X[21:25].copy()
    batch[-1, 5] = 1.0  # the last row's only feature 5
    cast = sp.csr_matrix if form == "csr" else np.ascontiguousarray
    coef, intercept, t = est.coef_.copy(), est.intercept_.copy(), est.t_
    curve = list(est.loss_curve_)
    # (row 0 of coef_, of one or of several outputs, in place)
    np.reshape(est.coef_, (-1, 6))[0, 5] = np.nan
    with pytest.raises(ValueError, match="coef_ of .* NaN or infinity"):
        est.partial_fit(cast(batch), y[21:25])
    assert est.t_ == t and est.loss_curve_ == curve
    assert_array_equal(est.intercept_, intercept)
    expected = coef.copy()
    np.reshape(expected, (-1, 6))[0, 5] = np.nan
    assert_array_equal(est.coef_, expected)
    if form == "csr":
        # the same rows without the last: none reads feature 5
        est.partial_fit(cast(batch[:-1]), y[21:24])
        assert est.t_ == t + 3
        learned = np.reshape(est.coef_, (-1, 6))
        assert np.isnan(learned[0, 5])
        assert np.isfinite(learned[:, :5]).all()


class _Failure(Exception):
    pass


@pytest.mark.parametrize("name, Estimator", estimators_for("write log"))
def test_every_learner_whose_pass_logs_its_writes_is_undone_by_the_log(
    name, Estimator, monkeypatch
):
    """Every estimator (discovered; those whose passes keep another journal
    say why in ``tests/_capabilities.py``) logs the writes of a later
    ``partial_fit`` pass, and a call that fails right after its pass, on a
    batch whose rows share features, leaves a model that continues exactly
    as a copy taken before it."""
    try:
        est = Estimator(random_state=0)
    except TypeError:
        est = Estimator()
    rng = np.random.RandomState(1)
    X = sp.csr_matrix(np.abs(rng.normal(size=(60, 8))) * (rng.rand(60, 8) < 0.6))
    if is_classifier(est):
        y = rng.randint(3, size=60)
        kwargs = {"classes": [0, 1, 2]}
    else:
        y = rng.normal(size=60)
        kwargs = {}
    est.partial_fit(X[:20], y[:20], **kwargs)
    est.partial_fit(X[20:21], y[20:21])
    logs = []
    check = epochs.check_writes

    def failing(estimator, writes):
        check(estimator, writes)
        logs.append(len(writes))
        raise _Failure

    reference = copy.deepcopy(est)
    with monkeypatch.context() as m:
        m.setattr(epochs, "check_writes", failing)
        try:
            est.partial_fit(X[21:31], y[21:31])
        except _Failure:
            pass
    assert logs and logs[0] > 0, "the pass logged no write"
    for model in (est, reference):
        model.partial_fit(X[21:31], y[21:31])
        model.partial_fit(X[31:40], y[31:40])
    assert est.t_ == reference.t_
    for name in ("coef_", "intercept_"):
        assert_array_equal(getattr(est, name), getattr(reference, name))
    assert_array_equal(est.predict(X), reference.predict(X))


@pytest.mark.parametrize("limit", [0, 10**9])
@pytest.mark.parametrize("average", [False, True])
def test_a_batch_over_the_logged_size_keeps_its_rows_and_is_undone_alike(
    limit, average, monkeypatch
):
    """A batch of more values than ``LOGGED_VALUES_MAX`` keeps the rows of
    the weights it indexes instead of a write log; either way a call that
    fails after its pass leaves a model that continues as a copy taken
    before it."""
    monkeypatch.setattr(epochs, "LOGGED_VALUES_MAX", limit)
    rng = np.random.RandomState(3)
    X = sp.csr_matrix(np.abs(rng.normal(size=(80, 12))) * (rng.rand(80, 12) < 0.5))
    y = rng.randint(4, size=80)
    est = PassiveAggressiveClassifier(average=average, random_state=0)
    est.partial_fit(X[:30], y[:30], classes=[0, 1, 2, 3])
    est.partial_fit(X[30:31], y[30:31])
    reference = copy.deepcopy(est)
    logs = []
    check, stats = epochs.check_writes, epochs._LinearEpochs._stats

    def failing(self, *args):
        stats(self, *args)
        raise _Failure

    with monkeypatch.context() as m:
        m.setattr(epochs, "check_writes", lambda e, w: (logs.append(w), check(e, w)))
        m.setattr(epochs._LinearEpochs, "_stats", failing)
        with pytest.raises(_Failure):
            est.partial_fit(X[31:50], y[31:50])
    assert bool(logs) == (limit > 0)
    for model in (est, reference):
        model.partial_fit(X[31:50], y[31:50])
        model.partial_fit(X[50:], y[50:])
    assert est.t_ == reference.t_
    assert_array_equal(est.coef_, reference.coef_)
    assert_array_equal(est.intercept_, reference.intercept_)


def _second_order_calls():
    """``(name, kwargs)`` of a later ``partial_fit`` pass of every public
    second-order estimator (discovered by the kernel it calls) on a
    diagonal covariance, as the kernel received them."""
    from unittest import mock

    from sklearn_pa.utils import all_estimators

    rng = np.random.RandomState(0)
    X = np.abs(rng.normal(size=(30, 5)))
    calls = []
    for name, Estimator in all_estimators():
        est = Estimator()
        if "covariance" not in est.get_params():
            continue
        est.set_params(covariance="diagonal")
        y = rng.randint(3, size=30) if is_classifier(est) else rng.normal(size=30)
        kwargs = {"classes": [0, 1, 2]} if is_classifier(est) else {}
        est.partial_fit(X[:20], y[:20], **kwargs)
        seen = []

        def spy(*args, seen=seen, real=_second_order.epoch, **kw):
            seen.append(kw)
            return real(*args, **kw)

        with mock.patch.object(_second_order, "epoch", spy):
            est.partial_fit(X[20:], y[20:])
        if seen:
            calls.append((name, seen[0]))
    return calls


SECOND_ORDER_CALLS = _second_order_calls()


def test_every_second_order_learner_is_in_the_undo_test():
    """The kernel-level undo test below runs over every public estimator
    with a ``covariance`` parameter (discovered)."""
    from sklearn_pa.utils import all_estimators

    with_covariance = {
        name for name, E in all_estimators() if "covariance" in E().get_params()
    }
    assert {name for name, _ in SECOND_ORDER_CALLS} == with_covariance


@settings(max_examples=120, deadline=None)
@given(
    case=st.sampled_from(SECOND_ORDER_CALLS),
    n_rows=st.integers(1, 10),
    averaged=st.booleans(),
    dense=st.booleans(),
    t0=st.integers(0, 4),
    seed=st.integers(0, 2**31 - 1),
    floor=st.sampled_from([0.0, 0.3, 1.0]),
)
def test_undoing_a_second_order_log_puts_every_entry_back(
    case, n_rows, averaged, dense, t0, seed, floor
):
    """Each second-order learner's pass (its rule, step and parameters as
    its estimator sends them) with a write log writes what it writes
    without one, bit for bit; undoing the log gives back the mean, its
    averages, the intercepts and the diagonal covariance as they were (a
    step that scales the whole covariance, IELLIP's, logs all of it).  With
    a covariance floor (``covariance_floor``) too: the floor writes only
    variances its step logged."""
    name, recorded = case
    rng = np.random.RandomState(seed)
    n_features, K = recorded["W"].shape
    G = recorded["S_diag"].shape[1]
    X, rows = _random_rows(rng, n_rows, n_features, dense)
    arrays = {
        "W": rng.normal(size=(n_features, K)),
        "b": rng.normal(size=K),
        "S_diag": rng.uniform(0.2, 2.0, size=(n_features + 1, G)),
        "U": rng.normal(size=(n_features, K)) if averaged else np.zeros((0, K)),
        "bu": rng.normal(size=K) if averaged else np.zeros(0),
    }
    fixed = dict(
        params={**recorded["params"], "floor": floor},
        labels=rng.randint(2 if K == 1 else K, size=n_rows).astype(np.int32),
        targets=None if recorded["targets"] is None else rng.normal(size=n_rows),
        sample_weight=rng.uniform(0.5, 2.0, size=n_rows),
        class_weight=recorded["class_weight"],
        S_full=np.zeros((0, 1, 1)),
        intercept=recorded["intercept"],
        t0=t0,
        average_start=1,
    )
    order = rng.permutation(n_rows).astype(np.int64)
    before = {k: a.copy() for k, a in arrays.items()}
    plain = {k: a.copy() for k, a in arrays.items()}
    expected = _second_order.epoch(rows, order, **plain, **fixed, loss_out=np.zeros(1))
    log = _write_log.WriteLog(tuple(arrays.values()))
    result = _second_order.epoch(
        rows, order, **arrays, **fixed, loss_out=np.zeros(1), write_log=log
    )
    assert result == expected
    for k in arrays:
        assert_array_equal(arrays[k], plain[k])
    assert not log.failed and not log.nonfinite_read
    if result[1]:  # (rows that took a step)
        assert len(log) > 0
    # the bound the journal reads to choose the log (each step logs its
    # row's non-zeros and the intercept's entry; IELLIP's scaling, the
    # whole covariance)
    n_values = X.nnz if sp.issparse(X) else X.size
    bound = (n_values + n_rows) * logged_per_value(
        recorded["params"]["rule"], K, averaged
    )
    if name == "IELLIPClassifier":
        bound += n_rows * (n_features + 1) * G
    assert len(log) <= bound
    log.undo()
    for k in arrays:
        assert_array_equal(arrays[k], before[k])


def test_a_second_order_write_log_needs_the_diagonal_covariance():
    """A full covariance is written whole by BLAS: its pass refuses a write
    log (its journal keeps the covariance)."""
    _, recorded = SECOND_ORDER_CALLS[0]
    n_features, K = recorded["W"].shape
    G = recorded["S_diag"].shape[1]
    D = n_features + (recorded["intercept"] != 0)
    kwargs = dict(recorded, S_diag=np.zeros((0, 1)), S_full=np.ones((G, D, D)))
    kwargs.pop("bound", None)
    kwargs.pop("write_log", None)
    rows = row_view(
        np.ones(n_features),
        np.arange(n_features, dtype=np.int32),
        np.zeros(1, dtype=np.int32),
        True,
        n_features,
    )
    kwargs.update(
        labels=np.zeros(1, np.int32),
        sample_weight=np.ones(1),
        targets=None if recorded["targets"] is None else np.zeros(1),
        scores_out=None,
        var_out=None,
    )
    with pytest.raises(ValueError, match="write log needs the diagonal covariance"):
        _second_order.epoch(
            rows,
            np.zeros(1, np.int64),
            **kwargs,
            write_log=_write_log.WriteLog(),
        )


@pytest.mark.parametrize("limit", [0, 10**9])
def test_a_covariance_a_logged_pass_makes_non_finite_is_an_overflow(limit, monkeypatch):
    """A diagonal covariance entry left infinite by the pass (here written
    right after the real pass, at the feature its one row reads) is an
    overflow, whether the call logs its writes (the logged entries are
    checked) or keeps the rows (the rows are): the call raises and leaves
    the model as it was."""
    from sklearn_pa import AROWClassifier
    from sklearn_pa.second_order import _epochs as second_order_epochs

    monkeypatch.setattr(second_order_epochs, "LOGGED_ENTRIES_MAX", limit)

    rng = np.random.RandomState(0)
    X = sp.csr_matrix(np.abs(rng.normal(size=(30, 6))) * (rng.rand(30, 6) < 0.5))
    y = rng.randint(2, size=30)
    est = AROWClassifier(random_state=0).partial_fit(X[:20], y[:20], classes=[0, 1])
    row = sp.csr_matrix(([1.0], ([0], [3])), shape=(1, 6))
    label = 1 - est.predict(row)  # (a mistake: the pass takes a step)
    before = copy.deepcopy(est)
    logs = []
    real = _second_order.epoch

    def overflowing(*args, **kwargs):
        result = real(*args, **kwargs)
        logs.append(kwargs.get("write_log"))
        kwargs["S_diag"][3] = np.inf
        return result

    monkeypatch.setattr(second_order_epochs._second_order, "epoch", overflowing)
    with pytest.raises(ValueError, match="overflow"):
        est.partial_fit(row, label)
    assert (logs[0] is not None) == (limit > 0)
    assert_array_equal(est.coef_, before.coef_)
    assert_array_equal(est.intercept_, before.intercept_)
    assert_array_equal(est._sigma, before._sigma)
    assert est.t_ == before.t_


def test_written_finite_reads_the_logged_entries_of_an_array_only():
    """``WriteLog.written_finite(array)`` is False when an entry of
    ``array`` that the pass logged holds NaN or infinity now, and reads no
    other entry (nor another array's)."""
    W, S = np.zeros((4, 3)), np.ones((5, 2))
    log = _write_log.WriteLog((W, S))
    _, recorded = next(c for c in SECOND_ORDER_CALLS if c[0] == "AROWClassifier")
    assert log.written_finite(S) and log.written_finite(np.zeros((0, 2)))
    rows = row_view(
        np.array([2.0]), np.array([1], np.int32), np.array([0, 1], np.int32), False, 4
    )
    K = W.shape[1]
    params = dict(recorded["params"])
    if K > 1:
        params = dict(params, rule=int(SecondOrderRule.SO_SINGLE))
    _second_order.epoch(
        rows,
        np.zeros(1, np.int64),
        params=params,
        labels=np.zeros(1, np.int32),
        sample_weight=np.ones(1),
        class_weight=np.ones(K),
        W=W,
        b=np.zeros(K),
        S_diag=np.ones((5, K)),
        S_full=np.zeros((0, 1, 1)),
        U=np.zeros((0, K)),
        bu=np.zeros(0),
        intercept=1.0,
        t0=0,
        average_start=0,
        loss_out=np.zeros(1),
        write_log=log,
    )
    assert len(log) > 0 and log.written_finite(W)
    W[0, :] = np.inf  # (feature 0: no row read it, nothing logged there)
    assert log.written_finite(W)
    W[1, 0] = np.nan  # (feature 1, class 0's column: written by the step)
    assert not log.written_finite(W)
    assert log.written_finite(S)  # (another array: nothing of it logged)
