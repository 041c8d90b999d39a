"""graphrf.pagerank: /pagerank/estimate and /pagerank/exact of `graphrf pagerank` with the same options, bit for
bit, on a directed weighted graph with a self-loop and a dangling node (graph options as the CLI's: self-loops
kept, arcs as given), and on an undirected one; option errors raised as ValueError with the CLI's line."""
import numpy as np
import pytest

import graphrf
from conftest import cli_error, read_arrays, run_cli, write_edge_list


def cli_pagerank(path, out, options):
    run_cli(["pagerank", "--graph", path, "--out", out, *options])
    with_exact = "--reference" in options
    return read_arrays(out, "/pagerank", ["estimate", "exact"] if with_exact else ["estimate"])


def test_directed_pagerank_is_bitwise_the_cli(tmp_path):
    src = [0, 1, 2, 2, 3, 4, 4, 5, 6, 1]
    dst = [1, 2, 0, 3, 4, 4, 1, 6, 2, 7]  # 4 -> 4 a self-loop; node 7 has no out-arcs
    weights = [1.0, 2.0, 0.5, 1.5, 1.0, 3.0, 1.0, 2.0, 1.0, 0.25]
    path = write_edge_list(tmp_path / "g.txt", src, dst, weights)
    estimate, exact = cli_pagerank(path, str(tmp_path / "pr.h5"),
                                   ["--directed", "--walkers", "32", "--p-halt", "0.2", "--seed", "4", "--reference"])
    g = graphrf.Graph.from_edges(src, dst, weights=weights, directed=True, keep_self_loops=True)
    ours, ours_exact = graphrf.pagerank(g, walkers=32, p_halt=0.2, seed=4, reference=True)
    assert np.array_equal(ours, estimate) and np.array_equal(ours_exact, exact)
    loaded = graphrf.Graph.load(path, directed=True, keep_self_loops=True)
    assert np.array_equal(graphrf.pagerank(loaded, walkers=32, p_halt=0.2, seed=4), estimate)
    assert abs(ours_exact.sum() - 1) < 1e-12


def test_undirected_uniform_antithetic(tmp_path, random_edges):
    src, dst, weights, _ = random_edges
    path = write_edge_list(tmp_path / "g.txt", src, dst, weights)
    (estimate,) = cli_pagerank(path, str(tmp_path / "pr.h5"), ["--step", "uniform", "--coupling", "antithetic",
                                                               "--max-length", "20"])
    g = graphrf.Graph.load(path, keep_self_loops=True)
    assert np.array_equal(graphrf.pagerank(g, step="uniform", coupling="antithetic", max_length=20), estimate)


@pytest.mark.parametrize("kwargs, options", [
    ({"p_halt": 0.0}, ["--p-halt", "0"]),
    ({"walkers": 3, "coupling": "antithetic"}, ["--walkers", "3", "--coupling", "antithetic"]),
    ({"step": "lazy"}, ["--step", "lazy"]),
])
def test_bad_options_raise_the_cli_line(kwargs, options):
    g = graphrf.Graph.load("grid:3x3")
    with pytest.raises(ValueError) as error:
        graphrf.pagerank(g, **kwargs)
    assert str(error.value) == cli_error(["pagerank", "--graph", "grid:3x3", *options])


def test_grf_refuses_a_directed_graph():
    g = graphrf.Graph.from_edges([0, 1], [1, 2], directed=True)
    with pytest.raises(ValueError, match="graph random features need an undirected graph"):
        graphrf.grf(g)
