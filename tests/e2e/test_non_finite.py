"""End-to-end: numbers that overflow are refused, never published.

At 1, 2 and 3 ranks, each case ends with one error line, a non-zero exit and no file:
  * weights of 1e-320 (degrees multiply to 0, so W = D^-1/2 A D^-1/2 is inf): the graph file and the node;
  * 1e308 listed twice with --duplicates sum, and two edges of 1e308 at one node (its degree overflows), with
    and without --reference: the graph file, the node and "sum to infinity";
  * Q and K of 1e200 under the relu feature map (48 of 48 outputs NaN) and V of 1e308 (outputs inf): the node
    of the first bad output row, before any result is reported.
The HDF5 writer's own refusal of inf/NaN rows is tested in tests/mpi/h5_output_test.cpp.
"""

import os

import h5py
import numpy as np

import graphrf_e2e as e2e

RANKS = (1, 2, 3)


def test_tiny_weights():
    with e2e.TempDir() as d:
        path = e2e.write(d, "tiny.edges", "0 1 1e-320\n1 2 1e-320\n2 0 1e-320\n")
        for np_ in RANKS:
            for command in ("grf", "info"):
                e2e.expect_error(np_, [command, "--graph", path, "--out", "{out}"], path, "node 0",
                                 "too small", directory=d)


def test_weights_summing_to_infinity():
    with e2e.TempDir() as d:
        twice = e2e.write(d, "twice.edges", "0 1 1e308\n0 1 1e308\n1 2 1\n")
        star = e2e.write(d, "star.edges", "0 1 1\n1 2 1e308\n1 3 1e308\n2 3 1\n")
        for np_ in RANKS:
            e2e.expect_error(np_, ["grf", "--graph", twice, "--duplicates", "sum", "--out", "{out}"], twice,
                             "node 0", "sum to infinity", directory=d)
            for extra in ([], ["--reference"]):
                e2e.expect_error(np_, ["grf", "--graph", star, "--out", "{out}"] + extra, star, "node 1",
                                 "sum to infinity", directory=d)


def test_attention_outputs_that_overflow():
    rng = np.random.default_rng(1)
    with e2e.TempDir() as d:
        big_qk = e2e.write_qkv(os.path.join(d, "qk.h5"), np.full((16, 3), 1e200), np.full((16, 3), 1e200),
                               rng.normal(size=(16, 3)))
        big_v = e2e.write_qkv(os.path.join(d, "v.h5"), rng.normal(size=(16, 3)), rng.normal(size=(16, 3)),
                              np.full((16, 3), 1e308))
        for np_ in RANKS:
            e2e.expect_error(np_, ["attention", "--graph", "grid:4x4", "--qkv", big_qk, "--feature", "relu",
                                   "--out", "{out}"], "the attention output of node 0 is NaN or infinite", "scale Q, K and V down", directory=d)
            e2e.expect_error(np_, ["attention", "--graph", "grid:4x4", "--qkv", big_v, "--out", "{out}"],
                             "the attention output of node 0 is NaN or infinite", "scale Q, K and V down", directory=d)


def test_missing_values_still_written():
    # NaN marks unobserved nodes in /gp/y: kept, while every other value is finite.
    with e2e.TempDir() as d:
        out = os.path.join(d, "gp.h5")
        e2e.run(2, ["gp", "--graph", "grid:5x5", "--synthetic", "0.5", "--out", out])
        with h5py.File(out, "r") as f:
            y = f["gp/y"][:]
            assert np.isnan(y).any() and np.isfinite(y).any()
            assert np.isfinite(f["gp/mean"][:]).all()


if __name__ == "__main__":
    e2e.main(globals())
