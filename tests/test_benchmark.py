"""Smoke tests of the benchmark command (``python -m sklearn_pa.benchmark``)."""

import ast
import csv
import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

from sklearn_pa.benchmark import (
    BATCH_REFERENCES,
    DATA_ENV,
    DEFAULT_ESTIMATORS,
    ESTIMATORS,
    PUBLISHED,
    REGISTRY,
    SEED_TABLES,
    TABLE2_ESTIMATORS,
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
    start = lines.index(header)
    table = lines[start : lines.index("", start)]
    rows = {line.split()[0]: line.split() for line in table}
    assert {"PA-I", "sklearn-SGD-pa1"} <= set(rows)
    # accuracy mean ± std, fit time, ratio to the scikit-learn reference
    assert rows["sklearn-SGD-pa1"][-1] == "1.00"
    assert float(rows["PA-I"][1]) > 80
    # a legend line per name and one for the ratio column
    legend = lines[lines.index("legend:") + 1 :]
    assert legend[0].split()[0] == "PA-I" and "support-class" in legend[0]
    assert legend[1].split()[0] == "sklearn-SGD-pa1"
    assert legend[2].startswith("  x SGD-pa1") and "sklearn-SGD-pa1" in legend[2]
    # a short run prints its table alone: standard error does not repeat it
    assert err == ""


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


def test_pa_i_equal_to_pa_is_explained(capsys):
    main([*FAST, "--estimators", "PA", "PA-I", "PA-II"])
    out = capsys.readouterr().out
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("estimator"))
    table = lines[start + 2 : lines.index("", start)]
    rows = {line.split()[0]: line.split()[1] for line in table}
    assert set(rows) == {"PA", "PA-I", "PA-II"}
    same = [n for n in ("PA-I", "PA-II") if rows[n] == rows["PA"]]
    note = re.search(r"score exactly as PA: with C=1 the bound never\s+binds", out)
    assert (note is not None) == bool(same)
    if same:
        assert f"{' and '.join(same)} score exactly as PA" in out


def _refuse_to_run(*args, **kwargs):
    raise AssertionError("the benchmark ran before its arguments were checked")


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--random-state", "-1"], "--random-state must be in [0, 2**32 - 1]"),
        (["--random-state", str(2**40)], "--random-state must be in [0, 2**32 - 1]"),
        (["--cv", "5000"], "--cv 5000 is more folds than the 174 samples"),
        (["--output", "{missing}/x.csv"], "does not exist"),
        (["--output", "{dir}"], "is a directory"),
        (["--output", "{dir}/d.csv"], "is a directory"),
        (["--plot", "{missing}/x.png"], "does not exist"),
        (["--plot", "{dir}"], "is a directory"),
    ],
)
def test_usage_errors_exit_2_before_any_work(
    argv, message, tmp_path, monkeypatch, capsys
):
    from sklearn_pa.benchmark import _cross_validation

    (tmp_path / "d.csv").mkdir()
    argv = [a.format(missing=tmp_path / "missing", dir=tmp_path) for a in argv]
    monkeypatch.setattr(_cross_validation, "run_benchmark", _refuse_to_run)
    with pytest.raises(SystemExit) as exc:
        main(["--dataset", "digits", "--estimators", "PA", *argv])
    assert exc.value.code == 2
    assert message in capsys.readouterr().err


def test_unreachable_scheduler_is_a_usage_error(monkeypatch, capsys):
    import socket

    from sklearn_pa.benchmark import _cli

    # a port nobody listens on: bind one, close it, and ask for it
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    monkeypatch.setattr(_cli, "_run", _refuse_to_run)
    for address, message in [
        (f"tcp://127.0.0.1:{port}", "no Dask scheduler answers there"),
        ("tcp://127.0.0.1", "is not an address of the form tcp://HOST:PORT"),
    ]:
        with pytest.raises(SystemExit) as exc:
            main(["--dataset", "stream-2m", "--scheduler", address])
        assert exc.value.code == 2
        assert message in capsys.readouterr().err


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
    assert "7532 test" in out and "--cv" not in out  # not given: no note
    row = next(line for line in out.splitlines() if line.startswith("PA-I"))
    assert float(row.split()[1]) > 60


