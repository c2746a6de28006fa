"""Iterative parameter mixing on a real Dask cluster (worker processes on the
loopback interface)."""

import subprocess
import sys
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from _capabilities import KNOWN_FAILURES, discovered
from local_cluster import local_client
from sklearn.base import clone, is_classifier, is_regressor
from sklearn.datasets import make_classification, make_regression

import sklearn_pa as S

dask = pytest.importorskip("dask")
distributed = pytest.importorskip("distributed")
da = pytest.importorskip("dask.array")

from sklearn_pa.distributed import (  # noqa: E402
    fit_parameter_mixing,
    mix_gaussians,
)


@pytest.fixture(scope="module")
def client():
    with local_client() as client:
        yield client


X3, Y3 = make_classification(
    n_samples=240, n_features=8, n_informative=5, n_classes=3, random_state=0
)
X2, Y2 = make_classification(n_samples=240, n_features=8, random_state=1)
XR, YR = make_regression(n_samples=240, n_features=8, noise=1.0, random_state=0)
YR = YR / 100.0
Y_SEMI = Y3.copy()
Y_SEMI[::3] = -1  # unlabeled rows

CASES = [
    (S.PassiveAggressiveClassifier(random_state=0), "multi"),
    (S.PassiveAggressiveClassifier(random_state=0), "binary"),
    (S.PassiveAggressiveClassifier(random_state=0, average=True), "multi"),
    (S.PassiveAggressiveClassifier(random_state=0, multiclass="ovr"), "multi"),
    (S.MIRAClassifier(random_state=0), "multi"),
    (S.PassiveAggressiveRegressor(random_state=0), "reg"),
    (S.ConfidenceWeightedClassifier(random_state=0), "multi"),
    (S.ConfidenceWeightedClassifier(random_state=0, covariance="full"), "binary"),
    (S.AROWClassifier(random_state=0), "binary"),
    (S.AROWClassifier(random_state=0, covariance="full"), "multi"),
    (S.SCWClassifier(random_state=0, average=True), "multi"),
    (S.GradientDescentRegressor(random_state=0), "reg"),
    (S.ExponentiatedGradientRegressor(random_state=0), "reg"),
    (S.ErrorProportionalRegressor(random_state=0), "reg"),
    (S.OnlineBayesPointClassifier(n_estimators=3, random_state=0), "semi"),
    (S.PassiveAggressiveOneClass(random_state=0), "none"),
]


def _kind(est):
    """The data a discovered estimator mixes on: its defaults' kind."""
    if is_classifier(est):
        return "multi"
    return "reg" if is_regressor(est) else "none"


#: the known defects of the mixed models of two or more partitions
TWO_PARTITIONS = KNOWN_FAILURES.get("mixing two partitions", {})

# every other public estimator with parameter mixing, found by discovery
CASES += [
    (make(), _kind(make()))
    for _, make in discovered("mixing", [lambda e=e: e for e, _ in CASES])
]
DATA = {
    "multi": (X3, Y3),
    "binary": (X2, Y2),
    "reg": (XR, YR),
    "semi": (X3, Y_SEMI),
    "none": (X3, None),
}
FITTED = [
    "coef_",
    "intercept_",
    "covariance_",
    "center_",
    "epsilon_",
    "copies_coef_",
    "n_mistakes_",
    "classes_",
    "t_",
    "n_iter_",
    "n_features_in_",
    "intercept_scaling_",
]


def _id(case):
    est, kind = case
    params = {
        k: v for k, v in est.get_params(deep=False).items() if k != "random_state"
    }
    changed = {k: v for k, v in params.items() if v != type(est)().get_params()[k]}
    return f"{type(est).__name__}-{kind}" + "".join(
        f"-{k}={v}" for k, v in changed.items()
    )


def _serial(est, X, y, n_epochs):
    est = clone(est).set_params(max_iter=n_epochs, tol=None)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return est.fit(X) if y is None else est.fit(X, y)


def _assert_same_model(a, b, atol=1e-12):
    assert type(a) is type(b)
    compared = 0
    for name in FITTED:
        if hasattr(a, name):
            compared += 1
            np.testing.assert_allclose(
                np.asarray(getattr(b, name), dtype=float),
                np.asarray(getattr(a, name), dtype=float),
                rtol=1e-12,
                atol=atol,
                err_msg=name,
            )
    assert compared >= 4


