"""End-to-end: what a new user meets first (issue: README examples that never finish, silent phases,
misleading figures, options that surprise).

  * --reference above --dense-reference-max is sampled: the estimate and its standard error are printed and
    written, and the dense error of the same run lies within 5 standard errors (normal approximation of the
    ratio estimator: failure probability about 6e-7; the runs are seeded, so the outcome is fixed);
    raw weights above the dense limit are refused with one line.
  * every phase reports: the wavelet stages and lambda_K steps, the reference plan with its cost, a
    `time [s]` line whose phases add up to the whole run, and a run summary whose bytes sent are not zero
    for `info` and `wavelet` at 2 ranks (ghost exchanges and filters count).
  * the sparsity bound is capped at N; truncated walks come with a bias bound.
  * options: no abbreviations; --alpha with --beta and --head-betas with --alpha refused; INI [section]
    headers refused with file and line; relative INI paths resolve against the INI's folder; --version on
    both programs; graphrf-partition honours --partition ptscotch; --qkv is checked before the graph loads.
"""

import os
import re

import h5py

import graphrf_e2e as e2e

TIMEOUT = 30


def expect_error(np_, args, *needles, **kw):
    return e2e.expect_error(np_, args, *needles, timeout=TIMEOUT, **kw)


def test_sampled_kernel_reference_agrees_with_the_dense_one():
    with e2e.TempDir() as d:
        # 1156 nodes: sampled below --dense-reference-max 1000, dense with the default limit (2000)
        common = ["grf", "--graph", "grid:34x34", "--walkers", 8, "--p-halt", 0.4, "--seed", 5, "--reference"]
        out = os.path.join(d, "sampled.h5")
        r = e2e.run(2, common + ["--dense-reference-max", 1000, "--reference-samples", 96, "--out", out], timeout=120)
        res = r.result()
        assert res["reference_sampled"] == "1" and int(res["reference_samples"]) == 96, r.describe()
        sampled, se = float(res["kernel_error"]), float(res["kernel_error_se"])
        assert se > 0, r.describe()
        plan = r.lines_starting("plan")
        assert plan and "sampled" in plan[0] and "Chebyshev" in plan[0], r.describe()
        assert "+-" in r.lines_starting("reference")[-1], r.describe()
        with h5py.File(out) as f:
            assert "exact" not in f["kernel"]
            assert abs(f["kernel"].attrs["relative_frobenius_error"] - sampled) <= 1e-7 * sampled
            assert f["kernel"].attrs["reference_samples"] == 96
        dense = e2e.run(2, common, timeout=300).result()
        assert dense["reference_sampled"] == "0", dense
        exact = float(dense["kernel_error"])
        assert abs(sampled - exact) <= 5 * se, (sampled, se, exact)
        print("      sampled %.5f +- %.5f, dense %.5f" % (sampled, se, exact), flush=True)
        expect_error(2, common + ["--dense-reference-max", 1000, "--weights", "raw", "--scale", 0.1, "--out", "{out}"],
                     "--reference", "--dense-reference-max 1000", "--weights normalized", directory=d)
        expect_error(2, ["grf", "--dense-reference-max", 6000, "--reference", "--out", "{out}"],
                     "--dense-reference-max", "0 .. 5000", directory=d)


def test_sampled_attention_and_wavelet_references():
    r = e2e.run(2, ["attention", "--graph", "grid:30x30", "--dense-reference-max", 500, "--heads", 2, "--head-betas", "1,1", "--reference",
                    "--walkers", 4, "--reference-samples", 16], timeout=120)
    lines = r.lines_starting("reference")
    assert len(lines) == 2 and all("+-" in l and "sampled" in l for l in lines), r.describe()
    assert "head1_error_vs_masked_linear_se" in r.result(), r.describe()
    w = e2e.run(2, ["wavelet", "--graph", "grid:30x30", "--dense-reference-max", 500, "--embedding-dim", 8, "--reference",
                    "--reference-samples", 16], timeout=120)
    res = w.result()
    assert float(res["frobenius_error_se"]) > 0 and 0 < float(res["frobenius_error"]) < 1, w.describe()
    assert "K + r" in w.lines_starting("reference")[0], w.describe()


