"""graphrf.Graph: built from arrays or read with the --graph loader, the same graph `graphrf info --out` writes
(/graph bitwise, /nodes/id), and bad input raised as ValueError / OSError with the CLI's line."""
import numpy as np
import pytest

import graphrf
from conftest import assert_csr_identical, cli_error, read_arrays, read_csr, run_cli, write_edge_list


def info(path, out, *options):
    run_cli(["info", "--graph", path, "--out", out, *options])
    return out


def test_from_edges_equals_the_loaded_file(tmp_path, random_edges):
    src, dst, weights, n = random_edges
    path = write_edge_list(tmp_path / "g.txt", src, dst, weights)
    out = info(path, str(tmp_path / "g.h5"))
    expected = read_csr(out, "/graph")
    g = graphrf.Graph.from_edges(src, dst, weights=weights)
    assert g.num_nodes == n
    assert_csr_identical(g.adjacency(), expected)
    assert_csr_identical(graphrf.Graph.load(path).adjacency(), expected)
    assert np.array_equal(g.node_ids, np.arange(n))


def test_raw_weights_and_sparse_ids_as_info_writes_them(tmp_path, random_edges):
    src, dst, weights, _ = random_edges
    src, dst = src * 10 + 5, dst * 10 + 5  # ids 5, 15, ...: canonical order is ascending id
    path = write_edge_list(tmp_path / "g.txt", src, dst, weights)
    out = info(path, str(tmp_path / "g.h5"), "--weights", "raw", "--duplicates", "sum")
    g = graphrf.Graph.load(path, duplicates="sum")
    assert_csr_identical(g.adjacency("raw"), read_csr(out, "/graph"))
    assert np.array_equal(g.node_ids, read_arrays(out, "/nodes", ["id"])[0])


def test_edge_index_numpy_and_torch_and_isolated_nodes():
    edge_index = np.array([[0, 1, 1, 2], [1, 0, 2, 0]])
    g = graphrf.Graph.from_edge_index(edge_index, num_nodes=5)
    assert g.num_nodes == 5 and g.num_edges == 3
    a = g.adjacency("raw").toarray()
    assert np.array_equal(a, a.T) and a[3].sum() == 0 and a[4].sum() == 0
    torch = pytest.importorskip("torch", reason="PyTorch (python3-torch) is not installed: torch edge_index not tested")
    g2 = graphrf.Graph.from_edge_index(torch.tensor(edge_index), num_nodes=5)
    assert_csr_identical(g2.adjacency(), g.adjacency())


def test_generated_graph():
    g = graphrf.Graph.load("grid:3x4")
    assert (g.num_nodes, g.num_edges) == (12, 17)


@pytest.mark.parametrize("call, message", [
    (lambda: graphrf.Graph.from_edges([0, 1], [1, 7], num_nodes=3), "edges: dst[1] = 7 is not a node id 0..2"),
    (lambda: graphrf.Graph.from_edges([0, -1], [1, 2]), "edges: src[1] = -1 is not a node id 0..2"),
    (lambda: graphrf.Graph.from_edges([0, 1], [1]), "edges: src has 2 ids but dst has 1"),
    (lambda: graphrf.Graph.from_edges([0, 1], [1, 2], weights=[1.0, -2.0]), "edges: weights[1] = -2 (weights must be finite and > 0)"),
    (lambda: graphrf.Graph.from_edges([0, 1], [1, 2], weights=[1.0, np.nan]), "edges: weights[1] = nan (weights must be finite and > 0)"),
    (lambda: graphrf.Graph.from_edges([1], [1]), "edges: empty graph (no edges)"),
    (lambda: graphrf.Graph.from_edges([0.5], [1]), "edges: src must hold integer node ids (got dtype float64)"),
])
def test_bad_edges_raise_value_error(call, message):
    with pytest.raises(ValueError) as error:
        call()
    assert str(error.value) == message


def test_bad_files_and_options_raise_the_cli_line(tmp_path):
    missing = str(tmp_path / "missing.txt")
    with pytest.raises(OSError) as error:
        graphrf.Graph.load(missing)
    assert str(error.value) == cli_error(["info", "--graph", missing])
    bad = tmp_path / "bad.txt"
    bad.write_text("0 1\n1 x 2\n")
    for options, cli_options in [({}, []), ({"duplicates": "first"}, ["--duplicates", "first"]),
                                 ({"partition": "nope"}, ["--partition", "nope"])]:
        with pytest.raises(ValueError) as error:
            graphrf.Graph.load(str(bad), **options)
        assert str(error.value) == cli_error(["info", "--graph", str(bad), *cli_options])
    # The interpreter is still fine: the next call works.
    assert graphrf.Graph.load("grid:2x2").num_nodes == 4
