"""End-to-end: hosts (--host-size) change how walkers and visits travel, never what a file holds.

Ranks of one host share its walk table, so a walker crosses between them without a message and only hops onto
another host are messages. grf (i.i.d. and --by-length, and a repelling coupling), pagerank, attention, gp and
wavelet run on tiny graphs at np 1 and at np 2, 3 and 4 with every rank its own host (--host-size 1, the message
path), hosts of two ranks (np 3: hosts of 2 + 1) and the default (the machine: one host); pagerank also on a
graph with isolated nodes, whose walkers teleport (i.i.d. and repelling). Every file is compared
by h5diff with the same command's file at --host-size 1 and the same rank count (block partitions: the same
nodes on each rank), allowing no difference at all, excluding only what describes the launch: the root
attributes, /config, /launch. grf and pagerank files are also bitwise those of np 1 (but /nodes/partition), and
grf's and teleporting pagerank's of METIS partitions. The logs name the hosts, say how many hops crossed hosts (none
within one host) and that one host calls no METIS; bench-walks counts crossings between hosts and the bytes
each costs; bad values get one error line.
"""

import os
import re
import subprocess
from concurrent.futures import ThreadPoolExecutor

import graphrf_e2e as e2e

EXCLUDE = ["--exclude-attribute", "/", "--exclude-path", "/config", "--exclude-path", "/launch"]
GRID = "grid:7x9"
COMMANDS = {
    "grf": ["grf", "--graph", GRID, "--walkers", "6", "--p-halt", "0.2", "--max-length", "12", "--seed", "5",
            "--by-length"],
    "grf_repelling": ["grf", "--graph", "random:70:4:3", "--walkers", "4", "--p-halt", "0.15", "--coupling",
                      "repelling", "--seed", "2"],
    "pagerank": ["pagerank", "--graph", "random:60:4:1", "--walkers", "16"],
    # A third of the nodes isolated: walkers teleport, through the rank that holds their target's canonical index.
    "pagerank_teleports": ["pagerank", "--graph", "random:60:1:1", "--walkers", "16"],
    "pagerank_teleports_repelling": ["pagerank", "--graph", "random:60:1:1", "--walkers", "16", "--coupling",
                                     "repelling"],
    "attention": ["attention", "--graph", GRID, "--walkers", "6", "--p-halt", "0.3", "--seed", "4"],
    "gp": ["gp", "--graph", GRID, "--synthetic", "0.3", "--test-fraction", "0.2", "--iterations", "2",
           "--walkers", "6"],
    "wavelet": ["wavelet", "--graph", GRID, "--embedding-dim", "6", "--seed", "3"],
}
NP1_EXACT = ("grf", "grf_repelling", "pagerank", "pagerank_teleports", "pagerank_teleports_repelling")
LAUNCHES = [(2, "1"), (2, None), (3, "1"), (3, "2"), (3, None), (4, "1"), (4, "2"), (4, None)]


def h5diff(a, b, exclude=()):
    args = ["h5diff", "-r"] + EXCLUDE + [x for path in exclude for x in ("--exclude-path", path)] + [a, b]
    r = subprocess.run(args, capture_output=True, text=True, timeout=60)
    assert r.returncode in (0, 1), "h5diff failed: %s %s\n%s%s" % (a, b, r.stdout, r.stderr)
    return "" if r.returncode == 0 else "%s vs %s:\n%s" % (a, b, r.stdout[-2000:])


def launch(d, command, np_, host_size, extra=()):
    out = os.path.join(d, "%s-%d-%s%s.h5" % (command, np_, host_size or "default", "".join(extra)))
    args = COMMANDS[command] + list(extra) + (["--host-size", host_size] if host_size else []) + ["--out", out]
    return out, e2e.run(np_, args, timeout=120)


