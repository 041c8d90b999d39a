"""End-to-end: `graphrf attention` against the dense computation done here in numpy.

Inputs are made here: a 6 x 7 grid whose edge list has shuffled, non-contiguous ids, and Q/K/V files (2 heads
or 1, d = 4, d_v = 3) whose rows are in a shuffled node order given by /nodes/id. Outputs are read back in
ascending id order through the output file's own /nodes/id.

What is checked:
  * relu features (phi = max(x, 0) + relu_epsilon, queries divided by sqrt(d) only with --relu-scale) and elu1
    (phi = x + 1 for x > 0, exp(x) otherwise): /attention/output equals
        out = ((phi_q phi_k^T) o M) V / rowsum((phi_q phi_k^T) o M),   M = G G^T,  G = /grf (--save-grf)
    to 1e-10 relative, at 1 and 3 ranks (metis at 3, so the file's rows are not in id order). --save-grf
    writes head 0's GRF only, so the exact check of every head uses --shared-walks with one beta (all heads
    then share G); a 2-head run with a walk ensemble per head checks the layout (N x H x d_v, per-head
    statistics), head 0 exactly, and /attention/linear_unmasked of both heads (no mask) exactly;
  * /attention/stats/denominator_min is the smallest rowsum above, nnz_per_row the row lengths of /grf;
  * --estimator asymmetric: out = ((phi_q phi_k^T) o G) V / rowsum with G = /grf, and /kernel/f = /kernel/alpha;
  * --reference on the embedded default graph: the errors are printed and written to /attention/reference/*,
    and the error against the dense GRF-masked computation is below 1e-10;
  * synthetic Q/K/V (no --qkv) at 2 ranks: N x d_v output; with --synthetic d,d_v --heads 2 the output is
    N x 2 x d_v and the same at 1 and 2 ranks (the synthetic inputs are keyed by node id, not by rank).
"""

import os

import h5py
import numpy as np

import graphrf_e2e as e2e

ROWS, COLS = 6, 7
N = ROWS * COLS
D, DV, HEADS = 4, 3, 2
TOL = 1e-10


def graph_file(directory):
    text, ids, _ = e2e.grid_edge_list(ROWS, COLS, seed=5, id_base=50, id_step=3)
    return e2e.write(directory, "grid.edges", text), ids


def make_qkv(directory, ids, heads=HEADS, seed=0, name="qkv.h5"):
    """Q/K/V in ascending id order (returned) and written in a shuffled row order with /nodes/id."""
    rng = np.random.default_rng(seed)
    shape = (N, heads) if heads > 1 else (N,)
    q, k, v = rng.normal(size=shape + (D,)), rng.normal(size=shape + (D,)), rng.normal(size=shape + (DV,))
    perm = rng.permutation(N)
    path = e2e.write_qkv(os.path.join(directory, name), q[perm], k[perm], v[perm], ids=ids[perm])
    return path, q, k, v


class AttentionFile:
    def __init__(self, path):
        with h5py.File(path, "r") as f:
            self.names = set()
            f.visit(self.names.add)
            self.ids = f["nodes/id"][:]
            order = e2e.id_order(self.ids)
            self.output = f["attention/output"][:][order]
            self.linear = f["attention/linear_unmasked"][:][order]
            self.nnz = f["attention/stats/nnz_per_row"][:][order]
            self.denominator_min = f["attention/stats/denominator_min"][:]
            self.attrs = {k: e2e._plain(v) for k, v in f["attention"].attrs.items()}
            self.stats_attrs = {k: e2e._plain(v) for k, v in f["attention/stats"].attrs.items()}
            self.grf = e2e.permute_by_id(e2e.read_csr(f["grf"]), self.ids).toarray() if "grf" in f else None
            self.f = f["kernel/f"][:] if "kernel/f" in f else None
            self.alpha = f["kernel/alpha"][:] if "kernel/alpha" in f else None
            self.reference = {k: f["attention/reference"][k][:] for k in f["attention/reference"]} \
                if "attention/reference" in f else None


def attention(np_, directory, name, graph, *options):
    out = os.path.join(directory, name + ".h5")
    r = e2e.run(np_, ["attention", "--graph", graph, "--out", out] + [str(o) for o in options])
    assert r.graphrf_errors() == [], r.describe()
    assert not e2e.temporaries(out)
    return r, AttentionFile(out)


def relu(x, epsilon=1e-8, scale=1.0):
    return np.maximum(scale * x, 0.0) + epsilon


def elu1(x):
    return np.where(x > 0, x + 1.0, np.exp(np.minimum(x, 0.0)))


