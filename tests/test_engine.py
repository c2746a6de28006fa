"""The one epoch driver (``sklearn_pa._core.driver``) and every family on it.

Each family runs its epochs through :func:`sklearn_pa._core.driver.run_epochs`,
so that they share one training history (``loss_curve_``,
``validation_scores_``), one stopping rule, one set of warnings and one
verbose format.  The driver itself is tested on a scripted adapter.
"""

import re
import warnings
from pathlib import Path

import numpy as np
import pytest
from _capabilities import discovered
from sklearn.base import is_classifier
from sklearn.exceptions import ConvergenceWarning

import sklearn_pa
from sklearn_pa import (
    AROWClassifier,
    ConfidenceWeightedClassifier,
    ExponentiatedGradientRegressor,
    GradientDescentRegressor,
    KernelPassiveAggressiveClassifier,
    KernelPassiveAggressiveRegressor,
    OnlineBayesPointClassifier,
    PassiveAggressiveClassifier,
    PassiveAggressiveOneClass,
    PassiveAggressiveRegressor,
    SCWClassifier,
    StructuredPassiveAggressive,
    StructuredPerceptron,
)
from sklearn_pa._core.driver import EpochAdapter, EpochStats, run_epochs

# the small noisy problems here make CW warn that its labels look noisy
pytestmark = pytest.mark.filterwarnings(
    "ignore::sklearn_pa.exceptions.NoisyLabelsWarning"
)


# ------------------------------------------------------------------- data
def _classification():
    rng = np.random.RandomState(0)
    X = rng.normal(size=(90, 4))
    y = np.argmax(X[:, :3] + 0.8 * rng.normal(size=(90, 3)), axis=1)
    return X, y


def _regression():
    rng = np.random.RandomState(1)
    X = rng.normal(size=(80, 4))
    y = X @ np.array([1.0, -2.0, 0.5, 0.0]) + 0.3 * rng.normal(size=80)
    return X, y


def _sequences():
    rng = np.random.RandomState(2)
    X, Y = [], []
    for _ in range(30):
        n = rng.randint(2, 6)
        labels = rng.randint(0, 3, size=n)
        x = np.eye(3)[labels] + 0.7 * rng.normal(size=(n, 3))
        X.append(x)
        Y.append(labels)
    return X, Y


def _fit_args(est):
    if isinstance(est, PassiveAggressiveOneClass):
        return (_regression()[0],)
    if isinstance(est, (StructuredPerceptron, StructuredPassiveAggressive)):
        return _sequences()
    if isinstance(est, (PassiveAggressiveRegressor, KernelPassiveAggressiveRegressor)):
        return _regression()
    if isinstance(est, (GradientDescentRegressor, ExponentiatedGradientRegressor)):
        return _regression()
    return _classification()


def _partial_fit(est, *args):
    if isinstance(est, (StructuredPerceptron, StructuredPassiveAggressive)):
        X, Y = args
        return est.partial_fit(X, Y, classes=np.arange(3))
    if is_classifier(est):
        X, y = args
        return est.partial_fit(X, y, classes=np.unique(y))
    return est.partial_fit(*args)


#: One estimator of every family (a name for the test ids).
FAMILIES = {
    "pa-classifier": lambda **kw: PassiveAggressiveClassifier(random_state=0, **kw),
    "pa-regressor": lambda **kw: PassiveAggressiveRegressor(random_state=0, **kw),
    "gradient-descent": lambda **kw: GradientDescentRegressor(random_state=0, **kw),
    "exponentiated-gradient": lambda **kw: ExponentiatedGradientRegressor(
        random_state=0, **kw
    ),
    "cw": lambda **kw: ConfidenceWeightedClassifier(random_state=0, **kw),
    "arow": lambda **kw: AROWClassifier(random_state=0, **kw),
    "scw": lambda **kw: SCWClassifier(random_state=0, **kw),
    "bayes-point": lambda **kw: OnlineBayesPointClassifier(
        n_estimators=3, random_state=0, **kw
    ),
    "kernel-pa-classifier": lambda **kw: KernelPassiveAggressiveClassifier(
        random_state=0, **kw
    ),
    "kernel-pa-regressor": lambda **kw: KernelPassiveAggressiveRegressor(
        random_state=0, **kw
    ),
    "one-class": lambda **kw: PassiveAggressiveOneClass(random_state=0, **kw),
    "structured-perceptron": lambda **kw: StructuredPerceptron(random_state=0, **kw),
    "structured-pa": lambda **kw: StructuredPassiveAggressive(random_state=0, **kw),
}


