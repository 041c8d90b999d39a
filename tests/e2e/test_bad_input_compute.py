"""End-to-end: bad options and bad data of the computing commands (grf, attention, wavelet) end graphrf cleanly.

The same contract as test_bad_input.py (graphrf_e2e.expect_error): under mpirun at 2 ranks (a few at 3), a
non-zero exit well within the timeout (no rank left hanging), exactly one "graphrf: error: ..." line on
stderr naming the problem, no RESULT line, no output file, no .partial, nothing else left behind.

Cases:
  * grf: unknown --kernel; --alpha 0,1 (alpha_0 <= 0 has no square root); regularized Laplacian with
    --weights raw --scale 10 (the series diverges: c rho >= 1); --p-halt 1.5 and 0; --walkers 0;
    --coupling antithetic with an odd --walkers; --fixed-length with --p-halt or --max-length, even at their
    defaults and from a --config file; --reference with raw weights above the dense limit (80 x 80 =
    6400 nodes, sampled reference), or a dense limit above 5000;
  * attention --qkv: a missing file; /q with fewer rows than the graph has nodes; /q and /k of different
    dimension; NaN in /v (in the last rank's share at 3 ranks); --synthetic with one value; relu with
    --num-features other than d; dark features on queries and keys that span a 2-D subspace of R^4 (the
    pooled covariance is singular: the message says so and suggests --dark-ridge); /nodes/id naming an id
    that is not a node of the graph (also a negative id, which once crashed the ranks);
  * wavelet: K + r >= N (--embedding-dim 2000 on a 32 x 32 grid, and by its deprecated name --rank); --degree-chi 0;
    no --embedding-dim; both names at once.
"""

import os

import numpy as np

import graphrf_e2e as e2e

TIMEOUT = 30
N = 64  # grid:8x8, ids 0..63


def expect_error(np_, args, *needles, **kw):
    return e2e.expect_error(np_, args, *needles, timeout=TIMEOUT, **kw)


def qkv_file(directory, name, n=N, d=4, dk=None, dv=3, seed=0, ids=None, tweak=None):
    rng = np.random.default_rng(seed)
    q, k, v = rng.normal(size=(n, d)), rng.normal(size=(n, dk or d)), rng.normal(size=(n, dv))
    if tweak:
        tweak(q, k, v)
    return e2e.write_qkv(os.path.join(directory, name), q, k, v, ids=ids)


def test_grf_kernel_options():
    with e2e.TempDir() as d:
        g = ["grf", "--graph", "grid:8x8", "--out", "{out}"]
        expect_error(2, g + ["--kernel", "heat"], "--kernel", "unknown kernel 'heat'", "diffusion", directory=d)
        expect_error(2, g + ["--alpha", "0,1"], "--alpha", "alpha_0 = 0 <= 0", "no real square root", directory=d)
        expect_error(3, g + ["--alpha", "-1,0.5"], "--alpha", "alpha_0 = -1 <= 0", directory=d)
        line = expect_error(2, g + ["--kernel", "regularized-laplacian", "--weights", "raw", "--scale", "10"],
                            "--beta", "regularized-laplacian series diverges", ">= 1", directory=d)
        assert "spectral radius" in line, line


def test_grf_walk_options():
    with e2e.TempDir() as d:
        g = ["grf", "--graph", "grid:8x8", "--out", "{out}"]
        expect_error(2, g + ["--p-halt", "1.5"], "--p-halt", "must be in (0, 1)", directory=d)
        expect_error(3, g + ["--p-halt", "0"], "--p-halt", "must be in (0, 1)", directory=d)
        expect_error(2, g + ["--walkers", "0"], "--walkers", "must be >= 1 (got 0)", directory=d)
        expect_error(2, g + ["--coupling", "antithetic", "--walkers", "3"], "--walkers", "antithetic", "even",
                     "(got 3)", directory=d)
        # --fixed-length replaces --p-halt and --max-length: given at all (at their defaults, in an INI file) they
        # are refused; not given, their defaults are not (test_frames runs --fixed-length alone).
        fixed = "--fixed-length: give it instead of --p-halt and --max-length, not with them"
        expect_error(2, g + ["--fixed-length", "3", "--p-halt", "0.5"], fixed, directory=d)
        expect_error(3, g + ["--fixed-length", "3", "--max-length", "32"], fixed, directory=d)
        ini = e2e.write(d, "walks.ini", "max-length = 32\n")
        expect_error(2, g + ["--fixed-length", "3", "--config", ini], fixed, directory=d)


