"""End-to-end: `graphrf grf` on small graphs, its HDF5 file read back with h5py and scipy.

What is checked:
  * layout: /grf is an anndata CSR (encoding-type csr_matrix, encoding-version 0.1.0, shape N x N) that
    scipy.sparse.csr_matrix reads, columns ascending within a row; /grf_by_length (indptr, indices, length as
    int32, data) is sorted by (row, col, length), and Phi = sum_t f_t M_t rebuilt here from it equals /grf to
    1e-12 with the same pattern; /kernel/f * /kernel/alpha: f convolved with itself is alpha to 1e-12 (and
    both are the diffusion series written out here); /walks: hops = sum_t t * length_histogram[t],
    walks = N * n = sum(length_histogram) with walkers_per_node = n, and the RESULT line agrees;
  * walk once, mask many: the same walks rebuilt with the regularized-Laplacian f computed here equal a fresh
    `--kernel regularized-laplacian` run with the same seed (whose /grf_by_length is bitwise the diffusion
    run's);
  * the same /grf, bitwise, at 1, 2, 3 and 4 ranks and with the block, metis and ptscotch partitioners, once
    rows and columns are permuted into ascending /nodes/id order (a grid whose edge list has shuffled,
    non-contiguous ids); /grf_by_length and the walk statistics are the same too;
  * --reference: /kernel/exact equals scipy's expm(-beta L) (diffusion, karate) and numpy's
    inv(I + beta L)^power (regularized Laplacian, the grid) to 1e-10, with L = I - D^-1/2 A D^-1/2 built by
    the independent reader in graphrf_e2e; the relative error (attribute, root attribute and RESULT line)
    equals ||Phi Phi^T - M||_F / ||M||_F recomputed here to 1e-10;
  * --estimator two-ensembles writes /grf2 (its own walks; the error is that of (Phi1 Phi2^T + Phi2 Phi1^T)/2)
    and asymmetric writes /kernel/f equal to /kernel/alpha (the error is that of Phi itself);
  * --weights combinatorial (kernels of L = D - A): /kernel/exact equals scipy's expm(-beta (D - A)) on
    karate to 1e-10 with A from the independent reader, /kernel/alpha is the diffusion series of beta * d_max,
    the printed error is the one recomputed here and small (< 0.1 with 256 walkers), the sampled reference
    over every node (Chebyshev on D - A itself) gives the same error, and /grf is bitwise the same at 1 and
    3 ranks; kernels that are not functions of L, --scale, and PageRank targets are refused in one
    line; `info --weights combinatorial` writes A (the input graph, no self-loops) with laplacian "D - A";
  * without --out nothing is written (the run's directory keeps only its input).
"""

import math
import os

import h5py
import numpy as np
import scipy.linalg
import scipy.sparse as sp

import graphrf_e2e as e2e

ROWS, COLS = 6, 7  # 42 nodes
N = ROWS * COLS


class GrfFile:
    """The datasets and attributes of a `graphrf grf --out` file (matrices in the file's row order)."""

    def __init__(self, path):
        with h5py.File(path, "r") as f:
            self.names = set()
            f.visit(self.names.add)
            self.ids = f["nodes/id"][:]
            self.grf_attrs = {k: e2e._plain(v) for k, v in f["grf"].attrs.items()}
            self.grf_index_dtypes = (f["grf/indptr"].dtype, f["grf/indices"].dtype)
            self.grf = e2e.read_csr(f["grf"])
            self.grf2 = e2e.read_csr(f["grf2"]) if "grf2" in f else None
            b = f["grf_by_length"]
            self.bl_attrs = {k: e2e._plain(v) for k, v in b.attrs.items()}
            self.bl_indptr, self.bl_indices = b["indptr"][:], b["indices"][:]
            self.bl_length, self.bl_data = b["length"][:], b["data"][:]
            self.bl_length_dtype = b["length"].dtype
            self.f, self.alpha = f["kernel/f"][:], f["kernel/alpha"][:]
            self.kernel_attrs = {k: e2e._plain(v) for k, v in f["kernel"].attrs.items()}
            self.exact = f["kernel/exact"][:] if "kernel/exact" in f else None
            self.walk_attrs = {k: e2e._plain(v) for k, v in f["walks"].attrs.items()}
            self.histogram = f["walks/length_histogram"][:]
            self.root_attrs = {k: e2e._plain(v) for k, v in f.attrs.items()}

    def by_id(self, matrix=None):
        return e2e.permute_by_id(self.grf if matrix is None else matrix, self.ids)

    def by_length_canonical(self):
        """(row id, column id, length, value) of every /grf_by_length entry, sorted: independent of row order."""
        rows = np.repeat(np.arange(len(self.bl_indptr) - 1), np.diff(self.bl_indptr))
        table = np.rec.fromarrays([self.ids[rows], self.ids[self.bl_indices], self.bl_length, self.bl_data],
                                  names="row,col,length,value")
        return np.sort(table, order=["row", "col", "length"])

    def rebuild(self, f):
        """sum_t f_t M_t from /grf_by_length, dense, in the file's order."""
        rows = np.repeat(np.arange(len(self.bl_indptr) - 1), np.diff(self.bl_indptr))
        terms = np.where(self.bl_length < len(f), np.asarray(f)[np.minimum(self.bl_length, len(f) - 1)], 0.0)
        dense = np.zeros(self.grf.shape)
        np.add.at(dense, (rows, self.bl_indices), terms * self.bl_data)
        return dense