@pytest.mark.realdata
@needs_data
def test_20newsgroups_cv_pools_train_and_test(capsys):
    data = load_dataset("20newsgroups-cv")
    assert data.protocol == "cv" and data.X.shape == (18846, 130107)
    main(
        [
            "--dataset",
            "20newsgroups-cv",
            "--cv",
            "2",
            "--epochs",
            "1",
            "--estimators",
            "PA-prediction",
        ]
    )
    out = capsys.readouterr().out
    assert "2-fold stratified CV" in out and "75.76" in out


def test_published_pa_figures_sit_beside_the_seeds_prediction_rule():
    """The source's multiclass PA / PA-I / PA-II constrain the predicted class
    only: their published figures belong to the prediction-based rows, and the
    max-loss rule keeps rows of its own, without a figure."""
    for dataset, figures in PUBLISHED.items():
        for name in figures:
            if name.startswith("PA"):
                model = REGISTRY[name].factory(1, 0)
                assert model.multiclass == "prediction", (dataset, name)
        for name in ("PA-maxloss", "PA-I-maxloss", "PA-II-maxloss"):
            assert name not in figures
    for name in ("PA", "PA-I", "PA-II"):
        assert f"{name}-prediction" in TABLE2_ESTIMATORS
        assert f"{name}-maxloss" in TABLE2_ESTIMATORS
    assert REGISTRY["OBPM-PA"].factory(1, 0).estimator.multiclass == "prediction"
    assert {name for name, _ in SEED_TABLES} == {"OBPM-PA", "OBPM-SPA"}


def test_all_runs_every_classification_learner_of_the_package():
    """``--estimators all`` holds a row for each public classifier class (a
    learner added to the package and forgotten here fails), and leaves out
    only what the data set cannot hold, with the reason."""
    from sklearn.base import ClassifierMixin

    import sklearn_pa
    from sklearn_pa.benchmark._registry import LEFT_OUT, every_classifier
    from sklearn_pa.utils.discovery import is_meta_estimator

    def learners(model):
        inner = [getattr(model, a, None) for a in ("estimator", "detector")]
        return {type(model)} | {type(m) for m in inner if m is not None}

    covered = set()
    for name in every_classifier("usps"):
        assert REGISTRY[name].task == "classification", name
        covered |= learners(REGISTRY[name].factory(1, 0))
    public = {
        cls
        for cls in map(sklearn_pa.__dict__.get, sklearn_pa.__all__)
        if isinstance(cls, type)
        and (issubclass(cls, ClassifierMixin) or cls.__name__.endswith("OneClass"))
        # (a meta-estimator is not a learner: its benchmark is its own)
        and not is_meta_estimator(cls)
    }
    assert public and public <= covered, public - covered
    on_text = every_classifier("20newsgroups")
    assert "SCCW" not in on_text and "CW-k1" in on_text
    assert set(every_classifier("usps")) - set(on_text) == set(LEFT_OUT["20newsgroups"])


def test_all_expands_on_the_command_line(capsys):
    main([*FAST, "--estimators", "all"])
    out = capsys.readouterr().out
    for name in ("PA-prediction", "MIRA", "OBPM-SPA", "sklearn-SGD-pa1"):
        assert any(line.startswith(name + " ") for line in out.splitlines()), name


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


# ------------------------------------------------- one parser, every protocol
def test_every_dataset_is_a_choice_of_the_one_parser():
    from sklearn_pa.benchmark import DATASETS
    from sklearn_pa.benchmark._cli import PROTOCOLS, build_parser

    action = next(a for a in build_parser()._actions if a.dest == "dataset")
    assert list(action.choices) == list(DATASETS) == list(PROTOCOLS)
    for name in [
        "conll2000",
        "20newsgroups-semi",
        "stream-2m",
        "stream-memory",
        "20newsgroups-multilabel",
        "preference",
    ]:
        assert name in action.choices


