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

--scale N1,N2 (e.g. 1e8,1e9) instead projects memory and time per rank of GRF construction for N-node
graphs on --parts ranks, without running anything, from measured per-rank costs (defaults: this machine's
`bench-walks` and `grf` figures in tests/bench/README.md; pass your own):
  memory per rank = N/P (graph bytes per node + output bytes per node) + in-flight cap
  time per rank   = N/P n H (hop ns + visit ns) / 1e9,   H = (1 - p) / p hops (= visits) per walk
  network time    = N/P n H bytes per hop / (node bandwidth / ranks per node)
with the share c of hops crossing ranks from the METIS cuts of the 1000 x 1000 grid (C = 2.15 sqrt(N P),
so c = 1.07 sqrt(P / N)) or of the 1M random graph (c = 0.77 at 1024 parts), and h, bytes per hop as above.
It names the first resource to run out: memory per rank against node memory / ranks per node, else
whichever of compute and network takes longer.
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


def scale_model(args):
    p, n = args.p_halt, args.walkers
    hops_per_walk = (1 - p) / p
    ranks_per_node = args.ranks_per_node
    memory_per_rank = args.node_memory_gib * 2**30 / ranks_per_node
    bandwidth_per_rank = args.node_network_gbs * 1e9 / ranks_per_node
    print("GRF construction model: %s graph, mean degree %g, n = %d walkers, p_halt %.2f (%.1f hops per walk)"
          % (args.kind, args.mean_degree, n, p, hops_per_walk))
    print("costs: %.1f ns per hop, %.1f ns per visit, %.0f B graph + %.0f B output per node, in-flight cap %.0f MiB;"
          % (args.hop_ns, args.visit_ns, args.graph_bytes_per_node, args.output_bytes_per_node, args.in_flight_mib))
    print("machine: %d ranks per node, %.0f GiB and %.1f GB/s per node (%.2f GiB, %.2f GB/s per rank)"
          % (ranks_per_node, args.node_memory_gib, args.node_network_gbs, memory_per_rank / 2**30, bandwidth_per_rank / 1e9))
    print("%8s %6s %8s %8s %12s %10s %10s %10s  %s" % ("nodes", "ranks", "c", "B/hop", "memory GiB", "compute s",
                                                    "network s", "total s", "first to run out"))
    for nodes in [float(x) for x in args.scale.split(",") if x]:
        for ranks in [int(x) for x in args.parts.split(",") if x]:
            c = min(1.0, 1.07 * (ranks / nodes) ** 0.5) if args.kind == "grid" else 0.77
            h = 1 - p / (1 - (1 - p) * (1 - c))
            bytes_per_hop = 40 * c + 24 * h / (1 - p)
            share = nodes / ranks
            memory = share * (args.graph_bytes_per_node + args.output_bytes_per_node) + args.in_flight_mib * 2**20
            hops = share * n * hops_per_walk
            compute = hops * (args.hop_ns + args.visit_ns) / 1e9
            network = hops * bytes_per_hop / bandwidth_per_rank
            if memory > memory_per_rank:
                limit = "memory (%.1fx of %.1f GiB per rank)" % (memory / memory_per_rank, memory_per_rank / 2**30)
            else:
                limit = "network" if network > compute else "compute (memory latency)"
            print("%8.0e %6d %8.4f %8.1f %12.2f %10.1f %10.1f %10.1f  %s" % (nodes, ranks, c, bytes_per_hop,
                  memory / 2**30, compute, network, max(compute, network), limit))
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--graph", default="grid:1000x1000")
    ap.add_argument("--p-halt", type=float, default=0.1)
    ap.add_argument("--parts", default="64,128,256,512,1024")
    ap.add_argument("--method", default="metis")
    ap.add_argument("--measure", default="", help="rank counts to measure with mpirun, e.g. 2,4")
    scale = ap.add_argument_group("--scale: projection from measured costs")
    scale.add_argument("--scale", default="", help="node counts to project, e.g. 1e8,1e9")
    scale.add_argument("--kind", choices=["grid", "random"], default="random")
    scale.add_argument("--mean-degree", type=float, default=10)
    scale.add_argument("--walkers", type=int, default=16)
    scale.add_argument("--hop-ns", type=float, default=40.0, help="walk phase, ns per hop per rank")
    scale.add_argument("--visit-ns", type=float, default=186.0, help="deposit, its trip home and assembly, ns per visit")
    scale.add_argument("--graph-bytes-per-node", type=float, default=621.0)
    scale.add_argument("--output-bytes-per-node", type=float, default=852.0,
                       help="/grf (about 2200 with /grf_by_length)")
    scale.add_argument("--in-flight-mib", type=float, default=100.0)
    scale.add_argument("--ranks-per-node", type=int, default=64)
    scale.add_argument("--node-memory-gib", type=float, default=256.0)
    scale.add_argument("--node-network-gbs", type=float, default=12.5, help="injection bandwidth, GB/s")
    args = ap.parse_args()
    if args.scale:
        return scale_model(args)
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