def _family(Estimator):
    """A factory of ``Estimator`` like those above: its defaults, a fixed
    ``random_state`` and the keywords of a test."""

    def make(**kw):
        est = Estimator(**kw)
        if "random_state" in est.get_params() and "random_state" not in kw:
            est.set_params(random_state=0)
        return est

    return make


# every other public estimator, found by discovery, with its defaults
FAMILIES.update(
    (name, _family(type(make())))
    for name, make in discovered("engine", list(FAMILIES.values()))
)

#: The families with a ``tol`` (a stopping rule and its ConvergenceWarning).
WITH_TOL = [name for name in FAMILIES if "tol" in FAMILIES[name]().get_params()]

#: The families with ``early_stopping``.
WITH_EARLY_STOPPING = [
    name for name in FAMILIES if "early_stopping" in FAMILIES[name]().get_params()
]


def _without_tol(make, **kw):
    est = make(**kw)
    if "tol" in est.get_params():
        est.set_params(tol=None)
    return est


# --------------------------------------------------------- every family
@pytest.mark.parametrize("name", FAMILIES)
def test_loss_curve_has_one_mean_loss_per_epoch(name):
    est = _without_tol(FAMILIES[name], max_iter=4)
    est.fit(*_fit_args(est))
    assert est.n_iter_ == 4
    assert len(est.loss_curve_) == est.n_iter_
    assert all(np.isfinite(v) and v >= 0 for v in est.loss_curve_)
    assert getattr(est, "validation_scores_", None) is None


@pytest.mark.parametrize("name", WITH_TOL)
def test_stopping_rule_sets_n_iter_and_loss_curve(name):
    # a huge tol: no epoch improves enough, so the run stops after
    # n_iter_no_change + 1 epochs, and the history has as many entries
    est = FAMILIES[name](max_iter=50, tol=1e300, n_iter_no_change=2)
    est.fit(*_fit_args(est))
    assert est.n_iter_ == 3
    assert len(est.loss_curve_) == 3


@pytest.mark.parametrize("name", WITH_TOL)
def test_convergence_warning(name):
    # a huge negative tol: every epoch counts as an improvement
    est = FAMILIES[name](max_iter=2, tol=-1e300)
    with pytest.warns(ConvergenceWarning, match="Maximum number of iteration"):
        est.fit(*_fit_args(est))
    assert est.n_iter_ == 2


@pytest.mark.parametrize("name", FAMILIES)
def test_no_convergence_warning_without_tol(name):
    est = _without_tol(FAMILIES[name], max_iter=2)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        est.fit(*_fit_args(est))


def test_every_family_has_a_stopping_rule():
    assert WITH_TOL == list(FAMILIES)


def test_early_stopping_families():
    # every family that can hold out a labelled split offers early stopping
    assert set(WITH_EARLY_STOPPING) >= {
        "pa-classifier",
        "pa-regressor",
        "gradient-descent",
        "exponentiated-gradient",
        "cw",
        "arow",
        "scw",
        "kernel-pa-classifier",
        "kernel-pa-regressor",
        "bayes-point",
        "structured-perceptron",
        "structured-pa",
    }


