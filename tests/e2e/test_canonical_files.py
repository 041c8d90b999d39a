"""End-to-end: output files depend on the inputs and the seed, never on how the job was launched.

The same `info`, `grf` (two ensembles: /grf, /grf2, /grf_by_length, /grf2_by_length), `attention` (relu and
favor features) and `wavelet` commands run at 1, 2, 3 and 4 ranks with block, METIS and PT-Scotch partitions,
on the karate club and on a 12 x 12 grid written with shuffled, scattered ids. Every file is compared with the
np 1 block file by h5diff (hdf5-tools), excluding only what describes the launch: the root attributes (command,
n_ranks, created, ...; the ones that do not describe the launch, software and seed, are compared here), /config
(it names the partitioner), /launch (per-rank traffic and times) and /nodes/partition. No difference is allowed
for info, grf and wavelet; attention sums over nodes in a launch-dependent order, so h5diff -p 1e-12 (relative
difference) is allowed there, except in /attention/output: an output entry is a ratio of two such sums, and where
its terms cancel (an entry far below the others) reordering moves it by more than 1e-12 of itself. Reordering N
terms moves a sum by at most about N eps times the sum of their magnitudes, which the largest entry of the
dataset bounds here, so /attention/output is compared to 1e-12 of its largest magnitude (N = 144 nodes,
N eps = 3.2e-14). Also checked: /nodes/id ascending, /nodes/partition naming the rank each node was
placed on (np 2 and more use every rank), and /kernel/exact (grf --reference) as written equal to scipy's
expm(-beta L) built here in ascending-id order, and agreeing across launches to a relative 1e-12 (the dense
reference is computed on one rank in the launch's internal order, so it is not compared bitwise).
"""

import os
import subprocess

import h5py
import numpy as np
import scipy.linalg

import graphrf_e2e as e2e

RANKS = (1, 2, 3, 4)
PARTITIONS = ("block", "metis", "ptscotch")
LAUNCH_ATTRIBUTES = {"command", "n_ranks", "created"}
EXCLUDE = ["--exclude-attribute", "/", "--exclude-path", "/config", "--exclude-path", "/launch",
           "--exclude-path", "/nodes/partition"]

COMMANDS = {
    "info": ["info"],
    "grf": ["grf", "--walkers", "8", "--p-halt", "0.3", "--max-length", "6", "--estimator", "two-ensembles",
            "--seed", "11", "--by-length"],
    "attention_relu": ["attention", "--feature", "relu", "--walkers", "8", "--p-halt", "0.4", "--seed", "5"],
    "attention_favor": ["attention", "--feature", "favor", "--num-features", "16", "--draw", "orthogonal",
                        "--heads", "2", "--walkers", "8", "--p-halt", "0.4", "--seed", "5"],
    "wavelet": ["wavelet", "--rank", "8", "--seed", "3"],
}
GRAPH_COMMANDS = {"karate": ("info", "grf"),
                  "grid": ("info", "grf", "attention_relu", "attention_favor", "wavelet")}


def h5diff(a, b, relative=None, exclude=()):
    args = (["h5diff", "-r"] + (["-p", str(relative)] if relative else []) + EXCLUDE +
            [arg for path in exclude for arg in ("--exclude-path", path)] + [a, b])
    r = subprocess.run(args, capture_output=True, text=True, timeout=60)
    assert r.returncode in (0, 1), "h5diff failed: %s\n%s%s" % (" ".join(args), r.stdout, r.stderr)
    return r.returncode == 0, r.stdout[-3000:]


SCALED_DATASETS = ["/attention/output"]


def scaled_difference(a, b, path):
    """Entries of dataset `path` that differ by more than 1e-12 of the dataset's largest magnitude."""
    with h5py.File(a, "r") as fa, h5py.File(b, "r") as fb:
        x, y = fa[path][()], fb[path][()]
    assert x.shape == y.shape, (path, x.shape, y.shape)
    bad = np.abs(x - y) > 1e-12 * np.abs(x).max()
    return "" if not bad.any() else "%s: %d entries differ, largest %g" % (path, bad.sum(), np.abs(x - y).max())


def check_file(path, np_):
    with h5py.File(path, "r") as f:
        ids = f["nodes/id"][:]
        partition = f["nodes/partition"][:]
        attrs = dict(f.attrs)
    assert np.all(np.diff(ids) > 0), "%s: /nodes/id not ascending: %s" % (path, ids[:20])
    assert partition.min() >= 0 and partition.max() < np_, partition
    assert len(np.unique(partition)) == np_, "%s: every rank owns nodes at np %d: %s" % (path, np_, np.unique(partition))
    return {k: v for k, v in attrs.items() if k not in LAUNCH_ATTRIBUTES}


def test_identical_files_for_every_launch():
    with e2e.TempDir() as d:
        graphs = {"karate": os.path.join(e2e.DATA_DIR, "karate.edges"),
                  "grid": e2e.write(d, "grid.edges", e2e.grid_edge_list(12, 12, seed=3)[0])}
        differences = []
        for graph, commands in GRAPH_COMMANDS.items():
            for command in commands:
                reference, reference_attrs = None, None
                for np_ in RANKS:
                    for partition in PARTITIONS:
                        out = os.path.join(d, "%s-%s-%d-%s.h5" % (graph, command, np_, partition))
                        e2e.run(np_, COMMANDS[command] + ["--graph", graphs[graph], "--partition", partition,
                                                          "--quiet", "--out", out], timeout=120)
                        attrs = check_file(out, np_)
                        if reference is None:
                            reference, reference_attrs = out, attrs
                            continue
                        assert attrs.keys() == reference_attrs.keys() and all(
                            str(attrs[k]) == str(reference_attrs[k]) for k in attrs), (attrs, reference_attrs)
                        if command.startswith("attention"):
                            same, report = h5diff(reference, out, 1e-12, SCALED_DATASETS)
                            scaled = "".join(scaled_difference(reference, out, p) for p in SCALED_DATASETS)
                            same, report = same and not scaled, report + scaled
                        else:
                            same, report = h5diff(reference, out)
                        if not same:
                            differences.append("%s %s np %d %s:\n%s" % (graph, command, np_, partition, report))
        assert not differences, "\n".join(differences)


def test_exact_kernel_in_canonical_order():
    with e2e.TempDir() as d:
        graph = e2e.write(d, "grid.edges", e2e.grid_edge_list(6, 7, seed=5)[0])
        w = e2e.read_graph(graph).matrix(True).toarray()  # canonical rows and columns (ascending ids)
        exact = scipy.linalg.expm(-0.5 * (np.eye(w.shape[0]) - w))
        files = []
        for np_, partition in ((1, "block"), (3, "metis"), (4, "ptscotch")):
            out = os.path.join(d, "exact-%d-%s.h5" % (np_, partition))
            e2e.run(np_, ["grf", "--graph", graph, "--partition", partition, "--walkers", "4", "--reference",
                          "--kernel", "diffusion", "--beta", "0.5",
                          "--quiet", "--out", out])
            with h5py.File(out, "r") as f:
                files.append(f["kernel/exact"][:])
        for got in files:  # as written, no permutation: rows and columns already in ascending-id order
            assert e2e.relative_max_error(got, exact) <= 1e-10, e2e.relative_max_error(got, exact)
        for other in files[1:]:
            assert e2e.relative_max_error(other, files[0]) <= 1e-12, e2e.relative_max_error(other, files[0])


if __name__ == "__main__":
    e2e.main([test_identical_files_for_every_launch, test_exact_kernel_in_canonical_order])
