"""End-to-end: inputs that were once misread without a word, runs that never ended, and messages that misled.

  * misread: CR (old Mac) line endings, a decimal comma in a TSV weight, a 2-D /obs/y, a GML edge with two
    sources or two weights, an OBJ face with a malformed vertex reference, a MatrixMarket 'integer' entry of 1.5,
    a PLY with more vertex lines than declared;
  * never ended: bench-walks with --walkers-list 0 or a --p-halt-list outside (0, 1); a FIFO with no writer as
    --graph (and /proc/cpuinfo, /dev/zero, once "empty graph");
  * misled: gp with y = 1e308 (blamed --beta), an HDF5 checksum error or a corrupt object header (no file
    named), an INI `beta = nan` (no FILE:LINE), --normalizer-eps nan or -1, --alpha 1e200,1e200.
Each ends with the bad-input contract (one error line naming FILE:LINE or the option, non-zero exit, no output,
no hang) at 1 and 2 ranks, some at 3. And gp with no test nodes writes NaN figures (not 0) and says so.
"""

import math
import os

import h5py
import numpy as np

import graphrf_e2e as e2e

TIMEOUT = 30


def each(args, *needles, ranks=(1, 2), **kw):
    for np_ in ranks:
        e2e.expect_error(np_, args, *needles, timeout=TIMEOUT, **kw)


def info(d, path, *needles, ranks=(1, 2)):
    each(["info", "--graph", path, "--out", "{out}"], *needles, ranks=ranks, directory=d)


def test_cr_line_endings():
    with e2e.TempDir() as d:
        mac = e2e.write(d, "mac.txt", "0 1\r1 2\r2 0\r")
        info(d, mac, mac + ":1:", "carriage return", "tr '\\r' '\\n'", ranks=(1, 2, 3))
        mtx = e2e.write(d, "mac.mtx", "%%MatrixMarket matrix coordinate pattern general\r3 3 2\r1 2\r2 3\r")
        info(d, mtx, mtx + ":1:", "carriage return")


def test_decimal_comma_weight():
    with e2e.TempDir() as d:
        tsv = e2e.write(d, "w.tsv", "0\t1\t2\n1\t2\t1,5\n2\t0\t1\n")
        info(d, tsv, tsv + ":2:", "weight '1,5' in column 3 has a decimal comma", ranks=(1, 2, 3))


def test_gml_edge_with_repeated_keys():
    with e2e.TempDir() as d:
        nodes = "graph [\n node [ id 1 ]\n node [ id 2 ]\n node [ id 3 ]\n"
        source = e2e.write(d, "s.gml", nodes + " edge [ source 1 source 3 target 2 ]\n]\n")
        info(d, source, source + ":5:", "second source")
        weight = e2e.write(d, "w.gml", nodes + " edge [ source 1 target 2\n weight 1\n weight 2 ]\n]\n")
        info(d, weight, weight + ":7:", "second weight")


def test_obj_malformed_vertex_reference():
    with e2e.TempDir() as d:
        obj = e2e.write(d, "m.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1/ 2/x 3\n")
        info(d, obj, obj + ":4:", "vertex reference '1/' is malformed")


def test_matrix_market_integer_entry_not_integer():
    with e2e.TempDir() as d:
        mtx = e2e.write(d, "i.mtx", "%%MatrixMarket matrix coordinate integer general\n3 3 2\n1 2 1\n2 3 1.5\n")
        info(d, mtx, mtx + ":4:", "value '1.5' is not an integer", "'integer'", ranks=(1, 2, 3))


def test_ply_more_vertex_lines_than_declared():
    with e2e.TempDir() as d:
        rng = np.random.default_rng(1)
        points = "".join("%r %r %r\n" % tuple(float(v) for v in rng.random(3)) for _ in range(50))
        ply = e2e.write(d, "p.ply", "ply\nformat ascii 1.0\nelement vertex 40\nproperty float x\nproperty float y\n"
                                    "property float z\nend_header\n" + points)
        each(["grf", "--points", ply, "--knn", "4", "--walkers", "4", "--out", "{out}"], ply + ": line 48:",
             "more lines than the header declares (40 vertices)", directory=d)


def test_obs_y_with_two_columns():
    with e2e.TempDir() as d:
        obs = os.path.join(d, "obs.h5")
        with h5py.File(obs, "w") as f:
            f["obs/id"] = np.arange(34, dtype=np.int64)
            f["obs/y"] = np.ones((34, 2))
        each(["gp", "--graph", "grid:6x6", "--observations", obs, "--iterations", "2", "--out", "{out}"],
             obs + ": /obs/y has 2 dimensions (34 x 2)", directory=d)


def test_gp_huge_observations_name_the_file_not_beta():
    with e2e.TempDir() as d:
        rows = "".join("%d,%s\n" % (i, "1e308" if i % 2 else "-1e308") for i in range(20))
        obs = e2e.write(d, "obs.csv", "node,y\n" + rows)
        line = None
        for np_ in (1, 2):
            line = e2e.expect_error(np_, ["gp", "--graph", "grid:5x5", "--observations", obs, "--iterations", "2",
                                          "--out", "{out}"], obs + " line 2:", "too large", directory=d,
                                    timeout=TIMEOUT)
        assert "--beta" not in line, line