def test_bayes_point_holds_out_labeled_rows_only():
    X, y = _classification()
    y = y.copy()
    y[::3] = -1  # unlabeled
    clf = FAMILIES["bayes-point"](early_stopping=True, validation_fraction=0.25)
    train_idx, val_idx = clf._validation_split(y, y == -1, np.ones(len(y)))
    assert np.all(y[val_idx] >= 0)
    assert len(val_idx) == round(0.25 * np.count_nonzero(y >= 0))
    assert np.array_equal(np.union1d(train_idx, val_idx), np.arange(len(y)))
    assert set(np.flatnonzero(y == -1)) <= set(train_idx)
    clf.set_params(tol=None, max_iter=3).fit(X, y)
    assert len(clf.validation_scores_) == 3


@pytest.mark.parametrize("name", WITH_EARLY_STOPPING)
def test_early_stopping_records_validation_scores(name):
    est = FAMILIES[name](
        early_stopping=True,
        validation_fraction=0.2,
        n_iter_no_change=2,
        tol=1e300,
        max_iter=50,
    )
    est.fit(*_fit_args(est))
    # a huge tol: no validation score is ever tol above the best
    assert est.n_iter_ == 3
    assert len(est.validation_scores_) == est.n_iter_ == len(est.loss_curve_)
    assert all(np.isfinite(s) for s in est.validation_scores_)
    est.set_params(tol=None, max_iter=4)
    est.fit(*_fit_args(est))
    assert len(est.validation_scores_) == 4


@pytest.mark.parametrize("name", FAMILIES)
def test_verbose_lines(name, capsys):
    est = _without_tol(FAMILIES[name], max_iter=2, verbose=1)
    args = _fit_args(est)
    est.fit(*args)
    lines = capsys.readouterr().out.splitlines()
    epochs = [line for line in lines if line.startswith("-- Epoch")]
    assert len(epochs) == 2
    assert re.match(r"-- Epoch 1/2, Avg\. loss: \d+\.\d{6}, .*Time: ", epochs[0])
    assert epochs[1].startswith("-- Epoch 2/2, ")
    assert "Updates" not in epochs[0]

    est.set_params(verbose=2)
    est.fit(*args)
    epochs = [ln for ln in capsys.readouterr().out.splitlines() if "-- Epoch" in ln]
    assert len(epochs) == 2
    for word in ("Avg. loss", "Updates", "T: ", "Time"):
        assert word in epochs[0], word
    if name in ("pa-classifier", "cw", "arow", "scw", "bayes-point"):
        assert re.search(r"Mistakes: \d+/\d+", epochs[0])
    if name not in ("one-class", "bayes-point"):
        assert "Norm" in epochs[0] or "Support vectors" in epochs[0]


@pytest.mark.parametrize("name", FAMILIES)
def test_partial_fit_counts_its_calls(name, capsys):
    est = FAMILIES[name](verbose=1)
    args = _fit_args(est)
    for _ in range(3):
        _partial_fit(est, *args)
    out = capsys.readouterr().out
    assert "Epoch" not in out
    calls = [ln for ln in out.splitlines() if ln.startswith("-- partial_fit call")]
    assert [ln.split(",")[0] for ln in calls] == [
        "-- partial_fit call 1",
        "-- partial_fit call 2",
        "-- partial_fit call 3",
    ]
    # one history entry appended per call
    assert len(est.loss_curve_) == 3
    # a fit starts the history and the count again
    est.set_params(max_iter=2)
    if "tol" in est.get_params():
        est.set_params(tol=None)
    est.fit(*args)
    assert len(est.loss_curve_) == 2
    _partial_fit(est, *args)
    assert len(est.loss_curve_) == 3
    assert "-- partial_fit call 1," in capsys.readouterr().out


def test_one_vs_rest_columns_stop_on_their_own():
    # each column stops when its own loss stops improving; the run ends
    # when the last one does, and the history covers every epoch
    X, y = _classification()
    n_iters = []
    for n_jobs in (None, 2):
        clf = PassiveAggressiveClassifier(
            multiclass="ovr",
            max_iter=200,
            tol=1e-3,
            n_iter_no_change=3,
            random_state=0,
            n_jobs=n_jobs,
        ).fit(X, y)
        assert 3 < clf.n_iter_ < 200
        assert len(clf.loss_curve_) == clf.n_iter_
        n_iters.append(clf.n_iter_)
    assert n_iters[0] == n_iters[1]