def test_help_names_the_defaults_of_digits(capsys):
    from sklearn_pa.benchmark import DEFAULT_ESTIMATORS_BY_DATASET

    with pytest.raises(SystemExit) as exc:
        main(["--help"])
    assert exc.value.code == 0
    out = " ".join(capsys.readouterr().out.split())
    assert " ".join(DEFAULT_ESTIMATORS_BY_DATASET["digits"]) in out.replace("- ", "-")
    for option in ["--output", "--plot", "--list", "--verbose", "--timing"]:
        assert option in out


def test_list_prints_datasets_and_estimators_one_line_each(capsys):
    from sklearn_pa.benchmark import DATASETS, REGISTRY

    assert main(["--list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    for name in [*DATASETS, *REGISTRY]:
        assert sum(line.split()[:1] == [name] for line in lines) == 1, name
    line = next(line for line in lines if line.split()[:1] == ["conll2000"])
    assert "sequence" in line and "StructPerceptron" in line


def test_registry_defaults_exist_with_the_task_of_their_protocol():
    from sklearn_pa.benchmark import DEFAULT_ESTIMATORS_BY_DATASET, REGISTRY
    from sklearn_pa.benchmark._cli import PROTOCOLS, TASKS

    for dataset, names in DEFAULT_ESTIMATORS_BY_DATASET.items():
        task = TASKS[PROTOCOLS[dataset]]
        assert all(REGISTRY[name].task == task for name in names), dataset
    for name, entry in REGISTRY.items():
        assert entry.task in {"classification", "regression", "multilabel", "sequence"}
        assert entry.summary and "\n" not in entry.summary, name


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--dataset", "20newsgroups", "--cv", "3"], "--cv does not apply"),
        (["--rows", "10"], "--rows does not apply to --dataset digits"),
        (["--data-home", "."], "--data-home does not apply to --dataset digits"),
        (["--dataset", "conll2000", "--timing"], "--timing does not apply"),
        (["--dataset", "stream-memory", "--epochs", "2"], "--epochs does not apply"),
        (["--dataset", "preference-synthetic", "--repeats", "2"], "--repeats"),
        (["--dataset", "20newsgroups-semi", "--holdout", "0.1"], "--holdout"),
        (["--dataset", "conll2000", "--estimators", "PA-I"], "Unknown estimator"),
        (["--dataset", "20newsgroups-semi", "--estimators", "PA"], "OBPM"),
        (["--dataset", "20newsgroups-semi", "--subsets", "sb-9-9"], "sb-7-1"),
    ],
)
def test_an_option_that_does_not_apply_is_refused(argv, message, capsys):
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2
    assert re.search(re.escape(message), capsys.readouterr().err), argv


def test_verbose_prints_progress_with_the_time_left(capsys):
    main([*FAST, "--estimators", "PA-I", "PA", "--verbose"])
    err = capsys.readouterr().err
    assert re.search(r"\[1/4\] PA-I fold 1/2 done; .* elapsed, about .* left", err)
    assert "[4/4] PA fold 2/2 done" in err


def test_progress_without_verbose_waits_for_a_long_run():
    import io

    from sklearn_pa.benchmark._progress import Progress, format_duration

    out = io.StringIO()
    progress = Progress(10, verbose=1, delay=0.0, interval=0.0, stream=out)
    progress.step("A fold 1/10")
    assert "[1/10] A fold 1/10 done" in out.getvalue()
    quiet = io.StringIO()
    progress = Progress(10, verbose=1, delay=3600.0, stream=quiet)
    progress.step("A fold 1/10")
    assert quiet.getvalue() == ""
    assert format_duration(75.2) == "1 min 15 s" and format_duration(3.4) == "3 s"


def _tiny_holdout(name="20newsgroups", data_home=None, **kwargs):
    from sklearn.datasets import load_digits
    from sklearn.utils import Bunch

    X, y = load_digits(return_X_y=True)
    return Bunch(
        name=name,
        X=X[:300],
        y=y[:300],
        X_test=X[300:500],
        y_test=y[300:500],
        protocol="holdout",
    )


