"""End-to-end: `graphrf wavelet` (random wavelet features) on a 10 x 10 grid whose edge list has shuffled,
non-contiguous ids, read back in ascending /nodes/id order.

What is checked:
  * /embedding is N x (K + r) with r = max(K/10, 15) by default (both branches: K = 8 gives r = 15, K = 170 on
    a 14 x 14 grid gives r = 17) or --oversample; /spectrum has lambda_K, the Chebyshev coefficients
    (degree + 1 of each) and the rank/oversample attributes, which the RESULT line repeats;
  * the embedding is bitwise the same at 1 and 3 ranks and with the metis partitioner (the random draws are
    keyed by node, and every reduction runs in a fixed order);
  * --reference: the four error attributes exist; recomputed here from the embedding against scipy's
    h(L) = expm(-beta L) (L = I - D^-1/2 A D^-1/2 from the independent reader) they match to 1e-8:
      relative spectral error  ||Phi Phi^T - h(L)||_2 / ||h(L)||_2,
      relative Frobenius error ||Phi Phi^T - h(L)||_F / ||h(L)||_F,
      best rank-K errors from the eigenvalues of h(L) (h_(K+1) / h_1 and the tail's share of ||h(L)||_F);
    and the spectral error is at most 2 x the best rank-K spectral error. On this grid (diffusion, beta 5,
    K = 8) the error is ~0.08 against a best rank-K error of ~0.31: the embedding has K + r = 23 columns, so
    it beats the rank-K optimum, while an absolute bound such as 1e-2 is out of reach at K = 8 (the 9th
    eigenvalue of h(L) is still 0.31 of the first).
"""

import os

import h5py
import numpy as np
import scipy.linalg

import graphrf_e2e as e2e

ROWS = COLS = 10
N = ROWS * COLS
K, BETA = 8, 5.0


class WaveletFile:
    def __init__(self, path):
        with h5py.File(path, "r") as f:
            self.ids = f["nodes/id"][:]
            self.embedding = f["embedding"][:][e2e.id_order(self.ids)]
            self.embedding_attrs = {k: e2e._plain(v) for k, v in f["embedding"].attrs.items()}
            self.spectrum_attrs = {k: e2e._plain(v) for k, v in f["spectrum"].attrs.items()}
            self.lambda_k = f["spectrum/lambda_K"][:]
            self.coefficients_chi = f["spectrum/coefficients_chi"][:]
            self.coefficients_h = f["spectrum/coefficients_h"][:]


def wavelet(np_, directory, name, graph, *options):
    out = os.path.join(directory, name + ".h5")
    r = e2e.run(np_, ["wavelet", "--graph", graph, "--out", out] + [str(o) for o in options])
    assert r.graphrf_errors() == [], r.describe()
    assert not e2e.temporaries(out)
    return r, WaveletFile(out)


def graph_file(directory):
    text, ids, _ = e2e.grid_edge_list(ROWS, COLS, seed=7)
    return e2e.write(directory, "grid.edges", text), ids


def check_shape(r, o, n, rank, oversample):
    ctx = r.describe()
    assert o.embedding.shape == (n, rank + oversample), (o.embedding.shape, ctx)
    assert np.all(np.isfinite(o.embedding))
    assert o.spectrum_attrs["rank"] == rank and o.spectrum_attrs["oversample"] == oversample, o.spectrum_attrs
    assert "diffusion" in o.spectrum_attrs["kernel"], o.spectrum_attrs
    assert len(o.coefficients_chi) == 61 and len(o.coefficients_h) == 31  # --degree-chi 60, --degree-h 30
    assert o.lambda_k.shape == (1,) and 0 < o.lambda_k[0] < 2, o.lambda_k
    res = r.result()
    assert (int(res["nodes"]), int(res["embedding_dim"]), int(res["oversample"])) == (n, rank, oversample), ctx
    assert "rank" not in res, ctx  # the key follows the option (--embedding-dim), not MPI ranks
    assert abs(float(res["lambda_k"]) - o.lambda_k[0]) <= 1e-5 * o.lambda_k[0], ctx


# ---------------------------------------------------------------------------------------------------------------