def dense_masked(phi_q, phi_k, v, mask):
    scores = (phi_q @ phi_k.T) * mask
    den = scores.sum(axis=1)
    return (scores @ v) / den[:, None], den


def head(x, h):
    return x[:, h, :] if x.ndim == 3 else x


def check_exact(r, o, q, k, v, feature_q, feature_k, mask_of_grf, heads, label):
    ctx = "\n[%s]\n%s" % (label, r.describe())
    assert o.output.shape == ((N, heads, DV) if heads > 1 else (N, DV)), (o.output.shape, ctx)
    assert o.linear.shape == o.output.shape, ctx
    mask = mask_of_grf(o.grf)
    for h in range(heads):
        pq, pk, vh = feature_q(head(q, h)), feature_k(head(k, h)), head(v, h)
        expected, den = dense_masked(pq, pk, vh, mask)
        err = e2e.relative_max_error(head(o.output, h), expected)
        assert err <= TOL, "head %d: output off by %g%s" % (h, err, ctx)
        assert abs(o.denominator_min[h] - den.min()) <= TOL * den.min(), (o.denominator_min, den.min(), ctx)
        linear, _ = dense_masked(pq, pk, vh, np.ones((N, N)))
        err = e2e.relative_max_error(head(o.linear, h), linear)
        assert err <= TOL, "head %d: linear_unmasked off by %g%s" % (h, err, ctx)
    res = r.result()
    assert int(res["nodes"]) == N and int(res["heads"]) == heads, ctx
    for h in range(heads):
        assert int(res["head%d_bad_rows" % h]) == 0, ctx
    assert o.stats_attrs["bad_rows"] == 0, o.stats_attrs


def symmetric_mask(g):
    return g @ g.T


def asymmetric_mask(g):
    return g


# ---------------------------------------------------------------------------------------------------------------

def test_relu_shared_walks_exact_at_1_and_3_ranks():
    with e2e.TempDir() as d:
        graph, ids = graph_file(d)
        qkv, q, k, v = make_qkv(d, ids)
        outputs = []
        for np_, partition in ((1, "block"), (3, "metis")):
            r, o = attention(np_, d, "np%d" % np_, graph, "--qkv", qkv, "--feature", "relu", "--save-grf",
                             "--shared-walks", "--partition", partition, "--walkers", 8)
            assert np.array_equal(np.sort(o.ids), ids)
            assert o.attrs == {"feature": "relu", "estimator": "symmetric"}, o.attrs
            check_exact(r, o, q, k, v, relu, relu, symmetric_mask, HEADS, "np=%d %s" % (np_, partition))
            # All heads share G (same walks, same beta): the row lengths of every head are those of /grf.
            assert o.nnz.shape == (N, HEADS) and np.all(o.nnz == np.count_nonzero(o.grf, axis=1)[:, None])
            outputs.append(o.output)
        assert e2e.relative_max_error(outputs[1], outputs[0]) <= 1e-12


def test_two_heads_with_their_own_walks():
    with e2e.TempDir() as d:
        graph, ids = graph_file(d)
        qkv, q, k, v = make_qkv(d, ids, seed=1)
        r, o = attention(2, d, "heads", graph, "--qkv", qkv, "--save-grf", "--by-length", "--head-betas", "1,2",
                         "--walkers", 8)
        ctx = r.describe()
        assert o.output.shape == o.linear.shape == (N, HEADS, DV), ctx
        assert o.nnz.shape == (N, HEADS) and o.denominator_min.shape == (HEADS,), ctx
        assert {"launch/attention/key_pass_seconds", "launch/attention/query_pass_seconds", "launch/attention/bytes_moved",
                "grf/data", "grf_by_length/data", "kernel/f"} <= o.names, o.names
        assert "attention/reference" not in o.names
        # /grf is head 0's: check head 0 exactly, head 1's unmasked baseline exactly.
        assert np.all(o.nnz[:, 0] == np.count_nonzero(o.grf, axis=1))
        assert np.any(o.nnz[:, 1] != o.nnz[:, 0]), "head 1 has its own walks"
        pq, pk = relu(q[:, 0]), relu(k[:, 0])
        expected, den = dense_masked(pq, pk, v[:, 0], symmetric_mask(o.grf))
        assert e2e.relative_max_error(o.output[:, 0], expected) <= TOL, ctx
        assert abs(o.denominator_min[0] - den.min()) <= TOL * den.min()
        for h in range(HEADS):
            linear, _ = dense_masked(relu(q[:, h]), relu(k[:, h]), v[:, h], np.ones((N, N)))
            assert e2e.relative_max_error(o.linear[:, h], linear) <= TOL, ctx
        # Head 1 (beta 2, its own G): positive scores, so every output row is a convex combination of V's rows.
        assert np.all(o.output[:, 1] >= v[:, 1].min(axis=0) - 1e-12) and np.all(o.output[:, 1] <= v[:, 1].max(axis=0) + 1e-12)
        assert not np.allclose(o.output[:, 1], o.linear[:, 1]), "head 1 is masked"


