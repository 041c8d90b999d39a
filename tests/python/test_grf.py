"""graphrf.grf and graphrf.walk: the numbers `graphrf grf` writes with the same options, bit for bit (/grf,
/grf2, /grf_by_length, /grf2_by_length), and its option errors raised as ValueError with the CLI's line."""
import numpy as np
import pytest

import graphrf
from conftest import assert_csr_identical, cli_error, read_arrays, read_csr, run_cli, write_edge_list


@pytest.fixture
def edge_file(tmp_path, random_edges):
    src, dst, weights, _ = random_edges
    return write_edge_list(tmp_path / "g.txt", src, dst, weights)


def cli_grf(path, out, options, ranks=None):
    run_cli(["grf", "--graph", path, "--out", out, *options], ranks=ranks)
    return out


# (Python keyword arguments, the same options on the command line)
CASES = [
    ({}, ["--p-halt", "0.1"]),
    ({"kernel": "regularized-laplacian", "beta": 0.5, "walkers": 8, "p_halt": 0.3, "seed": 5, "coupling": "antithetic"},
     ["--kernel", "regularized-laplacian", "--beta", "0.5", "--walkers", "8", "--p-halt", "0.3", "--seed", "5",
      "--coupling", "antithetic"]),
    ({"f": [1.0, -0.5, 0.25], "fixed_length": 4, "step": "weighted"}, ["--f", "1,-0.5,0.25", "--fixed-length", "4", "--step", "weighted"]),
    ({"kernel": "diffusion", "beta": 2.0, "weights": "combinatorial", "max_length": 12, "coupling": "repelling"},
     ["--beta", "2", "--weights", "combinatorial", "--max-length", "12", "--p-halt", "0.1", "--coupling", "repelling"]),
]


@pytest.mark.parametrize("kwargs, options", CASES)
def test_grf_is_bitwise_the_cli(tmp_path, edge_file, kwargs, options):
    expected = read_csr(cli_grf(edge_file, str(tmp_path / "grf.h5"), options), "/grf")
    assert_csr_identical(graphrf.grf(graphrf.Graph.load(edge_file), **kwargs), expected)


def test_grf_equals_the_cli_at_three_ranks_and_two_ensembles(tmp_path, edge_file):
    out = cli_grf(edge_file, str(tmp_path / "grf.h5"), ["--estimator", "two-ensembles", "--p-halt", "0.2"], ranks=3)
    phi1, phi2 = graphrf.grf(graphrf.Graph.load(edge_file), estimator="two-ensembles", p_halt=0.2)
    assert_csr_identical(phi1, read_csr(out, "/grf"))
    assert_csr_identical(phi2, read_csr(out, "/grf2"))


def test_walks_by_length_and_features_are_bitwise_the_cli(tmp_path, edge_file, random_edges):
    src, dst, weights, _ = random_edges
    g = graphrf.Graph.from_edges(src, dst, weights=weights)
    walks = graphrf.walk(g, walkers=8, p_halt=0.25, max_length=10, seed=3, ensembles=2)
    walk_options = ["--walkers", "8", "--p-halt", "0.25", "--max-length", "10", "--seed", "3"]
    out = cli_grf(edge_file, str(tmp_path / "walks.h5"), [*walk_options, "--by-length", "--estimator", "two-ensembles"])
    for ensemble, group in [(0, "/grf_by_length"), (1, "/grf2_by_length")]:
        expected = read_arrays(out, group, ["indptr", "indices", "length", "data"])
        for actual, stored in zip(walks.length_resolved(ensemble), expected):
            assert np.array_equal(actual, stored)
        # M_t one by one: the entries of /grf_by_length with length t.
        indptr, indices, length, data = expected
        rows = np.repeat(np.arange(g.num_nodes), np.diff(indptr))
        for t, m_t in enumerate(walks.by_length(ensemble)):
            keep = length == t
            dense = np.zeros((g.num_nodes, g.num_nodes))
            dense[rows[keep], indices[keep]] = data[keep]
            assert np.array_equal(m_t.toarray(), dense)
        assert len(walks.by_length(ensemble)) == length.max() + 1
    # Any f without walking again: /grf of `graphrf grf --f` on the same walks.
    f = [1.0, 0.5, -0.25, 0.125]
    expected = read_csr(cli_grf(edge_file, str(tmp_path / "f.h5"), [*walk_options, "--f", "1,0.5,-0.25,0.125"]), "/grf")
    assert_csr_identical(walks.features(f), expected)
    assert np.allclose(walks.features(f).toarray(), sum(c * m.toarray() for c, m in zip(f, walks.by_length())), atol=1e-15)


@pytest.mark.parametrize("kwargs, options", [
    ({"walkers": 0}, ["--walkers", "0"]),
    ({"kernel": "heat"}, ["--kernel", "heat"]),
    ({"p_halt": 1.5}, ["--p-halt", "1.5"]),
    ({"alpha": [1.0], "f": [1.0]}, ["--alpha", "1", "--f", "1"]),
    ({"f": [1.0], "beta": 2.0}, ["--f", "1", "--beta", "2"]),
    ({"fixed_length": 3, "p_halt": 0.2}, ["--fixed-length", "3", "--p-halt", "0.2"]),
    ({"coupling": "antithetic", "walkers": 3}, ["--coupling", "antithetic", "--walkers", "3"]),
    ({"scale": 2.0}, ["--scale", "2"]),
    ({"estimator": "both"}, ["--estimator", "both"]),
])
def test_bad_options_raise_the_cli_line(kwargs, options):
    g = graphrf.Graph.load("grid:3x3")
    with pytest.raises(ValueError) as error:
        graphrf.grf(g, **kwargs)
    assert str(error.value) == cli_error(["grf", "--graph", "grid:3x3", *options])