def test_embedding_same_at_every_rank_count():
    with e2e.TempDir() as d:
        graph, ids = graph_file(d)
        first = None
        for np_, partition in ((1, "block"), (3, "block"), (3, "metis")):
            r, o = wavelet(np_, d, "np%d-%s" % (np_, partition), graph, "--embedding-dim", K, "--kernel", "diffusion",
                           "--beta", BETA, "--partition", partition)
            check_shape(r, o, N, K, 15)
            assert np.array_equal(np.sort(o.ids), ids)
            assert o.embedding_attrs == {}, "no error attributes without --reference"
            if first is None:
                first = o
            else:
                assert np.array_equal(o.embedding, first.embedding), "np=%d %s: max difference %g" % (
                    np_, partition, np.abs(o.embedding - first.embedding).max())
                assert np.array_equal(o.lambda_k, first.lambda_k)


def test_oversampling_rule_and_option():
    with e2e.TempDir() as d:
        graph, _ = graph_file(d)
        r, o = wavelet(2, d, "r4", graph, "--embedding-dim", K, "--beta", BETA, "--oversample", 4)
        check_shape(r, o, N, K, 4)
        r, o = wavelet(2, d, "big", "grid:14x14", "--embedding-dim", 170, "--beta", BETA)
        check_shape(r, o, 196, 170, 17)  # max(170/10, 15) = 17


def test_reference_errors():
    with e2e.TempDir() as d:
        graph, _ = graph_file(d)
        ref = e2e.read_graph(graph)
        L = np.eye(ref.n) - ref.matrix(True).toarray()
        exact = scipy.linalg.expm(-BETA * L)
        h = np.sort(np.linalg.eigvalsh(exact))[::-1]
        best_spectral = h[K] / h[0]
        best_frobenius = np.sqrt(np.sum(h[K:] ** 2) / np.sum(h ** 2))
        # The embedding has K + r = K + 15 columns: the best rank-(K + r) errors are reported next to rank K's.
        best_spectral_kr = h[K + 15] / h[0]
        best_frobenius_kr = np.sqrt(np.sum(h[K + 15:] ** 2) / np.sum(h ** 2))
        results = []
        for np_ in (1, 3):
            r, o = wavelet(np_, d, "ref%d" % np_, graph, "--embedding-dim", K, "--kernel", "diffusion", "--beta", BETA,
                           "--reference")
            check_shape(r, o, N, K, 15)
            a = o.embedding_attrs
            assert set(a) == {"relative_spectral_error", "relative_frobenius_error", "best_rank_k_spectral_error",
                              "best_rank_k_frobenius_error", "best_rank_k_plus_r_spectral_error",
                              "best_rank_k_plus_r_frobenius_error"}, a
            assert abs(a["best_rank_k_plus_r_spectral_error"] - best_spectral_kr) <= 1e-8, (a, best_spectral_kr)
            assert abs(a["best_rank_k_plus_r_frobenius_error"] - best_frobenius_kr) <= 1e-8, (a, best_frobenius_kr)
            diff = o.embedding @ o.embedding.T - exact
            spectral = np.linalg.norm(diff, 2) / np.linalg.norm(exact, 2)
            frobenius = np.linalg.norm(diff) / np.linalg.norm(exact)
            assert abs(a["relative_spectral_error"] - spectral) <= 1e-8, (a, spectral)
            assert abs(a["relative_frobenius_error"] - frobenius) <= 1e-8, (a, frobenius)
            assert abs(a["best_rank_k_spectral_error"] - best_spectral) <= 1e-8, (a, best_spectral)
            assert abs(a["best_rank_k_frobenius_error"] - best_frobenius) <= 1e-8, (a, best_frobenius)
            assert spectral <= 2 * best_spectral, (spectral, best_spectral)
            res = r.result()
            for key, attr in (("spectral_error", "relative_spectral_error"),
                              ("best_spectral_error", "best_rank_k_spectral_error"),
                              ("frobenius_error", "relative_frobenius_error"),
                              ("best_frobenius_error", "best_rank_k_frobenius_error")):
                assert abs(float(res[key]) - a[attr]) <= 1e-5 * a[attr], (key, res[key], a[attr])
            print("      np=%d: spectral error %.4g (best rank-%d %.4g), Frobenius %.4g (best %.4g)"
                  % (np_, spectral, K, best_spectral, frobenius, best_frobenius), flush=True)
            results.append(o.embedding)
        assert np.array_equal(results[0], results[1])


if __name__ == "__main__":
    e2e.main(globals())