def test_files_are_those_of_the_message_path_for_every_host_size():
    with e2e.TempDir() as d:
        jobs = [(c, 1, None) for c in COMMANDS] + [(c, np_, k) for c in COMMANDS for np_, k in LAUNCHES]
        with ThreadPoolExecutor(max_workers=2) as pool:
            runs = dict(zip(jobs, pool.map(lambda job: launch(d, *job), jobs)))
        differences = []
        for command in COMMANDS:
            for np_, host_size in LAUNCHES:
                out = runs[(command, np_, host_size)][0]
                differences.append(h5diff(runs[(command, np_, "1")][0], out))
                if command in NP1_EXACT:
                    differences.append(h5diff(runs[(command, 1, None)][0], out, ["/nodes/partition"]))
        metis, _ = launch(d, "grf", 4, "2", ("--partition", "metis"))
        differences.append(h5diff(runs[("grf", 1, None)][0], metis, ["/nodes/partition"]))
        # Under METIS a node's rank is not the one holding its canonical index: teleports take two messages.
        for command in ("pagerank_teleports", "pagerank_teleports_repelling"):
            for np_, host_size in ((3, "1"), (4, "2")):
                metis, _ = launch(d, command, np_, host_size, ("--partition", "metis"))
                differences.append(h5diff(runs[(command, 1, None)][0], metis, ["/nodes/partition"]))
        differences = [x for x in differences if x]
        assert not differences, "\n".join(differences)

        # The logs: the hosts, and the hops that crossed hosts (a walk on one host crosses none).
        def crossed(run):
            return float(re.search(r"\(([0-9.]+)% crossed hosts\)", run.stdout).group(1))
        one_host = runs[("grf", 2, None)][1]
        assert "hosts       1 host of 2 ranks, shared graph" in one_host.stdout, one_host.stdout
        assert crossed(one_host) == 0.0, one_host.stdout
        apart, two_hosts = runs[("grf", 4, "1")][1], runs[("grf", 4, "2")][1]
        assert "hosts       2 hosts of 2 ranks, shared graph" in two_hosts.stdout, two_hosts.stdout
        assert "hosts  " not in apart.stdout, apart.stdout
        assert 0 < crossed(two_hosts) < crossed(apart), (two_hosts.stdout, apart.stdout)
        mixed = runs[("grf", 3, "2")][1]
        assert "hosts       hosts of 2, 1 ranks, shared graph" in mixed.stdout, mixed.stdout


def test_one_host_calls_no_partitioner_and_reports_the_cut_between_hosts():
    info = e2e.run(2, ["info", "--graph", GRID, "--partition", "metis"])
    assert "one host: metis not called" in info.stdout, info.stdout
    assert "between hosts 0," in info.stdout, info.stdout
    two = e2e.run(4, ["info", "--graph", GRID, "--partition", "metis", "--host-size", "2"])
    assert "not called" not in two.stdout, two.stdout
    cut = re.search(r"edge cut (\d+) .*between hosts (\d+),", two.stdout)
    assert cut and 0 < int(cut.group(2)) < int(cut.group(1)), two.stdout
    # Hosts of 2 + 1 ranks: METIS gives the larger host twice the work, so the three ranks stay balanced.
    mixed = e2e.run(3, ["info", "--graph", GRID, "--partition", "metis", "--host-size", "2"])
    balance = re.search(r"balance nodes ([0-9.]+)", mixed.stdout)
    assert balance and float(balance.group(1)) <= 1.2, mixed.stdout


def test_bench_walks_prints_the_crossings_between_hosts():
    def figures(host_size):
        r = e2e.run(3, ["bench-walks", "--graphs", "grid:12x12", "--walkers-list", "2", "--p-halt-list", "0.2",
                        "--partition", "block", "--no-baselines", "--host-size", host_size])
        line = [x for x in r.stdout.splitlines() if x.startswith("RESULT bench=walks")][0]
        return dict(f.split("=", 1) for f in line.split()[1:])
    apart, hosts = figures("1"), figures("2")
    assert 0 < int(hosts["crossings"]) < int(apart["crossings"]), (hosts, apart)
    # Walkers alone travel in the walk phase: one 40-byte record per crossing.
    assert float(hosts["walk_bytes_per_crossing"]) == 40.0, hosts
    assert float(hosts["grf_bytes_per_crossing"]) > 40.0, hosts  # visits travel home too
    # The share of a phase the least busy rank waited at its end, and in all (mid-run waits too): fractions of it.
    for figure in ("walk_idle_max", "grf_idle_max", "walk_wait_max", "grf_wait_max"):
        assert 0.0 <= float(hosts[figure]) < 1.0, hosts


def test_other_bench_commands_take_the_host_size():
    for command in (["bench-attention", "--sizes", "16", "--walkers-list", "2", "--dense-max", "16", "--partition", "block"],
                    ["bench-couplings", "--graphs", "random:30:4:1", "--seeds", "2", "--walkers-list", "2",
                     "--couplings", "iid", "--targets", "kernel"],
                    ["bench-wavelet", "--sizes", "64", "--rank", "4", "--dense-max", "64", "--slepc-max", "0",
                     "--error-steps", "2", "--partition", "block"]):
        shared = e2e.run(2, command + ["--host-size", "2"]).stdout
        apart = e2e.run(2, command + ["--host-size", "1"]).stdout
        assert "1 host of 2 ranks" in shared, (command, shared)
        assert "host of" not in apart, (command, apart)


def test_bad_host_sizes():
    with e2e.TempDir() as d:
        e2e.expect_error(2, ["grf", "--host-size", "-1", "--out", "{out}"], "--host-size -1", directory=d)
        e2e.expect_error(2, ["info", "--host-size", "two", "--out", "{out}"], "--host-size", directory=d)
        e2e.expect_error(2, ["bench-attention", "--sizes", "16", "--host-size", "-2"], "--host-size", directory=d)


if __name__ == "__main__":
    e2e.main(globals())