def grid_file(directory):
    text, ids, _ = e2e.grid_edge_list(ROWS, COLS, seed=3)
    return e2e.write(directory, "grid.edges", text), ids


def karate_file(directory):
    path = os.path.join(directory, "karate.edges")
    with open(os.path.join(e2e.DATA_DIR, "karate.edges")) as src, open(path, "w") as dst:
        dst.write(src.read())
    return path


def grf(np_, directory, name, graph, *options):
    out = os.path.join(directory, name + ".h5")
    r = e2e.run(np_, ["grf", "--graph", graph, "--by-length", "--out", out] + [str(o) for o in options])
    assert r.graphrf_errors() == [], r.describe()
    assert not e2e.temporaries(out)
    return r, GrfFile(out)


def laplacian(path):
    """L = I - D^-1/2 A D^-1/2 in ascending id order, from the independent reader."""
    ref = e2e.read_graph(path)
    return np.eye(ref.n) - ref.matrix(True).toarray(), ref


def relative_frobenius(estimate, exact):
    return np.linalg.norm(estimate - exact) / np.linalg.norm(exact)


def diffusion_series(beta, terms):
    alpha = np.array([math.exp(-beta) * beta ** k / math.factorial(k) for k in range(terms)])
    f = np.array([math.exp(-beta / 2) * (beta / 2) ** k / math.factorial(k) for k in range(terms)])
    return alpha, f


def regularized_laplacian_f(beta, power, terms):
    """Taylor coefficients of sqrt((1 + beta (1 - x))^-power) = (1+beta)^-power/2 (1 - c x)^-power/2,
    c = beta / (1 + beta): f_k = (1+beta)^-power/2 Gamma(power/2 + k) / (Gamma(power/2) k!) c^k."""
    c = beta / (1.0 + beta)
    return np.array([(1.0 + beta) ** (-power / 2) * math.gamma(power / 2 + k) / (math.gamma(power / 2) * math.factorial(k))
                     * c ** k for k in range(terms)])


