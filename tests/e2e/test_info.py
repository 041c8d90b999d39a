"""End-to-end: `graphrf info --graph F --out out.h5` on small files in every format, at 1 to 4 ranks, with the
block, metis, ptscotch and file: partitioners.

What is checked for every run:
  * the printed figures (RESULT nodes/edges/components/isolated, the degree line) and the exact 'loader'
    adjustment lines, written out by hand below for each file;
  * /graph read back and permuted into ascending original-id order with /nodes/id equals the matrix that the
    independent Python reader (graphrf_e2e.read_graph) builds: A with --weights raw, D^-1/2 A D^-1/2 by
    default; and the same file gives bitwise the same matrix at every rank count and with every partitioner;
  * /nodes/id are exactly the expected ids, ascending (canonical order, whatever the launch), and /graph as
    written is already the by-id matrix; /nodes/partition (the rank that owned each node) is in range, equals
    the block partitioner's rule or the file's assignment, and the printed edge cut matches it;
  * root attributes software, software_version, command, n_ranks, created and the /config dataset; the anndata
    CSR attributes (encoding-type csr_matrix, encoding-version 0.1.0, shape) of /graph; no .partial left.

The loader rules these files exercise (see graphrf_e2e.py for the reader that applies them):
  * repeated arcs u->v combine by --duplicates: max (default) keeps the largest weight, sum adds them;
  * an edge listed as u->v and v->u ("reverse arcs") becomes one undirected edge with the larger weight;
  * self-loops are dropped unless --keep-self-loops;
  * edge-list ids are the file's ids (sparse 64-bit ids are fine; a node is every id the file mentions, even
    one seen only in a dropped self-loop), rows in ascending id order;
  * formats that declare the node count (Matrix Market, METIS, DIMACS; OBJ's 'v' lines) number nodes 1..N and
    keep nodes that no edge mentions as isolated nodes.
"""

import os
import re

import numpy as np

import graphrf_e2e as e2e

# ---------------------------------------------------------------------------------------------------------------
# Input files and what the loader must report for each

MIXED_EDGES = """\
# SNAP-style comment: FromNodeId ToNodeId Weight
% KONECT-style comment
5\t9000000000000000001\t2.0
9000000000000000001\t5\t3.5
5 17 1.0
5 17 4.0
17 17 9.0
17 123456789012 0.25
123456789012 5 1

77 78 1.5
78 79 2
79 77 0.5
79 77 0.75
1000 2000 1
4242 4242 1
"""
# 13 arcs; self-loops 17-17 and 4242-4242; duplicates 5->17 and 79->77; 5 <-> 9000000000000000001 listed both
# ways with weights 2.0 and 3.5; components {5, 17, 123456789012, 9e18+1}, {77, 78, 79}, {1000, 2000} and the
# isolated 4242 (it appears only in a self-loop).
MIXED_IDS = [5, 17, 77, 78, 79, 1000, 2000, 4242, 123456789012, 9000000000000000001]

HEADER_CSV = """\
u,v,key,weight
1,2,0,0.5
2,3,0,1.5
3,1,7,2.5
1,2,1,0.25
4,5,0,1
"""

PATTERN_MTX = """\
%%MatrixMarket matrix coordinate pattern symmetric
% lower triangle of a symmetric 8 x 8 pattern; nodes 7 and 8 have no entries
8 8 7
2 1
3 1
3 2
5 4
6 5
4 4
6 4
"""

WEIGHTED_GRAPH = """\
% METIS graph: 6 vertices, 4 edges, fmt 011 = one vertex weight per vertex, then (neighbour, edge weight) pairs
6 4 011
1 2 3 3 1
1 1 3 3 2
% a comment between vertex lines is not a vertex
2 1 1 2 2
1 5 4
1 4 4
1
"""

ROADS_GR = """\
c DIMACS shortest-path problem: 7 nodes (node 7 has no arc), 7 arcs
c
p sp 7 7
a 1 2 10
a 2 1 10
a 2 3 5
a 3 2 7
a 3 4 1
a 1 4 2
a 5 6 3
"""

QUADS_OBJ = """\
# two quads sharing the edge 2-3, a triangle given by relative indices, and a lone vertex
o mesh
v 0 0 0
v 1 0 0
v 1 1 0
v 0 1 0
v 2 0 0
v 2 1 0
vn 0 0 1
vt 0 0
f 1//1 2//1 3//1 4//1
f 2/1/1 5/1/1 6/1/1 3/1/1
v 3 0 0
v 3 1 0
f -4 -2 -1
v 9 9 9
"""


