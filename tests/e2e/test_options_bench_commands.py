"""Every option of the bench-* commands acts or is refused (option_coverage.py): read from each command's
--help, each set to a non-default value in a tiny single-rank run, which must change the RESULT lines or the
log, or stop with one error line naming it."""

import option_coverage as oc
from option_coverage import changes, either, fails, noop, DROP  # noqa: F401

import graphrf_e2e as e2e


def test_bench_walks():
    with e2e.TempDir() as d:
        inputs = oc.Inputs(d)
        table = oc.run_entries(inputs, only_result_lines=True)
        table.update({
            "graphs": changes(graphs="grid:5x4"),
            "walkers-list": changes(walkers_list="3"),
            "p-halt-list": changes(p_halt_list="0.3"),
            "partition": changes(partition="metis"),
            "host-size": noop("one rank is one host whatever K (test_host_size.py runs it at np 2 and 3)", host_size=2),
            "replicate-graph": noop("one rank holds the whole graph already (test_replicate_graph.py runs it at np 2-4)",
                                    replicate_graph=None),
            "max-length": changes(max_length=2),
            "seed": changes(seed=2),
            "couplings": changes(couplings="antithetic"),
            "sigma-permutation": changes(base={"couplings": "sigma"}, sigma_permutation="5 4 3 2 1"),
            "walk-repeats": changes(walk_repeats=2),
            "grf-repeats": changes(grf_repeats=2),
            "no-baselines": changes(no_baselines=None),
            "by-length": changes(by_length=None),
        })
        oc.check_command("bench-walks", table, {"graphs": "grid:4x4", "walkers-list": "2", "p-halt-list": "0.5",
                                                "partition": "block"}, d)


def test_bench_couplings():
    with e2e.TempDir() as d:
        inputs = oc.Inputs(d)
        sigma = {"couplings": "sigma", "sigma": inputs.sigma, "pagerank_sigma": inputs.sigma}
        table = oc.run_entries(inputs)
        table.update({
            "graphs": changes(graphs="random:30:4:2"),
            "targets": changes(targets="kernel"),
            "couplings": changes(couplings="antithetic"),
            "walkers-list": changes(walkers_list="4"),
            "seeds": changes(seeds=3),
            "beta": changes(beta=2),
            "p-halt": changes(p_halt=0.3),
            "pagerank-p-halt": changes(pagerank_p_halt=0.3),
            "max-length": changes(max_length=3),
            "sigma": changes(base=sigma, sigma=inputs.other_sigma),
            "pagerank-sigma": changes(base=sigma, pagerank_sigma=inputs.other_sigma),
            "host-size": noop("one rank is one host whatever K (test_host_size.py runs it at np 2 and 3)", host_size=2),
        })
        oc.check_command("bench-couplings", table, {"graphs": "random:30:4:1", "seeds": 2, "walkers-list": "2",
                                                    "couplings": "iid"}, d)


def test_bench_attention():
    with e2e.TempDir() as d:
        inputs = oc.Inputs(d)
        table = oc.run_entries(inputs, only_result_lines=True)
        table.update({
            "sizes": changes(sizes="25"),
            "walkers-list": changes(walkers_list="3"),
            "p-halt": changes(p_halt=0.3),
            "dim": changes(dim=4),
            "dense-max": changes(dense_max=4),
            "partition": changes(partition="metis"),
            "host-size": noop("one rank is one host whatever K (test_host_size.py runs it at np 2 and 3)", host_size=2),
            "seed": changes(seed=2),
        })
        oc.check_command("bench-attention", table, {"sizes": "16", "walkers-list": "2", "dense-max": 16,
                                                    "partition": "block"}, d)


def test_bench_points():
    with e2e.TempDir() as d:
        inputs = oc.Inputs(d)
        table = oc.run_entries(inputs)
        table.update({
            "points-per-frame": changes(points_per_frame=48),
            "frames": changes(frames=3),
            "bodies": changes(bodies=3, logs="3 rigid bodies"),
            "knn": changes(knn=4, logs="k = 4"),
            "walkers": changes(walkers=8, logs="n = 8"),
            "hops": changes(hops=2, logs="T = 2"),
            "coupling": changes(coupling="iid"),
            "d": changes(d=8, logs="d = 8"),
            "frames-batch": changes(frames_batch=3, logs="batches of 3"),
            "frames-dtype": changes(frames_dtype="float32"),
            "single-graph-frames": changes(single_graph_frames=2, logs="2 frames through"),
            "seed": changes(seed=2),
            "scenes-out": changes(scenes_out=d + "/scenes.h5"),
            "workdir": changes(workdir=DROP),
        })
        oc.check_command("bench-points", table, {"points-per-frame": 64, "frames": 2, "bodies": 2,
                                                 "single-graph-frames": 1, "workdir": d}, d)


def test_bench_output():
    with e2e.TempDir() as d:
        inputs = oc.Inputs(d)
        table = dict(oc.graph_entries(inputs), **oc.run_entries(inputs))
        table.update(oc.kernel_entries())
        table.update(oc.walk_entries(inputs))
        table["beta"] = changes(beta=2, logs="beta=2")
        table["scale"] = changes(base={"weights": "raw", "scale": 0.5}, scale=0.25, logs="x 0.25")
        table.update({
            "repeats": changes(repeats=2, logs="best of 2"),
            "max-runs": changes(max_runs=0),
            "workdir": fails(workdir=d + "/missing", needle="missing"),
        })
        oc.check_command("bench-output", table, {"graph": inputs.graph, "walkers": 4, "repeats": 1, "workdir": d}, d)


def test_bench_wavelet():
    with e2e.TempDir() as d:
        inputs = oc.Inputs(d)
        table = oc.run_entries(inputs, only_result_lines=True)
        table.update({
            "sizes": changes(sizes="81"),
            "graphs": changes(graphs="random:64:6:1"),
            "rank": changes(rank=5),
            "oversample": changes(oversample=4),
            "degree-chi": changes(degree_chi=20),
            "subspace-iterations": changes(subspace_iterations=1),
            "degree-h": changes(degree_h=4),
            "dense-max": changes(dense_max=4),
            "slepc-max": changes(slepc_max=64),
            "slepc-tol": either(base={"slepc_max": 64}, slepc_tol=1e-3),
            "error-steps": changes(error_steps=3),
            "partition": changes(partition="metis"),
            "host-size": noop("one rank is one host whatever K (test_host_size.py runs it at np 2 and 3)", host_size=2),
            "seed": changes(seed=2),
        })
        oc.check_command("bench-wavelet", table, {"sizes": "64", "rank": 4, "dense-max": 64, "slepc-max": 0,
                                                  "error-steps": 2, "partition": "block"}, d)


def test_bench_features():
    with e2e.TempDir() as d:
        inputs = oc.Inputs(d)
        table = oc.run_entries(inputs)
        table.update({
            "tokens": changes(tokens=6),
            "dim": changes(dim=3),
            "num-features-list": changes(num_features_list="4"),
            "methods": changes(methods="orthogonal"),
            "seeds": changes(seeds=3),
            "spread": changes(spread=10),
            "top-eigenvalue": changes(top_eigenvalue=0.2),
            "mask-length": changes(mask_length=2),
            "seed": changes(seed=2),
        })
        oc.check_command("bench-features", table, {"tokens": 4, "dim": 2, "num-features-list": "2", "methods": "iid",
                                                   "seeds": 2}, d)


if __name__ == "__main__":
    e2e.main(globals())