def check_layout(r, o, n, walkers, max_length=32):
    ctx = r.describe()
    # /grf: anndata CSR that scipy reads.
    assert o.grf_attrs["encoding-type"] == "csr_matrix" and o.grf_attrs["encoding-version"] == "0.1.0", o.grf_attrs
    assert o.grf_attrs["shape"] == [n, n], o.grf_attrs
    assert all(np.issubdtype(t, np.integer) for t in o.grf_index_dtypes), o.grf_index_dtypes
    o.grf.check_format(full_check=True)
    assert o.grf.has_sorted_indices and np.all(np.diff(o.grf.indptr) > 0), "every row has its start node"
    for i in range(n):
        assert np.all(np.diff(o.grf.indices[o.grf.indptr[i]:o.grf.indptr[i + 1]]) > 0), "row %d columns" % i
    assert sorted(o.ids.tolist()) == sorted(set(o.ids.tolist())) and len(o.ids) == n
    assert {"grf/data", "grf/indices", "grf/indptr", "nodes/id", "nodes/partition", "kernel/f", "kernel/alpha",
            "walks/length_histogram", "config"} <= o.names, o.names

    # /grf_by_length: sorted by (row, col, length); Phi = sum_t f_t M_t.
    assert o.bl_length_dtype == np.int32, o.bl_length_dtype
    assert o.bl_attrs["shape"] == [n, n] and o.bl_attrs["max_length"] == max_length, o.bl_attrs
    ip = o.bl_indptr
    assert len(ip) == n + 1 and ip[0] == 0 and ip[-1] == len(o.bl_indices) == len(o.bl_length) == len(o.bl_data)
    assert o.bl_length.min() >= 0 and o.bl_length.max() <= max_length
    assert o.bl_indices.min() >= 0 and o.bl_indices.max() < n
    for i in range(n):
        col, length = o.bl_indices[ip[i]:ip[i + 1]], o.bl_length[ip[i]:ip[i + 1]]
        key = col.astype(np.int64) * (max_length + 1) + length
        assert np.all(np.diff(key) > 0), "row %d of /grf_by_length is not sorted by (col, length)" % i
        assert set(col.tolist()) == set(o.grf.indices[o.grf.indptr[i]:o.grf.indptr[i + 1]].tolist()), "row %d pattern" % i
    # Length 0: each of the n walks deposits load 1 at its start node, so M_0 = I exactly.
    zero = o.bl_length == 0
    rows = np.repeat(np.arange(n), np.diff(ip))
    assert np.array_equal(rows[zero], o.bl_indices[zero]) and np.all(o.bl_data[zero] == 1.0) and zero.sum() == n
    rebuilt = o.rebuild(o.f)
    err = e2e.relative_max_error(o.grf.toarray(), rebuilt)
    assert err <= 1e-12, "Phi = sum_t f_t M_t off by %g" % err

    # /kernel: alpha = f * f; the asymmetric estimator's f is alpha itself (f^(1) = alpha, f^(2) = delta_0).
    assert len(o.f) == len(o.alpha) == max_length + 1
    if o.kernel_attrs["estimator"] == "asymmetric":
        assert np.array_equal(o.f, o.alpha), (o.f, o.alpha)
    else:
        conv = np.convolve(o.f, o.f)[:len(o.alpha)]
        assert e2e.relative_max_error(conv, o.alpha) <= 1e-12, (conv, o.alpha)

    # /walks.
    hist = o.histogram
    w = o.walk_attrs
    assert len(hist) == max_length + 1 and hist.min() >= 0, hist
    assert w["hops"] == int(np.sum(np.arange(len(hist)) * hist)), (w, hist)
    assert w["walks"] == n * walkers == int(hist.sum()) and w["walkers_per_node"] == walkers, (w, hist)
    assert w["dead_ends"] == 0, w  # no isolated nodes
    res = r.result()
    assert int(res["nodes"]) == n and int(res["walks"]) == w["walks"] and int(res["hops"]) == w["hops"], ctx
    assert int(res["walkers_per_node"]) == walkers, ctx
    nnz = np.diff(o.grf.indptr)
    assert (o.grf_attrs["nnz_per_row_min"], o.grf_attrs["nnz_per_row_max"]) == (nnz.min(), nnz.max()), o.grf_attrs
    assert int(res["nnz_max"]) == nnz.max(), ctx


# ---------------------------------------------------------------------------------------------------------------

def test_layout_by_length_kernel_and_walks():
    with e2e.TempDir() as d:
        graph, ids = grid_file(d)
        r, o = grf(2, d, "diffusion", graph, "--walkers", 24, "--beta", 1.5)
        check_layout(r, o, N, 24)
        assert np.array_equal(np.sort(o.ids), ids)
        alpha, f = diffusion_series(1.5, 33)
        assert e2e.relative_max_error(o.alpha, alpha) <= 1e-13 and e2e.relative_max_error(o.f, f) <= 1e-13
        assert o.kernel_attrs["estimator"] == "symmetric" and o.kernel_attrs["weights"] == "normalized", o.kernel_attrs
        assert o.exact is None
        assert "grf2" not in o.names and "relative_frobenius_error" not in o.kernel_attrs


