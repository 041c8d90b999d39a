"""End-to-end: --replicate-graph keeps every walker on its host and changes nothing in a file.

With the graph replicated, every host holds the whole graph's walk table, so no hop crosses hosts. grf (i.i.d.
and repelling), pagerank (a graph whose isolated nodes make walkers teleport), attention, gp and wavelet run with
--replicate-graph at np 2 and np 4 with every rank its own host and at np 3 as hosts of 2 + 1, and each file is
compared by h5diff with the same command's file at the same rank count on the message path (--host-size 1, the
graph partitioned), allowing no difference (launch descriptions excluded: root attributes, /config, /launch).
The log says the graph is replicated and that no hop crossed hosts; the memory estimate grows by the rest of the
table, and a run that fits --memory-limit partitioned but not replicated is refused before any work, writing
nothing (by the command's estimate, or by loading when the graph and its replica alone do not fit). A run where
half of all hops cross hosts suggests the option (with the replica's size), one where few cross does not.
"""

import os
import re
from concurrent.futures import ThreadPoolExecutor

import graphrf_e2e as e2e
from test_host_size import COMMANDS as HOST_SIZE_COMMANDS, h5diff

# The host-size test's commands (the same tiny graphs and options), the repelling one also under METIS.
COMMANDS = {name: HOST_SIZE_COMMANDS[name]
            for name in ("grf", "grf_repelling", "pagerank_teleports", "attention", "gp", "wavelet")}  # wavelet: no walks
COMMANDS["grf_repelling_metis"] = HOST_SIZE_COMMANDS["grf_repelling"] + ["--partition", "metis"]
LAUNCHES = [(2, "1"), (3, "2"), (4, "1")]


def launch(d, command, np_, host_size, replicate):
    out = os.path.join(d, "%s-%d-%s-%s.h5" % (command, np_, host_size, "replicated" if replicate else "apart"))
    args = COMMANDS[command] + ["--host-size", host_size, "--out", out] + (["--replicate-graph"] if replicate else [])
    return out, e2e.run(np_, args, timeout=120)


def test_files_are_those_of_the_message_path_and_no_hop_crosses_hosts():
    with e2e.TempDir() as d:
        jobs = [(c, np_, k, replicate) for c in COMMANDS for np_, k in LAUNCHES for replicate in (False, True)]
        with ThreadPoolExecutor(max_workers=2) as pool:
            runs = dict(zip(jobs, pool.map(lambda job: launch(d, *job), jobs)))
        differences = [h5diff(runs[(c, np_, k, False)][0], runs[(c, np_, k, True)][0])
                       for c in COMMANDS for np_, k in LAUNCHES]
        differences = [x for x in differences if x]
        assert not differences, "\n".join(differences)

        def crossed(run):
            return float(re.search(r"\(([0-9.]+)% crossed hosts\)", run.stdout).group(1))
        for np_, k in LAUNCHES:
            apart, replicated = runs[("grf", np_, k, False)][1], runs[("grf", np_, k, True)][1]
            assert "replicated on every host for walks" in replicated.stdout, replicated.stdout
            assert "replicated" not in apart.stdout, apart.stdout
            assert crossed(apart) > 0 and crossed(replicated) == 0.0, (apart.stdout, replicated.stdout)


def test_one_host_needs_no_replica():
    r = e2e.run(2, COMMANDS["grf"] + ["--replicate-graph"])
    assert "replicated" not in r.stdout, r.stdout  # one host's table holds the whole graph already


def test_many_crossings_suggest_the_replica():
    # A random graph cut in two by id ranges: half of all hops cross. A grid cut in two bands: a few do.
    random_graph = ["grf", "--graph", "random:200000:10", "--walkers", "2", "--host-size", "1"]
    with e2e.TempDir() as d:
        crossing = e2e.run(2, random_graph + ["--out", os.path.join(d, "crossing.h5")])
        hint = re.search(r"hint +([0-9.]+)% of hops crossed hosts: with --replicate-graph .*\(64.1 MiB a rank",
                         crossing.stdout)
        assert hint and 45.0 < float(hint.group(1)) < 55.0, crossing.stdout
        replicated = e2e.run(2, random_graph + ["--replicate-graph", "--out", os.path.join(d, "replicated.h5")])
        grid = e2e.run(2, ["grf", "--graph", "grid:200x200", "--walkers", "2", "--host-size", "1",
                           "--out", os.path.join(d, "grid.h5")])
        for run in (replicated, grid):
            assert "hint" not in run.stdout, run.stdout


def memory_estimate(run):
    return float(re.search(r"memory_estimate_mib=([0-9.]+)", run.stdout).group(1))


def test_a_replica_beyond_the_memory_limit_is_refused_before_any_work():
    graph = ["grf", "--graph", "random:200000:10", "--walkers", "2", "--host-size", "1"]
    with e2e.TempDir() as d:
        apart = e2e.run(2, graph + ["--out", os.path.join(d, "apart.h5")])
        replicated = e2e.run(2, graph + ["--replicate-graph", "--out", os.path.join(d, "replicated.h5")])
        # The rest of the table: half of 1999952 arcs of 32 bytes, and row pointers, on each rank.
        grown = memory_estimate(replicated) - memory_estimate(apart)
        assert 30.0 < grown < 33.0, (apart.stdout, replicated.stdout)
        limit = "%dM" % int((memory_estimate(apart) + memory_estimate(replicated)) / 2)  # M: MiB
        e2e.run(2, graph + ["--memory-limit", limit, "--out", os.path.join(d, "fits.h5")])
        e2e.expect_error(2, graph + ["--replicate-graph", "--memory-limit", limit, "--out", "{out}"],
                         "--memory-limit", directory=d)
        # Loading checks the replica itself before building it: the graph's arrays (about 43 MiB a rank here) fit
        # 80 MiB, with the whole table's 64 MiB a rank they do not.
        info = ["info", "--graph", "random:200000:10", "--host-size", "1", "--memory-limit", "80M"]
        e2e.run(2, info)
        e2e.expect_error(2, info + ["--replicate-graph", "--out", "{out}"], "--replicate-graph", "--memory-limit",
                         "64.1 MiB a rank", directory=d)


if __name__ == "__main__":
    e2e.main(globals())