def test_gp_without_test_nodes_writes_nan_figures():
    with e2e.TempDir() as d:
        obs = e2e.write(d, "obs.csv", "node,y\n" + "".join("%d,%r\n" % (i, math.sin(i)) for i in range(16)))
        out = os.path.join(d, "gp.h5")
        r = e2e.run(2, ["gp", "--graph", "grid:4x4", "--observations", obs, "--test-fraction", "0",
                        "--iterations", "2", "--samples", "4", "--out", out], timeout=TIMEOUT)
        assert "no test nodes" in r.stdout, r.describe()
        with h5py.File(out, "r") as f:
            metrics = dict(f["gp/metrics"].attrs)
        assert metrics["n_test"] == 0, metrics
        for name in ("rmse", "nlpd", "coverage"):
            assert math.isnan(metrics[name]), metrics


def test_bench_walks_lists_checked_like_their_options():
    with e2e.TempDir() as d:
        base = ["bench-walks", "--graphs", "grid:4x4", "--no-baselines"]
        each(base + ["--walkers-list", "0"], "--walkers-list: item '0'", "must be >= 1", directory=d)
        each(base + ["--walkers-list", "4,x"], "--walkers-list: item 'x' is not an integer", directory=d)
        for bad in ("1.5", "0", "nan"):
            each(base + ["--p-halt-list", "0.5," + bad], "--p-halt-list: item '%s'" % bad, "must be in (0, 1)",
                 directory=d)
        each(["bench-couplings", "--graphs", "grid:4x4", "--walkers-list", "0"], "--walkers-list: item '0'",
             directory=d)


def test_graph_that_is_not_a_regular_file():
    with e2e.TempDir() as d:
        fifo = os.path.join(d, "fifo")
        os.mkfifo(fifo)
        before = set(os.listdir(d))
        for np_ in (1, 2, 3):
            line = e2e.expect_error(np_, ["info", "--graph", fifo], "--graph " + fifo + ": not a regular file (a FIFO)",
                                    directory=d, timeout=TIMEOUT)
        assert set(os.listdir(d)) == before, line
        each(["info", "--graph", "/dev/zero"], "--graph /dev/zero: not a regular file (a character device)",
             directory=d)
        if os.path.exists("/proc/cpuinfo"):
            each(["info", "--graph", "/proc/cpuinfo"], "--graph /proc/cpuinfo: the file reports size 0",
                 directory=d)


def fletcher32_qkv(path, n=16):
    with h5py.File(path, "w") as f:
        for name in ("q", "k", "v"):
            f.create_dataset(name, data=np.full((n, 2), 0.5), chunks=(n, 2), fletcher32=True)
        offset = f["q"].id.get_chunk_info(0).byte_offset
    return offset


def test_hdf5_checksum_and_corrupt_header_name_the_file():
    with e2e.TempDir() as d:
        bad_sum = os.path.join(d, "sum.h5")
        offset = fletcher32_qkv(bad_sum)
        with open(bad_sum, "r+b") as f:  # one data byte of /q changed: its Fletcher32 checksum fails on read
            f.seek(offset + 3)
            byte = f.read(1)
            f.seek(offset + 3)
            f.write(bytes([byte[0] ^ 0xFF]))
        each(["attention", "--graph", "grid:4x4", "--qkv", bad_sum, "--out", "{out}"], bad_sum + ": ", "/q",
             "corrupt", directory=d)

        bad_header = os.path.join(d, "header.h5")
        with h5py.File(bad_header, "w", libver="latest") as f:
            for name in ("q", "k", "v"):
                f[name] = np.full((16, 2), 0.5)
            header = h5py.h5o.get_info(f["q"].id).addr
        data = bytearray(open(bad_header, "rb").read())
        # Object headers of the latest format start with "OHDR" and end with a checksum: one byte of /q's
        # header changed makes it unreadable.
        assert data[header:header + 4] == b"OHDR"
        data[header + 6] ^= 0xFF
        open(bad_header, "wb").write(bytes(data))
        each(["attention", "--graph", "grid:4x4", "--qkv", bad_header, "--out", "{out}"],
             bad_header + ": cannot open dataset /q", "corrupt or not readable", directory=d)


def test_ini_value_checked_later_names_its_line():
    with e2e.TempDir() as d:
        ini = e2e.write(d, "run.ini", "# a run\ngraph = grid:4x4\nbeta = nan\n")
        each(["grf", "--config", ini, "--out", "{out}"], ini + ":3: --beta", "nan", directory=d)
        # Given on the command line too, the command line's value is the one checked: no INI line named.
        line = e2e.expect_error(1, ["grf", "--config", ini, "--beta=-1", "--out", "{out}"], "--beta: ",
                                directory=d, timeout=TIMEOUT)
        assert "run.ini" not in line, line


def test_normalizer_eps_and_alpha_checked():
    with e2e.TempDir() as d:
        for bad in ("nan", "-1", "inf"):
            each(["attention", "--graph", "grid:4x4", "--synthetic", "2,2", "--normalizer-eps", bad, "--out", "{out}"],
                 "--normalizer-eps: must be a finite number >= 0", directory=d)
        each(["grf", "--graph", "grid:4x4", "--alpha", "1e200,1e200", "--out", "{out}"], "--alpha: alpha_0 = ",
             "too large", directory=d)
        each(["grf", "--graph", "grid:4x4", "--f", "1,1e60", "--out", "{out}"], "--f: f_1 = ", "too large",
             directory=d)


if __name__ == "__main__":
    e2e.main(globals())