def test_walk_once_mask_many():
    """The walks depend on the seed, not on the kernel: the diffusion run's M_t with the regularized
    Laplacian's f (computed here) is a fresh regularized-laplacian run."""
    with e2e.TempDir() as d:
        graph, _ = grid_file(d)
        _, diffusion = grf(3, d, "diffusion", graph, "--seed", 11)
        r, reg = grf(3, d, "reg", graph, "--seed", 11, "--kernel", "regularized-laplacian", "--beta", 0.8,
                     "--power", 2)
        check_layout(r, reg, N, 16)
        f = regularized_laplacian_f(0.8, 2.0, 33)
        assert e2e.relative_max_error(reg.f, f) <= 1e-12, (reg.f, f)
        assert np.array_equal(reg.ids, diffusion.ids)
        assert np.array_equal(reg.by_length_canonical(), diffusion.by_length_canonical()), "walks differ"
        rebuilt = diffusion.rebuild(f)
        err = e2e.relative_max_error(reg.grf.toarray(), rebuilt)
        assert err <= 1e-12, "walk once, mask many: off by %g" % err


def test_same_grf_at_every_rank_count_and_partitioner():
    with e2e.TempDir() as d:
        graph, ids = grid_file(d)
        runs = [(1, "block"), (2, "block"), (3, "block"), (4, "block"), (2, "metis"), (3, "ptscotch"), (4, "metis")]
        first = None
        for np_, partition in runs:
            r, o = grf(np_, d, "np%d-%s" % (np_, partition), graph, "--walkers", 32, "--partition", partition)
            label = "np=%d partition=%s" % (np_, partition)
            assert np.array_equal(np.sort(o.ids), ids), label
            assert o.walk_attrs["walks"] == 32 * N, label
            current = (label, o.by_id(), o.by_length_canonical(), o.histogram, o.walk_attrs["hops"], o.ids)
            if first is None:
                first = current
                continue
            assert e2e.csr_equal(current[1], first[1]), "/grf of %s and %s differ (max %g)" % (
                label, first[0], abs(current[1] - first[1]).max())
            assert np.array_equal(current[2], first[2]), "/grf_by_length of %s and %s differ" % (label, first[0])
            assert np.array_equal(current[3], first[3]) and current[4] == first[4], (label, current[3], first[3])
            if partition != "block":
                print("      %s: rows not in id order: %s" % (label, not np.all(np.diff(o.ids) > 0)), flush=True)


def test_reference_diffusion_karate():
    with e2e.TempDir() as d:
        graph = karate_file(d)
        L, ref = laplacian(graph)
        beta = 0.7
        exact = scipy.linalg.expm(-beta * L)
        for np_, partition in ((1, "block"), (3, "metis")):
            r, o = grf(np_, d, "karate-np%d" % np_, graph, "--beta", beta, "--walkers", 64, "--partition", partition,
                       "--reference")
            check_layout(r, o, 34, 64)
            assert o.exact.shape == (34, 34)
            got = o.by_id(o.exact)
            err = e2e.relative_max_error(got, exact)
            assert err <= 1e-10, "/kernel/exact vs expm(-beta L): %g" % err
            phi = o.by_id().toarray()
            expected = relative_frobenius(phi @ phi.T, exact)
            attr = o.kernel_attrs["relative_frobenius_error"]
            assert abs(attr - expected) <= 1e-10 * expected, (attr, expected)
            assert o.root_attrs["kernel_relative_frobenius_error"] == attr
            printed = float(r.result()["kernel_error"])
            assert abs(printed - attr) <= 1e-7 * attr, (printed, attr)
            assert 0 < attr < 0.5, attr
            print("      np=%d: ||Phi Phi^T - M||_F / ||M||_F = %.6g" % (np_, attr), flush=True)