@pytest.mark.parametrize(
    "name", ["pa-regressor", "gradient-descent", "kernel-pa-regressor"]
)
def test_targets_that_overflow_keep_the_history_finite(name):
    # targets near the largest double: the loss overflows, and a step not
    # bounded by C (gradient descent) too, so that its rows are skipped
    # with the driver's warning
    est = FAMILIES[name]()
    X, y = _regression()
    est.partial_fit(X, y)
    first = list(est.loss_curve_)
    yb = np.where(np.arange(len(y)) % 2, 1.7e308, -1.7e308)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        est.partial_fit(X * 1e-5, yb)
    skipped = [w for w in caught if "rows were skipped" in str(w.message)]
    if name == "gradient-descent":
        assert re.match(
            r"\d+ rows were skipped at epoch 1 because", str(skipped[0].message)
        )
        assert skipped[0].category is RuntimeWarning
    assert est.loss_curve_[:1] == first
    assert est.loss_curve_[1] == np.finfo(np.float64).max


@pytest.mark.parametrize("name", ["pa-classifier", "cw"])
def test_rows_whose_norm_overflows_are_skipped_with_the_drivers_warning(name):
    # feature values whose squared norms overflow: those rows are skipped,
    # the driver warns once for the epoch, and the model stays finite
    clf = FAMILIES[name]()
    X, y = _classification()
    clf.partial_fit(X, y, classes=np.unique(y))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        clf.partial_fit(X * 1e200, y)
    skipped = [str(w.message) for w in caught if "rows were skipped" in str(w.message)]
    assert len(skipped) == 1
    assert re.match(r"90 rows were skipped at epoch 1 because", skipped[0])
    assert np.all(np.isfinite(clf.coef_))
    assert len(clf.loss_curve_) == 2


# package RuntimeWarnings as errors make atomic_update copy every array; the
# adapter's own restore is what this test checks
@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_overflow_error_restores_the_second_order_model(monkeypatch):
    # a pass that leaves non-finite weights: the driver raises, the
    # adapter puts the mean back, and the estimator is as it was
    import sklearn_pa.second_order._epochs as cw_module

    clf = ConfidenceWeightedClassifier(random_state=0)
    X, y = _classification()
    clf.partial_fit(X, y, classes=np.unique(y))
    coef, history = clf.coef_.copy(), list(clf.loss_curve_)

    class Overflowing:
        @staticmethod
        def epoch(*args, **kwargs):
            # every float array the kernel may write becomes non-finite
            for a in (*args, *kwargs.values()):
                if isinstance(a, np.ndarray) and a.dtype.kind == "f" and a.size:
                    if a.flags.writeable and a.ndim >= 1:
                        a[...] = np.inf
            return 0, 0, 0, True

    monkeypatch.setattr(cw_module, "_second_order", Overflowing)
    with pytest.raises(ValueError, match="Floating-point overflow at epoch 1: "):
        clf.partial_fit(X, y)
    np.testing.assert_array_equal(clf.coef_, coef)
    assert clf.loss_curve_ == history


# ------------------------------------------------------------- the driver
class _Scripted(EpochAdapter):
    """An adapter replaying a list of EpochStats, recording the orders."""

    def __init__(self, stats, n_loss=1):
        self.stats = list(stats)
        self.n_loss = n_loss
        self.orders, self.frozen = [], []
        self.failures = 0

    def run(self, order, t):
        self.orders.append((order.copy(), t))
        return self.stats.pop(0)

    def freeze(self, columns):
        self.frozen.append(columns.copy())
        return bool(np.all(columns))

    def failed(self):
        self.failures += 1


class _Owner:
    """The attributes the driver reads from an estimator."""

    def __init__(self, **params):
        self.tol = params.get("tol")
        self.n_iter_no_change = params.get("n_iter_no_change", 5)
        self.early_stopping = params.get("early_stopping", False)
        self.verbose = params.get("verbose", 0)