def test_elu1_and_relu_scale_single_head():
    with e2e.TempDir() as d:
        graph, ids = graph_file(d)
        qkv, q, k, v = make_qkv(d, ids, heads=1, seed=2)
        r, o = attention(2, d, "elu1", graph, "--qkv", qkv, "--feature", "elu1", "--save-grf", "--kernel",
                         "regularized-laplacian", "--beta", 0.5)
        assert o.attrs["feature"] == "elu1", o.attrs
        check_exact(r, o, q, k, v, elu1, elu1, symmetric_mask, 1, "elu1")
        assert o.nnz.shape == (N,)
        r, o = attention(3, d, "relu-scale", graph, "--qkv", qkv, "--relu-scale", "--relu-epsilon", 1e-3,
                         "--save-grf", "--partition", "ptscotch")
        check_exact(r, o, q, k, v, lambda x: relu(x, 1e-3, 1 / np.sqrt(D)), lambda x: relu(x, 1e-3), symmetric_mask, 1,
                    "relu-scale")


def test_asymmetric_estimator():
    with e2e.TempDir() as d:
        graph, ids = graph_file(d)
        qkv, q, k, v = make_qkv(d, ids, seed=3)
        for np_ in (1, 3):
            r, o = attention(np_, d, "asym%d" % np_, graph, "--qkv", qkv, "--estimator", "asymmetric", "--save-grf",
                             "--shared-walks", "--walkers", 8)
            assert o.attrs["estimator"] == "asymmetric", o.attrs
            assert np.array_equal(o.f, o.alpha), (o.f, o.alpha)
            check_exact(r, o, q, k, v, relu, relu, asymmetric_mask, HEADS, "asymmetric np=%d" % np_)


def test_reference_on_the_default_graph():
    with e2e.TempDir() as d:
        out = os.path.join(d, "ref.h5")
        r = e2e.run(2, ["attention", "--reference", "--walkers", 4, "--out", out])
        ctx = r.describe()
        res = r.result()
        assert int(res["nodes"]) == 32 * 32 and int(res["heads"]) == 1, ctx
        assert float(res["head0_error_vs_dense_grf"]) < 1e-10, ctx
        assert 0 < float(res["head0_error_vs_masked_linear"]) < 1, ctx
        lines = r.lines_starting("reference")
        assert len(lines) == 1 and "dense GRF-masked" in lines[0] and "softmax" in lines[0], ctx
        o = AttentionFile(out)
        assert set(o.reference) == {"error_vs_dense_grf", "error_vs_masked_linear", "error_vs_masked_softmax",
                                    "error_vs_softmax", "error_vs_unmasked_linear", "error_vs_kernel",
                                    "error_vs_masked_kernel"}, o.reference
        assert all(x.shape == (1,) and np.all(np.isfinite(x)) for x in o.reference.values()), o.reference
        assert o.reference["error_vs_dense_grf"][0] < 1e-10, o.reference
        assert o.reference["error_vs_masked_linear"][0] > 0 and o.reference["error_vs_softmax"][0] > 0, o.reference
        printed, written = float(res["head0_error_vs_dense_grf"]), o.reference["error_vs_dense_grf"][0]
        assert abs(printed - written) <= 1e-5 * written, (printed, written)  # printed with 6 digits
        assert o.output.shape == (1024, 8)


def test_synthetic_inputs():
    with e2e.TempDir() as d:
        out = os.path.join(d, "default.h5")
        r = e2e.run(2, ["attention", "--walkers", 4, "--out", out])
        o = AttentionFile(out)
        assert o.output.shape == o.linear.shape == (1024, 8), o.output.shape
        assert np.all(np.isfinite(o.output)) and int(r.result()["heads"]) == 1
        graph, ids = graph_file(d)
        outputs = []
        for np_ in (1, 2):
            r, o = attention(np_, d, "synthetic%d" % np_, graph, "--synthetic", "5,3", "--heads", 2)
            assert o.output.shape == (N, 2, 3), o.output.shape
            assert np.array_equal(np.sort(o.ids), ids)
            outputs.append(o.output)
        assert e2e.relative_max_error(outputs[1], outputs[0]) <= 1e-12


if __name__ == "__main__":
    e2e.main(globals())
