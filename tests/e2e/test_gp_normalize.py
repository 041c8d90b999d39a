"""End-to-end: `graphrf gp` standardises the targets by default (scikit-learn's normalize_y).

  * targets with a large offset and scale (y = 1000 + 50 f) give, in the user's units, the predictions of the
    standardised problem (z = (y - mean) / sd over the training targets, fitted with --no-normalize-y) moved back:
    mean = mean_y + sd mean_z, variance = sd^2 variance_z, samples likewise, RMSE = sd RMSE_z,
    NLPD = NLPD_z + log sd, the same coverage; to 1e-10 at 1, 2 and 3 ranks, and the same bits at every rank
    count; /gp/theta records y_mean and y_scale (numpy's mean and std of the training targets);
  * on a GP sample moved to 1000 + 50 f, the 95% coverage is sane (>= 0.7) and the RMSE below the prior sd,
    where --no-normalize-y (a zero-mean prior on values near 1000) covers almost nothing;
  * --no-normalize-y records y_mean 0 and y_scale 1.
"""

import math
import os

import h5py
import numpy as np

import graphrf_e2e as e2e

OFFSET, SCALE = 1000.0, 50.0


def read(path):
    with h5py.File(path, "r") as f:
        rows = {k: f["gp/" + k][()] for k in ("mean", "variance", "samples", "y", "split")}
        return rows, dict(f["gp/theta"].attrs), dict(f["gp/metrics"].attrs)


def write_observations(d, name, ids, y):
    return e2e.write(d, name, "node,y\n" + "".join("%d,%r\n" % (i, float(v)) for i, v in zip(ids, y)))


def test_offset_and_scale_give_the_standardised_predictions():
    with e2e.TempDir() as d:
        text, ids, _ = e2e.grid_edge_list(6, 7, seed=3)
        graph = e2e.write(d, "grid.edges", text)
        rng = np.random.default_rng(5)
        observed = np.sort(rng.choice(ids, size=30, replace=False))
        f = np.sin(observed / 50.0) + 0.3 * rng.standard_normal(len(observed))
        y = OFFSET + SCALE * f
        test_ids = observed[::5]
        train = ~np.isin(observed, test_ids)
        mean, sd = y[train].mean(), y[train].std()
        z = (y - mean) / sd
        raw = write_observations(d, "raw.csv", observed, y)
        std = write_observations(d, "std.csv", observed, z)
        tests = e2e.write(d, "test.txt", "".join("%d\n" % i for i in test_ids))
        common = ["gp", "--graph", graph, "--test", tests, "--walkers", "8", "--samples", "6", "--sigma-f", "1.2",
                  "--beta", "1.5", "--sigma-n", "0.3", "--learn", "none", "--exact-variance", "--quiet"]
        ref_out = os.path.join(d, "z.h5")
        e2e.run(1, common + ["--observations", std, "--no-normalize-y", "--out", ref_out])
        ref, ref_theta, ref_metrics = read(ref_out)
        assert ref_theta["y_mean"] == 0 and ref_theta["y_scale"] == 1 and ref_theta["normalize_y"] == 0, ref_theta
        runs = []
        for np_ in (1, 2, 3):
            out = os.path.join(d, "y%d.h5" % np_)
            e2e.run(np_, common + ["--observations", raw, "--out", out])
            got, theta, metrics = read(out)
            assert theta["normalize_y"] == 1
            assert abs(theta["y_mean"] - mean) < 1e-12 * mean and abs(theta["y_scale"] - sd) < 1e-12 * sd, (theta, mean, sd)
            for key in ("mean", "samples"):
                assert np.max(np.abs((got[key] - mean) / sd - ref[key])) < 1e-10, key
            # --exact-variance: /gp/variance is the exact variance at the test nodes, NaN elsewhere.
            assert np.array_equal(np.isnan(got["variance"]), np.isnan(ref["variance"]))
            assert np.nanmax(np.abs(got["variance"] / sd ** 2 - ref["variance"])) < 1e-10
            assert abs(metrics["rmse"] / sd - ref_metrics["rmse"]) < 1e-10, (metrics, ref_metrics)
            assert abs(metrics["nlpd"] - math.log(sd) - ref_metrics["nlpd"]) < 1e-10, (metrics, ref_metrics)
            assert metrics["coverage"] == ref_metrics["coverage"]
            observed_rows = ~np.isnan(got["y"])
            assert np.array_equal(got["y"][observed_rows], y), "/gp/y is not in the user's units"
            runs.append(got)
        for got in runs[1:]:
            for key in ("mean", "variance", "samples"):
                assert np.array_equal(got[key], runs[0][key], equal_nan=True), key + " differs between rank counts"


def test_coverage_on_an_offset_gp_sample():
    with e2e.TempDir() as d:
        graph = "grid:12x12"
        sample = os.path.join(d, "sample.h5")
        e2e.run(2, ["gp", "--graph", graph, "--synthetic", "0.9", "--synthetic-theta", "1,2,0.1", "--walkers", "16",
                    "--learn", "none", "--samples", "4", "--quiet", "--out", sample])
        with h5py.File(sample, "r") as f:
            node_ids, y = f["nodes/id" if "nodes/id" in f else "gp/node_id"][()], f["gp/y"][()]
        seen = ~np.isnan(y)
        obs = write_observations(d, "offset.csv", node_ids[seen], OFFSET + SCALE * y[seen])
        common = ["gp", "--graph", graph, "--observations", obs, "--test-fraction", "0.3", "--walkers", "16",
                  "--iterations", "30", "--samples", "32"]
        r = e2e.run(2, common)
        res = r.result()
        assert float(res["coverage"]) >= 0.7 and float(res["rmse"]) < SCALE, res
        assert r.lines_starting("targets"), r.stdout
        raw = e2e.run(2, common + ["--no-normalize-y"]).result()
        print("      normalised: rmse %s coverage %s; --no-normalize-y: rmse %s coverage %s"
              % (res["rmse"], res["coverage"], raw["rmse"], raw["coverage"]), flush=True)
        assert float(raw["coverage"]) < 0.5, raw


if __name__ == "__main__":
    e2e.main(globals())
