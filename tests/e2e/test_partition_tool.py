"""End-to-end: graphrf-partition writes a partition that `graphrf ... --partition file:` reads back.

  * graphrf-partition --graph grid:20x20 --parts 4 --out p.txt at 1 and 2 ranks (METIS): it prints the edge
    cut and the balance, which match the same figures computed here from the file and the grid's edges (node
    r*20+c is joined to its right and lower neighbours); the file has one part id per node, each in 0..3,
    and is the same at 1 and 2 ranks;
  * graphrf info --partition file:p.txt at 4 ranks reports the same edge cut and places every node on the
    rank the file names (/nodes/partition);
  * a file written at 3 ranks read back at 2 on a graph with scattered, shuffled ids: line i is the node with
    the i-th smallest id, and /nodes/partition (in that same order) repeats the file;
  * PT-Scotch and block with more parts than ranks, and a file written over an existing one.
"""

import os
import re

import numpy as np
import scipy.sparse as sp

import graphrf_e2e as e2e

ROWS = COLS = 20
N = ROWS * COLS
PARTS = 4

PARTITION_LINE = re.compile(r"^(\w+) into (\d+) parts in [0-9.]+ s: edge cut (\d+) \(([0-9.]+)%\), "
                            r"balance nodes ([0-9.]+) arcs ([0-9.]+)$")


def grid_edges():
    edges = []
    for r in range(ROWS):
        for c in range(COLS):
            u = r * COLS + c
            if c + 1 < COLS:
                edges.append((u, u + 1))
            if r + 1 < ROWS:
                edges.append((u, u + COLS))
    return np.array(edges)


def read_parts(path):
    with open(path) as f:
        lines = f.read().splitlines()
    header = [line for line in lines if line.startswith("#")]
    parts = np.array([int(line) for line in lines if line.strip() and not line.startswith("#")])
    return header, parts


def check_tool_run(r, parts, method, n_parts):
    """The printed figures of one graphrf-partition run against the file it wrote."""
    ctx = "\n" + r.describe()
    lines = r.lines_starting("partition")
    assert len(lines) == 1, ctx
    m = PARTITION_LINE.match(lines[0])
    assert m, "unexpected partition line %r%s" % (lines[0], ctx)
    assert m.group(1) == method and int(m.group(2)) == n_parts, ctx
    edges = grid_edges()
    cut = int(np.sum(parts[edges[:, 0]] != parts[edges[:, 1]]))
    assert int(m.group(3)) == cut, "printed edge cut %s, the file gives %d%s" % (m.group(3), cut, ctx)
    assert abs(float(m.group(4)) - 100.0 * cut / len(edges)) < 0.01, ctx
    sizes = np.bincount(parts, minlength=n_parts)
    assert abs(float(m.group(5)) - sizes.max() * n_parts / N) < 0.001, "node balance%s" % ctx
    degree = np.bincount(edges.ravel(), minlength=N)
    arcs = np.bincount(parts, weights=degree, minlength=n_parts)
    assert abs(float(m.group(6)) - arcs.max() * n_parts / arcs.sum()) < 0.001, "arc balance%s" % ctx
    res = r.result()
    assert int(res["parts"]) == n_parts and int(res["edge_cut"]) == cut, ctx
    assert r.graphrf_errors() == [], ctx
    return cut


