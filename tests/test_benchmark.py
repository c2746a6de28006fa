"""Smoke tests of the benchmark command (``python -m sklearn_pa.benchmark``)."""

import csv
import os
import re

import numpy as np
import pytest

from sklearn_pa.benchmark import (
    BATCH_REFERENCES,
    DATA_ENV,
    DEFAULT_ESTIMATORS,
    ESTIMATORS,
    format_table,
    load_dataset,
    main,
    run_benchmark,
)

FAST = ["--dataset", "digits", "--cv", "2", "--epochs", "1"]

needs_data = pytest.mark.skipif(
    not os.environ.get(DATA_ENV),
    reason=f"set {DATA_ENV} to the folder holding the benchmark data",
)


def test_main_prints_table(capsys):
    status = main([*FAST, "--estimators", "PA-I", "sklearn-SGD-pa1"])
    assert status == 0
    out, err = capsys.readouterr()
    lines = out.splitlines()
    assert lines[0].startswith("digits (1797 x 64, 10 classes): 2-fold")
    header = next(line for line in lines if line.startswith("estimator"))
    assert "accuracy (%)" in header and "x SGD-pa1" in header
    rows = {line.split()[0]: line.split() for line in lines[lines.index(header) :]}
    assert {"PA-I", "sklearn-SGD-pa1"} <= set(rows)
    # accuracy mean ± std, fit time, ratio to the scikit-learn reference
    assert rows["sklearn-SGD-pa1"][-1] == "1.00"
    assert float(rows["PA-I"][1]) > 80
    assert "PA-I" in err and "sklearn-SGD-pa1" in err


def test_unknown_estimator_lists_available_names(capsys):
    with pytest.raises(SystemExit) as exc:
        main([*FAST, "--estimators", "PA-I", "no-such-learner"])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "no-such-learner" in err
    for name in ESTIMATORS:
        assert name in err
    with pytest.raises(ValueError, match="Available estimators: PA, PA-I"):
        run_benchmark("digits", ["nope"], cv=2, epochs=1)


@pytest.mark.parametrize("suffix", ["csv", "md"])
def test_output_file(tmp_path, capsys, suffix):
    path = tmp_path / f"results.{suffix}"
    main([*FAST, "--estimators", "PA", "PA-I-ovr", "--output", str(path)])
    text = path.read_text(encoding="utf-8")
    if suffix == "csv":
        with path.open(newline="") as f:
            rows = list(csv.DictReader(f))
        assert [row["estimator"] for row in rows] == ["PA", "PA-I-ovr"]
        assert all(0.5 < float(row["accuracy_mean"]) <= 1 for row in rows)
        assert all(row["n_splits"] == "2" for row in rows)
        assert all(row["reference"] == "" for row in rows)  # no peer in this run
    else:
        lines = text.splitlines()
        assert lines[2].startswith("| estimator | accuracy (%) |")
        assert lines[4].startswith("| PA |") and lines[5].startswith("| PA-I-ovr |")
        assert "n/a" in lines[4]


def test_bad_output_extension_fails_before_running(tmp_path):
    with pytest.raises(SystemExit):
        main([*FAST, "--estimators", "PA", "--output", str(tmp_path / "out.json")])
    assert not (tmp_path / "out.json").exists()


def test_registry():
    assert set(DEFAULT_ESTIMATORS) <= set(ESTIMATORS)
    for name, factory in ESTIMATORS.items():
        est = factory(2, 7)
        params = est.get_params()
        if name in BATCH_REFERENCES:
            # batch references run to convergence, whatever the epochs
            assert type(est).__module__.startswith("sklearn."), name
            assert params["random_state"] == 7, name
            continue
        assert params["max_iter"] == 2 and params["tol"] is None, name
        assert params["random_state"] == 7 and params["shuffle"], name
    assert ESTIMATORS["PA"](1, 0).C == np.inf
    assert ESTIMATORS["PA-II"](1, 0).loss == "squared_hinge"
    assert ESTIMATORS["PA-I-maxloss"](1, 0).multiclass == "max_loss"
    assert ESTIMATORS["sklearn-SGD-pa2"](1, 0).learning_rate == "pa2"


def test_batch_reference_is_printed_but_never_the_time_reference():
    # LinearSVC first in the list: SGD is still the reference of the ratio
    rows = run_benchmark(
        "digits", ["LinearSVC", "PA-I", "sklearn-SGD-pa1"], cv=2, epochs=1
    )
    assert [row["estimator"] for row in rows] == [
        "LinearSVC",
        "PA-I",
        "sklearn-SGD-pa1",
    ]
    assert all(row["reference"] == "sklearn-SGD-pa1" for row in rows)
    assert rows[2]["fit_time_ratio"] == 1.0
    assert rows[0]["fit_time_ratio"] > 0
    # the batch optimum is a strong reference on digits
    assert rows[0]["accuracy_mean"] > 0.9
    assert "LinearSVC" in format_table(rows)
    rows = run_benchmark("digits", ["LinearSVC", "PA-I"], cv=2, epochs=1)
    assert all(row["reference"] is None for row in rows)


def test_run_benchmark_rows():
    rows = run_benchmark("digits", ["sklearn-SGD-pa1", "PA-II"], cv=3, epochs=1)
    assert [row["estimator"] for row in rows] == ["sklearn-SGD-pa1", "PA-II"]
    for row in rows:
        assert row["n_splits"] == 3 and row["reference"] == "sklearn-SGD-pa1"
        assert row["accuracy_std"] >= 0 and row["fit_time_mean"] > 0
    assert rows[0]["fit_time_ratio"] == 1.0
    table = format_table(rows)
    assert table.splitlines()[2].split() == [
        "estimator",
        "accuracy",
        "(%)",
        "fit",
        "time",
        "(s)",
        "x",
        "SGD-pa1",
    ]


