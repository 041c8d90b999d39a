#!/usr/bin/env python3
"""The Gaussian-process experiments of tests/bench/README.md, on real data, run through `graphrf gp` and
summarised as tables.

  gp_experiments.py sanjose --edges pems_edges.csv --observations pems_observations.csv [--splits 10]
      San Jose highway speeds (Borovitskiy et al. 2021): speeds standardised, then for each split seed
      1..splits (--test-fraction 0.2) the GRF-GP with i.i.d. walks and each walk coupling, and the exact-kernel
      GP (`--reference`, on the i.i.d. run: same theta and its own learned theta). Mean +- sd over splits.
      The sigma coupling is learned once by `graphrf couple` for the kernel at the starting beta.
      --couplings a,b,... runs a subset (default: all).
  gp_experiments.py mesh --obj bunny.obj [--splits 10]
      Mesh interpolation as in Reid et al. 2025b, "Variance-reducing couplings for random features" (Sec. 4.2, App.
      F.2), on vertices rather than faces: the graph of mesh edges, y = the z component of the area-weighted
      vertex normal (standardised), 30% of the vertices observed (--test-fraction 0.7: the rest is the test set).

Each run's RESULT line is parsed; nothing is hard-coded. GRAPHRF (default build/graphrf) and NP (default 1)
choose the binary and the rank count.
"""

import argparse
import os
import re
import shlex
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
GRAPHRF = os.environ.get("GRAPHRF", os.path.join(HERE, "..", "..", "build", "graphrf"))
NP = int(os.environ.get("NP", "1"))
COUPLINGS = ["iid", "antithetic", "sigma", "repelling", "antithetic+repelling"]


def graphrf(subcommand, args):
    command = ["mpirun", "--oversubscribe", "-np", str(NP)]
    if os.geteuid() == 0:
        command.insert(1, "--allow-run-as-root")
    command += [GRAPHRF, subcommand, "--quiet"] + [str(a) for a in args]
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit("gp_experiments: failed (%d): %s\n%s" % (done.returncode, shlex.join(command), done.stderr))
    return done


def run_gp(args):
    done = graphrf("gp", args)
    for line in done.stdout.splitlines():
        if line.startswith("RESULT nodes="):
            return {k: float(v) for k, v in re.findall(r"(\w+)=([-+0-9.eE]+|nan|inf)", line)}
    sys.exit("gp_experiments: no RESULT line from gp " + shlex.join(str(a) for a in args))


def standardised_csv(directory, pairs):
    ys = [y for _, y in pairs]
    mean, sd = statistics.fmean(ys), statistics.pstdev(ys)
    path = os.path.join(directory, "observations_z.csv")
    with open(path, "w") as f:
        f.write("node,y\n")
        for node, y in pairs:
            f.write("%s,%r\n" % (node, (y - mean) / sd))
    return path, mean, sd


def summary(values):
    if len(values) == 1:
        return "%.3f" % values[0]
    return "%.3f +- %.3f" % (statistics.fmean(values), statistics.stdev(values))


def table(rows, splits):
    print("| model | sigma_f | beta | sigma_n | test RMSE | NLPD | 95% coverage | learning [s] |")
    print("|---|---|---|---|---|---|---|---|")
    for name, runs in rows:
        if not runs:
            continue
        cells = [summary([r[k] for r in runs]) if all(k in r for r in runs) else ""
                 for k in ("sigma_f", "beta", "sigma_n", "rmse", "nlpd", "coverage", "learn_seconds")]
        print("| %s | %s |" % (name, " | ".join(cells)))
    print("(mean +- sd over %d splits, np %d)" % (splits, NP))


def sigma_file(graph, walk_args, directory):
    """A sigma-coupling of walk lengths learned by `graphrf couple` for the kernel at the starting beta."""
    path = os.path.join(directory, "sigma.txt")
    keep = [a for k, v in zip(walk_args[::2], walk_args[1::2]) if k in ("--p-halt", "--max-length", "--beta")
            for a in (k, v)]
    graphrf("couple", ["--graph", graph, "--out", path] + keep)
    return path