class Case:
    """A file, the options graphrf gets, what it must print, and the Python reader's view of it."""

    def __init__(self, name, text, nodes, edges, components, isolated, loader, weighted=False, ids=None,
                 options=(), duplicates="max", keep_self_loops=False):
        self.name, self.text, self.nodes, self.edges = name, text, nodes, edges
        self.components, self.isolated, self.loader, self.weighted = components, isolated, loader, weighted
        self.ids, self.options = ids, list(options)
        self.duplicates, self.keep_self_loops = duplicates, keep_self_loops


CASES = {
    "mixed": Case("mixed.edges", MIXED_EDGES, nodes=10, edges=8, components=4, isolated=1, weighted=True, ids=MIXED_IDS,
                  loader=["dropped 2 self-loops",
                          "merged 2 duplicate arcs (--duplicates max)",
                          "combined 1 edges listed in both directions (1 with different weights: kept the larger)",
                          "symmetrised 11 arcs into 8 edges"]),
    "mixed_sum": Case("mixed.edges", MIXED_EDGES, nodes=10, edges=8, components=4, isolated=1, weighted=True,
                      ids=MIXED_IDS, options=["--duplicates", "sum"], duplicates="sum",
                      loader=["dropped 2 self-loops",
                              "merged 2 duplicate arcs (--duplicates sum)",
                              "combined 1 edges listed in both directions (1 with different weights: kept the larger)",
                              "symmetrised 11 arcs into 8 edges"]),
    "mixed_loops": Case("mixed.edges", MIXED_EDGES, nodes=10, edges=10, components=4, isolated=0, weighted=True,
                        ids=MIXED_IDS, options=["--keep-self-loops"], keep_self_loops=True,
                        loader=["kept 2 self-loops",
                                "merged 2 duplicate arcs (--duplicates max)",
                                "combined 1 edges listed in both directions (1 with different weights: kept the larger)",
                                "symmetrised 13 arcs into 10 edges"]),
    "csv": Case("header.csv", HEADER_CSV, nodes=5, edges=4, components=2, isolated=0, weighted=True, ids=[1, 2, 3, 4, 5],
                loader=["skipped the column-name header on line 1",
                        "merged 1 duplicate arcs (--duplicates max)",
                        "symmetrised 5 arcs into 4 edges"]),
    "mtx": Case("pattern.mtx", PATTERN_MTX, nodes=8, edges=6, components=4, isolated=2, ids=list(range(1, 9)),
                loader=["dropped 1 self-loops"]),
    "metis": Case("weighted.graph", WEIGHTED_GRAPH, nodes=6, edges=4, components=3, isolated=1, weighted=True,
                  ids=list(range(1, 7)),
                  loader=["combined 4 edges listed in both directions", "symmetrised 8 arcs into 4 edges"]),
    "dimacs": Case("roads.gr", ROADS_GR, nodes=7, edges=5, components=3, isolated=1, weighted=True, ids=list(range(1, 8)),
                   loader=["combined 2 edges listed in both directions (1 with different weights: kept the larger)",
                           "symmetrised 7 arcs into 5 edges"]),
    "obj": Case("quads.obj", QUADS_OBJ, nodes=9, edges=10, components=2, isolated=1, ids=list(range(1, 10)),
                loader=["combined 1 edges listed in both directions", "symmetrised 11 arcs into 10 edges"]),
    "karate": Case("karate.edges", None, nodes=34, edges=78, components=1, isolated=0, ids=list(range(34)),
                   loader=["no adjustments"]),
}

# Hand-checked raw weights of a few edges (by original id), beyond the reader's matrix.
SPOT_WEIGHTS = {
    "mixed": {(5, 9000000000000000001): 3.5, (5, 17): 4.0, (17, 123456789012): 0.25, (77, 79): 0.75},
    "mixed_sum": {(5, 17): 5.0, (77, 79): 1.25, (5, 9000000000000000001): 3.5},
    "mixed_loops": {(17, 17): 9.0, (4242, 4242): 1.0},
    "csv": {(1, 2): 0.5, (1, 3): 2.5},
    "metis": {(1, 2): 3.0, (2, 3): 2.0, (4, 5): 4.0},
    "dimacs": {(1, 2): 10.0, (2, 3): 7.0, (1, 4): 2.0},
}


def case_path(directory, case):
    path = os.path.join(directory, case.name)
    if not os.path.exists(path):
        if case.text is None:
            with open(os.path.join(e2e.DATA_DIR, case.name)) as src, open(path, "w") as dst:
                dst.write(src.read())
        else:
            e2e.write(directory, case.name, case.text)
    return path


# ---------------------------------------------------------------------------------------------------------------
# One run and its checks

ISO_UTC = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$")
_matrices = {}  # (case key, weights) -> (label, matrix by id): must be identical across runs


