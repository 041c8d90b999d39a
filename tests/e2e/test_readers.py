"""End-to-end: the files read as users read them, with no re-ordering.

  * anndata (Debian 12's python3-anndata 0.8) reads /grf and /graph through its own element reader
    (anndata.experimental.read_elem) as scipy CSR matrices equal to the ones scipy builds from the datasets;
  * /graph as written, rows and columns in ascending-id order without any permutation, equals the normalised
    adjacency that the test's own edge-list reader builds, and /grf's rows and columns follow the same order
    (its diagonal holds the largest entry of M_0 = I, checked through /grf_by_length at length 0).
Files come from 3 ranks with METIS, whose internal order differs from the ascending-id order.
"""

import os

import anndata
import anndata.experimental
import h5py
import numpy as np
import scipy.sparse as sp

import graphrf_e2e as e2e


def test_anndata_reads_grf_and_graph():
    with e2e.TempDir() as d:
        graph = e2e.write(d, "grid.edges", e2e.grid_edge_list(9, 8, seed=2)[0])
        info, grf = os.path.join(d, "info.h5"), os.path.join(d, "grf.h5")
        e2e.run(3, ["info", "--graph", graph, "--partition", "metis", "--quiet", "--out", info])
        e2e.run(3, ["grf", "--graph", graph, "--partition", "metis", "--walkers", "16", "--seed", "4", "--quiet",
                    "--by-length", "--out", grf])
        expected_graph = e2e.read_graph(graph).matrix(True)
        for path, name in ((info, "graph"), (grf, "grf")):
            with h5py.File(path, "r") as f:
                by_anndata = anndata.experimental.read_elem(f[name])
                by_scipy = e2e.read_csr(f[name])
            assert sp.isspmatrix_csr(by_anndata), "%s: anndata gave %s" % (name, type(by_anndata))
            assert e2e.csr_equal(by_anndata, by_scipy), name
            if name == "graph":
                assert e2e.csr_close(by_scipy, expected_graph), "/graph is not in ascending-id order"
        with h5py.File(grf, "r") as f:
            m = f["grf_by_length"]
            indptr, indices, length = m["indptr"][:], m["indices"][:], m["length"][:]
        rows = np.repeat(np.arange(len(indptr) - 1), np.diff(indptr))
        assert np.array_equal(np.sort(indices[length == 0]), np.arange(len(indptr) - 1))
        assert np.array_equal(rows[length == 0], indices[length == 0]), "M_0 = I off the diagonal: columns not canonical"
        # within each row: columns ascending, then lengths ascending
        key = rows * (2 * (int(length.max()) + 1) * len(indptr)) + indices * (int(length.max()) + 1) + length
        assert np.all(np.diff(key) > 0), "/grf_by_length not sorted by row, column, length"


if __name__ == "__main__":
    e2e.main([test_anndata_reads_grf_and_graph])
