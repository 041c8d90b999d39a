"""End-to-end: `graphrf gp` under mpirun, its HDF5 output read with h5py.

  * outputs are one row per node in canonical order (ascending original id) on a grid whose ids are shuffled and
    sparse; /gp/y and /gp/split agree with the observation and test files; the posterior mean and samples are
    bitwise the same at 1 rank (block partition) and 2 ranks (METIS); the learning trace has one entry per
    iteration; --reference writes the exact-kernel figures;
  * observations from HDF5 (/obs/id, /obs/y, in another order) give bitwise the outputs of the CSV file;
  * bad observations (an id that is not a node, a repeated id, a non-finite y, a test id without observation)
    end the run with one error line naming the file and line, and no output.
"""

import os

import h5py
import numpy as np

import graphrf_e2e as e2e


def setup(d):
    text, ids, _ = e2e.grid_edge_list(6, 7, seed=3)
    graph = e2e.write(d, "grid.edges", text)
    rng = np.random.default_rng(5)
    observed = np.sort(rng.choice(ids, size=30, replace=False))
    y = np.sin(observed / 50.0)
    obs = e2e.write(d, "obs.csv", "node,y\n" + "".join("%d,%r\n" % (i, float(v)) for i, v in zip(observed, y)))
    tests = e2e.write(d, "test.txt", "".join("%d\n" % i for i in observed[::5]))
    return graph, obs, tests, ids, observed, y


def read(path):
    with h5py.File(path, "r") as f:
        return {name: f["gp/" + name][()] for name in ("node_id", "mean", "variance", "samples", "split", "y")}, \
               dict(f["gp/theta"].attrs), dict(f["gp/metrics"].attrs), \
               {k: f["gp/theta/trace/" + k][()] for k in f["gp/theta/trace"]} if "gp/theta/trace" in f else {}, \
               dict(f["gp/reference"].attrs) if "gp/reference" in f else {}


def test_outputs_in_canonical_order_and_rank_invariant():
    with e2e.TempDir() as d:
        graph, obs, tests, ids, observed, y = setup(d)
        common = ["gp", "--graph", graph, "--observations", obs, "--test", tests, "--walkers", "8", "--samples", "6",
                  "--sigma-f", "1.2", "--beta", "1.5", "--sigma-n", "0.2", "--learn", "none", "--quiet"]
        one = os.path.join(d, "one.h5")
        two = os.path.join(d, "two.h5")
        e2e.run(1, common + ["--out", one])
        e2e.run(2, common + ["--partition", "metis", "--out", two])
        a, theta, metrics, _, _ = read(one)
        b, _, _, _, _ = read(two)
        assert np.array_equal(a["node_id"], ids), "rows are not in ascending id order"
        expected_split = np.full(len(ids), 2)
        expected_split[np.isin(ids, observed)] = 0
        expected_split[np.isin(ids, observed[::5])] = 1
        assert np.array_equal(a["split"], expected_split)
        y_file = np.full(len(ids), np.nan)
        y_file[np.isin(ids, observed)] = y
        assert np.array_equal(np.isnan(a["y"]), np.isnan(y_file)) and np.allclose(a["y"][~np.isnan(y_file)], y)
        assert a["samples"].shape == (len(ids), 6)
        assert np.all(a["variance"] >= 0)
        for key in ("mean", "samples", "variance", "split"):
            assert np.array_equal(a[key], b[key]), key + " differs between 1 and 2 ranks"
        assert abs(theta["sigma_f"] - 1.2) < 1e-12 and abs(theta["beta"] - 1.5) < 1e-12 and abs(theta["sigma_n"] - 0.2) < 1e-12
        assert metrics["n_test"] == 6 and 0 <= metrics["coverage"] <= 1 and metrics["rmse"] > 0


def test_learning_trace_and_reference():
    with e2e.TempDir() as d:
        graph, obs, tests, _, _, _ = setup(d)
        out = os.path.join(d, "learn.h5")
        r = e2e.run(2, ["gp", "--graph", graph, "--observations", obs, "--test", tests, "--iterations", "4",
                        "--reference", "--exact-variance", "--samples", "4", "--out", out])
        assert len(r.lines_starting("learn")) >= 4, r.describe()
        # Under mpirun the rank's output is a pseudo-terminal even into a pipe or log: plain lines, no \r.
        assert "\r" not in r.stdout, "progress lines rewritten in place in a log: %r" % r.stdout[:400]
        _, theta, _, trace, reference = read(out)
        assert all(len(v) == 4 for v in trace.values()), trace
        assert trace["parameters"].shape == (4, 3)
        assert reference["kl"] >= 0 and reference["learned_sigma_f"] > 0
        result = r.result()
        assert abs(float(result["sigma_f"]) - theta["sigma_f"]) < 1e-5