def run_info(directory, key, np_, partition="block", weights="normalized", part_file_parts=None):
    case = CASES[key]
    path = case_path(directory, case)
    out = os.path.join(directory, "%s-np%d-%s-%s.h5" % (key, np_, partition.replace(":", "_").replace("/", "_"), weights))
    args = ["info", "--graph", path, "--out", out, "--partition", partition] + case.options
    if weights != "normalized":
        args += ["--weights", weights]
    r = e2e.run(np_, args)
    label = "%s np=%d partition=%s weights=%s" % (key, np_, partition, weights)
    ctx = "\n[%s]\n%s" % (label, r.describe())

    # Printed figures.
    assert r.graphrf_errors() == [], ctx
    res = r.result()
    assert int(res["nodes"]) == case.nodes, ctx
    assert int(res["edges"]) == case.edges, ctx
    assert int(res["components"]) == case.components, ctx
    assert int(res["isolated"]) == case.isolated, ctx
    assert int(res["ranks"]) == np_, ctx
    assert r.lines_starting("loader") == case.loader, "loader lines %s != %s%s" % (r.lines_starting("loader"), case.loader, ctx)
    nodes_line = r.lines_starting("nodes")
    assert nodes_line == ["%d   edges %d%s" % (case.nodes, case.edges, " (weighted)" if case.weighted else "")], ctx
    assert r.lines_starting("isolated") == ["%d   connected components %d" % (case.isolated, case.components)], ctx
    part_line = r.lines_starting("partition")
    assert len(part_line) == 1 and part_line[0].startswith("%s on %d ranks: edge cut %s (" % (
        partition, np_, res["edge_cut"])), ctx

    # The independent reader.
    ref = e2e.read_graph(path, duplicates=case.duplicates, keep_self_loops=case.keep_self_loops)
    assert ref.n == case.nodes and len(ref.edges) == case.edges, "reader disagrees with the hand counts: %d %d" % (ref.n, len(ref.edges))
    assert ref.components() == case.components and ref.isolated() == case.isolated
    assert ref.ids == case.ids
    degree = np.diff(ref.matrix(False).indptr)
    assert r.lines_starting("degree") == ["min/mean/max %d / %.2f / %d" % (degree.min(), degree.mean(), degree.max())], ctx

    # The file.
    assert os.path.exists(out) and not e2e.temporaries(out), ctx
    o = e2e.Output(out)
    assert o.attrs.get("software") == "graphrf", o.attrs
    assert re.match(r"^\d+\.\d+\.\d+ \(\w+(-dirty)?\)$", o.attrs.get("software_version", "")), o.attrs
    assert o.attrs.get("command", "").split()[1:3] == ["info", "--graph"] and path in o.attrs["command"], o.attrs
    assert o.attrs.get("n_ranks") == np_, o.attrs
    assert ISO_UTC.match(o.attrs.get("created", "")), o.attrs
    assert "config" in o.names and ("graph = %s" % path) in o.config and ("weights = %s" % weights) in o.config, o.config
    assert o.graph_attrs["encoding-type"] == "csr_matrix" and o.graph_attrs["encoding-version"] == "0.1.0", o.graph_attrs
    assert o.graph_attrs["shape"] == [case.nodes, case.nodes], o.graph_attrs
    assert o.graph_attrs.get("weights") == weights and o.graph_attrs.get("edges") == case.edges, o.graph_attrs
    assert len(o.indptr) == case.nodes + 1 and o.indptr[0] == 0 and o.indptr[-1] == len(o.indices) == len(o.data)
    for i in range(case.nodes):
        row = o.indices[o.indptr[i]:o.indptr[i + 1]]
        assert np.all(np.diff(row) > 0) and (len(row) == 0 or (row[0] >= 0 and row[-1] < case.nodes)), "row %d: %s" % (i, row)
    assert [int(x) for x in o.sorted_ids] == case.ids, "ids %s != %s" % (o.sorted_ids.tolist(), case.ids)

    # The matrix, against the reader and against the other runs of the same file.
    expected = ref.matrix(weights == "normalized")
    if weights == "raw":
        assert e2e.csr_equal(o.by_id, expected), "%s\ngot\n%s\nexpected\n%s" % (label, o.by_id.toarray(), expected.toarray())
        id_index = {x: k for k, x in enumerate(case.ids)}
        for (a, b), w in SPOT_WEIGHTS.get(key, {}).items():
            assert o.by_id[id_index[a], id_index[b]] == w and o.by_id[id_index[b], id_index[a]] == w, (label, a, b, w)
    else:
        assert e2e.csr_close(o.by_id, expected), "%s\ngot\n%s\nexpected\n%s" % (label, o.by_id.toarray(), expected.toarray())
    same = (case.name, tuple(case.options), weights)
    if same in _matrices:
        other, m = _matrices[same]
        assert e2e.csr_equal(o.by_id, m), "%s and %s differ:\n%s\n%s" % (label, other, o.by_id.toarray(), m.toarray())
    else:
        _matrices[same] = (label, o.by_id)

    # Canonical order: rows ascending by id whatever the launch, so the file's matrix is the by-id matrix as is.
    assert np.all(np.diff(o.ids) > 0), "rows not in ascending id order: %s" % o.ids
    assert e2e.csr_equal(o.graph, o.by_id), "%s: /graph not in canonical rows and columns" % label
    # Partition: the rank that owned each node.
    part = o.partition
    assert len(part) == case.nodes and part.min() >= 0 and part.max() < np_, part
    part_by_id = part[o.order]
    if partition == "block":
        assert np.array_equal(part_by_id, e2e.block_partition(ref.matrix(False), np_)), part_by_id
    if part_file_parts is not None:
        assert np.array_equal(part_by_id, part_file_parts), "%s != %s" % (part_by_id, part_file_parts)
    assert e2e.edge_cut(ref.matrix(False), part_by_id) == int(res["edge_cut"]), ctx
    return r, o


