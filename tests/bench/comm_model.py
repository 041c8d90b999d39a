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

--ranks-per-host R (with --scale) models hosts of R ranks that share one copy of the graph and walk table in
shared memory, with messages only between hosts (--host-size): the crossing share is then the cut between
P / R hosts (c_host: 1.07 sqrt(H / N) on grids; on the random graph the share METIS leaves between H parts of
random:1000000:10, measured with graphrf-partition at H = 2 .. 1024 and interpolated in log H: 0.284 at 2,
0.460 at 4, 0.553 at 8, 0.621 at 16, 0.668 at 32, 0.701 at 64, 0.744 at 256, 0.769 at 1024), a walker stays
with its start rank inside its host (no deposits inside a host), and per host:
  memory  = N/H graph bytes per node (once) + N/H output bytes per node + R in-flight caps
  network = N/H n H_w bytes per hop (crossings between hosts only) / node bandwidth
against R x (node memory / ranks per node) of memory and the node's bandwidth (a host is one node's worth).
"""
import argparse
import math
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


def crossing_share(kind, parts, nodes):
    """Share of uniform steps that cross between `parts` METIS parts (see the docstring for the fits)."""
    if parts <= 1:
        return 0.0
    if kind == "grid":
        return min(1.0, 1.07 * (parts / nodes) ** 0.5)
    measured = [(2, 0.284), (4, 0.460), (8, 0.553), (16, 0.621), (32, 0.668), (64, 0.701), (256, 0.744), (1024, 0.769)]
    if parts >= measured[-1][0]:
        return measured[-1][1]
    for (k0, c0), (k1, c1) in zip(measured, measured[1:]):
        if parts <= k1:
            t = (math.log(parts) - math.log(k0)) / (math.log(k1) - math.log(k0))
            return c0 + t * (c1 - c0)


def host_scale_model(args):
    p, n, per_host = args.p_halt, args.walkers, args.ranks_per_host
    hops_per_walk = (1 - p) / p
    rank_memory = args.node_memory_gib * 2**30 / args.ranks_per_node
    host_memory = rank_memory * per_host
    host_bandwidth = args.node_network_gbs * 1e9 * per_host / args.ranks_per_node
    print("GRF construction model, hosts of %d ranks sharing the graph: %s graph, n = %d, p_halt %.2f"
          % (per_host, args.kind, n, p))
    print("costs: %.1f ns per hop, %.1f ns per visit, %.0f B graph (once per host) + %.0f B output per node"
          % (args.hop_ns, args.visit_ns, args.graph_bytes_per_node, args.output_bytes_per_node))
    print("host: %.0f GiB, %.1f GB/s" % (host_memory / 2**30, host_bandwidth / 1e9))
    print("%8s %6s %6s %8s %8s %14s %14s %10s %10s  %s" % ("nodes", "ranks", "hosts", "c_host", "B/hop", "memory/host GiB",
          "traffic/host GB", "compute s", "network s", "first to run out"))
    for nodes in [float(x) for x in args.scale.split(",") if x]:
        for ranks in [int(x) for x in args.parts.split(",") if x]:
            hosts = max(1, ranks // per_host)
            c = crossing_share(args.kind, hosts, nodes)
            h = max(0.0, 1 - p / (1 - (1 - p) * (1 - c)))
            bytes_per_hop = 40 * c + 24 * h / (1 - p)
            share = nodes / hosts
            memory = share * (args.graph_bytes_per_node + args.output_bytes_per_node) + per_host * args.in_flight_mib * 2**20
            hops_host = share * n * hops_per_walk
            compute = hops_host / per_host * (args.hop_ns + args.visit_ns) / 1e9
            traffic = hops_host * bytes_per_hop
            network = traffic / host_bandwidth
            if memory > host_memory:
                limit = "memory (%.1fx of %.0f GiB per host)" % (memory / host_memory, host_memory / 2**30)
            else:
                limit = "network" if network > compute else "compute (memory latency)"
            print("%8.0e %6d %6d %8.4f %8.1f %14.1f %14.1f %10.1f %10.1f  %s" % (nodes, ranks, hosts, c, bytes_per_hop,
                  memory / 2**30, traffic / 1e9, compute, network, limit))
    return 0


def scale_model(args):
    if args.ranks_per_host > 1:
        return host_scale_model(args)
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
    scale.add_argument("--ranks-per-host", type=int, default=1,
                       help="ranks sharing one copy of the graph (--host-size); 1: every rank its own host")
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
