"""End-to-end: sizes declared in inputs and options are checked against the memory a rank may use before
anything is allocated, and the walk's memory estimate is an honest, not grossly high, upper bound.

Checked at 1, 2 and 3 ranks (each a one-line error naming the input, the size and the limit, non-zero exit, no
file):
  * a 2 KB Q/K/V file declaring /q and /k of 16 x 10^8 (chunked, no data stored), and one of width 2^31 + 4
    (named as declared, not cut to 32 bits);
  * attention --heads 100000000 and --synthetic 1,100000000;
  * a PLY header declaring 10^12 vertices over a two-vertex body;
  * gp --observations declaring /obs of 10^9 entries;
  * string node names padded to the longest (one 900 KiB name among 300) beyond --memory-limit;
  * the default limit under an address-space limit (prlimit --as): the refusal, not an allocation failure.
And the grf memory estimate (entries per row measured on a sample of rows) is at least the measured growth of
peak memory over a run of the same graph with one short walk per node, and at most 3 times it; the wavelet
estimate likewise against the growth of the peak from K = 1 to K = 64 (filters of 16 and 79 columns), and the
attention estimate against the growth from d = d_v = 1 to 32 (one host, --host-size 1, Alg. 2), the gp estimate
against the growth from 1 to 256 samples and probes, the pagerank estimate against the growth from 900 to 360000
nodes (with the power iteration); a wavelet, attention, gp or pagerank run whose estimate exceeds
--memory-limit is refused before its work.
"""

import os
import re
import shutil

import h5py
import numpy as np

import graphrf_e2e as e2e

RANKS = (1, 2, 3)
LIMIT = "per rank this run may use"


def test_qkv_declaring_a_huge_width():
    with e2e.TempDir() as d:
        path = os.path.join(d, "qkv.h5")
        with h5py.File(path, "w") as f:
            for name in ("q", "k"):
                f.create_dataset(name, shape=(16, 10**8), chunks=(16, 1000), dtype="f8")
            f["v"] = np.ones((16, 4))
        assert os.path.getsize(path) < 4096
        for np_ in RANKS:
            e2e.expect_error(np_, ["attention", "--graph", "grid:4x4", "--qkv", path, "--memory-limit", "4G",
                                   "--out", "{out}"], path, "/q", "200000004 values", LIMIT, directory=d)


def test_widths_beyond_32_bits_named_as_declared():
    with e2e.TempDir() as d:
        path = os.path.join(d, "wide.h5")
        with h5py.File(path, "w") as f:
            for name in ("q", "k"):
                f.create_dataset(name, shape=(4, 2**31 + 4), chunks=(4, 1000), dtype="f8")
            f["v"] = np.ones((4, 2))
        for np_ in RANKS:
            line = e2e.expect_error(np_, ["attention", "--graph", "grid:2x2", "--qkv", path, "--out", "{out}"],
                                    path, "/q declares a width of 2147483652", directory=d)
            assert "-2147483644" not in line, line


def test_synthetic_sizes_from_options():
    with e2e.TempDir() as d:
        for np_ in RANKS:
            e2e.expect_error(np_, ["attention", "--graph", "grid:4x4", "--heads", "100000000", "--memory-limit", "4G",
                                   "--out", "{out}"], "--heads 100000000", LIMIT, directory=d)
            e2e.expect_error(np_, ["attention", "--graph", "grid:4x4", "--synthetic", "1,100000000", "--memory-limit",
                                   "4G", "--out", "{out}"], "--synthetic 1,100000000", LIMIT, directory=d)


def test_ply_declaring_a_trillion_vertices():
    with e2e.TempDir() as d:
        for binary in (False, True):
            path = os.path.join(d, "big%s.ply" % ("b" if binary else ""))
            with open(path, "wb") as f:
                f.write(b"ply\nformat %s 1.0\nelement vertex 1000000000000\nproperty float x\nproperty float y\n"
                        b"end_header\n" % (b"binary_little_endian" if binary else b"ascii"))
                f.write(np.zeros(4, dtype="<f4").tobytes() if binary else b"0 0\n1 1\n")
            needle = "shorter than 1000000000000 binary vertices" if binary else "ends after 2 of 1000000000000 vertices"
            for np_ in RANKS:
                e2e.expect_error(np_, ["grf", "--points", path, "--knn", "1", "--out", "{out}"], path, needle,
                                 directory=d)


