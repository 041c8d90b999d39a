"""End-to-end: edge lists whose node ids are names (--ids auto|integer|string).

A 6 x 7 grid whose nodes are named by words (some that look like numbers, one in UTF-8, so byte order differs
from numeric and from case-insensitive order), plus a node named only in a self-loop, is read with the default
--ids auto. Checked:
  * /nodes/name holds the names in ascending byte order and /nodes/id is 0..N-1 in that order;
  * /graph equals the normalised adjacency this test builds itself in that order;
  * info and grf files are identical (h5diff, launch-only fields excluded) at 1-4 ranks with block, METIS and
    PT-Scotch partitions;
  * with --ids integer (or auto, whose first edge line is integers) a file with a name on line 3 stops with one
    line naming FILE:LINE, and no file.
"""

import os
import subprocess

import h5py
import numpy as np
import scipy.sparse as sp

import graphrf_e2e as e2e

EXCLUDE = ["--exclude-attribute", "/", "--exclude-path", "/config", "--exclude-path", "/launch",
           "--exclude-path", "/nodes/partition"]
ROWS, COLS = 6, 7


def named_grid(seed=3):
    """The grid as edge-list text with shuffled edges; returns (text, names in byte order, {(a, b): 1} edges)."""
    rng = np.random.default_rng(seed)
    n = ROWS * COLS
    words = ["n%03d-%s" % (k, "".join(rng.choice(list("abcXYZ"), 3))) for k in range(n)]
    words[0], words[1], words[2], words[3] = "10", "9", "Zebra", "caf\u00e9"  # byte order: "10" < "9" < "Z" < "c"
    names = [words[k] for k in rng.permutation(n)]
    edges = []
    for r in range(ROWS):
        for c in range(COLS):
            if c + 1 < COLS:
                edges.append((names[r * COLS + c], names[r * COLS + c + 1]))
            if r + 1 < ROWS:
                edges.append((names[r * COLS + c], names[(r + 1) * COLS + c]))
    lines = ["# a named grid"]
    for k in rng.permutation(len(edges)):
        u, v = edges[k]
        lines.append("%s\t%s" % ((u, v) if rng.random() < 0.5 else (v, u)))
    lines.append("lonely lonely")  # named only in a dropped self-loop: an isolated node
    ordered = sorted(set(names) | {"lonely"}, key=lambda s: s.encode())
    return "\n".join(lines) + "\n", ordered, edges


def expected_graph(ordered, edges):
    index = {name: i for i, name in enumerate(ordered)}
    n = len(ordered)
    a = np.zeros((n, n))
    for u, v in edges:
        a[index[u], index[v]] = a[index[v], index[u]] = 1
    d = a.sum(axis=1)
    scale = np.where(d > 0, 1 / np.sqrt(np.where(d > 0, d, 1)), 0)
    return sp.csr_matrix(scale[:, None] * a * scale[None, :])


def h5diff(a, b):
    r = subprocess.run(["h5diff", "-r"] + EXCLUDE + [a, b], capture_output=True, text=True, timeout=60)
    assert r.returncode in (0, 1), r.stdout + r.stderr
    return r.returncode == 0, r.stdout[-2000:]


def test_names_in_byte_order_and_identical_files():
    with e2e.TempDir() as d:
        text, ordered, edges = named_grid()
        graph = e2e.write(d, "named.tsv", text)
        commands = {"info": ["info"], "grf": ["grf", "--walkers", "4", "--p-halt", "0.4", "--max-length", "5",
                                              "--seed", "2"]}
        first = {}
        differences = []
        for command, args in commands.items():
            for np_, partition in ((1, "block"), (2, "block"), (2, "metis"), (3, "metis"), (4, "ptscotch"),
                                   (4, "block")):
                out = os.path.join(d, "%s-%d-%s.h5" % (command, np_, partition))
                e2e.run(np_, args + ["--graph", graph, "--partition", partition, "--quiet", "--out", out])
                if command not in first:
                    first[command] = out
                    continue
                same, report = h5diff(first[command], out)
                if not same:
                    differences.append("%s np %d %s:\n%s" % (command, np_, partition, report))
        assert not differences, "\n".join(differences)
        with h5py.File(first["info"], "r") as f:
            names = [bytes(x).decode() for x in f["nodes/name"][:]]
            ids = f["nodes/id"][:]
            got = e2e.read_csr(f["graph"])
        assert names == ordered, "names not in byte order: %s vs %s" % (names[:8], ordered[:8])
        assert np.array_equal(ids, np.arange(len(ordered))), ids[:10]
        assert e2e.csr_close(got, expected_graph(ordered, edges)), "/graph is not the named grid in byte order"


def test_integer_mode_names_the_line_of_a_name():
    with e2e.TempDir() as d:
        graph = e2e.write(d, "mixed.txt", "1 2\n2 3\n3 x7\n4 1\n")
        for np_ in (1, 3):
            e2e.expect_error(np_, ["info", "--graph", graph, "--ids", "integer", "--out", "{out}"],
                             "mixed.txt:3: node id 'x7' is not an integer", "--ids string or auto", directory=d)
        e2e.expect_error(2, ["info", "--graph", graph, "--ids", "names", "--out", "{out}"],
                         "--ids: unknown mode 'names'", directory=d)
        # auto decides on the first edge line (integers): the stray name is an error, not a renumbering
        e2e.expect_error(3, ["info", "--graph", graph, "--out", "{out}"],
                         "mixed.txt:3: node id 'x7' is not a non-negative integer", "--ids string", directory=d)
        # --ids string reads the same file as names: "1" "2" "3" "4" "x7"
        out = os.path.join(d, "mixed.h5")
        e2e.run(2, ["info", "--graph", graph, "--ids", "string", "--quiet", "--out", out])
        with h5py.File(out, "r") as f:
            assert [bytes(x).decode() for x in f["nodes/name"][:]] == ["1", "2", "3", "4", "x7"]


if __name__ == "__main__":
    e2e.main(globals())