def _stats(loss, **kw):
    return EpochStats(np.atleast_1d(np.asarray(loss, dtype=float)), 1, **kw)


def test_driver_consumes_one_permutation_per_epoch():
    adapter = _Scripted([_stats(1.0)] * 3)
    rng = np.random.RandomState(3)
    train_idx = np.array([4, 1, 7, 2, 9])
    run = run_epochs(
        _Owner(),
        adapter,
        train_idx=train_idx,
        max_iter=3,
        rng=rng,
        shuffle=True,
        stopping=True,
        t_start=10,
    )
    expected = np.random.RandomState(3)
    for i, (order, t) in enumerate(adapter.orders):
        np.testing.assert_array_equal(order, expected.permutation(train_idx))
        assert order.dtype == np.int64 and t == 10 + 5 * i
    assert run.n_iter == 3 and run.t == 25
    # unshuffled: the rows in their given order, the generator untouched
    adapter = _Scripted([_stats(1.0)] * 2)
    state = rng.get_state()[1].copy()
    run_epochs(
        _Owner(),
        adapter,
        train_idx=train_idx,
        max_iter=2,
        rng=rng,
        shuffle=False,
        stopping=True,
    )
    np.testing.assert_array_equal(adapter.orders[0][0], train_idx)
    np.testing.assert_array_equal(rng.get_state()[1], state)


def test_driver_skipped_rows_warning():
    owner = _Owner()
    adapter = _Scripted([_stats(1.0), _stats(1.0, n_skipped=2)])
    with pytest.warns(RuntimeWarning, match="2 rows were skipped at epoch 2 because"):
        run_epochs(
            owner,
            adapter,
            train_idx=np.arange(4),
            max_iter=2,
            rng=None,
            shuffle=False,
            stopping=True,
        )
    assert owner.loss_curve_ == [0.25, 0.25]


def test_driver_overflow_error_calls_failed():
    adapter = _Scripted([_stats(1.0), _stats(np.inf, overflow=True)])
    with pytest.raises(ValueError, match="Floating-point overflow at epoch 2: "):
        run_epochs(
            _Owner(),
            adapter,
            train_idx=np.arange(4),
            max_iter=5,
            rng=None,
            shuffle=False,
            stopping=True,
        )
    assert adapter.failures == 1


def test_driver_loss_that_overflows_is_recorded_finite():
    owner = _Owner()
    adapter = _Scripted([_stats(np.inf)])
    run_epochs(
        owner,
        adapter,
        train_idx=np.arange(4),
        max_iter=1,
        rng=None,
        shuffle=False,
        stopping=False,
    )
    assert owner.loss_curve_ == [np.finfo(np.float64).max]


def test_driver_stopping_rule_and_convergence_warning():
    # losses 4, 3, 2.95, 2.99, 2.98: with tol=0.1 the third epoch on does
    # not improve by tol, and two such epochs stop the run after epoch 4
    losses = [4.0, 3.0, 2.95, 2.99, 2.98]
    owner = _Owner(tol=0.1, n_iter_no_change=2)
    run = run_epochs(
        owner,
        _Scripted([_stats(v) for v in losses]),
        train_idx=np.arange(1),
        max_iter=5,
        rng=None,
        shuffle=False,
        stopping=True,
    )
    assert run.n_iter == 4 and run.converged
    assert owner.loss_curve_ == losses[:4]
    with pytest.warns(ConvergenceWarning):
        run_epochs(
            _Owner(tol=0.1, n_iter_no_change=5),
            _Scripted([_stats(v) for v in losses]),
            train_idx=np.arange(1),
            max_iter=5,
            rng=None,
            shuffle=False,
            stopping=True,
        )