def test_observations_declaring_a_billion_entries():
    with e2e.TempDir() as d:
        path = os.path.join(d, "obs.h5")
        with h5py.File(path, "w") as f:
            f.create_dataset("obs/id", shape=(10**9,), chunks=(1000,), dtype="i8")
            f.create_dataset("obs/y", shape=(10**9,), chunks=(1000,), dtype="f8")
        for np_ in RANKS:
            e2e.expect_error(np_, ["gp", "--graph", "grid:4x4", "--observations", path, "--memory-limit", "4G",
                                   "--out", "{out}"], path, "/obs (1000000000 entries)", LIMIT, directory=d)


def test_long_node_names_padded_to_the_longest():
    with e2e.TempDir() as d:
        path = os.path.join(d, "names.edges")
        with open(path, "w") as f:
            f.write("a b\n" + "x" * (900 * 1024) + " b\n")
            f.writelines("n%d n%d\n" % (i, i + 1) for i in range(300))
        for np_ in RANKS:
            for command in ("info", "grf"):
                e2e.expect_error(np_, [command, "--graph", path, "--memory-limit", "64M", "--out", "{out}"],
                                 "/nodes/name (304 names", "900 KiB", LIMIT, directory=d)
        # Within the limit the names are written, as long as the longest.
        out = os.path.join(d, "ok.h5")
        e2e.run(2, ["info", "--graph", path, "--memory-limit", "1G", "--out", out])
        with h5py.File(out, "r") as f:
            assert f["nodes/name"].dtype.itemsize == 900 * 1024


def test_default_limit_within_the_address_space_limit():
    prlimit = shutil.which("prlimit")
    if not prlimit:
        raise e2e.Skip("no prlimit")
    with e2e.TempDir() as d:
        for np_ in RANKS:
            # 4.5 GiB of synthetic Q/K/V per rank cannot fit in 3 GB of address space, whatever the node has free.
            e2e.expect_error(np_, ["--as=3000000000", e2e.GRAPHRF, "attention", "--graph", "grid:3x3", "--synthetic",
                                   "1,30000000", "--out", "{out}"], "--synthetic 1,30000000", "address-space limit",
                             directory=d, program=prlimit)


def run_estimate_and_peak(np_, args):
    """A run's memory estimate per rank (the line before its work) and its measured peak, in MiB."""
    r = e2e.run(np_, args, timeout=240)
    estimate = float(re.search(r"estimate per rank \(max\): .* = ([\d.]+) MiB", r.stdout).group(1))
    return estimate, float(r.result()["peak_mib"])


# Peaks are resident memory, which the kernel grants the heap (glibc's hugetlb tunable, which graphrf sets in THP
# mode madvise) and the shared windows 2 MiB at a time, while estimates count bytes: one such page of rounding is
# not a missing term (pagerank grid:600x600 at np 2: peaks of 93-95 MiB over a base of 22-24 MiB, against its 71.0 MiB estimate).
PAGE_ROUNDING_MIB = 2.0


def check_estimate_bounds_growth(np_, what, estimate, peak, base):
    """The estimate covers what the larger run adds to the peak of a small one (to within one 2 MiB page), and not
    more than 3 times it."""
    growth = peak - base
    print("      np=%d %s: estimate %.0f MiB, peak %.0f MiB - %.0f MiB = %.0f MiB" % (np_, what, estimate, peak, base, growth),
          flush=True)
    assert estimate + PAGE_ROUNDING_MIB >= growth, (estimate, growth)
    assert estimate <= 3 * growth, (estimate, growth)


def estimate_and_peak(np_, graph, walk):
    return run_estimate_and_peak(np_, ["grf", "--graph", graph] + walk)


def test_walk_memory_estimate_is_an_honest_bound():
    configs = [
        ("grid:64x64", ["--walkers", "1024", "--p-halt", "0.05", "--max-length", "16"]),
        ("grid:100x100", ["--walkers", "256", "--p-halt", "0.1", "--max-length", "12", "--by-length"]),
    ]
    for np_ in RANKS:
        for graph, walk in configs:
            estimate, peak = estimate_and_peak(np_, graph, walk)
            _, base = estimate_and_peak(np_, graph, ["--walkers", "1", "--p-halt", "0.5", "--max-length", "1"])
            check_estimate_bounds_growth(np_, graph + " " + " ".join(walk), estimate, peak, base)


