"""Every option of `wavelet` and `gp` acts or is refused (option_coverage.py): read from each
command's --help, each set to a non-default value in a tiny single-rank run, which must change the RESULT
line, the log or the output, or stop with one error line naming it."""

import numpy as np

import option_coverage as oc
from option_coverage import changes, fails, DROP

import graphrf_e2e as e2e

IDS = [0, 1, 2, 3, 4, 10]  # the nodes of option_coverage.GRAPH_TEXT


def test_wavelet():
    with e2e.TempDir() as d:
        inputs = oc.Inputs(d)
        table = dict(oc.graph_entries(inputs), **oc.run_entries(inputs))
        table.update(oc.kernel_entries())
        table.update(oc.reference_entries())
        # h must be > 0 on the spectrum: the p-step kernel with a shift above 2.
        table["shift"] = changes(base={"kernel": "p-step", "shift": 3}, shift=4)
        table.update({
            "embedding-dim": changes(embedding_dim=3),
            "laplacian": changes(laplacian="combinatorial"),
            "rank": fails(rank=2),
            "oversample": changes(oversample=3),
            "degree-chi": changes(degree_chi=10),
            "subspace-iterations": changes(subspace_iterations=1),
            "degree-h": changes(degree_h=8),
            "eigencount-order": changes(eigencount_order=10),
            "dichotomy-eps": changes(dichotomy_eps=0.2),
            "count-tolerance": changes(count_tolerance=0),
            "probes": changes(probes=3),
            "seed": changes(seed=2),
            "out": changes(out=DROP),
        })
        # K + r < N on the 6-node graph: K = 2, r = 2.
        oc.check_command("wavelet", table, {"graph": inputs.graph, "embedding-dim": 2, "oversample": 2, "out": "x"}, d)


def test_gp():
    with e2e.TempDir() as d:
        inputs = oc.Inputs(d)
        rng = np.random.default_rng(3)
        obs = e2e.write(d, "obs.csv", "node,y\n" + "".join("%d,%r\n" % (i, float(v)) for i, v in zip(IDS, rng.random(6))))
        other = e2e.write(d, "obs2.csv", "node,y\n" + "".join("%d,%r\n" % (i, float(v)) for i, v in zip(IDS, rng.random(6))))
        tests = e2e.write(d, "test.txt", "1\n10\n")
        synthetic = {"observations": DROP, "synthetic": 0.9}
        table = dict(oc.graph_entries(inputs), **oc.run_entries(inputs))
        table.update(oc.kernel_entries())
        table.update(oc.walk_entries(inputs))
        table.update({
            "observations": changes(observations=other),
            "synthetic": changes(observations=DROP, synthetic=0.9),
            "synthetic-theta": changes(base=synthetic, synthetic_theta="2,2,0.5"),
            "test": changes(test=tests),
            "test-fraction": changes(test_fraction=0.5),
            "split-seed": changes(split_seed=4),
            "sigma-f": changes(sigma_f=2),
            "sigma-n": changes(sigma_n=0.3),
            "no-normalize-y": changes(no_normalize_y=None),
            "learn": changes(learn="f"),
            "iterations": changes(iterations=1),
            "learning-rate": changes(learning_rate=0.2),
            "probes": changes(probes=0),
            "cg-tolerance": changes(cg_tolerance=0.5),
            "cg-max-iterations": changes(cg_max_iterations=1),
            "samples": changes(samples=3),
            "exact-variance": changes(exact_variance=None),
            "reference": changes(reference=None),
            "out": changes(out=DROP),
        })
        # Points and other graphs have other nodes: the observations of the synthetic sample follow them.
        for name in ("points", "graph", "ids"):
            table[name].base = synthetic
        oc.check_command("gp", table, {"graph": inputs.graph, "observations": obs, "test-fraction": 0.3,
                                       "walkers": 4, "iterations": 2, "samples": 4, "out": "x"}, d)


if __name__ == "__main__":
    e2e.main(globals())