def test_driver_freezes_columns_one_by_one():
    # column 0 stops improving at once, column 1 keeps improving for a while
    losses = [[1.0, 5.0], [1.0, 4.0], [1.0, 3.0], [1.0, 3.0], [1.0, 3.0]]
    adapter = _Scripted([_stats(v) for v in losses], n_loss=2)
    run = run_epochs(
        _Owner(tol=0.5, n_iter_no_change=2),
        adapter,
        train_idx=np.arange(1),
        max_iter=10,
        rng=None,
        shuffle=False,
        stopping=True,
    )
    assert [f.tolist() for f in adapter.frozen] == [
        [False, False],
        [False, False],
        [True, False],
        [True, False],
        [True, True],
    ]
    assert run.n_iter == 5


def test_driver_early_stopping_scores_the_published_state():
    published = []

    class Publishing(_Scripted):
        def publish(self):
            published.append(len(self.orders))

    scores = iter([0.5, 0.7, 0.6, 0.65])
    owner = _Owner(tol=0.0, n_iter_no_change=2, early_stopping=True)
    run = run_epochs(
        owner,
        Publishing([_stats(1.0)] * 4),
        train_idx=np.arange(3),
        max_iter=10,
        rng=None,
        shuffle=False,
        stopping=True,
        validation=lambda: next(scores),
    )
    assert run.n_iter == 4
    assert published == [1, 2, 3, 4]
    assert owner.validation_scores_ == [0.5, 0.7, 0.6, 0.65]


def test_driver_verbose_format(capsys):
    class Summarised(_Scripted):
        def summary(self):
            return {"Norm": 1.5, "NNZs": 3}

    run_epochs(
        _Owner(verbose=2),
        Summarised([_stats(2.0, mistakes=1)] * 2),
        train_idx=np.arange(4),
        max_iter=2,
        rng=None,
        shuffle=False,
        stopping=True,
    )
    lines = capsys.readouterr().out.splitlines()
    assert re.fullmatch(
        r"-- Epoch 1/2, Avg\. loss: 0\.500000, Mistakes: 1/4, Updates: 1, "
        r"Norm: 1\.5, NNZs: 3, T: 4, Time: \d+\.\d\d s",
        lines[0],
    )
    owner = _Owner(verbose=1)
    for _ in range(2):
        run_epochs(
            owner,
            _Scripted([_stats(2.0)]),
            train_idx=np.arange(4),
            max_iter=1,
            rng=None,
            shuffle=False,
            stopping=False,
            partial_fit=True,
        )
    lines = capsys.readouterr().out.splitlines()
    assert re.fullmatch(
        r"-- partial_fit call 2, Avg\. loss: 0\.500000, Time: \d+\.\d\d s", lines[1]
    )
    assert owner.loss_curve_ == [0.5, 0.5]


# ----------------------------------------------------- one loop, one place
def test_no_other_epoch_loop_in_the_package():
    root = Path(sklearn_pa.__file__).parent
    allowed = {
        "_core/driver.py",  # the driver
        "benchmark/_reference.py",  # a reference implementation, for comparison
    }
    pattern = re.compile(
        r"for (epoch|_) in range\((max_iter|n_epochs|self\.max_iter)|"
        r"_EpochMonitor|rng\.permutation\("
    )
    # parameter mixing's rounds are epochs of the driver too: no round loop
    # of its own (a while loop, or a for statement over a range of rounds)
    round_loop = re.compile(r"^\s*while\b|^\s*for \w+ in range\(.*\):\s*$")
    # the one exception: the tries of a round (or of the preparation) that a
    # lost worker interrupted, written once (distributed/_driver._retried)
    retry = "for attempt in range(1, _ROUND_ATTEMPTS + 1):"
    offenders, retries = [], []
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root).as_posix()
        if rel in allowed:
            continue
        mixing = rel.startswith("distributed/")
        for number, line in enumerate(path.read_text().splitlines(), 1):
            if rel == "distributed/_driver.py" and line.strip() == retry:
                retries.append(number)
            elif pattern.search(line) or (mixing and round_loop.search(line)):
                offenders.append(f"{rel}:{number}: {line.strip()}")
    assert not offenders, "\n".join(offenders)
    assert len(retries) == 1, f"the retry loop written more than once: {retries}"
