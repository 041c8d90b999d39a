"""End-to-end: node ids in inputs other than the graph name nodes, never row indices (issue 36, items 1, 3, 6).

The graph `a 2 / 2 10 / 10 b / b a / a 10` has names; in byte order "10" < "2" < "a" < "b", so its canonical
indices are 10 -> 0, 2 -> 1, a -> 2, b -> 3. Checked at 1, 2 and 3 ranks:
  * gp: CSV observations `2,5.0` put 5.0 on the node named "2" (not on index 2, node "a"); names that do not
    look like numbers match too; a --test list of names (with a header line) marks those nodes as test nodes;
    HDF5 observations match /obs/id as names (2 is the node "2") and /obs/name strings; the output carries
    /nodes/id and /nodes/name (read back with h5py);
  * an unknown name (observations, test list, HDF5 /obs/id, --qkv /nodes/name) is one error line naming the
    file and line (or entry), and no output;
  * attention --qkv: rows matched by /nodes/name, and by /nodes/id read as names on a graph read with
    --ids string, give the same output as the rows in canonical order; without /nodes/id the log says which
    order was assumed; a transposed /v or transposed /q, /k, /v is refused with the transpose suggested;
  * --ids auto decides on the first edge line: `0 1 / 1 2 / 2 x / 3 4` is an error naming line 3 and
    suggesting --ids string, not a graph renumbered in byte order.
"""

import os

import h5py
import numpy as np

import graphrf_e2e as e2e

NAMED_GRAPH = "a 2\n2 10\n10 b\nb a\na 10\n"
ORDER = ["10", "2", "a", "b"]  # canonical order: names in byte order
RANKS = (1, 2, 3)
GP = ["--learn", "none", "--walkers", "8", "--samples", "2", "--quiet"]


def read_nodes(path):
    with h5py.File(path, "r") as f:
        names = list(f["nodes/name"].asstr()[:])
        ids = f["nodes/id"][:]
        y = f["gp/y"][:] if "gp" in f else None
        split = f["gp/split"][:] if "gp" in f else None
    return names, ids, y, split


def test_gp_observations_and_test_lists_by_name():
    with e2e.TempDir() as d:
        graph = e2e.write(d, "names.txt", NAMED_GRAPH)
        obs = e2e.write(d, "o.csv", "node,y\n2,5.0\nb,-1.5\n10,0.5\n")
        tests = e2e.write(d, "t.txt", "node\nb\n")
        issue = e2e.write(d, "issue.csv", "node,y\n2,5.0\n")
        for np_ in RANKS:
            out = os.path.join(d, "issue%d.h5" % np_)
            e2e.run(np_, ["gp", "--graph", graph, "--observations", issue, "--test-fraction", "0", "--out", out] + GP)
            names, _, y, _ = read_nodes(out)
            assert {name: y[i] for i, name in enumerate(names) if not np.isnan(y[i])} == {"2": 5.0}, (names, y)
            out = os.path.join(d, "g%d.h5" % np_)
            e2e.run(np_, ["gp", "--graph", graph, "--observations", obs, "--test", tests, "--out", out] + GP)
            names, ids, y, split = read_nodes(out)
            assert names == ORDER, names
            assert list(ids) == [0, 1, 2, 3], ids
            got = {name: y[i] for i, name in enumerate(names)}
            assert got["2"] == 5.0 and got["b"] == -1.5 and got["10"] == 0.5 and np.isnan(got["a"]), got
            roles = {name: int(split[i]) for i, name in enumerate(names)}
            assert roles == {"10": 0, "2": 0, "a": 2, "b": 1}, roles  # train 0, test 1, unobserved 2


def test_gp_hdf5_observations_by_name():
    with e2e.TempDir() as d:
        graph = e2e.write(d, "names.txt", NAMED_GRAPH)
        by_id = os.path.join(d, "by_id.h5")
        with h5py.File(by_id, "w") as f:
            f["obs/id"] = np.array([2, 10], dtype=np.int64)  # the nodes named "2" and "10"
            f["obs/y"] = np.array([5.0, 0.5])
        by_name = os.path.join(d, "by_name.h5")
        with h5py.File(by_name, "w") as f:
            f.create_dataset("obs/name", data=["b", "a"], dtype=h5py.string_dtype())  # variable-length str
            f["obs/y"] = np.array([-1.5, 2.5])
        for np_ in RANKS:
            for obs, want in ((by_id, {"2": 5.0, "10": 0.5}), (by_name, {"b": -1.5, "a": 2.5})):
                out = os.path.join(d, "g%d.h5" % np_)
                e2e.run(np_, ["gp", "--graph", graph, "--observations", obs, "--test-fraction", "0", "--out", out] + GP)
                names, _, y, _ = read_nodes(out)
                got = {name: y[i] for i, name in enumerate(names) if not np.isnan(y[i])}
                assert got == want, (obs, got)
                os.remove(out)