def test_repeats_pool_differently_shuffled_splits(capsys):
    once = run_benchmark("digits", ["PA-I"], cv=3, epochs=1)[0]
    rows = run_benchmark("digits", ["PA-I"], cv=3, epochs=1, repeats=2)
    row = rows[0]
    assert row["n_splits"] == 6 and row["protocol"] == "2 x 3-fold stratified CV"
    # the first repeat is a different shuffle from StratifiedKFold's, so the
    # pooled mean is not the single split's, but both are sensible
    assert abs(row["accuracy_mean"] - once["accuracy_mean"]) < 0.05
    with pytest.raises(ValueError, match="repeats must be at least 1"):
        run_benchmark("digits", ["PA-I"], cv=3, repeats=0)
    with pytest.raises(SystemExit):
        main(["--estimators", "PA-I", "--repeats", "0"])
    assert "--repeats must be at least 1" in capsys.readouterr().err


def test_set_hyper_parameters_for_a_sweep(capsys):
    rows = run_benchmark("digits", ["PA-I"], cv=3, epochs=1, params={"C": 1e-4})
    tiny = rows[0]["accuracy_mean"]
    assert tiny < run_benchmark("digits", ["PA-I"], cv=3, epochs=1)[0]["accuracy_mean"]
    main(["--estimators", "PA-I", "--cv", "3", "--epochs", "1", "--set", "C=1e-4"])
    assert f"{100 * tiny:.2f}" in capsys.readouterr().out
    for bad, message in [
        (["--set", "C"], "NAME=VALUE"),
        (["--set", "C=-1"], "Cannot set .* on PA-I"),
        (["--set", "eta=0.7"], "Invalid parameter 'eta'"),
    ]:
        with pytest.raises(SystemExit):
            main(["--estimators", "PA-I", *bad])
        assert re.search(message, capsys.readouterr().err), bad


def test_missing_data_folder_is_explained(tmp_path, monkeypatch):
    monkeypatch.delenv(DATA_ENV, raising=False)
    with pytest.raises(FileNotFoundError, match=f"--data-home.*{DATA_ENV}"):
        load_dataset("usps")
    with pytest.raises(FileNotFoundError, match="usps_esl.bz2"):
        load_dataset("usps", data_home=tmp_path)
    with pytest.raises(FileNotFoundError, match="usps.t.bz2"):
        load_dataset("usps-libsvm", data_home=tmp_path)
    with pytest.raises(FileNotFoundError, match="20 Newsgroups not found"):
        load_dataset("20newsgroups", data_home=tmp_path)
    with pytest.raises(ValueError, match="Unknown dataset"):
        load_dataset("mnist")


@pytest.mark.realdata
@needs_data
def test_load_usps():
    data = load_dataset("usps")
    assert data.protocol == "cv"
    assert data.X.shape == (7291, 256) and data.X_test.shape == (2007, 256)
    assert isinstance(data.X, np.ndarray)
    assert np.unique(data.y).shape == (10,)
    rows = run_benchmark(data, ["PA-I"], cv=2, epochs=1)
    assert rows[0]["accuracy_mean"] > 0.85


@pytest.mark.realdata
@needs_data
def test_usps_libsvm_prints_the_published_figures(capsys):
    main(["--dataset", "usps-libsvm", "--cv", "2", "--epochs", "1"])
    out = capsys.readouterr().out
    assert "usps-libsvm (2007 x 256, 10 classes)" in out
    assert "93.73" in out and "usps.t" in out


@pytest.mark.realdata
@needs_data
def test_load_20newsgroups(capsys):
    main(["--dataset", "20newsgroups", "--epochs", "1", "--estimators", "PA-I"])
    out = capsys.readouterr().out
    assert out.startswith("20newsgroups (11314 x 130107, 20 classes): train/test")
    assert "7532 test" in out and "--cv is ignored" in out
    row = next(line for line in out.splitlines() if line.startswith("PA-I"))
    assert float(row.split()[1]) > 60


def test_published_figures_are_printed_beside_ours(monkeypatch, capsys, tmp_path):
    from sklearn_pa import benchmark

    monkeypatch.setitem(benchmark.PUBLISHED, "digits", {"PA-I": 12.5})
    monkeypatch.setitem(benchmark.PUBLISHED_SOURCE, "digits", "published: a test")
    main([*FAST, "--estimators", "PA-I", "PA", "--output", str(tmp_path / "r.csv")])
    out = capsys.readouterr().out
    header = next(line for line in out.splitlines() if line.startswith("estimator"))
    assert header.endswith("published (%)")
    row = next(line for line in out.splitlines() if line.startswith("PA-I "))
    assert row.split()[-1] == "12.50"
    assert out.rstrip().endswith("published: a test")
    with open(tmp_path / "r.csv", newline="") as f:
        by_name = {r["estimator"]: r for r in csv.DictReader(f)}
    assert float(by_name["PA-I"]["published"]) == pytest.approx(0.125)
    assert by_name["PA"]["published"] == ""


def test_plot_writes_a_png(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    path = tmp_path / "bench.png"
    main([*FAST, "--estimators", "PA-I", "sklearn-SGD-pa1", "--plot", str(path)])
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "chart written to" in capsys.readouterr().err