def _tiny_multilabel(name, data_home=None, **kwargs):
    from sklearn.datasets import make_multilabel_classification
    from sklearn.utils import Bunch

    X, Y = make_multilabel_classification(
        n_samples=300, n_features=20, n_classes=5, random_state=0
    )
    return Bunch(
        name=name,
        X=X[:200],
        Y=Y[:200],
        X_test=X[200:],
        Y_test=Y[200:],
        label_names=list("abcde"),
        protocol="multilabel",
    )


def _tiny_sentences(name, data_home=None, n_sentences=None):
    from sklearn.utils import Bunch

    rng = np.random.RandomState(0)
    words = ["the", "cat", "sat", "on", "a", "mat", "dog", "ran"]
    tags = {"the": "DT", "a": "DT", "on": "IN", "sat": "VBD", "ran": "VBD"}
    sentences, target = [], []
    for _ in range(60):
        sent = [(str(w), tags.get(str(w), "NN")) for w in rng.choice(words, 6)]
        sentences.append(sent)
        target.append(["B-NP" if pos in ("DT", "NN") else "O" for _, pos in sent])
    return Bunch(
        name="conll2000", sentences=sentences, target=target, protocol="sequence"
    )


def _tiny_subset(name, data_home, n_per_class=500, random_state=0):
    from sklearn.datasets import make_classification

    return make_classification(
        n_samples=200,
        n_features=20,
        n_informative=8,
        n_classes=3,
        random_state=random_state,
    )


# every protocol through the one parser, with --output and --plot, on tiny
# data (the loaders of the real data are replaced; the realdata tests read it)
PROTOCOL_RUNS = {
    "cross-validation": ([*FAST, "--estimators", "PA-I", "sklearn-SGD-pa1"], None),
    "train/test": ("--dataset 20newsgroups --estimators PA-I".split(), "holdout"),
    "timing": (
        "--dataset digits --timing --repeats 1 --epochs 1 --estimators SCCW "
        "NumPy-SCCW --set fit_intercept=False".split(),
        None,
    ),
    "progressive": (
        "--dataset preference-synthetic --epochs 1 --estimators DPAU GD".split(),
        None,
    ),
    "multilabel": (
        "--dataset 20newsgroups-multilabel --epochs 1 --estimators PA-I-ranking "
        "sklearn-OvR-SGD-pa1".split(),
        "multilabel",
    ),
    "semi-supervised": (
        "--dataset 20newsgroups-semi --subsets sb-7-1 --folds 1 --epochs 1 --set "
        "n_estimators=3 --estimators OBPM-SPA".split(),
        "subset",
    ),
    "sequence": (
        "--dataset conll2000 --epochs 1 --estimators StructPerceptron StructPA".split(),
        "sentences",
    ),
    "stream-memory": (
        "--dataset stream-memory --rows 20000 --estimators "
        "PassiveAggressiveClassifier".split(),
        None,
    ),
    "drift": ("--dataset drift --rows 3000 --estimators PA AROW-floor".split(), None),
    "20newsgroups-drift": (
        "--dataset 20newsgroups-drift --estimators PA CW-floor".split(),
        "holdout",
    ),
}