def test_unknown_names_are_errors_naming_file_and_line():
    with e2e.TempDir() as d:
        graph = e2e.write(d, "names.txt", NAMED_GRAPH)
        obs = e2e.write(d, "o.csv", "node,y\n2,5.0\nzz,1.0\n")
        good = e2e.write(d, "good.csv", "node,y\n2,5.0\na,1.0\n")
        tests = e2e.write(d, "t.txt", "a\nc\n")
        h5 = os.path.join(d, "o.h5")
        with h5py.File(h5, "w") as f:
            f["obs/id"] = np.array([10, 3], dtype=np.int64)  # no node is named "3"
            f["obs/y"] = np.array([1.0, 2.0])
        qkv = e2e.write_qkv(os.path.join(d, "qkv.h5"), np.ones((4, 2)), np.ones((4, 2)), np.ones((4, 2)))
        with h5py.File(qkv, "a") as f:
            f["nodes/name"] = np.array([b"b", b"zz", b"10", b"2"])
        for np_ in RANKS:
            e2e.expect_error(np_, ["attention", "--graph", graph, "--qkv", qkv, "--out", "{out}"],
                             "qkv.h5: /nodes/name[1] 'zz' is not the name of a node of the graph", directory=d)
            e2e.expect_error(np_, ["gp", "--graph", graph, "--observations", obs, "--out", "{out}"] + GP,
                             "o.csv line 3: node 'zz' is not a node of the graph", directory=d)
            e2e.expect_error(np_, ["gp", "--graph", graph, "--observations", good, "--test", tests, "--out", "{out}"]
                             + GP, "t.txt line 2: node 'c' is not a node of the graph", directory=d)
            e2e.expect_error(np_, ["gp", "--graph", graph, "--observations", h5, "--out", "{out}"] + GP,
                             "o.h5 /obs/id[1]: node '3' is not a node of the graph", directory=d)


def attention_output(np_, graph, qkv, out, extra=()):
    r = e2e.run(np_, ["attention", "--graph", graph, "--qkv", qkv, "--walkers", "8", "--seed", "5", "--out", out]
                + list(extra))
    with h5py.File(out, "r") as f:
        output = f["attention/output"][:]
    os.remove(out)
    return output, r.stdout


def test_qkv_rows_matched_by_name_and_the_assumed_order_logged():
    rng = np.random.default_rng(4)
    n, dk, dv = 4, 3, 2
    q, k, v = rng.normal(size=(n, dk)), rng.normal(size=(n, dk)), rng.normal(size=(n, dv))
    perm = [2, 0, 3, 1]  # file row r holds the node of canonical index perm[r]
    with e2e.TempDir() as d:
        graph = e2e.write(d, "names.txt", NAMED_GRAPH)
        canonical = e2e.write_qkv(os.path.join(d, "canonical.h5"), q, k, v)
        named = e2e.write_qkv(os.path.join(d, "named.h5"), q[perm], k[perm], v[perm])
        with h5py.File(named, "a") as f:
            f["nodes/name"] = np.array([ORDER[i] for i in perm], dtype="S")  # fixed-length bytes
        # An integer file read with --ids string: names "1" < "10" < "2" < "3"; /nodes/id 10 is the node "10".
        numbers = e2e.write(d, "numbers.txt", "1 2\n2 10\n10 3\n3 1\n")
        number_order = ["1", "10", "2", "3"]
        by_id = e2e.write_qkv(os.path.join(d, "by_id.h5"), q[perm], k[perm], v[perm],
                              ids=[int(number_order[i]) for i in perm])
        out = os.path.join(d, "a.h5")
        for np_ in RANKS:
            want, log = attention_output(np_, graph, canonical, out)
            assert "rows in canonical node order (no /nodes/id)" in log, log
            got, log = attention_output(np_, graph, named, out)
            assert "rows matched to nodes by /nodes/name" in log, log
            assert np.allclose(got, want, rtol=1e-12, atol=1e-12), (got, want)
            want, _ = attention_output(np_, numbers, canonical, out, ["--ids", "string"])
            got, log = attention_output(np_, numbers, by_id, out, ["--ids", "string"])
            assert "rows matched to nodes by /nodes/id, read as node names" in log, log
            assert np.allclose(got, want, rtol=1e-12, atol=1e-12), (got, want)


def test_transposed_qkv_suggests_the_transpose():
    rng = np.random.default_rng(6)
    with e2e.TempDir() as d:
        graph = "grid:4x4"  # 16 nodes
        v_transposed = e2e.write_qkv(os.path.join(d, "vt.h5"), rng.normal(size=(16, 8)), rng.normal(size=(16, 8)),
                                     rng.normal(size=(8, 16)))
        all_transposed = e2e.write_qkv(os.path.join(d, "t.h5"), rng.normal(size=(8, 16)), rng.normal(size=(8, 16)),
                                       rng.normal(size=(8, 16)))
        for np_ in RANKS:
            e2e.expect_error(np_, ["attention", "--graph", graph, "--qkv", v_transposed, "--out", "{out}"],
                             "/q, /k and /v have 16, 16 and 8 rows",
                             "/v (8 x 16) looks transposed: the graph has 16 nodes, so store it as 16 x 8",
                             directory=d)
            e2e.expect_error(np_, ["attention", "--graph", graph, "--qkv", all_transposed, "--out", "{out}"],
                             "/q has 8 rows but the graph has 16 nodes", "/q (8 x 16) looks transposed",
                             "/k (8 x 16) looks transposed", directory=d)


def test_auto_ids_are_decided_by_the_first_edge_line():
    with e2e.TempDir() as d:
        stray = e2e.write(d, "stray.txt", "0 1\n1 2\n2 x\n3 4\n")
        for np_ in RANKS:
            e2e.expect_error(np_, ["info", "--graph", stray, "--out", "{out}"],
                             "stray.txt:3: node id 'x' is not a non-negative integer",
                             "the first edge line (line 1) has integer ids", "give --ids string", directory=d)
        # Asked for, names are read as before.
        out = os.path.join(d, "s.h5")
        e2e.run(2, ["info", "--graph", stray, "--ids", "string", "--quiet", "--out", out])
        names, _, _, _ = read_nodes(out)
        assert names == ["0", "1", "2", "3", "4", "x"], names


if __name__ == "__main__":
    e2e.main(globals())
