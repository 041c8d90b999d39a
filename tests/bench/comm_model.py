#!/usr/bin/python3
"""Paper model of walk communication for many ranks, calibrated by the edge cut of real partitions.

For P parts with edge cut C of a graph with E edges, a uniform step crosses to another rank with
probability c = C / E (exact for a walker at its stationary distribution on an undirected graph). Per hop:
  walker bytes   = 40 c                      (one 40-byte walker record per crossing hop)
  deposit bytes  = 24 h / (1 - p)            (visits per hop = 1 / (1 - p); 24 bytes per visit away from home)
  h              = 1 - p / (1 - (1 - p)(1 - c))   (share of visits made away from the start node's rank,
                                              ignoring walkers that come back home: an upper bound)
  messages       = 40 c / (4096 * 40) + 24 h / (1 - p) / (8192 * 24)   (full batches; idle flushes add more)
The edge cuts come from graphrf-partition (METIS) at each part count; --measure runs `graphrf bench-walks`
style GRF runs at a few rank counts and prints the measured bytes per hop next to the model.

usage: tests/bench/comm_model.py --graph grid:1000x1000 --p-halt 0.1 --parts 64,128,256,512,1024 [--measure 2,4]
"""
import argparse
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
BUILD = os.environ.get("GRAPHRF_BUILD_DIR", os.path.join(os.path.dirname(os.path.dirname(HERE)), "build"))


def result_fields(text):
    for line in text.splitlines():
        if line.startswith("RESULT ") and "summary=" not in line:
            return dict(kv.split("=", 1) for kv in line.split()[1:] if "=" in kv)
    raise RuntimeError("no RESULT line in:\n" + text)


def model(cut, edges, p):
    c = cut / edges
    h = 1 - p / (1 - (1 - p) * (1 - c))
    walker_bytes = 40 * c
    deposit_bytes = 24 * h / (1 - p)
    messages = walker_bytes / (4096 * 40) + deposit_bytes / (8192 * 24)
    return c, h, walker_bytes + deposit_bytes, messages


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--graph", default="grid:1000x1000")
    ap.add_argument("--p-halt", type=float, default=0.1)
    ap.add_argument("--parts", default="64,128,256,512,1024")
    ap.add_argument("--method", default="metis")
    ap.add_argument("--measure", default="", help="rank counts to measure with mpirun, e.g. 2,4")
    args = ap.parse_args()
    tool = os.path.join(BUILD, "partition", "graphrf-partition")
    graphrf = os.path.join(BUILD, "graphrf")
    info = result_fields(subprocess.run([graphrf, "info", "-q", "--graph", args.graph], capture_output=True, text=True,
                                        check=True).stdout)
    edges = float(info["edges"])
    print("graph %s: %s nodes, %d edges, p_halt %.2f" % (args.graph, info["nodes"], edges, args.p_halt))
    print("%6s %10s %8s %8s %12s %14s" % ("ranks", "edge_cut", "c", "h", "bytes/hop", "messages/hop"))
    rows = []
    for k in [int(x) for x in args.parts.split(",") if x]:
        out = subprocess.run([tool, "-q", "--graph", args.graph, "--parts", str(k), "--method", args.method],
                             capture_output=True, text=True, check=True).stdout
        cut = float(result_fields(out)["edge_cut"])
        c, h, b, m = model(cut, edges, args.p_halt)
        rows.append((k, cut, c, h, b, m))
        print("%6d %10d %8.4f %8.4f %12.2f %14.2e" % (k, cut, c, h, b, m))
    if args.measure:
        env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
                   OMPI_MCA_rmaps_base_oversubscribe="1", OMPI_MCA_mpi_yield_when_idle="1")
        print("measured (graphrf bench-walks, walk phase, 1 walker per node, partition %s):" % args.method)
        for np_ in [int(x) for x in args.measure.split(",") if x]:
            out = subprocess.run(["mpirun", "-np", str(np_), graphrf, "bench-walks", "-q", "--graphs", args.graph,
                                  "--walkers-list", "1", "--p-halt-list", str(args.p_halt), "--partition", args.method,
                                  "--no-baselines"], capture_output=True, text=True, check=True, env=env).stdout
            walk = [dict(kv.split("=", 1) for kv in l.split()[1:] if "=" in kv) for l in out.splitlines()
                    if l.startswith("RESULT bench=walks")][0]
            cut = float(result_fields(subprocess.run([tool, "-q", "--graph", args.graph, "--parts", str(np_), "--method",
                                                     args.method], capture_output=True, text=True, check=True).stdout)["edge_cut"])
            c, h, b, m = model(cut, edges, args.p_halt)
            print("%6d ranks: cross share %s (model c %.4f); walk-only bytes/hop %s (model walker part %.2f)" %
                  (np_, walk["cross_rank_share"], c, walk["bytes_per_hop"], 40 * c))
    return 0


if __name__ == "__main__":
    sys.exit(main())