def write_h5_observations(path, ids, y):
    with h5py.File(path, "w") as f:
        f["obs/id"] = np.asarray(ids, dtype=np.int64)
        f["obs/y"] = np.asarray(y, dtype=float)
    return path


def test_hdf5_observations_equal_csv():
    """/obs/id, /obs/y in HDF5 (in another order than the CSV) give bitwise the same outputs as the CSV file;
    a bad HDF5 file names the file and the entry."""
    with e2e.TempDir() as d:
        graph, obs, tests, ids, observed, y = setup(d)
        order = np.random.default_rng(9).permutation(len(observed))
        h5obs = write_h5_observations(os.path.join(d, "obs.h5"), observed[order], y[order])
        common = ["gp", "--graph", graph, "--test", tests, "--walkers", "8", "--samples", "4", "--iterations", "3",
                  "--quiet"]
        csv_out, h5_out = os.path.join(d, "csv.h5"), os.path.join(d, "h5.h5")
        e2e.run(2, common + ["--observations", obs, "--out", csv_out])
        e2e.run(3, common + ["--observations", h5obs, "--partition", "metis", "--out", h5_out])
        a, theta_a, metrics_a, _, _ = read(csv_out)
        b, theta_b, metrics_b, _, _ = read(h5_out)
        for key in ("mean", "variance", "samples", "split", "y"):
            assert np.array_equal(a[key], b[key], equal_nan=True), key + " differs between CSV and HDF5 observations"
        assert theta_a == theta_b and metrics_a == metrics_b
        base = ["gp", "--graph", graph, "--out", "{out}", "--observations"]
        nan = write_h5_observations(os.path.join(d, "nan.h5"), observed[:3], [0.5, float("nan"), 1.0])
        e2e.expect_error(2, base + [nan], nan + " /obs/y[1]", "not finite", directory=d)
        twice = write_h5_observations(os.path.join(d, "twice.h5"), [observed[0], observed[1], observed[0]], [1, 2, 3])
        e2e.expect_error(2, base + [twice], twice + " /obs/id[2]", "listed twice", directory=d)
        short = os.path.join(d, "short.h5")
        with h5py.File(short, "w") as f:
            f["obs/id"] = np.asarray(observed[:3], dtype=np.int64)
            f["obs/y"] = np.zeros(2)
        e2e.expect_error(2, base + [short], short + ": /obs/id has 3 entries but /obs/y has 2", directory=d)
        for path in (nan, twice, short):
            os.remove(path)


def test_bad_observations():
    with e2e.TempDir() as d:
        graph, obs, tests, ids, observed, _ = setup(d)
        base = ["gp", "--graph", graph, "--out", "{out}"]
        not_a_node = e2e.write(d, "x1.csv", "node,y\n%d,1\n5,2\n" % ids[0])
        e2e.expect_error(2, base + ["--observations", not_a_node], not_a_node + " line 3", "node 5 is not a node",
                         directory=d)
        twice = e2e.write(d, "x2.csv", "node,y\n%d,1\n%d,2\n%d,3\n" % (ids[0], ids[1], ids[0]))
        e2e.expect_error(2, base + ["--observations", twice], twice + " line 4", "listed twice", directory=d)
        inf = e2e.write(d, "x3.csv", "node,y\n%d,inf\n" % ids[0])
        e2e.expect_error(3, base + ["--observations", inf], inf + " line 2", "not a finite number", directory=d)
        unobserved = [i for i in ids if i not in set(observed)][0]
        bad_test = e2e.write(d, "x4.txt", "%d\n" % unobserved)
        e2e.expect_error(2, base + ["--observations", obs, "--test", bad_test], bad_test + " line 1",
                         "has no observation", directory=d)
        e2e.expect_error(2, base, "--observations", directory=d)
        # Hyperparameters are checked on every rank before any work (once ended in "error (rank 0)" and MPI_Abort).
        for flag, value in (("--sigma-f", "-1"), ("--sigma-n", "0"), ("--sigma-f", "nan")):
            e2e.expect_error(3, base + ["--observations", obs, flag, value], flag + ": must be finite and > 0",
                             directory=d)
        os.remove(not_a_node), os.remove(twice), os.remove(inf), os.remove(bad_test)


if __name__ == "__main__":
    e2e.main(globals())
