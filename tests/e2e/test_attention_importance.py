"""End-to-end: `graphrf attention --feature favor --draw importance` (importance-sampled positive random
features, Farzam et al. 2026, "Data-aware random feature kernel for transformers", Lemma 3.1, Theorem 3.2).

Inputs are made here: a 17 x 17 grid (289 nodes, more than one 256-row block of the reproducible sums) with
shuffled ids, and Q/K/V whose queries and keys are anisotropic (covariance eigenvalues spread 100x).

What is checked:
  * /attention/importance_sigma is Sigma* = (I + 2 Lambda)(I - 2 Lambda)^-1 with Lambda the covariance of the
    pooled queries and keys scaled by d^-1/4, computed here with numpy (to 1e-12);
  * rank invariance: Sigma* has the same bits at 1, 2, 3 and 4 ranks (metis at 3, so rows move), and the
    attention output agrees to 1e-12 (the distributed attention sums differ in the last bits between rank
    counts for every feature map, not only this one);
  * queries and keys too large for Sigma* (an eigenvalue of 2 Lambda >= 1): one error line naming the options
    that work, no output; --draw importance with another feature map: one error line naming --draw.
"""

import os

import h5py
import numpy as np

import graphrf_e2e as e2e

ROWS = COLS = 17
N = ROWS * COLS
D, DV = 4, 3


def inputs(directory, scale=1.0):
    text, ids, _ = e2e.grid_edge_list(ROWS, COLS, seed=3, id_base=10, id_step=5)
    graph = e2e.write(directory, "grid.edges", text)
    rng = np.random.default_rng(7)
    rotation, _ = np.linalg.qr(rng.normal(size=(D, D)))
    std = np.sqrt([0.5, 0.15, 0.05, 0.005]) * scale  # before the d^-1/4 scaling: eigenvalues / sqrt(d)
    q = rng.normal(size=(N, D)) * std @ rotation.T
    k = rng.normal(size=(N, D)) * std @ rotation.T
    v = rng.normal(size=(N, DV))
    path = e2e.write_qkv(os.path.join(directory, "qkv%g.h5" % scale), q, k, v, ids=ids)
    return graph, path, q, k


def theorem_sigma(q, k):
    x = np.vstack([q, k]) * D ** -0.25
    lam = np.cov(x, rowvar=False)  # one mean, divides by 2N - 1
    i = np.eye(D)
    return (i + 2 * lam) @ np.linalg.inv(i - 2 * lam), lam


def run(np_, directory, graph, qkv, *extra):
    out = os.path.join(directory, "imp%d.h5" % np_)
    args = ["attention", "--graph", graph, "--qkv", qkv, "--feature", "favor", "--draw", "importance",
            "--num-features", 16, "--walkers", 4, "--out", out] + list(extra)
    if np_ == 3:
        args += ["--partition", "metis"]
    r = e2e.run(np_, args)
    assert r.graphrf_errors() == [], r.describe()
    with h5py.File(out, "r") as f:
        order = e2e.id_order(f["nodes/id"][:])
        return f["attention/importance_sigma"][:], f["attention/output"][:][order]


def test_sigma_star_is_theorem_3_2_and_the_same_bits_at_1_to_4_ranks():
    with e2e.TempDir() as d:
        graph, qkv, q, k = inputs(d)
        expected, lam = theorem_sigma(q, k)
        eig = np.linalg.eigvalsh(lam)
        assert eig.max() < 0.5 and eig.max() / eig.min() > 50, eig  # anisotropic and valid
        sigma1, out1 = run(1, d, graph, qkv)
        assert sigma1.shape == (D, D)
        assert np.abs(sigma1 - expected).max() <= 1e-12 * np.abs(expected).max(), (sigma1, expected)
        for np_ in (2, 3, 4):
            sigma, out = run(np_, d, graph, qkv)
            assert np.array_equal(sigma.view(np.uint64), sigma1.view(np.uint64)), (np_, sigma - sigma1)
            assert e2e.relative_max_error(out, out1) <= 1e-12, np_


def test_sigma_star_that_is_not_a_covariance_is_refused():
    with e2e.TempDir() as d:
        graph, qkv, q, k = inputs(d, scale=1.5)  # largest eigenvalue of Lambda 0.56 > 1/2
        e2e.expect_error(2, ["attention", "--graph", graph, "--qkv", qkv, "--feature", "favor", "--draw", "importance",
                             "--out", "{out}"], "--draw importance:", ">= 1/2", "--draw orthogonal", "--feature dark",
                         directory=d)
        e2e.expect_error(2, ["attention", "--graph", graph, "--qkv", qkv, "--feature", "dark", "--draw", "importance",
                             "--out", "{out}"], "--draw: importance is for --feature favor only", directory=d)


if __name__ == "__main__":
    e2e.main(globals())
