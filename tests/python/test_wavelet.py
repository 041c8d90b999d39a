"""graphrf.wavelet: /embedding of `graphrf wavelet` with the same options, bit for bit, and its option errors raised
as ValueError with the CLI's line."""
import numpy as np
import pytest

import graphrf
from conftest import cli_error, read_arrays, run_cli, write_edge_list


@pytest.mark.parametrize("kwargs, options", [
    ({}, []),
    ({"kernel": "regularized-laplacian", "beta": 2.0, "laplacian": "combinatorial", "seed": 9, "oversample": 5},
     ["--kernel", "regularized-laplacian", "--beta", "2", "--laplacian", "combinatorial", "--seed", "9",
      "--oversample", "5"]),
])
def test_wavelet_is_bitwise_the_cli(tmp_path, random_edges, kwargs, options):
    src, dst, weights, n = random_edges
    path = write_edge_list(tmp_path / "g.txt", src, dst, weights)
    out = str(tmp_path / "w.h5")
    run_cli(["wavelet", "--graph", path, "--embedding-dim", "6", "--out", out, *options])
    (expected,) = read_arrays(out, "/", ["embedding"])
    embedding = graphrf.wavelet(graphrf.Graph.from_edges(src, dst, weights=weights), 6, **kwargs)
    assert embedding.shape == expected.shape and expected.shape[0] == n
    assert np.array_equal(embedding.view(np.uint64), expected.view(np.uint64))


@pytest.mark.parametrize("kwargs, options", [
    ({"laplacian": "signless"}, ["--laplacian", "signless"]),
    ({"kernel": "heat"}, ["--kernel", "heat"]),
    ({"beta": -1.0}, ["--beta", "-1"]),
])
def test_bad_options_raise_the_cli_line(kwargs, options):
    g = graphrf.Graph.load("grid:4x4")
    with pytest.raises(ValueError) as error:
        graphrf.wavelet(g, 4, **kwargs)
    assert str(error.value) == cli_error(["wavelet", "--graph", "grid:4x4", "--embedding-dim", "4", *options])


@pytest.mark.parametrize("k", [0, 100])
def test_bad_embedding_dim_raises_the_cli_line(k):
    with pytest.raises(ValueError) as error:
        graphrf.wavelet(graphrf.Graph.load("grid:4x4"), k)
    assert str(error.value) == cli_error(["wavelet", "--graph", "grid:4x4", "--embedding-dim", str(k)])
