"""End-to-end: `graphrf attention --reference` measures every feature map against the kernel it estimates.

What is checked (grid:8x8, dense references):
  * dark (Sigma = Lambda^-1 from whitening): the error against the M-masked kernel exp(q^T Sigma k / sqrt(d))
    falls clearly with m (m = 64 -> 4096: by more than 20%), the reference line and the HDF5 attribute
    /attention/reference@kernel name that kernel. (Against plain softmax, the old and only reference, the
    dark error stays near 0.7: a bias from the wrong target.)
  * favor: its kernel is softmax, so error_vs_masked_kernel is error_vs_masked_softmax bit for bit.
  * relu: its kernel is the feature product, so error_vs_masked_kernel is error_vs_masked_linear bit for bit.
"""

import os

import h5py

import graphrf_e2e as e2e


def reference_run(d, name, *args):
    out = os.path.join(d, name + ".h5")
    r = e2e.run(2, ["attention", "--graph", "grid:8x8", "--reference", "--out", out] + list(args))
    with h5py.File(out, "r") as f:
        g = f["attention/reference"]
        values = {k: float(g[k][0]) for k in g}
        kernel = g.attrs["kernel"]
    return r, values, kernel.decode() if isinstance(kernel, bytes) else str(kernel)


def test_dark_error_falls_with_m_against_its_own_kernel():
    with e2e.TempDir() as d:
        errors = []
        for m in (64, 4096):
            r, values, kernel = reference_run(d, "dark%d" % m, "--feature", "dark", "--num-features", m)
            assert kernel == "exp(q^T Sigma k / sqrt(d))", kernel
            line = r.lines_starting("reference")[0]
            assert "feature kernel exp(q^T Sigma k / sqrt(d)): M-masked" in line, line
            printed = float(r.result()["head0_error_vs_masked_kernel"])
            assert abs(printed - values["error_vs_masked_kernel"]) <= 1e-7, (printed, values)
            errors.append(values["error_vs_masked_kernel"])
        assert errors[1] < 0.8 * errors[0], errors


def test_favor_and_relu_kernels_are_softmax_and_the_feature_product():
    with e2e.TempDir() as d:
        _, favor, kernel = reference_run(d, "favor", "--feature", "favor", "--num-features", 32)
        assert kernel == "softmax exp(q^T k / sqrt(d))", kernel
        assert favor["error_vs_masked_kernel"] == favor["error_vs_masked_softmax"], favor
        assert favor["error_vs_kernel"] == favor["error_vs_softmax"], favor
        _, relu, kernel = reference_run(d, "relu", "--feature", "relu")
        assert kernel == "relu feature product phi(q)^T phi(k)", kernel
        assert relu["error_vs_masked_kernel"] == relu["error_vs_masked_linear"], relu
        assert abs(relu["error_vs_kernel"] - relu["error_vs_unmasked_linear"]) <= 1e-10, relu


if __name__ == "__main__":
    e2e.main(globals())
