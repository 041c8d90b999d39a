#!/usr/bin/python3
"""What a second rank buys on one machine: np P against np 1, phase by phase and for whole runs.

For each graph it runs `graphrf bench-walks` (walk phase and GRF construction, hops per second) and times whole
runs of `grf`, `attention` (with METIS and with the default block partition), `gp` (a fixed number of
learning iterations) and `wavelet`, loading and partitioning included, at np 1, at np P with the default hosts (the ranks of this machine share the graph) and
at np P with `--host-size 1` (every rank its own host: the message path a cluster takes between machines), and
at np P with `--host-size 1 --replicate-graph` (every rank its own host holding the whole graph for walks).
Each figure is the median of --repeats runs, and a second table gives the best of them; speeds are np-P rate /
np-1 rate (times: np-1 time / np-P time). On virtual machines that hand freed memory back to the hypervisor, a
run's first touch of its memory costs a varying amount (reported beside the figures): the best run is the one
that paid least for it.

usage: tests/bench/host_speedup.py [--np 2] [--repeats 3] [--graphs random:1000000:10,grid:1000x1000]
       [--only walks,grf,attention,gp,wavelet]
Run it on a quiet machine, nothing else running: ranks are pinned to cores and two runs at once share them.
"""
import argparse
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
BUILD = os.environ.get("GRAPHRF_BUILD_DIR", os.path.join(os.path.dirname(os.path.dirname(HERE)), "build"))
GRAPHRF = os.path.join(BUILD, "graphrf")
ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
           OMPI_MCA_rmaps_base_oversubscribe="1")

# Whole runs: the commands timed (walkers fixed), outputs to a scratch file.
WHOLE_RUNS = {
    "grf": ["grf", "--walkers", "10", "--out", "{out}"],
    "attention": ["attention", "--partition", "metis", "--walkers", "8", "--out", "{out}"],
    # The same with the default partition (block): on one host both split the nodes for balance alone; with
    # --host-size 1 the first pays METIS for a cut between the two "hosts", the second does not.
    "attention-block": ["attention", "--walkers", "8", "--out", "{out}"],
    "gp": ["gp", "--synthetic", "0.01", "--iterations", "5", "--walkers", "8", "--samples", "4", "--out", "{out}"],
    "wavelet": ["wavelet", "--embedding-dim", "16", "--out", "{out}"],
}


def mpirun(np_, args):
    return ["mpirun", "-np", str(np_), GRAPHRF] + args


def fields(line):
    return dict(kv.split("=", 1) for kv in line.split()[1:] if "=" in kv)


def rate(text):
    """'25.52M' -> 25.52e6"""
    scale = {"K": 1e3, "M": 1e6, "G": 1e9}
    return float(text[:-1]) * scale[text[-1]] if text[-1] in scale else float(text)


def bench_walks(np_, graph, host_args):
    out = subprocess.run(mpirun(np_, ["bench-walks", "-q", "--graphs", graph, "--walkers-list", "1,10",
                                      "--p-halt-list", "0.1", "--partition", "metis", "--no-baselines",
                                      "--walk-repeats", "1", "--grf-repeats", "1"] + host_args),
                         capture_output=True, text=True, check=True, env=ENV).stdout
    rows = {}
    for line in out.splitlines():
        if line.startswith("RESULT bench=walks"):
            f = fields(line)
            rows[f["walkers"]] = (rate(f["walk_hops_per_s"]), rate(f["grf_hops_per_s"]), f)
    return rows


def whole_run(np_, graph, command, host_args, scratch):
    out = os.path.join(scratch, "host_speedup_%d.h5" % os.getpid())
    args = [a.replace("{out}", out) for a in WHOLE_RUNS[command]] + ["--graph", graph, "-q"] + host_args
    start = time.perf_counter()
    subprocess.run(mpirun(np_, args), capture_output=True, text=True, check=True, env=ENV)
    seconds = time.perf_counter() - start
    os.remove(out)
    return seconds


def interleaved(launches, repeats, run):
    """Runs every launch once per repeat, in turn, so that a slow spell of the machine hits them all alike."""
    runs = {name: [] for name, _, _ in launches}
    for _ in range(repeats):
        for name, np_, host_args in launches:
            runs[name].append(run(np_, host_args))
    return runs


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--np", type=int, default=2)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--graphs", default="random:1000000:10,grid:1000x1000")
    ap.add_argument("--only", default="walks,grf,attention,gp,wavelet")
    ap.add_argument("--scratch", default="/tmp")
    args = ap.parse_args()
    only = args.only.split(",")
    launches = [("np 1", 1, []), ("np %d" % args.np, args.np, []),
                ("np %d host-size 1" % args.np, args.np, ["--host-size", "1"]),
                ("np %d host-size 1 replicated" % args.np, args.np, ["--host-size", "1", "--replicate-graph"])]
    tables = {"median": [], "best": []}

    def add_row(graph, label, values, higher_is_better, shown):
        for statistic, pick in (("median", statistics.median), ("best", max if higher_is_better else min)):
            m = [pick(v) for v in values]
            speed = (lambda a, b: a / b) if higher_is_better else (lambda a, b: b / a)
            tables[statistic].append("| %s | %s | %s | %s |" % (graph, label, " | ".join(shown(x) for x in m),
                                                                " | ".join("%.2fx" % speed(x, m[0]) for x in m[1:])))
        print(tables["median"][-1], flush=True)

    header = ("| graph | figure | " + " | ".join(name for name, _, _ in launches) +
              " | speed np %d / np 1 | host-size 1 | replicated |\n" % args.np + "|---|---|" + "---|" * (2 * len(launches) - 1))
    print("medians of %d runs" % args.repeats)
    print(header)
    for graph in args.graphs.split(","):
        if "walks" in only:
            runs = interleaved(launches, args.repeats, lambda np_, h: bench_walks(np_, graph, h))
            for walkers in ("1", "10"):
                for k, label in ((0, "walk phase n %s [hops/s]" % walkers), (1, "GRF construction n %s [hops/s]" % walkers)):
                    add_row(graph, label, [[r[walkers][k] for r in runs[name]] for name, _, _ in launches], True,
                            lambda x: "%.1fM" % (x / 1e6))
                # The share of each phase that its most waiting rank spent with nothing to do (medians): a rank
                # slower than the others (a slower core, more work) shows as the others' waits.
                waits = [" / ".join("%.2f" % statistics.median(float(r[walkers][2][key]) for r in runs[name])
                                    for key in ("walk_wait_max", "grf_wait_max")) for name, _, _ in launches]
                print("| %s | most waiting rank's share, walk / GRF n %s | %s |%s" % (graph, walkers, " | ".join(waits),
                                                                                    " |" * (len(launches) - 1)),
                      flush=True)
        for command in ("grf", "attention", "attention-block", "gp", "wavelet"):
            if command.split("-")[0] not in only:
                continue
            runs = interleaved(launches, args.repeats, lambda np_, h: whole_run(np_, graph, command, h, args.scratch))
            label = {"attention": "`attention --partition metis`",
                     "attention-block": "`attention` (block partition)"}.get(command, "`%s`" % command)
            add_row(graph, "%s whole run [s]" % label, [runs[name] for name, _, _ in launches], False,
                    lambda x: "%.2f" % x)
    print("\nbest of %d runs" % args.repeats)
    print(header)
    print("\n".join(tables["best"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
