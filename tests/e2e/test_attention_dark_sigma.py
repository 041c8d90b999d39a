"""End-to-end: `graphrf attention --feature dark --dark-sigma FILE` (a Sigma from outside, /sigma d x d or /M
r x d with Sigma = M^T M; Farzam et al. 2026, "Data-aware random feature kernel for transformers", Eq. 3).

Inputs are made here: a 6 x 7 grid with shuffled ids, Q/K/V with d = 4, and Sigma files.

What is checked:
  * the reference uses the given Sigma: /attention/reference/error_vs_kernel equals the relative error of
    /attention/output against exp(Q Sigma K^T / sqrt(d)) V / rowsum computed here (to 1e-9), for /sigma and for /M;
  * the features use it: /M = 0 makes every feature the constant m^-1/2, so the output is the GRF-masked mean
    (G G^T) V / rowsum(G G^T) with G = /grf (--save-grf), to 1e-10;
  * bad files and options: one error line naming the file (or option) and what is wrong, no output.
"""

import os

import h5py
import numpy as np

import graphrf_e2e as e2e

ROWS, COLS = 6, 7
N = ROWS * COLS
D, DV = 4, 3


def inputs(directory):
    text, ids, _ = e2e.grid_edge_list(ROWS, COLS, seed=11, id_base=3, id_step=2)
    graph = e2e.write(directory, "grid.edges", text)
    rng = np.random.default_rng(4)
    q, k, v = rng.normal(size=(N, D)) * 0.7, rng.normal(size=(N, D)) * 0.7, rng.normal(size=(N, DV))
    return graph, e2e.write_qkv(os.path.join(directory, "qkv.h5"), q, k, v, ids=ids), ids, q, k, v


def sigma_file(directory, name, **datasets):
    path = os.path.join(directory, name)
    with h5py.File(path, "w") as f:
        for key, value in datasets.items():
            f[key] = value
    return path


def dark(np_, directory, graph, qkv, sigma, name, *extra):
    out = os.path.join(directory, name + ".h5")
    r = e2e.run(np_, ["attention", "--graph", graph, "--qkv", qkv, "--feature", "dark", "--dark-sigma", sigma,
                      "--num-features", 64, "--walkers", 8, "--out", out] + [str(x) for x in extra])
    assert r.graphrf_errors() == [], r.describe()
    return r, h5py.File(out, "r")


def test_reference_and_features_use_the_given_sigma():
    with e2e.TempDir() as d:
        graph, qkv, ids, q, k, v = inputs(d)
        m = np.array([[0.9, 0.2, 0.0, -0.3], [0.1, 0.5, 0.4, 0.0], [0.0, -0.2, 0.3, 0.6]])  # r = 3 < d
        for label, path, sigma in (("M", sigma_file(d, "m.h5", M=m), m.T @ m),
                                   ("sigma", sigma_file(d, "s.h5", sigma=m.T @ m + 0.1 * np.eye(D)),
                                    m.T @ m + 0.1 * np.eye(D))):
            for np_ in (1, 3):
                _, f = dark(np_, d, graph, qkv, path, "%s%d" % (label, np_), "--reference")
                with f:
                    out = f["attention/output"][:][e2e.id_order(f["nodes/id"][:])]
                    written = f["attention/reference/error_vs_kernel"][0]
                logits = q @ sigma @ k.T / np.sqrt(D)
                scores = np.exp(logits - logits.max(axis=1, keepdims=True))
                ref = scores @ v / scores.sum(axis=1, keepdims=True)
                expected = np.linalg.norm(out - ref) / np.linalg.norm(ref)
                assert abs(written - expected) <= 1e-9 * expected, (label, np_, written, expected)


def test_zero_m_gives_the_grf_masked_mean():
    with e2e.TempDir() as d:
        graph, qkv, ids, q, k, v = inputs(d)
        path = sigma_file(d, "zero.h5", M=np.zeros((2, D)))
        _, f = dark(2, d, graph, qkv, path, "zero_run", "--save-grf")
        with f:
            file_ids = f["nodes/id"][:]
            out = f["attention/output"][:][e2e.id_order(file_ids)]
            g = e2e.permute_by_id(e2e.read_csr(f["grf"]), file_ids).toarray()
        mask = g @ g.T
        expected = mask @ v / mask.sum(axis=1, keepdims=True)
        assert e2e.relative_max_error(out, expected) <= 1e-10


def test_bad_sigma_files_and_options():
    with e2e.TempDir() as d:
        graph, qkv, ids, q, k, v = inputs(d)
        good = sigma_file(d, "good.h5", sigma=np.eye(D))
        cases = [
            (sigma_file(d, "none.h5", other=np.eye(D)), ["has neither /sigma (d x d) nor /M (r x d)"]),
            (sigma_file(d, "both.h5", sigma=np.eye(D), M=np.eye(D)), ["has both /sigma and /M"]),
            (sigma_file(d, "shape.h5", sigma=np.eye(3)), ["/sigma is 3 x 3, expected d x d = 4 x 4"]),
            (sigma_file(d, "tall.h5", M=np.ones((5, D))), ["/M is 5 x 4, expected r x d with 1 <= r <= d = 4"]),
            (sigma_file(d, "asym.h5", sigma=np.eye(D) + np.triu(np.ones((D, D)), 1)), ["/sigma is not symmetric"]),
            (sigma_file(d, "neg.h5", sigma=np.diag([1.0, 1.0, -0.5, 1.0])),
             ["/sigma is not positive semidefinite (smallest eigenvalue -0.5)"]),
            (sigma_file(d, "nan.h5", M=np.full((2, D), np.nan)), ["/M has NaN or infinite entries"]),
        ]
        for path, needles in cases:
            e2e.expect_error(2, ["attention", "--graph", graph, "--qkv", qkv, "--feature", "dark", "--dark-sigma", path,
                                 "--out", "{out}"], "--dark-sigma " + path + ": ", *needles, directory=d)
        e2e.expect_error(2, ["attention", "--graph", graph, "--qkv", qkv, "--feature", "favor", "--dark-sigma", good,
                             "--out", "{out}"], "--dark-sigma: only for --feature dark (got favor)", directory=d)
        e2e.expect_error(2, ["attention", "--graph", graph, "--qkv", qkv, "--feature", "dark", "--dark-sigma", good,
                             "--dark-ridge", 0.1, "--out", "{out}"], "--dark-ridge:", "--dark-sigma", directory=d)
        e2e.expect_error(1, ["attention", "--graph", graph, "--qkv", qkv, "--feature", "dark", "--dark-sigma",
                             os.path.join(d, "missing.h5"), "--out", "{out}"], "--dark-sigma", "missing.h5", directory=d)
        # --out must not overwrite the Sigma file.
        before = open(good, "rb").read()
        r = e2e.run(2, ["attention", "--graph", graph, "--qkv", qkv, "--feature", "dark", "--dark-sigma", good,
                        "--out", good], check=False)
        assert r.returncode != 0 and len(r.graphrf_errors()) == 1 and "--dark-sigma" in r.graphrf_errors()[0], r.describe()
        assert open(good, "rb").read() == before


if __name__ == "__main__":
    e2e.main(globals())