@pytest.mark.parametrize("protocol", list(PROTOCOL_RUNS))
def test_every_protocol_runs_with_output_and_plot(
    protocol, tmp_path, monkeypatch, capsys
):
    from sklearn_pa.benchmark import _cli, _semi_supervised, _sequence

    argv, fake = PROTOCOL_RUNS[protocol]
    if fake == "holdout":
        monkeypatch.setattr(_cli, "load_dataset", _tiny_holdout)
    elif fake == "multilabel":
        monkeypatch.setattr(_cli, "load_dataset", _tiny_multilabel)
    elif fake == "subset":
        monkeypatch.setattr(_semi_supervised, "load_subset", _tiny_subset)
        argv = [*argv, "--data-home", str(tmp_path)]
    elif fake == "sentences":
        monkeypatch.setattr(_sequence, "load_dataset", _tiny_sentences)
        argv = [*argv, "--data-home", str(tmp_path)]
    csv_path, md_path = tmp_path / "r.csv", tmp_path / "r.md"
    assert main([*argv, "--output", str(csv_path)]) == 0
    out = capsys.readouterr().out
    with csv_path.open(newline="") as f:
        rows = list(csv.DictReader(f))
    names = argv[argv.index("--estimators") + 1 :]
    names = names[: next((i for i, a in enumerate(names) if a[:2] == "--"), None)]
    assert [row["estimator"] for row in rows][: len(names)] == names
    for name in names:
        assert any(line.startswith(name) for line in out.splitlines()), name
    main([*argv, "--output", str(md_path)])
    assert md_path.read_text().splitlines()[2].startswith("| estimator |")
    if importlib.util.find_spec("matplotlib") is not None:
        png = tmp_path / "r.png"
        main([*argv, "--plot", str(png)])
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_stream_dask_runs_with_output_and_plot(tmp_path, capsys):
    pytest.importorskip("distributed")
    pytest.importorskip("matplotlib")
    csv_path, png = tmp_path / "r.csv", tmp_path / "r.png"
    argv = ["--dataset", "stream-2m", "--rows", "2000", "--workers", "1"]
    argv += ["--epochs", "1", "--estimators", "PA-I"]
    main([*argv, "--output", str(csv_path), "--plot", str(png)])
    with csv_path.open(newline="") as f:
        rows = list(csv.DictReader(f))
    assert [row["training"] for row in rows] == ["serial fit", "parameter mixing"]
    assert all(0.5 < float(row["accuracy"]) <= 1 for row in rows)
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_plot_leaves_the_matplotlib_backend_alone(tmp_path):
    """A notebook's backend and pyplot's state stay as they were."""
    pytest.importorskip("matplotlib")
    code = (
        "import sys, matplotlib; matplotlib.use('svg'); "
        "from sklearn_pa.benchmark import plot_results, run_benchmark; "
        "rows = run_benchmark('digits', ['PA-I'], cv=2, epochs=1); "
        f"plot_results(rows, {str(tmp_path / 'p.png')!r}); "
        "assert matplotlib.get_backend() == 'svg', matplotlib.get_backend(); "
        "assert 'matplotlib.pyplot' not in sys.modules"
    )
    env = {k: v for k, v in os.environ.items() if k != "MPLBACKEND"}
    subprocess.run([sys.executable, "-c", code], check=True, env=env)
    assert (tmp_path / "p.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_numpy_reference_is_the_compiled_sccw():
    """The reference of the timing protocol makes the same updates as the
    compiled full-covariance SCCW (no intercept)."""
    from sklearn.datasets import load_digits

    from sklearn_pa import ConfidenceWeightedClassifier
    from sklearn_pa.benchmark import REGISTRY

    X, y = load_digits(return_X_y=True)
    X, y = X[:400] / 16, y[:400]
    ref = REGISTRY["NumPy-SCCW"].factory(1, 0).set_params(shuffle=False).fit(X, y)
    ours = ConfidenceWeightedClassifier(
        covariance="full", fit_intercept=False, max_iter=1, tol=None, shuffle=False
    ).fit(X, y)
    np.testing.assert_allclose(ref.coef_, ours.coef_, atol=1e-12)
    with pytest.raises(ValueError, match="fit_intercept=False"):
        ref.set_params(fit_intercept=True).fit(X, y)


# ------------------------------------------------------------ the code itself
BENCHMARK_DIR = Path(__file__).resolve().parents[1] / "sklearn_pa" / "benchmark"


def _imports(path, module, modules):
    """The package modules ``module`` (at ``path``) imports, anywhere in it."""
    is_pkg = path.name == "__init__.py"
    base = module.split(".") if is_pkg else module.split(".")[:-1]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                parts = base[: len(base) - (node.level - 1)]
                target = ".".join(parts + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            for alias in node.names:
                sub = f"{target}.{alias.name}"
                found.add(sub if sub in modules else target)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    # a submodule importing its own package is how Python imports work
    return {m for m in found if m in modules and not module.startswith(m + ".")}


def test_package_has_no_import_cycle():
    root = BENCHMARK_DIR.parent
    paths = {}
    for path in root.rglob("*.py"):
        parts = list(path.relative_to(root.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        paths[".".join(parts)] = path
    graph = {m: _imports(p, m, paths) for m, p in paths.items()}
    assert graph["sklearn_pa.benchmark._cli"]  # the scan sees the imports
    state, stack = {}, []

    def visit(module):
        state[module] = "open"
        stack.append(module)
        for target in graph[module]:
            assert state.get(target) != "open", stack[stack.index(target) :]
            if target not in state:
                visit(target)
        stack.pop()
        state[module] = "done"

    for module in sorted(graph):
        if module not in state:
            visit(module)


def test_benchmark_code_lives_in_its_subpackage():
    root = BENCHMARK_DIR.parent
    assert not list(root.glob("_bench_*.py"))
    assert not (root / "benchmark.py").exists()
    assert not (root / "sequence" / "_benchmark.py").exists()
    for path in BENCHMARK_DIR.glob("*.py"):
        n_lines = len(path.read_text(encoding="utf-8").splitlines())
        assert n_lines <= 800, (path.name, n_lines)


def test_module_runs_as_the_main_job():
    proc = subprocess.run(
        [sys.executable, "-m", "sklearn_pa.benchmark", *FAST,
         "--estimators", "PA-I"],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    assert proc.stdout.startswith("digits (1797 x 64, 10 classes): 2-fold")


def test_cv_note_only_when_cv_is_given(monkeypatch, capsys):
    """The train/test protocol names --cv as ignored only when it was given."""
    from sklearn_pa.benchmark import _cli

    monkeypatch.setattr(_cli, "load_dataset", _tiny_holdout)
    argv = ["--dataset", "20newsgroups", "--epochs", "1", "--estimators", "PA-I"]
    main(argv)
    captured = capsys.readouterr()
    assert "--cv" not in captured.out and "--cv" not in captured.err
    # the table says what its columns are
    assert "accuracy (%)  on the held-out test set (one split: no ±)" in captured.out
    assert "fit time (s)  wall clock of the fit (1 epoch)" in captured.out
    # the command line refuses it; the Python function names it as ignored
    with pytest.raises(SystemExit):
        main([*argv, "--cv", "5"])
    assert "--cv does not apply" in capsys.readouterr().err
    rows = run_benchmark(_tiny_holdout(), ["PA-I"], cv=5, epochs=1)
    assert "; --cv 5 is ignored on this data set" in format_table(rows)
    rows = run_benchmark(_tiny_holdout(), ["PA-I"], epochs=1)
    assert "--cv" not in format_table(rows)


def test_table_says_what_time_and_spread_are(capsys):
    main([*FAST, "--estimators", "PA-I", "sklearn-SGD-pa1"])
    out = capsys.readouterr().out
    assert "accuracy (%)  on the held-out fold; mean ± std over the 2 folds" in out
    assert "fit time (s)  wall clock of one fit (1 epoch); mean over the folds" in out


@pytest.mark.slow
def test_default_run_times_the_learners_not_the_calls(tmp_path, capsys):
    """``python -m sklearn_pa.benchmark`` as it comes: digits, 30 epochs, so
    that every fit lasts well beyond the cost of a call (a fit of one epoch
    on 20 rows), and the whole run stays under 30 s (here, on a shared
    machine, with a margin)."""
    import time

    from sklearn.datasets import load_digits

    from sklearn_pa.benchmark import ESTIMATORS

    start = time.perf_counter()
    assert main(["--output", str(tmp_path / "r.csv")]) == 0
    elapsed = time.perf_counter() - start
    out = capsys.readouterr().out
    assert out.startswith("digits (1797 x 64, 10 classes): 10-fold stratified CV, 30")
    assert elapsed < 60
    with (tmp_path / "r.csv").open(newline="") as f:
        rows = list(csv.DictReader(f))
    X, y = load_digits(return_X_y=True)
    for name in ("PA-default", "sklearn-SGD-pa1"):
        call = []
        for _ in range(5):
            estimator = ESTIMATORS[name](1, 0)
            tic = time.perf_counter()
            estimator.fit(X[:20], y[:20])
            call.append(time.perf_counter() - tic)
        fit = next(float(r["fit_time_mean"]) for r in rows if r["estimator"] == name)
        assert fit > 5 * min(call), (name, fit, min(call))


@pytest.mark.parametrize("random_state", [1, 2, 3])
def test_drift_covariance_floor_recovers_after_a_change(random_state):
    """The drift protocol on a small stream (6000 rows; abrupt change at row
    2000, gradual from 4000 to 5000), on seeds other than the one its floor
    was chosen on: AROW with ``covariance_floor`` is at least 10 points more
    accurate than AROW over the 500 rows after each change (measured: 14 to
    18 points after the abrupt one, over 20 after the gradual one), and it
    still learns the stationary segment (at least 80 % before the change)."""
    from sklearn_pa.benchmark._drift import run_drift

    rows = run_drift(["AROW", "AROW-floor"], 6000, random_state=random_state)
    plain, floor = rows
    assert floor["after_abrupt"] >= plain["after_abrupt"] + 0.10
    assert floor["after_gradual"] >= plain["after_gradual"] + 0.10
    assert floor["before_change"] >= 0.80


@pytest.mark.parametrize("n_classes", [3, 5, 6])
def test_swapped_classes_stream(n_classes):
    """The rows are the data set's in a random order; the labels are the
    original ones before the abrupt change, the first pairing's from it to
    the gradual change (no class keeps its label; a pairing is its own
    inverse where the classes pair up), the second pairing's after (no
    class has the same partner in both), and during the gradual change each
    row is one or the other, the second more often the later it is."""
    from sklearn_pa.benchmark._drift import swap_classes_stream

    rng = np.random.RandomState(0)
    n = 6000
    y0 = rng.randint(n_classes, size=n) * 10  # (labels that are not 0..k-1)
    X0 = sp.csr_matrix(np.column_stack([np.arange(n), y0]).astype(float))
    X, y, changes = swap_classes_stream(X0, y0, random_state=3)
    X2, y2, _ = swap_classes_stream(X0, y0, random_state=3)
    assert (X != X2).nnz == 0 and np.array_equal(y, y2)
    assert changes == [(2000, 2000), (4000, 5000)]
    rows = X.toarray()
    order = rows[:, 0].astype(int)
    np.testing.assert_array_equal(np.sort(order), np.arange(n))
    assert not np.array_equal(order, np.arange(n))
    original = rows[:, 1]
    np.testing.assert_array_equal(y[:2000], original[:2000])

    def pairing(a, b):
        seen = dict(zip(original[a:b], y[a:b]))
        # (one partner per class, the same for every row of the segment)
        assert all(p[1] == seen[p[0]] for p in zip(original[a:b], y[a:b]))
        return seen

    first, second = pairing(2000, 4000), pairing(5000, n)
    classes = np.unique(y0)
    assert sorted(first) == sorted(second) == list(classes)
    assert sorted(first.values()) == list(classes)  # (a permutation)
    assert all(first[c] != c and second[c] != first[c] for c in classes)
    if n_classes % 2 == 0:
        assert all(first[first[c]] == c for c in classes)
    gradual = y[4000:5000]
    is_first = gradual == np.array([first[c] for c in original[4000:5000]])
    is_second = gradual == np.array([second[c] for c in original[4000:5000]])
    assert (is_first | is_second).all()
    assert is_second[:500].mean() < 0.4 < 0.6 < is_second[500:].mean()
    with pytest.raises(ValueError, match="at least 3"):
        swap_classes_stream(X0, np.arange(n) % 2)


@needs_data
def test_swapped_20newsgroups_stream_documents_what_the_floor_does_on_text():
    """What the docs say of the 20 Newsgroups drift stream: PA and AROW
    reach over 70 % before the swap and fall under 15 % over the 500
    documents after it, and AROW's floor of 0.01 changes its accuracy over
    the stream by less than a point, since it never binds before the
    change (AROW's smallest variance there is above it: measured 0.014)."""
    from sklearn_pa import AROWClassifier
    from sklearn_pa.benchmark import load_dataset
    from sklearn_pa.benchmark._drift import FLOOR, run_drift, swap_classes_stream

    data = load_dataset("20newsgroups")
    rows = run_drift(["PA", "AROW", "AROW-floor"], None, data=data)
    by_name = {row["estimator"]: row for row in rows}
    for row in rows:
        assert row["n_rows"] == 18846 and row["n_classes"] == 20
        assert row["before_change"] > 0.70 and row["after_abrupt"] < 0.15
    assert abs(by_name["AROW-floor"]["accuracy"] - by_name["AROW"]["accuracy"]) < 0.01
    # (before the change, the same model: the same windowed accuracy)
    plain, floor = by_name["AROW"], by_name["AROW-floor"]
    before = sum(row <= plain["changes"][0][0] for row in plain["curve_rows"])
    assert plain["curve"][:before] == floor["curve"][:before]
    X = sp.vstack([data.X, data.X_test]).tocsr()
    X, y, [(abrupt, _), _] = swap_classes_stream(
        X, np.concatenate([data.y, data.y_test]), random_state=0
    )
    arow = AROWClassifier()
    for lo in range(0, abrupt, 10):
        arow.partial_fit(X[lo : lo + 10], y[lo : lo + 10], classes=np.unique(y))
    assert arow.covariance_.min() > FLOOR


def test_capymoa_peer_reads_any_labels():
    """MOA's learners take a class index: the peer maps labels that are not
    0..k-1 both ways (where CapyMOA is installed)."""
    pytest.importorskip("capymoa")
    from sklearn_pa.benchmark._drift import _learner

    rng = np.random.RandomState(0)
    X = rng.normal(size=(600, 4))
    y = np.array([10, 20, 30])[(X[:, 0] > 0).astype(int) + (X[:, 1] > 0)]
    peer = _learner("capymoa-HAT", 3)
    peer.partial_fit(X[:500], y[:500], classes=np.array([10, 20, 30]))
    predicted = peer.predict(X[500:])
    assert set(predicted) <= {10, 20, 30}
    assert (predicted == y[500:]).mean() > 0.6


def test_text_drift_refuses_nnz(capsys):
    """``--nnz`` shapes the hyperplane's rows; the text stream's documents
    are streamed as they are, so it is refused there, naming why."""
    with pytest.raises(SystemExit):
        main(["--dataset", "20newsgroups-drift", "--nnz", "5"])
    assert "--nnz applies to --dataset drift only" in capsys.readouterr().err


def test_drift_run_is_reproduced():
    """A batch's rows are shuffled as a partial_fit call shuffles them: the
    protocol seeds its learners, so that a run gives the same table."""
    from sklearn_pa.benchmark._drift import run_drift

    first, again = (run_drift(["PA", "AROW-floor"], 1500) for _ in range(2))
    assert [row["curve"] for row in first] == [row["curve"] for row in again]


def test_drift_stream_is_seeded_and_sparse_on_request():
    from sklearn_pa.benchmark._drift import make_drift_stream

    X, y, changes = make_drift_stream(600, 30, random_state=4)
    X2, y2, _ = make_drift_stream(600, 30, random_state=4)
    np.testing.assert_array_equal(X, X2)
    np.testing.assert_array_equal(y, y2)
    assert changes == [(200, 200), (400, 500)]
    Xs, ys, _ = make_drift_stream(600, 30, nnz=5, random_state=4)
    assert Xs.format == "csr" and (np.diff(Xs.indptr) == 5).all()
    assert 0.3 < ys.mean() < 0.7