# ---------------------------------------------------------------------------------------------------------------
# Tests

def test_karate_all_rank_counts_and_partitioners():
    with e2e.TempDir() as d:
        run_info(d, "karate", 1, "block")
        run_info(d, "karate", 2, "metis", weights="raw")
        run_info(d, "karate", 3, "ptscotch")
        run_info(d, "karate", 4, "block", weights="raw")
        parts_file = os.path.join(d, "karate.parts")
        p = e2e.partition_tool(2, ["--graph", case_path(d, CASES["karate"]), "--parts", 4, "--out", parts_file])
        parts = np.array([int(line) for line in open(parts_file) if line.strip() and not line.startswith("#")])
        assert len(parts) == 34 and set(parts.tolist()) <= {0, 1, 2, 3}, parts
        r, _ = run_info(d, "karate", 4, "file:" + parts_file, part_file_parts=parts)
        assert r.result()["edge_cut"] == p.result()["edge_cut"], (r.stdout, p.stdout)


def test_edge_list_comments_sparse_ids_duplicates_loops_reverse_arcs():
    with e2e.TempDir() as d:
        run_info(d, "mixed", 1, "block", weights="raw")
        run_info(d, "mixed", 3, "ptscotch", weights="raw")
        run_info(d, "mixed", 2, "metis")
        run_info(d, "mixed", 3, "block")


def test_edge_list_duplicates_sum():
    with e2e.TempDir() as d:
        run_info(d, "mixed_sum", 1, "block", weights="raw")
        run_info(d, "mixed_sum", 3, "metis", weights="raw")


def test_edge_list_keep_self_loops():
    with e2e.TempDir() as d:
        run_info(d, "mixed_loops", 1, "block")
        run_info(d, "mixed_loops", 3, "block", weights="raw")


def test_csv_with_column_header():
    with e2e.TempDir() as d:
        run_info(d, "csv", 1, "block", weights="raw")
        run_info(d, "csv", 3, "metis", weights="raw")
        run_info(d, "csv", 3, "ptscotch")


def test_matrix_market_pattern_symmetric_isolated_nodes():
    with e2e.TempDir() as d:
        run_info(d, "mtx", 1, "block")
        run_info(d, "mtx", 3, "ptscotch")
        run_info(d, "mtx", 3, "metis", weights="raw")


def test_metis_with_vertex_and_edge_weights():
    with e2e.TempDir() as d:
        run_info(d, "metis", 1, "block", weights="raw")
        run_info(d, "metis", 3, "block", weights="raw")
        run_info(d, "metis", 3, "metis")


def test_dimacs_gr():
    with e2e.TempDir() as d:
        run_info(d, "dimacs", 1, "block", weights="raw")
        run_info(d, "dimacs", 3, "metis", weights="raw")
        run_info(d, "dimacs", 3, "ptscotch")


def test_obj_quads_and_relative_indices():
    with e2e.TempDir() as d:
        run_info(d, "obj", 1, "block")
        run_info(d, "obj", 3, "ptscotch")
        run_info(d, "obj", 3, "block", weights="raw")


def test_partial_file_never_left_and_existing_output_replaced():
    with e2e.TempDir() as d:
        out = os.path.join(d, "out.h5")
        e2e.write(d, "out.h5", "not an HDF5 file")
        e2e.run(2, ["info", "-q", "--graph", case_path(d, CASES["csv"]), "--out", out])
        o = e2e.Output(out)
        assert o.graph_attrs["shape"] == [5, 5]
        assert sorted(os.listdir(d)) == ["header.csv", "out.h5"], os.listdir(d)


if __name__ == "__main__":
    e2e.main(globals())
