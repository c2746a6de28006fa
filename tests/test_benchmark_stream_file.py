"""The stream-file protocol: a svmlight file written by the benchmark,
streamed through partial_fit against load_svmlight_file + fit."""

import csv
import importlib.util

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import load_svmlight_file

from sklearn_pa.benchmark import main, make_stream_block, write_stream_file
from sklearn_pa.benchmark._data import N_FEATURES


def test_the_file_holds_the_stream_blocks(tmp_path):
    path = tmp_path / "s.svm"
    n_bytes = write_stream_file(path, 150_001, random_state=3)
    assert n_bytes == path.stat().st_size
    X, y = load_svmlight_file(path, n_features=N_FEATURES, zero_based=True)
    # two blocks, from seeds 4 and 5
    blocks = [make_stream_block(4, 75_000), make_stream_block(5, 75_001)]
    X_ref = sp.vstack([b[0] for b in blocks], format="csr")
    np.testing.assert_array_equal(X.indptr, X_ref.indptr)
    np.testing.assert_array_equal(X.indices, X_ref.indices)
    np.testing.assert_allclose(X.data, X_ref.data, rtol=1e-15)
    np.testing.assert_array_equal(y, np.concatenate([b[1] for b in blocks]))


def test_stream_file_runs_with_output_and_plot(tmp_path, capsys):
    csv_path, png = tmp_path / "r.csv", tmp_path / "r.png"
    argv = ["--dataset", "stream-file", "--rows", "3000", "--estimators", "PA-I"]
    argv += ["--epochs", "2", "--output", str(csv_path)]
    with_plot = importlib.util.find_spec("matplotlib") is not None
    assert main(argv + (["--plot", str(png)] if with_plot else [])) == 0
    out = capsys.readouterr().out
    assert "stream-file: 3,000 x 2^18 sparse rows" in out
    with csv_path.open(newline="") as f:
        rows = list(csv.DictReader(f))
    assert [row["training"] for row in rows] == ["stream from file", "load + fit"]
    for row in rows:
        assert row["epochs"] == "2"
        assert 0.5 < float(row["accuracy"]) <= 1
        assert float(row["peak_rss_mib"]) > 10
        assert float(row["read_time"]) > 0 and float(row["fit_time"]) > 0
    if with_plot:
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_stream_file_refuses_the_options_of_others(capsys):
    with pytest.raises(SystemExit):
        main(["--dataset", "stream-file", "--workers", "2"])
    assert "--workers" in capsys.readouterr().err