def test_metis_grid_at_1_and_2_ranks_then_info_at_4():
    with e2e.TempDir() as d:
        files = {}
        for np_ in (1, 2):
            out = os.path.join(d, "p%d.txt" % np_)
            r = e2e.partition_tool(np_, ["--graph", "grid:%dx%d" % (ROWS, COLS), "--parts", PARTS, "--out", out])
            assert not e2e.temporaries(out)
            header, parts = read_parts(out)
            assert len(parts) == N, "%d part ids for %d nodes" % (len(parts), N)
            assert parts.min() >= 0 and parts.max() < PARTS, parts
            assert len(np.unique(parts)) == PARTS, "an empty part: %s" % np.bincount(parts)
            cut = check_tool_run(r, parts, "metis", PARTS)
            assert len(header) == 1 and ("edge cut %d;" % cut) in header[0], header
            files[np_] = (parts, cut)
        assert np.array_equal(files[1][0], files[2][0]), "METIS gave different parts at 1 and 2 ranks"
        parts, cut = files[2]

        h5 = os.path.join(d, "grid.h5")
        r = e2e.run(4, ["info", "--graph", "grid:%dx%d" % (ROWS, COLS), "--partition", "file:" + os.path.join(d, "p2.txt"),
                        "--out", h5])
        res = r.result()
        assert int(res["edge_cut"]) == cut and int(res["nodes"]) == N and int(res["ranks"]) == 4, r.describe()
        o = e2e.Output(h5)
        assert [int(x) for x in o.sorted_ids] == list(range(N))
        assert np.array_equal(o.partition[o.order], parts), "nodes not on the ranks the file names"
        # rows in canonical order: row i is the node on line i of the file
        assert np.array_equal(o.order, np.arange(N)) and np.array_equal(o.partition, parts)


def test_file_written_at_3_ranks_read_at_2():
    """Line i of a partition file is the node with the i-th smallest id, whatever the rank count that wrote it:
    a 2-part METIS file of a grid with scattered, shuffled ids written at 3 ranks and read back at 2."""
    with e2e.TempDir() as d:
        text, ids, _ = e2e.grid_edge_list(11, 9, seed=8)
        graph = e2e.write(d, "grid.edges", text)
        out = os.path.join(d, "p.txt")
        e2e.partition_tool(3, ["--graph", graph, "--parts", 2, "--out", out])
        _, parts = read_parts(out)
        assert len(parts) == len(ids) and len(np.unique(parts)) == 2, parts
        h5 = os.path.join(d, "grid.h5")
        r = e2e.run(2, ["info", "--graph", graph, "--partition", "file:" + out, "--out", h5])
        o = e2e.Output(h5)
        assert np.array_equal(o.ids, ids), "/nodes/id not the ascending ids"
        assert np.array_equal(o.partition, parts), "node on line i of the file not on the rank the line names"
        # the edge cut graphrf reports is the file's, counted here from the edge list
        m = e2e.read_graph(graph).matrix(False)
        assert int(r.result()["edge_cut"]) == e2e.edge_cut(m, parts), r.describe()


def test_ptscotch_and_block_more_parts_than_ranks():
    with e2e.TempDir() as d:
        for method, np_ in (("ptscotch", 2), ("block", 3)):
            out = os.path.join(d, "p.txt")
            e2e.write(d, "p.txt", "stale contents that are longer than nothing\n" * 200)  # replaced, not appended to
            r = e2e.partition_tool(np_, ["--graph", "grid:%dx%d" % (ROWS, COLS), "--parts", 5, "--method", method,
                                         "--out", out])
            _, parts = read_parts(out)
            assert len(parts) == N and parts.min() >= 0 and parts.max() < 5, parts
            check_tool_run(r, parts, method, 5)
            if method == "block":  # contiguous id ranges balanced by degree + 1
                e = grid_edges()
                a = sp.csr_matrix((np.ones(2 * len(e)), (np.r_[e[:, 0], e[:, 1]], np.r_[e[:, 1], e[:, 0]])), shape=(N, N))
                assert np.array_equal(parts, e2e.block_partition(a, 5)), parts


def test_parts_default_to_rank_count_and_no_out():
    r = e2e.partition_tool(3, ["--graph", "grid:6x7", "--quiet"])
    res = r.result()
    assert int(res["parts"]) == 3, r.describe()
    assert r.lines_starting("partition") == [] and len(r.stdout.splitlines()) == 1, r.describe()


if __name__ == "__main__":
    e2e.main(globals())