def test_reference_regularized_laplacian_grid():
    with e2e.TempDir() as d:
        graph, _ = grid_file(d)
        L, _ = laplacian(graph)
        beta, power = 0.5, 2
        inverse = np.linalg.inv(np.eye(N) + beta * L)
        exact = inverse @ inverse
        r, o = grf(2, d, "reg", graph, "--kernel", "regularized-laplacian", "--beta", beta, "--power", power,
                   "--walkers", 32, "--reference")
        check_layout(r, o, N, 32)
        err = e2e.relative_max_error(o.by_id(o.exact), exact)
        assert err <= 1e-10, "/kernel/exact vs inv(I + beta L)^2: %g" % err
        phi = o.by_id().toarray()
        expected = relative_frobenius(phi @ phi.T, exact)
        attr = o.kernel_attrs["relative_frobenius_error"]
        assert abs(attr - expected) <= 1e-10 * expected, (attr, expected)


def test_two_ensembles_and_asymmetric():
    with e2e.TempDir() as d:
        graph, _ = grid_file(d)
        L, _ = laplacian(graph)
        exact = scipy.linalg.expm(-L)

        r, two = grf(3, d, "two", graph, "--estimator", "two-ensembles", "--reference")
        check_layout(r, two, N, 16)
        assert two.grf2 is not None and {"grf2_by_length/data", "walks2/length_histogram"} <= two.names, two.names
        assert two.kernel_attrs["estimator"] == "two-ensembles"
        p1, p2 = two.by_id().toarray(), two.by_id(two.grf2).toarray()
        assert not np.array_equal(p1, p2), "the second ensemble has its own walks"
        assert e2e.relative_max_error(two.f, diffusion_series(1.0, 33)[1]) <= 1e-13
        k = p1 @ p2.T
        expected = relative_frobenius(0.5 * (k + k.T), exact)
        attr = two.kernel_attrs["relative_frobenius_error"]
        assert abs(attr - expected) <= 1e-10 * expected, (attr, expected)

        r, asym = grf(2, d, "asym", graph, "--estimator", "asymmetric", "--reference")
        check_layout(r, asym, N, 16)
        assert asym.kernel_attrs["estimator"] == "asymmetric" and asym.grf2 is None
        assert np.array_equal(asym.f, asym.alpha), (asym.f, asym.alpha)
        alpha, _ = diffusion_series(1.0, 33)
        assert e2e.relative_max_error(asym.alpha, alpha) <= 1e-13
        expected = relative_frobenius(asym.by_id().toarray(), exact)
        attr = asym.kernel_attrs["relative_frobenius_error"]
        assert abs(attr - expected) <= 1e-10 * expected, (attr, expected)


def test_by_length_only_on_request():
    """Without --by-length the file has no /grf_by_length and the same /grf, bit for bit (np 1 writes the
    arrays directly, np 3 with METIS routes them: both paths)."""
    with e2e.TempDir() as d:
        graph, _ = grid_file(d)
        for np_, partition in ((1, "block"), (3, "metis")):
            _, full = grf(np_, d, "full%d" % np_, graph, "--seed", 3, "--partition", partition)
            out = os.path.join(d, "plain%d.h5" % np_)
            r = e2e.run(np_, ["grf", "--graph", graph, "--seed", "3", "--partition", partition, "--out", out])
            assert r.graphrf_errors() == [], r.describe()
            with h5py.File(out, "r") as f:
                names = set()
                f.visit(names.add)
                plain = e2e.read_csr(f["grf"])
            assert not any(n.startswith("grf_by_length") for n in names), names
            assert {"grf/data", "grf/indices", "grf/indptr", "kernel/f", "walks/length_histogram"} <= names, names
            assert (plain != full.grf).nnz == 0 and np.array_equal(plain.indices, full.grf.indices)