@pytest.mark.parametrize("case", CASES, ids=[_id(c) for c in CASES])
def test_one_partition_equals_serial_fit(client, case):
    est, kind = case
    X, y = DATA[kind]
    Xd = da.from_array(X, chunks=(X.shape[0], -1))
    yd = None if y is None else da.from_array(y, chunks=X.shape[0])
    mixed = fit_parameter_mixing(est, Xd, yd, n_epochs=3, client=client)
    serial = _serial(est, X, y, 3)
    _assert_same_model(serial, mixed)
    assert mixed.n_iter_ == 3
    # the result is an ordinary fitted estimator: it keeps learning
    batch = (X[:50],) if y is None else (X[:50], y[:50])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        _assert_same_model(serial.partial_fit(*batch), mixed.partial_fit(*batch))


def _partial_fit_from_scratch(est, X, y, classes):
    est = clone(est)
    est._epoch_stats = []  # as parameter mixing asks for the number of updates
    est.partial_fit(X, y, classes=classes)
    est._epoch_stats = est._epoch_stats[0]
    return est


@pytest.mark.parametrize("mixing", ["uniform", "updates"])
def test_mixing_weights(client, mixing):
    # unequal partitions, no shuffling, a fixed intercept scale: each
    # partition's epoch is a partial_fit from the zero model
    est = S.PassiveAggressiveClassifier(shuffle=False, intercept_scaling=1.0)
    X, y = X2, Y2
    parts = [(X[:60], y[:60]), (X[60:], y[60:])]
    models = [_partial_fit_from_scratch(est, Xi, yi, [0, 1]) for Xi, yi in parts]
    updates = np.array([m._epoch_stats[0] for m in models], dtype=float)
    assert updates[0] != updates[1]
    weights = updates / updates.sum() if mixing == "updates" else np.full(2, 0.5)
    coef = weights[0] * models[0].coef_ + weights[1] * models[1].coef_
    intercept = weights[0] * models[0].intercept_ + weights[1] * models[1].intercept_
    Xd = da.from_array(X, chunks=((60, 180), 8))
    yd = da.from_array(y, chunks=((60, 180),))
    mixed = fit_parameter_mixing(est, Xd, yd, n_epochs=1, mixing=mixing, client=client)
    np.testing.assert_allclose(mixed.coef_, coef, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(mixed.intercept_, intercept, rtol=1e-12, atol=1e-14)
    assert mixed.t_ == 1 + X.shape[0]


def test_gaussian_mixing_by_hand_diagonal():
    rng = np.random.RandomState(0)
    mu0, var0 = rng.randn(5), rng.uniform(1, 2, 5)
    means = [rng.randn(5) for _ in range(3)]
    variances = [var0 * rng.uniform(0.2, 1.0, 5) for _ in range(3)]
    mean, var = mix_gaussians(mu0, var0, means, variances, diagonal=True)
    P0 = 1 / var0
    P = P0 + sum(1 / v - P0 for v in variances)
    h = P0 * mu0 + sum(m / v - P0 * mu0 for m, v in zip(means, variances))
    np.testing.assert_allclose(var, 1 / P, rtol=1e-13)
    np.testing.assert_allclose(mean, h / P, rtol=1e-12)
    # the combined precision is more than any partition's: no double counting
    # of the prior, every partition's evidence counted once
    for v in variances:
        assert np.all(1 / var >= 1 / v)


def test_gaussian_mixing_by_hand_full():
    rng = np.random.RandomState(1)
    d = 4

    def spd():
        A = rng.randn(d, d)
        return A @ A.T + d * np.eye(d)

    cov0 = spd()
    P0 = np.linalg.inv(cov0)
    mu0 = rng.randn(d, 2)  # two columns sharing the covariance
    covs, means = [], []
    for _ in range(2):
        gain = rng.randn(d, 1)
        covs.append(np.linalg.inv(P0 + gain @ gain.T))
        means.append(rng.randn(d, 2))
    mean, cov = mix_gaussians(mu0, cov0, means, covs, diagonal=False)
    Ps = [np.linalg.inv(c) for c in covs]
    P = P0 + sum(Pi - P0 for Pi in Ps)
    h = P0 @ mu0 + sum(Pi @ m - P0 @ mu0 for Pi, m in zip(Ps, means))
    np.testing.assert_allclose(cov, np.linalg.inv(P), rtol=1e-10)
    np.testing.assert_allclose(mean, np.linalg.solve(P, h), rtol=1e-10)
    np.testing.assert_array_equal(cov, cov.T)


def test_gaussian_mixing_stays_positive_definite():
    # partitions whose covariance grew (impossible for CW, possible after
    # rounding): the gain is projected onto the PSD cone
    d = 3
    cov0 = np.eye(d)
    covs = [np.diag([4.0, 1.0, 0.5]), np.diag([4.0, 2.0, 0.5])]
    means = [np.ones(d), np.ones(d)]
    _, cov = mix_gaussians(np.zeros(d), cov0, means, covs, diagonal=False)
    np.testing.assert_array_equal(cov, cov.T)
    assert np.all(np.linalg.eigvalsh(cov) > 0)
    assert np.all(np.diag(cov) <= 1.0 + 1e-12)  # never less sure than the prior
    _, var = mix_gaussians(
        np.zeros(d), np.ones(d), means, [np.diag(c) for c in covs], diagonal=True
    )
    assert np.all(var > 0) and np.all(var <= 1.0)


def test_confidence_weighted_gaussian_mixing_by_hand(client):
    # one epoch on two partitions: the mix of the two partial_fits from the
    # identity prior, computed here with the textbook formulas
    est = S.AROWClassifier(shuffle=False, intercept_scaling=1.0)
    parts = [(X2[:120], Y2[:120]), (X2[120:], Y2[120:])]
    models = [_partial_fit_from_scratch(est, Xi, yi, [0, 1]) for Xi, yi in parts]
    var = [m.covariance_[0] for m in models]  # (n_features + 1,)
    mean = [np.append(m.coef_[0], m.intercept_) for m in models]
    P = 1.0 + sum(1 / v - 1.0 for v in var)
    h = sum(m / v for m, v in zip(mean, var))  # the prior mean is zero
    Xd = da.from_array(X2, chunks=(120, 8))
    yd = da.from_array(Y2, chunks=120)
    mixed = fit_parameter_mixing(est, Xd, yd, n_epochs=1, client=client)
    np.testing.assert_allclose(mixed.covariance_[0], 1 / P, rtol=1e-12)
    np.testing.assert_allclose(mixed.coef_[0], (h / P)[:-1], rtol=1e-10, atol=1e-14)
    np.testing.assert_allclose(mixed.intercept_, (h / P)[-1:], rtol=1e-10, atol=1e-14)
    # the plain average, for comparison, is another model
    uniform = fit_parameter_mixing(
        est, Xd, yd, n_epochs=1, mixing="uniform", client=client
    )
    np.testing.assert_allclose(uniform.covariance_[0], (var[0] + var[1]) / 2)
    assert not np.allclose(uniform.coef_, mixed.coef_)


def test_full_covariance_mixing_is_symmetric_positive_definite(client):
    est = S.ConfidenceWeightedClassifier(covariance="full", random_state=0)
    Xd = da.from_array(X3, chunks=(80, 8))
    yd = da.from_array(Y3, chunks=80)
    mixed = fit_parameter_mixing(est, Xd, yd, n_epochs=2, client=client)
    for block in mixed.covariance_:
        np.testing.assert_allclose(block, block.T, rtol=0, atol=0)
        assert np.all(np.linalg.eigvalsh(block) > 0)
    assert mixed.score(X3, Y3) > 0.6


def test_nan_in_a_partition_is_refused_before_any_model(client):
    X = X2.copy()
    X[200, 3] = np.nan
    Xd = da.from_array(X, chunks=(120, 8))
    yd = da.from_array(Y2, chunks=120)
    with pytest.raises(ValueError, match="Partition 1: .*NaN"):
        fit_parameter_mixing(S.PassiveAggressiveClassifier(), Xd, yd, client=client)


def test_unknown_label_is_refused(client):
    Xd = da.from_array(X3, chunks=(120, 8))
    yd = da.from_array(Y3, chunks=120)
    with pytest.raises(ValueError, match="Partition .* not in classes"):
        fit_parameter_mixing(
            S.PassiveAggressiveClassifier(), Xd, yd, classes=[0, 1], client=client
        )


@pytest.mark.parametrize(
    "est, match",
    [
        (S.KernelPassiveAggressiveClassifier(), "Nystroem"),
        (S.KernelPassiveAggressiveRegressor(), "Nystroem"),
        (S.StructuredPerceptron(), "sequence taggers"),
        (S.StructuredPassiveAggressive(), "sequence taggers"),
    ],
    ids=lambda v: type(v).__name__ if not isinstance(v, str) else "",
)
def test_unsupported_estimators_are_refused(est, match):
    with pytest.raises(TypeError, match=match):
        fit_parameter_mixing(est, X2, Y2, n_partitions=2)


@pytest.mark.parametrize(
    "est, kwargs, match",
    [
        (S.PassiveAggressiveClassifier(early_stopping=True), {}, "early_stopping"),
        (S.PassiveAggressiveClassifier(class_weight="balanced"), {}, "compute_class"),
        (S.PassiveAggressiveClassifier(), {"mixing": "gaussian"}, "no covariance"),
        (S.PassiveAggressiveClassifier(), {"mixing": "mean"}, "mixing must be"),
        (S.PassiveAggressiveClassifier(C=-1.0), {}, "C"),
    ],
)
def test_invalid_parameters(est, kwargs, match):
    with pytest.raises(ValueError, match=match):
        fit_parameter_mixing(est, X2, Y2, n_partitions=2, **kwargs)


def test_numpy_and_csr_input_split_into_partitions(client):
    est = S.PassiveAggressiveClassifier(random_state=0)
    ref = fit_parameter_mixing(
        est,
        da.from_array(X3, chunks=(120, 8)),
        da.from_array(Y3, chunks=120),
        n_epochs=2,
        client=client,
    )
    dense = fit_parameter_mixing(est, X3, Y3, n_epochs=2, n_partitions=2, client=client)
    csr = fit_parameter_mixing(
        est, sp.csr_matrix(X3), Y3, n_epochs=2, n_partitions=2, client=client
    )
    np.testing.assert_array_equal(dense.coef_, ref.coef_)
    np.testing.assert_allclose(csr.coef_, ref.coef_, rtol=1e-12, atol=1e-14)
    # a plain array with the local scheduler (no default client here)
    local = fit_parameter_mixing(est, X3, Y3, n_epochs=2, n_partitions=2)
    np.testing.assert_array_equal(local.coef_, ref.coef_)


def test_sparse_dask_array_input(client):
    Xs = sp.csr_matrix(X3)
    blocks = [da.from_delayed(dask.delayed(Xs[i : i + 120]), (120, 8), meta=Xs[:0])
              for i in (0, 120)]  # fmt: skip
    Xd = da.concatenate(blocks)
    yd = da.from_array(Y3, chunks=120)
    est = S.ConfidenceWeightedClassifier(random_state=0)
    mixed = fit_parameter_mixing(est, Xd, yd, n_epochs=2, client=client)
    dense = fit_parameter_mixing(est, X3, Y3, n_epochs=2, n_partitions=2, client=client)
    np.testing.assert_allclose(mixed.coef_, dense.coef_, rtol=1e-12, atol=1e-14)


def test_dask_dataframe_input(client):
    pd = pytest.importorskip("pandas")
    dd = pytest.importorskip("dask.dataframe")
    frame = pd.DataFrame(X3, columns=[f"f{i}" for i in range(8)])
    frame["target"] = Y3
    ddf = dd.from_pandas(frame, npartitions=2, sort=False)
    features = [f"f{i}" for i in range(8)]
    est = S.PassiveAggressiveClassifier(random_state=0)
    mixed = fit_parameter_mixing(
        est, ddf[features], ddf["target"], n_epochs=2, client=client
    )
    lengths = ddf.map_partitions(len).compute().tolist()
    ref = fit_parameter_mixing(
        est,
        da.from_array(X3, chunks=(tuple(lengths), 8)),
        da.from_array(Y3, chunks=(tuple(lengths),)),
        n_epochs=2,
        client=client,
    )
    np.testing.assert_array_equal(mixed.coef_, ref.coef_)
    assert list(mixed.feature_names_in_) == features
    assert mixed.score(frame[features], Y3) > 0.6


def test_stops_on_training_loss_like_fit(client):
    est = S.PassiveAggressiveClassifier(random_state=0, max_iter=50, tol=1e-3)
    Xd = da.from_array(X3, chunks=(X3.shape[0], 8))
    yd = da.from_array(Y3, chunks=X3.shape[0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        serial = clone(est).fit(X3, Y3)
    mixed = fit_parameter_mixing(est, Xd, yd, client=client)
    assert mixed.n_iter_ == serial.n_iter_ < 50
    np.testing.assert_array_equal(mixed.coef_, serial.coef_)


def test_verbose_prints_one_line_per_epoch(client, capsys):
    fit_parameter_mixing(
        S.PassiveAggressiveClassifier(),
        X2,
        Y2,
        n_epochs=2,
        n_partitions=2,
        client=client,
        verbose=1,
    )
    lines = [ln for ln in capsys.readouterr().out.splitlines() if "Epoch" in ln]
    assert len(lines) == 2 and "Partitions: 2" in lines[0]


@pytest.mark.realdata
def test_two_partitions_on_20newsgroups_within_a_point_of_serial(client, data_dir):
    from sklearn.datasets import fetch_20newsgroups_vectorized

    train, test = (
        fetch_20newsgroups_vectorized(
            subset=s, data_home=str(data_dir / "sklearn"), download_if_missing=False
        )
        for s in ("train", "test")
    )
    # the training set is sorted by class: shuffle it before splitting
    rng = np.random.RandomState(0)
    order = rng.permutation(train.data.shape[0])
    X, y = train.data.tocsr()[order], train.target[order]
    est = S.PassiveAggressiveClassifier(random_state=0)
    serial = _serial(est, X, y, 3).score(test.data, test.target)
    mixed = fit_parameter_mixing(est, X, y, n_epochs=3, n_partitions=2, client=client)
    accuracy = mixed.score(test.data, test.target)
    assert abs(accuracy - serial) <= 0.01, (accuracy, serial)


def test_core_package_does_not_import_dask():
    code = (
        "import sys, sklearn_pa, sklearn_pa.benchmark; "
        "bad = [m for m in ('dask', 'distributed', 'dask_ml') if m in sys.modules]; "
        "assert not bad, bad"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


@pytest.mark.parametrize(
    "case",
    [
        pytest.param(
            case,
            id=_id(case),
            marks=[pytest.mark.xfail(strict=True, reason=TWO_PARTITIONS[name])]
            if (name := type(case[0]).__name__) in TWO_PARTITIONS
            else [],
        )
        for case in CASES
    ],
)
def test_two_partitions_give_a_working_model(client, case):
    est, kind = case
    X, y = DATA[kind]
    Xd = da.from_array(X, chunks=(100, -1))  # partitions of 100, 100 and 40 rows
    yd = None if y is None else da.from_array(y, chunks=100)
    mixed = fit_parameter_mixing(est, Xd, yd, n_epochs=2, client=client)
    serial = _serial(est, X, y, 2)
    assert type(mixed) is type(est)
    assert mixed.n_iter_ == 2
    assert mixed.t_ == serial.t_ == 1 + 2 * X.shape[0]
    if y is None:
        assert np.all(np.isfinite(mixed.center_))
        assert mixed.predict(X).shape == (X.shape[0],)
    elif kind == "reg":
        assert mixed.score(X, y) > serial.score(X, y) - 0.2
    else:
        labeled = y != -1
        assert mixed.score(X[labeled], y[labeled]) > 0.6


def test_intercept_scale_of_the_whole_data():
    from sklearn_pa._core.batch import typical_feature_value
    from sklearn_pa.distributed import _summarize_partition, _typical_value

    for X in (
        np.array([[1e-120, 0, 3e-120], [2e-120, 0, 0]]),
        np.array([[1e120, 0, 1.0], [2e150, 0, 0]]),
        np.array([[1.0, 2.0, 0.0], [0.0, 3.0, 0.0]]),
    ):
        summaries = [
            _summarize_partition((X[i : i + 1], None), i, False, False)
            for i in range(2)
        ]
        assert _typical_value(summaries) == pytest.approx(
            typical_feature_value(X), rel=1e-15
        )


def test_benchmark_command_on_a_running_cluster(client, capsys):
    from sklearn_pa.benchmark import main

    main(
        [
            "--dataset", "stream-2m", "--rows", "4000", "--epochs", "1",
            "--estimators", "PA-I", "--scheduler", client.scheduler.address,
        ]
    )  # fmt: skip
    out = capsys.readouterr().out
    assert "stream-2m: 4000 x 262144 sparse rows" in out
    assert "PA-I       parameter mixing         2" in out


def test_an_empty_partition_changes_nothing(client):
    est = S.PassiveAggressiveClassifier(random_state=0)
    X, y = X3, Y3
    two = fit_parameter_mixing(
        est,
        da.from_array(X, chunks=((120, 120), 8)),
        da.from_array(y, chunks=((120, 120),)),
        n_epochs=2,
        client=client,
    )
    three = fit_parameter_mixing(
        est,
        da.from_array(X, chunks=((120, 0, 120), 8)),
        da.from_array(y, chunks=((120, 0, 120),)),
        n_epochs=2,
        client=client,
    )
    np.testing.assert_array_equal(three.coef_, two.coef_)


@pytest.mark.parametrize(
    "est, X, y, kwargs, match",
    [
        (S.PassiveAggressiveClassifier(), X2, None, {}, "needs y"),
        (
            S.OnlineBayesPointClassifier(),
            X2,
            np.full(X2.shape[0], -1),
            {},
            "no labeled sample",
        ),
        (S.PassiveAggressiveClassifier(), X2, Y2, {"n_epochs": 0}, "n_epochs"),
        (S.PassiveAggressiveClassifier(), X2, Y2, {"n_partitions": 0}, "n_partitions"),
        (
            S.PassiveAggressiveRegressor(),
            X2,
            np.where(Y2 == 1, np.nan, 0.0),
            {},
            "y contains NaN",
        ),
    ],
)
def test_invalid_input(est, X, y, kwargs, match):
    kwargs.setdefault("n_partitions", 2)
    with pytest.raises(ValueError, match=match):
        fit_parameter_mixing(est, X, y, **kwargs)


def test_dask_ml_incremental_streams_partial_fit():
    # dask-ml's Incremental works with this package and scikit-learn: its
    # model is that of a partial_fit loop over the blocks
    wrappers = pytest.importorskip("dask_ml.wrappers")
    Xd = da.from_array(X3, chunks=(80, 8))
    yd = da.from_array(Y3, chunks=80)
    est = S.PassiveAggressiveClassifier(random_state=0)
    inc = wrappers.Incremental(clone(est), scoring="accuracy", shuffle_blocks=False)
    inc.fit(Xd, yd, classes=[0, 1, 2])
    loop = clone(est)
    for start in range(0, X3.shape[0], 80):
        block = slice(start, start + 80)
        loop.partial_fit(X3[block], Y3[block], classes=[0, 1, 2])
    np.testing.assert_array_equal(inc.estimator_.coef_, loop.coef_)
    assert inc.score(Xd, yd) == loop.score(X3, Y3)


@pytest.mark.parametrize("case", ["repeated labels", "all-zero X"])
def test_identical_partitions_on_a_fresh_cluster(case):
    # one-row partitions of identical content (the labels repeat; or every
    # row is zero) used to share one scattered key across workers and fail
    # with "lost dependencies", sometimes taking the next call down too
    X = np.random.RandomState(0).randn(12, 4)
    if case == "all-zero X":
        X = np.zeros((12, 4))
    y = np.tile([0, 1, 2], 4)
    est = S.PassiveAggressiveClassifier(random_state=0)
    serial = fit_parameter_mixing(clone(est), X, y, n_epochs=2, n_partitions=12)
    with (
        distributed.LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=False,
            dashboard_address=":0",
        ) as cluster,
        distributed.Client(cluster, set_as_default=False) as client,
    ):
        for _ in range(3):
            model = fit_parameter_mixing(
                clone(est), X, y, n_epochs=2, n_partitions=12, client=client
            )
            np.testing.assert_array_equal(model.coef_, serial.coef_)
            np.testing.assert_array_equal(model.intercept_, serial.intercept_)


TREE_CASES = [
    (S.PassiveAggressiveClassifier(random_state=0), "multi", "uniform"),
    (S.PassiveAggressiveClassifier(random_state=0, average=True), "multi", "updates"),
    (S.PassiveAggressiveRegressor(random_state=0), "reg", "uniform"),
    (S.SCWClassifier(random_state=0, average=True), "multi", "uniform"),
    (S.PassiveAggressiveOneClass(random_state=0), "none", "uniform"),
]


@pytest.mark.parametrize(
    "case", TREE_CASES, ids=[f"{_id(c[:2])}-{c[2]}" for c in TREE_CASES]
)
def test_tree_reduction_gives_the_gathered_mix(client, case, monkeypatch):
    from sklearn_pa.distributed import _driver, _executors

    est, kind, mixing = case
    X, y = DATA[kind]
    Xd = da.from_array(X, chunks=(60, -1))  # four partitions
    yd = None if y is None else da.from_array(y, chunks=60)
    made = []

    def executor_for(*args):
        made.append(_executors.executor_for(*args))
        return made[-1]

    monkeypatch.setattr(_driver, "executor_for", executor_for)
    n_epochs, k = 3, 4
    tree = fit_parameter_mixing(
        est, Xd, yd, n_epochs=n_epochs, mixing=mixing, client=client
    )
    monkeypatch.setattr(_executors.ClientExecutor, "tree_reduce", False)
    flat = fit_parameter_mixing(
        est, Xd, yd, n_epochs=n_epochs, mixing=mixing, client=client
    )
    _assert_same_model(flat, tree)
    assert tree.t_ == flat.t_
    np.testing.assert_allclose(tree.loss_curve_, flat.loss_curve_, rtol=1e-12)
    # the driver received one model per epoch instead of one per partition
    assert made[0].models_received == n_epochs
    assert made[1].models_received == k * n_epochs


def test_gaussian_mixing_gathers_the_states(client, monkeypatch):
    from sklearn_pa.distributed import _driver, _executors

    made = []

    def executor_for(*args):
        made.append(_executors.executor_for(*args))
        return made[-1]

    monkeypatch.setattr(_driver, "executor_for", executor_for)
    Xd = da.from_array(X3, chunks=(60, -1))
    yd = da.from_array(Y3, chunks=60)
    fit_parameter_mixing(
        S.AROWClassifier(random_state=0), Xd, yd, n_epochs=2, client=client
    )
    assert made[0].models_received == 4 * 2


@pytest.mark.parametrize("name", ["IELLIPClassifier", "AROWClassifier"])
def test_default_mixing_of_the_second_order_learners(name):
    # a Gaussian posterior mixes as one by default; IELLIP's ellipsoid,
    # whose Gaussian mix over 3 partitions fell to chance level (0.36 on
    # the 3-class problem after 2 rounds), is averaged
    from sklearn_pa.distributed._driver import _learner

    est = getattr(S, name)(random_state=0)
    expected = "uniform" if name == "IELLIPClassifier" else "gaussian"
    assert _learner(est).default_mixing == expected


def test_iellip_mixes_to_a_working_model_every_round(client):
    X, y = DATA["multi"]
    Xd, yd = da.from_array(X, chunks=(100, -1)), da.from_array(y, chunks=100)
    for n_epochs in (1, 2, 3):
        mixed = fit_parameter_mixing(
            S.IELLIPClassifier(random_state=0), Xd, yd, n_epochs=n_epochs, client=client
        )
        assert mixed.score(X, y) > 0.6, n_epochs


def test_threaded_partitions_run_the_blas_on_one_thread():
    """The threaded executor runs its map with every BLAS library on one
    thread (as a Dask worker does: the full covariance's ``dsymv`` then
    gives the same bits whichever executor runs it), overlapping maps
    included, and gives the previous thread counts back after the last."""
    threadpoolctl = pytest.importorskip("threadpoolctl")
    from sklearn_pa.distributed._executors import ThreadExecutor

    def blas_threads():
        return sorted(
            {
                info["num_threads"]
                for info in threadpoolctl.threadpool_info()
                if info["user_api"] == "blas"
            }
        )

    before = blas_threads()
    if not before:
        pytest.skip("no BLAS library found by threadpoolctl")
    with threadpoolctl.threadpool_limits(limits=2, user_api="blas"):
        expected = blas_threads()
        seen = []

        def work(i):
            if i == 0:  # (a map inside a map, as two fits on threads overlap)
                ThreadExecutor(2)._map(lambda j: seen.append(blas_threads()), [(0,)])
            seen.append(blas_threads())
            return i

        assert ThreadExecutor(2)._map(work, [(0,), (1,), (2,)]) == [0, 1, 2]
        assert seen == [[1]] * 4
        assert blas_threads() == expected
    assert blas_threads() == before