def test_reference_above_the_dense_limit():
    # Above --dense-reference-max the reference is sampled, which needs normalised weights; the dense limit
    # itself cannot exceed 5000 nodes.
    with e2e.TempDir() as d:
        expect_error(2, ["grf", "--graph", "grid:80x80", "--reference", "--weights", "raw", "--scale", "0.2", "--out", "{out}"],
                     "--reference", "6400 nodes", "above --dense-reference-max 2000", "--weights normalized", directory=d)
        expect_error(2, ["grf", "--graph", "grid:80x80", "--reference", "--dense-reference-max", "6400", "--out", "{out}"],
                     "--dense-reference-max", "0 .. 5000", "(got 6400)", directory=d)


def test_attention_qkv_files():
    with e2e.TempDir() as d:
        a = ["attention", "--graph", "grid:8x8", "--out", "{out}", "--qkv"]
        missing = os.path.join(d, "missing.h5")
        expect_error(2, a + [missing], missing, "cannot open", directory=d)
        short = qkv_file(d, "short.h5", n=N - 1)
        expect_error(2, a + [short], short, "/q has 63 rows but the graph has 64 nodes", directory=d)
        dims = qkv_file(d, "dims.h5", dk=5)
        expect_error(2, a + [dims], dims, "/q and /k must have the same heads and dimension", "k 1x5", directory=d)
        # Row 60 lies in the last rank's share of the file at 3 ranks.
        nan = qkv_file(d, "nan.h5", tweak=lambda q, k, v: v.__setitem__((60, 1), np.nan))
        for np_ in (2, 3):
            expect_error(np_, a + [nan], nan, "/v row 60", "NaN or infinite", directory=d)


def test_attention_ids_not_in_the_graph():
    with e2e.TempDir() as d:
        a = ["attention", "--graph", "grid:8x8", "--out", "{out}", "--qkv"]
        ids = np.arange(N)[::-1].copy()
        ids[5] = 1000
        stranger = qkv_file(d, "stranger.h5", ids=ids)
        for np_ in (2, 3):
            expect_error(np_, a + [stranger], stranger, "/nodes/id 1000 is not a node of the graph", directory=d)
        ids[5] = -1
        negative = qkv_file(d, "negative.h5", ids=ids)
        expect_error(3, a + [negative], negative, "/nodes/id -1 is not a node of the graph", directory=d)


def test_attention_feature_options():
    with e2e.TempDir() as d:
        a = ["attention", "--graph", "grid:8x8", "--out", "{out}"]
        expect_error(2, a + ["--synthetic", "8"], "--synthetic", "expected d,d_v", directory=d)
        ok = qkv_file(d, "ok.h5")
        expect_error(2, a + ["--qkv", ok, "--feature", "relu", "--num-features", "5"], "--num-features",
                     "relu features have exactly d = 4 outputs (got 5)", directory=d)

        def flatten(q, k, v):  # queries and keys in one 2-D subspace of R^4
            basis = np.random.default_rng(9).normal(size=(2, 4))
            q[:] = q[:, :2] @ basis
            k[:] = k[:, :2] @ basis

        flat = qkv_file(d, "flat.h5", tweak=flatten)
        for np_ in (2, 3):
            line = expect_error(np_, a + ["--qkv", flat, "--feature", "dark"], "--feature dark", "singular",
                                "--dark-ridge", directory=d)
            assert "covariance" in line, line


def test_wavelet_options():
    with e2e.TempDir() as d:
        w = ["wavelet", "--graph", "grid:32x32", "--out", "{out}"]
        expect_error(2, w + ["--embedding-dim", "2000"], "--embedding-dim", "K + r < N", "K = 2000", "N = 1024", directory=d)
        expect_error(2, w + ["--rank", "2000"], "--embedding-dim", "K + r < N", directory=d)  # the deprecated name
        expect_error(2, w + ["--embedding-dim", "8", "--degree-chi", "0"], "--degree-chi", "(got 0)", directory=d)
        expect_error(3, w, "--embedding-dim", "required", directory=d)
        expect_error(2, w + ["--rank", "8", "--embedding-dim", "8"], "--rank and --embedding-dim", directory=d)


if __name__ == "__main__":
    e2e.main(globals())