def test_wavelet_memory_estimate_is_an_honest_bound():
    # K = 64 (79 columns) against K = 1 (16): what the wider panels add to the peak is within the estimate.
    def estimate_and_peak(np_, k):
        return run_estimate_and_peak(np_, ["wavelet", "--graph", "grid:200x200", "--embedding-dim", str(k)])
    for np_ in RANKS:
        estimate, peak = estimate_and_peak(np_, 64)
        _, base = estimate_and_peak(np_, 1)
        check_estimate_bounds_growth(np_, "wavelet K 64", estimate, peak, base)
        # Refused before filtering when the estimate exceeds --memory-limit.
        with e2e.TempDir() as d:
            e2e.expect_error(np_, ["wavelet", "--graph", "grid:200x200", "--embedding-dim", "64", "--memory-limit",
                                   "%dM" % (estimate // 2), "--out", "{out}"],
                             "random wavelet features (K + r = 79 columns)", LIMIT, directory=d)


def test_attention_memory_estimate_is_an_honest_bound():
    # d = d_v = 32 (S and z: 1056 values per node) against d = d_v = 1: what the wider rows add to the peak is within
    # the estimate, on one host, with every rank its own host (rows fetched by message) and under Alg. 2.
    def estimate_and_peak(np_, synthetic, extra):
        return run_estimate_and_peak(np_, ["attention", "--graph", "grid:200x200", "--synthetic", synthetic] + extra)
    configs = [[], ["--host-size", "1"], ["--estimator", "asymmetric", "--heads", "2"]]
    for np_ in RANKS:
        estimates = []
        for extra in configs:
            estimate, peak = estimate_and_peak(np_, "32,32", extra)
            estimates.append(estimate)
            _, base = estimate_and_peak(np_, "1,1", extra)
            check_estimate_bounds_growth(np_, "attention d = d_v = 32 " + " ".join(extra), estimate, peak, base)
        # Refused before the walks when the estimate exceeds --memory-limit.
        with e2e.TempDir() as d:
            e2e.expect_error(np_, ["attention", "--graph", "grid:200x200", "--synthetic", "32,32", "--memory-limit",
                                   "%dM" % (estimates[0] // 2), "--out", "{out}"],
                             "attention (1 head(s), S and z of m d_v + m = 1056 values per node)", LIMIT, directory=d)


def test_gp_memory_estimate_is_an_honest_bound():
    # 256 pathwise samples (prediction solves for 257 columns), then 256 probes (learning solves for 257), against
    # one of each: what the wider blocks add to the peak is within the estimate.
    def estimate_and_peak(np_, samples, probes):
        return run_estimate_and_peak(np_, ["gp", "--graph", "grid:200x200", "--synthetic", "0.1", "--iterations", "2",
                                           "--walkers", "8", "--samples", str(samples), "--probes", str(probes)])
    for np_ in RANKS:
        _, base = estimate_and_peak(np_, 1, 1)
        for samples, probes in ((256, 1), (1, 256)):
            estimate, peak = estimate_and_peak(np_, samples, probes)
            check_estimate_bounds_growth(np_, "gp --samples %d --probes %d" % (samples, probes), estimate, peak, base)
        # Refused before the walks when the estimate exceeds --memory-limit.
        with e2e.TempDir() as d:
            e2e.expect_error(np_, ["gp", "--graph", "grid:200x200", "--synthetic", "0.1", "--probes", "256",
                                   "--memory-limit", "%dM" % (estimate // 2), "--out", "{out}"],
                             "GP regression (256 probes, 64 samples)", LIMIT, directory=d)


def test_pagerank_memory_estimate_is_an_honest_bound():
    # 360000 nodes against 900: what the walk table, walkers in flight, the teleport table of every node and the
    # power iteration's arc buffers add to the peak is within the estimate.
    def estimate_and_peak(np_, graph):
        return run_estimate_and_peak(np_, ["pagerank", "--graph", graph, "--reference"])
    for np_ in RANKS:
        _, base = estimate_and_peak(np_, "grid:30x30")
        estimate, peak = estimate_and_peak(np_, "grid:600x600")
        check_estimate_bounds_growth(np_, "pagerank grid:600x600 --reference", estimate, peak, base)
        # Refused before the walks when the estimate exceeds --memory-limit.
        with e2e.TempDir() as d:
            e2e.expect_error(np_, ["pagerank", "--graph", "grid:600x600", "--memory-limit", "%dM" % (estimate // 2),
                                   "--out", "{out}"], "pagerank (16 walkers per node)", LIMIT, directory=d)


if __name__ == "__main__":
    e2e.main(globals())
