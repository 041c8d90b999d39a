"""End-to-end: what a run says about itself agrees with what it did.

* A GML file without `weight`/`value` keys is not reported as weighted (and one with them is).
* `gp`, `pagerank` and `couple` end with the `time [s]` line every command prints, phases adding up to the run.
* `gp --reference` says before it starts what the exact-kernel GP on rank 0 will do (it was silent).
* `grf --reference` prints the dense reference's memory on rank 0 before walking and counts it in the memory
  check: a --memory-limit the walks fit in but walks plus reference do not is refused up front.
* `wavelet`'s RESULT key follows its option: `embedding_dim=`, not `rank=`.
* `pagerank --reference`, `couple` and `gp` state each figure of their report once: the log's `result` lines show
  the RESULT line's values (L1 error, sigma, costs, test metrics), and no narrative line restates them.
"""

import os
import re

import numpy as np

import graphrf_e2e as e2e


def gml(edges, weighted):
    lines = ["graph ["]
    for node in sorted({u for e in edges for u in e}):
        lines.append("  node [ id %d ]" % node)
    for u, v in edges:
        lines.append("  edge [ source %d target %d%s ]" % (u, v, " value 2.5" if weighted else ""))
    return "\n".join(lines + ["]"]) + "\n"


def test_gml_weights_reported_as_read():
    edges = [(1, 2), (2, 3), (3, 1), (3, 4)]
    with e2e.TempDir() as d:
        for weighted in (False, True):
            path = e2e.write(d, "g.gml", gml(edges, weighted))
            for np_ in (1, 2):
                line = e2e.run(np_, ["info", "--graph", path]).lines_starting("nodes")[0]
                assert line.startswith("4   edges 4"), line
                assert ("(weighted)" in line) == weighted, (weighted, line)


def time_line(run):
    lines = run.lines_starting("time [s]")
    assert len(lines) == 1, run.describe()
    total = float(re.search(r"total ([0-9.]+)", lines[0]).group(1))
    parts = [float(x) for x in re.findall(r"[a-z]+ ([0-9.]+)", lines[0].replace("total", "TOTAL"))]
    assert abs(sum(parts) - total) <= 0.02 + 0.01 * total, lines[0]  # phases and other add up to the total
    return lines[0]


def gp_inputs(d):
    text, ids, _ = e2e.grid_edge_list(6, 7, seed=3)
    graph = e2e.write(d, "grid.edges", text)
    observed = ids[::2]
    obs = e2e.write(d, "obs.csv", "node,y\n" + "".join("%d,%r\n" % (i, float(np.sin(i / 50.0))) for i in observed))
    return graph, obs


def test_gp_pagerank_couple_print_time():
    with e2e.TempDir() as d:
        graph, obs = gp_inputs(d)
        runs = {
            "gp": ["gp", "--graph", graph, "--observations", obs, "--walkers", 8, "--iterations", 2, "--samples", 2,
                   "--out", os.path.join(d, "gp.h5")],
            "pagerank": ["pagerank", "--graph", graph, "--walkers", 16, "--reference", "--out", os.path.join(d, "pr.h5")],
            "couple": ["couple", "--graph", "random:60:6:2", "--p-halt", 0.5, "--sigma-order", 4, "--samples", 8,
                       "--start-nodes", 10, "--out", os.path.join(d, "sigma.txt")],
        }
        for name, args in runs.items():
            for np_ in (1, 3):
                line = time_line(e2e.run(np_, args))
                assert "load" in line and "write" in line, (name, line)


def test_gp_reference_says_what_it_does_first():
    with e2e.TempDir() as d:
        graph, obs = gp_inputs(d)
        r = e2e.run(2, ["gp", "--graph", graph, "--observations", obs, "--walkers", 8, "--iterations", 3,
                        "--samples", 2, "--reference"])
        lines = r.stdout.splitlines()
        start = [k for k, l in enumerate(lines) if l.startswith("reference   exact-kernel GP on rank 0: the dense 42 x 42")]
        figures = [k for k, l in enumerate(lines) if l.startswith("reference   exact kernel, same theta")]
        assert start and figures and start[0] < figures[0], r.stdout
        train = r.result()["train"]
        assert "3 Adam steps, each a Cholesky of the %s training rows" % train in lines[start[0]], lines[start[0]]
        assert "reference" in time_line(r)


def test_grf_reference_memory_counted_up_front():
    with e2e.TempDir() as d:
        args = ["grf", "--graph", "grid:40x40", "--walkers", 2, "--p-halt", 0.5, "--reference"]
        r = e2e.run(2, args)
        line = [l for l in r.lines_starting("memory") if l.startswith("dense reference")]
        # 5 matrices of 1600 x 1600 doubles: 97.7 MiB on rank 0, said before the walks start.
        assert line == ["dense reference on rank 0: 97.7 MiB more (5 matrices of 1600 x 1600 doubles)"], r.stdout
        assert r.stdout.index("dense reference on rank 0") < r.stdout.index("walks "), r.stdout
        # The walks alone fit in 64 MiB a rank; with the reference they do not: refused before walking.
        e2e.run(2, ["grf", "--graph", "grid:40x40", "--walkers", 2, "--p-halt", 0.5, "--memory-limit", "64M"])
        e2e.expect_error(2, args + ["--memory-limit", "64M", "--out", "{out}"],
                         "and the dense reference on rank 0", "--memory-limit", directory=d)


def test_wavelet_result_key_follows_the_option():
    r = e2e.run(2, ["wavelet", "--graph", "grid:8x8", "--embedding-dim", 4])
    res = r.result()
    assert res["embedding_dim"] == "4" and "rank" not in res, res


def test_figures_are_logged_from_the_report():
    r = e2e.run(3, ["pagerank", "--graph", "random:200:6", "--walkers", 8, "--reference"])
    res, logged = r.result(), dict(line.split(" = ") for line in r.lines_starting("result"))
    assert logged == {"L1 error": res["l1_error"], "max relative error": res["max_relative_error"],
                      "top-100 overlap": res["top_overlap"]}, r.stdout
    assert not r.lines_starting("error"), r.stdout
    r = e2e.run(2, ["couple", "--graph", "grid:6x6", "--samples", 16])
    res, logged = r.result(), dict(line.split(" = ") for line in r.lines_starting("result"))
    random = [k for k in logged if k.startswith("cost of the random permutation ")]
    assert len(random) == 1 and logged.pop(random[0]) == res["cost_random"], r.stdout
    assert logged == {"sigma": res["sigma"], "cost of sigma": res["cost_sigma"], "cost of the identity": res["cost_identity"],
                      "mean cost over all permutations": res["cost_random_mean"]}, r.stdout
    assert not r.lines_starting("sigma") and not r.lines_starting("cost"), r.stdout
    r = e2e.run(2, ["gp", "--graph", "grid:10x10", "--synthetic", 0.3, "--test-fraction", 0.2, "--iterations", 3])
    res, logged = r.result(), dict(line.split(" = ") for line in r.lines_starting("result"))
    assert logged == {"test nodes": res["test"], "test RMSE": res["rmse"], "test NLPD": res["nlpd"],
                      "test 95% coverage": res["coverage"]}, r.stdout
    assert not r.lines_starting("test "), r.stdout


if __name__ == "__main__":
    e2e.main(globals())