def test_phases_report_and_add_up():
    r = e2e.run(2, ["wavelet", "--graph", "grid:20x20", "--embedding-dim", 6])
    assert r.lines_starting("lambda_K") and r.lines_starting("filter") and r.lines_starting("loading"), r.describe()
    def check_time_line(run, expected_phases):
        time_line = run.lines_starting("time [s]")
        assert len(time_line) == 1, run.describe()
        pairs = [(name.strip(), float(v)) for name, v in re.findall(r"(\D+?)\s([0-9]+\.[0-9]+)", time_line[0])]
        total = dict(pairs)["total"]
        parts = sum(v for name, v in pairs if name != "total")
        assert expected_phases <= {name for name, _ in pairs}, time_line
        assert abs(parts - total) <= 0.05, time_line  # each figure is rounded to 0.01 s

    check_time_line(r, {"load", "embedding", "other"})
    with e2e.TempDir() as d:
        info = e2e.run(2, ["info", "--graph", "grid:20x20", "--out", os.path.join(d, "g.h5")])
        check_time_line(info, {"read", "assemble", "partition", "distribute", "statistics", "write", "other"})
    for command in (["wavelet", "--graph", "grid:20x20", "--embedding-dim", 6], ["info", "--graph", "grid:20x20"]):
        summary = e2e.run(2, command).stdout
        sent = float(re.search(r"RESULT summary=run .*sent_mb_total=([0-9.]+)", summary).group(1))
        assert sent > 0, (command, summary)
    g = e2e.run(2, ["grf", "--graph", "grid:4x4", "--walkers", 64, "--p-halt", 0.05, "--max-length", 3])
    nnz = g.lines_starting("grf")[0]
    assert "min(N, 1 + n*b) = 16.0" in nnz, nnz
    assert "bias of at most" in g.stderr or g.lines_starting("truncation"), g.describe()


def test_options_that_surprised():
    with e2e.TempDir() as d:
        expect_error(2, ["grf", "--walk", 4, "--out", "{out}"], "--walk", directory=d)
        expect_error(2, ["grf", "--alpha", "1,0.5", "--beta", 2, "--out", "{out}"], "--alpha and --beta", directory=d)
        expect_error(2, ["attention", "--alpha", "1,0.5", "--head-betas", "1,2", "--out", "{out}"],
                     "--head-betas and --alpha", directory=d)
        ini = e2e.write(d, "sections.ini", "walkers = 4\n[walks]\np-halt = 0.3\n")
        expect_error(2, ["grf", "--config", ini, "--out", "{out}"], ini + ":2:", "INI sections are not supported", directory=d)
        os.remove(ini)
        missing_graph, missing_qkv = os.path.join(d, "no-graph.txt"), os.path.join(d, "no-qkv.h5")
        expect_error(2, ["attention", "--graph", missing_graph, "--qkv", missing_qkv, "--out", "{out}"],
                     "--qkv", missing_qkv, "cannot open", directory=d)
    with e2e.TempDir() as d:
        sub = os.path.join(d, "conf")
        os.mkdir(sub)
        with open(os.path.join(e2e.DATA_DIR, "karate.edges")) as src:
            e2e.write(sub, "karate.edges", src.read())
        ini = e2e.write(sub, "run.ini", "graph = karate.edges\nout = karate.h5\nwalkers = 4\n")
        r = e2e.run(2, ["grf", "--config", ini], cwd=d)  # run from the parent folder
        assert int(r.result()["nodes"]) == 34 and os.path.exists(os.path.join(sub, "karate.h5")), r.describe()
    for program, name in ((None, "graphrf"), (e2e.GRAPHRF_PARTITION, "graphrf-partition")):
        out = e2e.run(None, ["--version"] if program else ["grf", "--version"], program=program).stdout
        assert out.startswith(name + " "), out
    p = e2e.partition_tool(2, ["--graph", "grid:10x10", "--partition", "ptscotch"])
    assert "ptscotch into 2 parts" in p.stdout, p.stdout


def test_wavelet_on_the_combinatorial_laplacian():
    """--laplacian combinatorial: the dense reference's Frobenius error equals the one computed here from
    /embedding and numpy's exp(-beta (D - A)) of the karate graph."""
    import numpy as np
    with e2e.TempDir() as d:
        graph = os.path.join(e2e.DATA_DIR, "karate.edges")
        out = os.path.join(d, "comb.h5")
        e2e.run(2, ["wavelet", "--graph", graph, "--laplacian", "combinatorial", "--beta", 0.3, "--embedding-dim", 4,
                    "--oversample", 3, "--reference", "--out", out])
        ref = e2e.read_graph(graph)
        with h5py.File(out) as f:
            ids, phi = f["nodes/id"][:], f["embedding"][:]
            attr = f["embedding"].attrs["relative_frobenius_error"]
            assert f["spectrum"].attrs["laplacian"] in (b"combinatorial", "combinatorial")
        a = ref.matrix(False).toarray()  # rows in ascending id order (the independent reader's)
        assert np.array_equal(np.sort(ids), np.asarray(ref.ids))
        phi = phi[np.argsort(ids)]
        lap = np.diag(a.sum(axis=1)) - a
        vals, vecs = np.linalg.eigh(lap)
        exact = vecs @ np.diag(np.exp(-0.3 * vals)) @ vecs.T
        mine = np.linalg.norm(phi @ phi.T - exact) / np.linalg.norm(exact)
        assert abs(attr - mine) <= 1e-8 * max(mine, 1e-12), (attr, mine)
        print("      combinatorial Laplacian: Frobenius error %.4g" % mine, flush=True)


if __name__ == "__main__":
    e2e.main(globals())
