"""End-to-end: `graphrf pagerank` and `graphrf couple`.

  * pagerank on a directed edge list with a dangling node and repeated arcs, at 1-3 ranks: /pagerank/exact
    equals a dense numpy solve of networkx's definition (damping 1 - p, an unweighted graph: P = D_out^-1 A on
    the arc pattern, dangling rows uniform; weights and self-loops: test_pagerank_networkx.py) to 1e-10; /nodes/id is ascending (canonical order); the estimate is bitwise the
    same at every rank count; the reported L1 error matches the datasets.
  * couple writes a permutation that `grf --coupling sigma --sigma FILE` reads; its RESULT costs satisfy
    sigma <= identity and sigma <= the mean over permutations.
  * bad input: --coupling sigma without --sigma, a --sigma file with a repeated value (file and line named),
    --directed with --partition metis, couple --target with an unknown name.
"""

import os

import h5py
import numpy as np

import graphrf_e2e as e2e

ARCS = [(10, 11), (10, 12), (11, 12), (12, 10), (12, 13), (13, 14), (14, 15), (15, 13), (15, 16), (16, 17),
        (17, 18), (17, 18), (18, 19), (16, 19), (11, 19), (13, 10), (20, 10), (20, 14)]
P_HALT = 0.15


def dense_pagerank(arcs, p):
    """pi^T = (p/N) 1^T (I - (1-p) P)^-1, P = D_out^-1 A with dangling rows 1/N; a dict id -> rank."""
    ids = sorted({u for a in arcs for u in a})
    index = {v: i for i, v in enumerate(ids)}
    n = len(ids)
    a = np.zeros((n, n))
    for u, v in arcs:
        a[index[u], index[v]] = 1.0  # a repeated arc is one arc
    out = a.sum(axis=1)
    P = np.where(out[:, None] > 0, a / np.maximum(out, 1)[:, None], 1.0 / n)
    pi = np.linalg.solve((np.eye(n) - (1 - p) * P).T, np.full(n, p / n))
    return {v: pi[index[v]] for v in ids}


def test_pagerank_matches_a_dense_solve_in_canonical_order():
    with e2e.TempDir() as d:
        graph = e2e.write(d, "arcs.txt", "".join("%d %d\n" % a for a in ARCS))
        want = dense_pagerank(ARCS, P_HALT)
        estimates = []
        for np_ in (1, 2, 3):
            out = os.path.join(d, "pr%d.h5" % np_)
            r = e2e.run(np_, ["pagerank", "--graph", graph, "--directed", "--p-halt", P_HALT, "--walkers", 64,
                              "--coupling", "antithetic+repelling", "--seed", 5, "--reference", "--out", out])
            with h5py.File(out, "r") as f:
                ids = f["nodes/id"][:]
                exact, estimate = f["pagerank/exact"][:], f["pagerank/estimate"][:]
            assert list(ids) == sorted(want), ids
            for i, node in enumerate(ids):
                assert abs(exact[i] - want[node]) < 1e-10, (node, exact[i], want[node])
            assert abs(estimate.sum() - 1) < 1e-12
            l1 = float(r.result()["l1_error"])
            assert abs(l1 - np.abs(estimate - exact).sum()) < 1e-7, (l1, np.abs(estimate - exact).sum())
            estimates.append(estimate)
        for e in estimates[1:]:
            assert np.array_equal(e, estimates[0])


def test_couple_writes_a_sigma_that_grf_reads():
    with e2e.TempDir() as d:
        sigma = os.path.join(d, "sigma.txt")
        r = e2e.run(2, ["couple", "--graph", "random:60:6:2", "--kernel", "regularized-laplacian", "--power", 2,
                        "--p-halt", 0.5, "--sigma-order", 6, "--samples", 16, "--start-nodes", 20, "--out", sigma])
        res = r.result()
        assert float(res["cost_sigma"]) <= float(res["cost_identity"]), res
        assert float(res["cost_sigma"]) <= float(res["cost_random_mean"]), res
        values = [int(v) for line in open(sigma) if not line.startswith("#") for v in line.split()]
        assert sorted(values) == list(range(1, 7)), values
        assert values == [int(v) for v in res["sigma"].split(",")]
        out = os.path.join(d, "grf.h5")
        e2e.run(2, ["grf", "--graph", "random:60:6:2", "--walkers", 4, "--coupling", "sigma+repelling",
                    "--sigma", sigma, "--out", out])
        assert os.path.exists(out)


def test_bad_coupling_input():
    with e2e.TempDir() as d:
        g = ["grf", "--graph", "grid:8x8", "--out", "{out}"]
        e2e.expect_error(2, g + ["--coupling", "sigma"], "--coupling sigma", "--sigma FILE", directory=d)
        bad = os.path.join(d, "..", os.path.basename(d) + "-bad-sigma.txt")
        with open(bad, "w") as f:
            f.write("# comment\n1 2\n3 2\n")
        try:
            e2e.expect_error(2, g + ["--coupling", "sigma", "--sigma", bad], bad + ":3", "value 2 appears twice",
                             directory=d)
        finally:
            os.remove(bad)
        e2e.expect_error(2, ["pagerank", "--graph", "grid:8x8", "--directed", "--partition", "metis", "--out", "{out}"],
                         "--partition metis", "--directed", directory=d)
        e2e.expect_error(2, ["couple", "--graph", "grid:8x8", "--target", "heat"], "--target", "'heat'", directory=d)


if __name__ == "__main__":
    e2e.main(globals())
