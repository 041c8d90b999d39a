"""Every option of `info`, `grf`, `pagerank` and `couple` acts or is refused (option_coverage.py): read from
each command's --help, each set to a non-default value in a tiny single-rank run, which must change the RESULT
line, the log or the output, or stop with one error line naming it. `info --points P --knn k` once reported
the default grid instead of the point graph."""

import option_coverage as oc
from option_coverage import changes, fails, DROP  # noqa: F401

import graphrf_e2e as e2e


def test_info():
    with e2e.TempDir() as d:
        inputs = oc.Inputs(d)
        table = dict(oc.graph_entries(inputs), **oc.run_entries(inputs))
        table["out"] = changes(out=DROP)
        table["weights"] = changes(weights="raw")
        oc.check_command("info", table, {"graph": inputs.graph, "out": "x"}, d)
        r = e2e.run(None, ["info", "--points", inputs.points, "--knn", 3])
        assert r.result()["nodes"] == "24", r.stdout  # the point graph, not the default grid


def test_grf():
    with e2e.TempDir() as d:
        inputs = oc.Inputs(d)
        table = dict(oc.graph_entries(inputs), **oc.run_entries(inputs))
        table.update(oc.kernel_entries())
        table.update(oc.walk_entries(inputs))
        table.update(oc.reference_entries())
        table["estimator"] = changes(estimator="asymmetric")
        table["out"] = changes(out=DROP)
        table["by-length"] = changes(by_length=None)
        oc.check_command("grf", table, {"graph": inputs.graph, "walkers": 4, "out": "x"}, d)


def test_pagerank():
    with e2e.TempDir() as d:
        inputs = oc.Inputs(d)
        table = dict(oc.graph_entries(inputs), **oc.run_entries(inputs))
        table.update(oc.coupling_entries(inputs))
        table["keep-self-loops"] = fails(keep_self_loops=None)
        table["directed"] = changes(directed=None)
        table["walkers"] = changes(walkers=6)
        table["p-halt"] = changes(p_halt=0.3)
        table["step"] = changes(step="uniform")
        table["drop-self-loops"] = changes(drop_self_loops=None)
        table["max-length"] = changes(max_length=2)
        table["seed"] = changes(seed=2)
        table["reference"] = changes(reference=None)
        table["out"] = changes(out=DROP)
        oc.check_command("pagerank", table, {"graph": inputs.graph, "walkers": 4, "out": "x"}, d)


def test_couple():
    with e2e.TempDir() as d:
        inputs = oc.Inputs(d)
        table = dict(oc.graph_entries(inputs), **oc.run_entries(inputs))
        table.update(oc.kernel_entries())
        table["target"] = changes(target="pagerank")
        table["directed"] = changes(base={"target": "pagerank"}, directed=None)
        table["p-halt"] = changes(p_halt=0.3)
        table["max-length"] = changes(max_length=3)
        table["seed"] = changes(seed=2)
        table["weights"] = changes(weights="combinatorial")
        table["scale"] = changes(base={"weights": "raw", "scale": 0.5}, scale=0.25)
        table["sigma-order"] = changes(sigma_order=3)
        table["samples"] = changes(samples=6)
        table["start-nodes"] = changes(start_nodes=2)
        table["out"] = changes(out=DROP)
        oc.check_command("couple", table, {"graph": inputs.graph, "sigma-order": 4, "samples": 8, "out": "x"}, d)
        # Kernel options with --target pagerank would be ignored: refused.
        for option, value in (("beta", "2"), ("alpha", "1,0.5")):
            e2e.expect_error(None, ["couple", "--graph", inputs.graph, "--target", "pagerank", "--" + option, value],
                             "--" + option, "--target pagerank", directory=d)


if __name__ == "__main__":
    e2e.main(globals())