def test_combinatorial_laplacian_reference_karate():
    with e2e.TempDir() as d:
        graph = karate_file(d)
        a = e2e.read_graph(graph).matrix(False).toarray()
        degree = a.sum(axis=1)
        d_max = degree.max()  # 17 on karate
        beta = 0.05
        exact = scipy.linalg.expm(-beta * (np.diag(degree) - a))
        errors, grfs = [], []
        for np_, partition in ((1, "block"), (3, "metis")):
            r, o = grf(np_, d, "comb-np%d" % np_, graph, "--weights", "combinatorial", "--step", "weighted", "--beta", beta,
                       "--walkers", 256, "--p-halt", 0.3, "--max-length", 60, "--partition", partition, "--reference")
            assert o.kernel_attrs["weights"] == "combinatorial" and o.kernel_attrs["max_degree"] == d_max, o.kernel_attrs
            assert r.lines_starting("weights") and "d_max = 17" in r.lines_starting("weights")[0], r.describe()
            err = e2e.relative_max_error(o.by_id(o.exact), exact)
            assert err <= 1e-10, "/kernel/exact vs expm(-beta (D - A)): %g" % err
            assert e2e.relative_max_error(o.alpha, diffusion_series(beta * d_max, 61)[0]) <= 1e-13
            phi = o.by_id().toarray()
            expected = relative_frobenius(phi @ phi.T, exact)
            attr = o.kernel_attrs["relative_frobenius_error"]
            assert abs(attr - expected) <= 1e-10 * expected, (attr, expected)
            assert 0 < attr < 0.1, attr
            errors.append(attr)
            grfs.append(o.by_id())
            print("      np=%d: ||Phi Phi^T - exp(-beta (D - A))||_F / ||.||_F = %.6g" % (np_, attr), flush=True)
        # The same GRFs, bitwise, at any rank count and partition (the dense error's last bits depend on the node
        # order of the eigendecomposition, so it agrees to rounding only).
        assert e2e.csr_equal(grfs[0], grfs[1]), "combinatorial /grf differs between 1 and 3 ranks"
        assert abs(errors[0] - errors[1]) <= 1e-12 * errors[0], errors
        # The sampled reference over all 34 nodes computes the kernel's rows on D - A by Chebyshev: the same error.
        r = e2e.run(2, ["grf", "--graph", graph, "--weights", "combinatorial", "--step", "weighted", "--beta", str(beta),
                        "--walkers", "256", "--p-halt", "0.3", "--max-length", "60", "--reference",
                        "--dense-reference-max", "10", "--reference-samples", "34"])
        assert r.result()["reference_sampled"] == "1", r.describe()
        assert abs(float(r.result()["kernel_error"]) - errors[0]) <= 1e-6 * errors[0], (r.result(), errors)


def test_combinatorial_laplacian_refusals_and_info():
    with e2e.TempDir() as d:
        graph = karate_file(d)
        base = ["grf", "--graph", graph, "--weights", "combinatorial", "--out", "{out}"]
        e2e.expect_error(2, base + ["--kernel", "p-step"], "--kernel p-step", "--weights combinatorial", directory=d)
        e2e.expect_error(2, base + ["--kernel", "exp-adjacency"], "--kernel exp-adjacency", directory=d)
        e2e.expect_error(2, base + ["--scale", "2"], "--scale", "--weights combinatorial", directory=d)
        e2e.expect_error(2, base + ["--beta", "50"], "--beta", "beta * d_max = 50 * 17", directory=d)
        e2e.expect_error(2, ["couple", "--graph", graph, "--target", "pagerank", "--weights", "combinatorial", "--out", "{out}"],
                         "--weights combinatorial", "--target kernel", directory=d)
        out = os.path.join(d, "info.h5")
        r = e2e.run(2, ["info", "--graph", graph, "--weights", "combinatorial", "--out", out])
        assert r.graphrf_errors() == [], r.describe()
        with h5py.File(out, "r") as f:
            attrs = {k: e2e._plain(v) for k, v in f["graph"].attrs.items()}
            got = e2e.permute_by_id(e2e.read_csr(f["graph"]), f["nodes/id"][:])
        assert attrs["weights"] == "raw" and attrs["laplacian"] == "D - A" and attrs["max_degree"] == 17, attrs
        assert e2e.csr_equal(got, e2e.read_graph(graph).matrix(False)), "info --weights combinatorial writes A itself"


def test_without_out_nothing_is_written():
    with e2e.TempDir() as d:
        graph, _ = grid_file(d)
        before = sorted(os.listdir(d))
        r = e2e.run(2, ["grf", "--graph", graph, "--reference", "--estimator", "two-ensembles"], cwd=d)
        assert "kernel_error" in r.result(), r.describe()
        assert "wrote" not in r.stdout, r.stdout
        assert sorted(os.listdir(d)) == before == ["grid.edges"], os.listdir(d)


if __name__ == "__main__":
    e2e.main(globals())
