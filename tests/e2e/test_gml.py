"""End-to-end: GML files (Newman's layout: one key per line, blocks opening on their own line) read in
parallel.

A 7 x 6 grid with shuffled, non-contiguous ids, `value` weights, labels, graphics blocks and one isolated node
is written as GML. Checked: /nodes/id holds the ids ascending with the isolated node kept, /nodes/name their
labels; /graph equals the
normalised weighted adjacency this test builds itself; info and grf files are identical (h5diff, launch-only
fields excluded) at 1-4 ranks with block, METIS and PT-Scotch partitions (so node and edge blocks cut by every
rank boundary); malformed files (and what the parallel reader refuses: two graphs in one file, a value on a
later line than its key, strings spanning lines) stop with one line naming FILE:LINE and leave no file.
"""

import os
import subprocess

import h5py
import numpy as np
import scipy.sparse as sp

import graphrf_e2e as e2e

EXCLUDE = ["--exclude-attribute", "/", "--exclude-path", "/config", "--exclude-path", "/launch",
           "--exclude-path", "/nodes/partition"]
ROWS, COLS = 7, 6


def grid_gml(seed=5):
    """Returns (GML text, ids ascending, {(u, v): w})."""
    rng = np.random.default_rng(seed)
    n = ROWS * COLS
    ids = 3 + 5 * rng.permutation(n)
    isolated = 1000
    edges = {}
    for r in range(ROWS):
        for c in range(COLS):
            a = ids[r * COLS + c]
            if c + 1 < COLS:
                edges[(a, ids[r * COLS + c + 1])] = float(rng.integers(1, 5)) / 2
            if r + 1 < ROWS:
                edges[(a, ids[(r + 1) * COLS + c])] = float(rng.integers(1, 5)) / 2
    lines = ['Creator "graphrf test"', "graph", "[", "  directed 0"]
    for node in list(rng.permutation(ids)) + [isolated]:
        lines += ["  node", "  [", "    id %d" % node, '    label "n%d [x]"' % node, "    graphics", "    [",
                  "      x %.1f" % rng.random(), "    ]", "  ]"]
    for (u, v), w in edges.items():
        lines += ["  edge", "  [", "    source %d" % u, "    target %d" % v, "    value %g" % w, "  ]"]
    lines.append("]")
    return "\n".join(lines) + "\n", np.sort(np.append(ids, isolated)), edges


def expected_graph(ids, edges):
    index = {int(x): i for i, x in enumerate(ids)}
    a = np.zeros((len(ids), len(ids)))
    for (u, v), w in edges.items():
        a[index[u], index[v]] = a[index[v], index[u]] = w
    d = a.sum(axis=1)
    s = np.where(d > 0, 1 / np.sqrt(np.where(d > 0, d, 1)), 0)
    return sp.csr_matrix(s[:, None] * a * s[None, :])


def h5diff(a, b):
    r = subprocess.run(["h5diff", "-r"] + EXCLUDE + [a, b], capture_output=True, text=True, timeout=60)
    assert r.returncode in (0, 1), r.stdout + r.stderr
    return r.returncode == 0, r.stdout[-2000:]


def test_gml_graph_identical_at_every_launch():
    with e2e.TempDir() as d:
        text, ids, edges = grid_gml()
        graph = e2e.write(d, "grid.gml", text)
        commands = {"info": ["info"], "grf": ["grf", "--walkers", "4", "--p-halt", "0.4", "--max-length", "5",
                                              "--seed", "2"]}
        differences = []
        for command, args in commands.items():
            first = None
            for np_, partition in ((1, "block"), (2, "block"), (2, "metis"), (3, "block"), (4, "ptscotch"),
                                   (4, "block")):
                out = os.path.join(d, "%s-%d-%s.h5" % (command, np_, partition))
                r = e2e.run(np_, args + ["--graph", graph, "--partition", partition, "--out", out])
                assert "as gml" in r.stdout, r.stdout
                if first is None:
                    first = out
                    continue
                same, report = h5diff(first, out)
                if not same:
                    differences.append("%s np %d %s:\n%s" % (command, np_, partition, report))
            if command == "info":
                with h5py.File(first, "r") as f:
                    got_ids = f["nodes/id"][:]
                    got = e2e.read_csr(f["graph"])
                    got_names = [x.decode() for x in f["nodes/name"][:]]
                assert np.array_equal(got_ids, ids), (got_ids[:10], ids[:10])
                # The node labels, by node in id order (the ids stay the GML ids).
                assert got_names == ["n%d [x]" % x for x in ids], got_names[:5]
                assert e2e.csr_close(got, expected_graph(ids, edges)), "/graph differs from the GML's graph"
        assert not differences, "\n".join(differences)


def test_malformed_gml_is_one_error():
    with e2e.TempDir() as d:
        cases = [
            ("missing.gml", "graph [\n node [ id 1 ]\n node [ id 2 ]\n edge [ source 1 target 3 ]\n]\n",
             "missing.gml as gml", "edges name 1 node id(s) that have no node block"),
            ("twice.gml", "graph [\n node [ id 1 ]\n node [ id 1 ]\n node [ id 2 ]\n edge [ source 1 target 2 ]\n]\n",
             "twice.gml as gml", "two node blocks share an id"),
            ("noid.gml", "graph [\n node [ id 1 ]\n node [\n label \"b\"\n ]\n]\n", "noid.gml:3: ",
             "node block without an id"),
            ("open.gml", "graph [\n node [ id 1 ]\n node [ id 2 ]\n edge [ source 1 target 2 ]\n", "open.gml: ",
             "the file ends inside 1 open block(s)"),
            ("weight.gml", "graph [\n node [ id 1 ]\n node [ id 2 ]\n edge [ source 1 target 2\n value 0 ]\n]\n",
             "weight.gml:5: ", "is zero"),
            # Limits of the parallel reader, each refused with the line to blame.
            ("two.gml", "graph [\n node [ id 1 ]\n]\ngraph [\n node [ id 2 ]\n]\n", "two.gml:4: ",
             "a second 'graph [' block (the first is on line 1)"),
            ("nextline.gml", "graph [\n node [ id\n 1 ]\n]\n", "nextline.gml:3: ",
             "value '1' is not on the line of its key (not supported"),
            ("multiline.gml", "graph [\n node [ id 1 label \"two\nlines\" ]\n]\n", "multiline.gml:2: ",
             "strings spanning lines are not supported"),
        ]
        for name, text, where, what in cases:
            graph = e2e.write(d, name, text)
            for np_ in (1, 3):
                e2e.expect_error(np_, ["info", "--graph", graph, "--out", "{out}"], where, what, directory=d)
            os.remove(graph)


if __name__ == "__main__":
    e2e.main(globals())