def experiment(graph, observations, splits, test_fraction, walk_args, couplings, directory):
    rows = {c: [] for c in couplings}
    exact_same, exact_own = [], []
    sigma = ["--sigma", sigma_file(graph, walk_args, directory)] if "sigma" in couplings else []
    for seed in range(1, splits + 1):
        for coupling in couplings:
            reference = ["--reference"] if coupling == "iid" else []
            extra = sigma if coupling == "sigma" else []
            r = run_gp(["--graph", graph, "--observations", observations, "--test-fraction", test_fraction,
                        "--split-seed", seed, "--coupling", coupling] + walk_args + reference + extra)
            rows[coupling].append(r)
            if reference:
                exact_same.append({"rmse": r["exact_rmse"], "nlpd": r["exact_nlpd"]})
                exact_own.append({"rmse": r["exact_learned_rmse"], "nlpd": r["exact_learned_nlpd"],
                                  "sigma_f": r["exact_learned_sigma_f"], "beta": r["exact_learned_beta"],
                                  "sigma_n": r["exact_learned_sigma_n"]})
        print("split %d done" % seed, file=sys.stderr, flush=True)
    named = [("GRF-GP, `--coupling %s`" % c, rows[c]) for c in couplings]
    named += [("exact kernel, the i.i.d. GRF-GP's theta", exact_same), ("exact kernel, own theta (dense Adam)", exact_own)]
    table(named, splits)
    if rows.get("iid"):
        kl = [r["kl"] for r in rows["iid"]]
        print("KL(GRF posterior || exact posterior) over the test nodes, i.i.d. walks: %s" % summary(kl))


def sanjose(a):
    import csv
    with open(a.observations) as f:
        pairs = [(r["node"], float(r["speed_mph"])) for r in csv.DictReader(f)]
    with tempfile.TemporaryDirectory() as d:
        obs, mean, sd = standardised_csv(d, pairs)
        print("San Jose: %d observed nodes, speeds standardised (mean %.2f, sd %.2f mph)" % (len(pairs), mean, sd))
        experiment(a.edges, obs, a.splits, 0.2, ["--walkers", 32, "--p-halt", 0.1, "--max-length", 64, "--beta", 5,
                                                 "--sigma-n", 0.5, "--iterations", 50, "--learning-rate", 0.1],
                   a.couplings, d)


def vertex_normal_z(obj_path):
    """z of the area-weighted vertex normals (sum of the faces' cross products), vertices numbered 1..N."""
    vertices, normals = [], []
    with open(obj_path) as f:
        for line in f:
            parts = line.split()
            if not parts:
                continue
            if parts[0] == "v":
                vertices.append(tuple(float(x) for x in parts[1:4]))
                normals.append([0.0, 0.0, 0.0])
            elif parts[0] == "f":
                idx = [int(p.split("/")[0]) for p in parts[1:]]
                idx = [i - 1 if i > 0 else len(vertices) + i for i in idx]
                for k in range(1, len(idx) - 1):  # fan triangulation
                    a, b, c = (vertices[idx[0]], vertices[idx[k]], vertices[idx[k + 1]])
                    u = [b[j] - a[j] for j in range(3)]
                    v = [c[j] - a[j] for j in range(3)]
                    n = (u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0])
                    for i in (idx[0], idx[k], idx[k + 1]):
                        for j in range(3):
                            normals[i][j] += n[j]
    out = []
    for i, n in enumerate(normals):
        length = sum(x * x for x in n) ** 0.5
        if length > 0:
            out.append((str(i + 1), n[2] / length))
    return out


def mesh(a):
    pairs = vertex_normal_z(a.obj)
    with tempfile.TemporaryDirectory() as d:
        obs, mean, sd = standardised_csv(d, pairs)
        print("%s: %d vertices with a normal, z standardised (mean %.3f, sd %.3f); 30%% observed"
              % (os.path.basename(a.obj), len(pairs), mean, sd))
        experiment(a.obj, obs, a.splits, 0.7, ["--walkers", 32, "--p-halt", 0.1, "--max-length", 64, "--beta", 5,
                                               "--sigma-n", 0.5, "--iterations", 50, "--learning-rate", 0.1],
                   a.couplings, d)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="which", required=True)
    s = sub.add_parser("sanjose")
    s.add_argument("--edges", required=True)
    s.add_argument("--observations", required=True)
    s.add_argument("--splits", type=int, default=10)
    s.add_argument("--couplings", type=lambda t: t.split(","), default=COUPLINGS)
    m = sub.add_parser("mesh")
    m.add_argument("--obj", required=True)
    m.add_argument("--splits", type=int, default=10)
    m.add_argument("--couplings", type=lambda t: t.split(","), default=COUPLINGS)
    a = p.parse_args()
    sanjose(a) if a.which == "sanjose" else mesh(a)


if __name__ == "__main__":
    main()
