"""graphrf.gp: /gp/mean, /gp/variance, /gp/y, /gp/split, /gp/samples and /gp/theta/f of `graphrf gp` with the same
options, bit for bit (observations from a file, and a synthetic GP sample), and its option errors raised as
ValueError with the CLI's line."""
import h5py
import numpy as np
import pytest

import graphrf
from conftest import cli_error, run_cli, write_edge_list


def cli_gp(path, out, options):
    run_cli(["gp", "--graph", path, "--out", out, *options])
    with h5py.File(out, "r") as f:
        stored = {name: f["gp"][name][:] for name in ("mean", "variance", "y", "split", "samples")}
        stored["f"] = f["gp/theta/f"][:]
        return stored


def assert_same(result, expected):
    for name, stored in expected.items():
        ours = np.asarray(result[name])
        assert ours.shape == stored.shape, name
        assert np.array_equal(ours, stored, equal_nan=stored.dtype.kind == "f"), name


def test_gp_on_observations_is_bitwise_the_cli(tmp_path, random_edges):
    src, dst, weights, n = random_edges
    path = write_edge_list(tmp_path / "g.txt", src, dst, weights)
    observations = tmp_path / "obs.csv"
    observations.write_text("node,y\n" + "".join(f"{i},{np.sin(i / 4):.6f}\n" for i in range(0, n, 2)))
    options = {"p_halt": 0.3, "walkers": 8, "iterations": 5, "samples": 4, "probes": 4, "seed": 2}
    cli_options = ["--observations", str(observations), "--p-halt", "0.3", "--walkers", "8", "--iterations", "5",
                   "--samples", "4", "--probes", "4", "--seed", "2"]
    expected = cli_gp(path, str(tmp_path / "gp.h5"), cli_options)
    result = graphrf.gp(graphrf.Graph.load(path), observations, **options)
    assert_same(result, expected)
    assert result["n_test"] == np.count_nonzero(expected["split"] == 1) > 0


def test_synthetic_gp_learning_f_is_bitwise_the_cli(tmp_path):
    expected = cli_gp("grid:5x5", str(tmp_path / "gp.h5"),
                      ["--synthetic", "0.6", "--synthetic-theta", "1,2,0.1", "--learn", "f", "--iterations", "4",
                       "--samples", "3", "--p-halt", "0.1", "--max-length", "6"])
    result = graphrf.gp(graphrf.Graph.load("grid:5x5"), synthetic=0.6, synthetic_theta=(1, 2, 0.1), learn="f",
                        iterations=4, samples=3, max_length=6)
    assert_same(result, expected)


@pytest.mark.parametrize("kwargs, options", [
    ({}, []),
    ({"synthetic": 1.5}, ["--synthetic", "1.5"]),
    ({"synthetic": 0.5, "test_fraction": 1.0}, ["--synthetic", "0.5", "--test-fraction", "1"]),
    ({"synthetic": 0.5, "learn": "all"}, ["--synthetic", "0.5", "--learn", "all"]),
    ({"synthetic": 0.5, "samples": 0}, ["--synthetic", "0.5", "--samples", "0"]),
])
def test_bad_options_raise_the_cli_line(kwargs, options):
    with pytest.raises(ValueError) as error:
        graphrf.gp(graphrf.Graph.load("grid:3x3"), **kwargs)
    assert str(error.value) == cli_error(["gp", "--graph", "grid:3x3", *options])


def test_bad_observation_file_raises_the_cli_line(tmp_path):
    observations = tmp_path / "obs.csv"
    observations.write_text("node,y\n0,1.0\n99,2.0\n")
    with pytest.raises(ValueError) as error:
        graphrf.gp(graphrf.Graph.load("grid:3x3"), observations)
    assert str(error.value) == cli_error(["gp", "--graph", "grid:3x3", "--observations", str(observations)])
