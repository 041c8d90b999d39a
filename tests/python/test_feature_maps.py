"""graphrf.torch's feature maps: ReLU, EluPlusOne, FAVORPlus and DARK equal their formulas written here in numpy
(the formulas of the library's FeatureMap, given the module's frequencies) and the library's FeatureMap itself for
the same draw, m and seed, FAVORPlus's draws are those asked for
(orthogonal blocks vs iid, redraw() changes them, the same seed gives the same ones), DARK's M gets gradients
(gradcheck in double, also through MaskedLinearAttention), and save_sigma writes a file `graphrf attention
--feature dark --dark-sigma FILE` accepts (and one it uses: M = 0 makes every feature m^-1/2)."""
import os

import h5py
import numpy as np
import pytest

from conftest import run_cli

torch = pytest.importorskip("torch", reason="PyTorch (Debian: python3-torch) is not installed: "
                                            "graphrf.torch is not tested")

import graphrf  # noqa: E402
import graphrf.torch as grf_torch  # noqa: E402
from torch.nn.utils.stateless import functional_call  # noqa: E402

D, M_FEATURES = 4, 6


def rows(n=5, seed=0, scale=1.0):
    return np.random.default_rng(seed).normal(size=(n, D)) * scale


def stabilised(logits, role, eps, m):
    """The library's favor/dark features from logits (n x m): queries shifted by their row max, keys by the max of
    all, then (exp + eps) / sqrt(m); role None: exp / sqrt(m)."""
    if role == "query":
        logits = logits - logits.max(axis=1, keepdims=True)
    elif role == "key":
        logits = logits - logits.max()
    return (np.exp(logits) + (0.0 if role is None else eps)) / np.sqrt(m)


def test_relu_and_elu_plus_one_equal_their_formulas():
    x = rows()
    t = torch.from_numpy(x)
    assert np.array_equal(grf_torch.ReLU(epsilon=1e-3)(t).numpy(), np.maximum(x, 0) + 1e-3)
    assert np.allclose(grf_torch.EluPlusOne()(t).numpy(), np.where(x > 0, x + 1, np.exp(x)), rtol=1e-15, atol=0)
    with pytest.raises(ValueError, match="epsilon"):
        grf_torch.ReLU(epsilon=-1)


@pytest.mark.parametrize("role", [None, "query", "key"])
def test_favor_plus_equals_its_formula(role):
    favor = grf_torch.FAVORPlus(D, m=M_FEATURES, draw="iid", seed=3, stabilizer_epsilon=1e-4).double()
    omega = favor.omega.numpy()
    assert omega.shape == (M_FEATURES, D)
    x = rows(scale=1.5)
    xs = x * D ** -0.25
    expected = stabilised(xs @ omega.T - 0.5 * (xs * xs).sum(axis=1, keepdims=True), role, 1e-4, M_FEATURES)
    assert np.allclose(favor(torch.from_numpy(x), role).numpy(), expected, rtol=1e-13, atol=0)


def test_favor_plus_estimates_the_softmax_kernel():
    """Many features: phi(q)^T phi(k) (unshifted) is close to exp(q^T k / sqrt(d))."""
    favor = grf_torch.FAVORPlus(D, m=20000, draw="orthogonal", seed=5).double()
    q, k = torch.from_numpy(rows(3, 1, 0.5)), torch.from_numpy(rows(3, 2, 0.5))
    estimate = favor(q) @ favor(k).T
    exact = torch.exp(q @ k.T / np.sqrt(D))
    assert torch.allclose(estimate, exact, rtol=0.05)


def test_favor_plus_draws():
    orthogonal = grf_torch.FAVORPlus(D, m=2 * D, draw="orthogonal", seed=7).double()
    block = orthogonal.omega[:D].numpy()
    gram = block @ block.T
    assert np.allclose(gram - np.diag(np.diag(gram)), 0, atol=1e-12)  # the rows of a block are orthogonal
    iid = grf_torch.FAVORPlus(D, m=2 * D, draw="iid", seed=7).double().omega[:D].numpy()
    assert np.abs(iid @ iid.T - np.diag(np.diag(iid @ iid.T))).max() > 1e-3
    again = grf_torch.FAVORPlus(D, m=2 * D, draw="orthogonal", seed=7).double()
    assert torch.equal(again.omega, orthogonal.omega)
    antithetic = grf_torch.FAVORPlus(D, m=2 * D, draw="orthogonal", antithetic=True, seed=7).double().omega
    assert torch.equal(antithetic[D:], -antithetic[:D])
    before = orthogonal.omega.clone()
    orthogonal.redraw()
    assert orthogonal.seed == 8 and not torch.equal(orthogonal.omega, before)
    orthogonal.redraw(seed=7)
    assert torch.equal(orthogonal.omega, before)
    with pytest.raises(ValueError, match="--draw"):
        grf_torch.FAVORPlus(D, draw="sobol")
    with pytest.raises(ValueError, match="--antithetic"):
        grf_torch.FAVORPlus(D, m=5, antithetic=True)


@pytest.mark.parametrize("role", [None, "query", "key"])
def test_dark_equals_its_formula(role):
    m_matrix = np.random.default_rng(9).normal(size=(3, D))  # r = 3 < d
    dark = grf_torch.DARK(D, m=M_FEATURES, M=torch.from_numpy(m_matrix), draw="orthogonal", seed=4,
                          stabilizer_epsilon=1e-4).double()
    g = dark.gaussian.numpy()
    assert g.shape == (M_FEATURES, 3)
    assert np.allclose(dark.omega.detach().numpy(), g @ m_matrix, rtol=1e-15)
    x = rows(scale=1.5)
    mx = (x * D ** -0.25) @ m_matrix.T
    expected = stabilised(mx @ g.T - 0.5 * (mx * mx).sum(axis=1, keepdims=True), role, 1e-4, M_FEATURES)
    assert np.allclose(dark(torch.from_numpy(x), role).detach().numpy(), expected, rtol=1e-13, atol=0)
    assert np.allclose(dark.sigma().detach().numpy(), m_matrix.T @ m_matrix)


@pytest.mark.parametrize("draw", ["iid", "orthogonal", "orthogonal+pnc"])
@pytest.mark.parametrize("role", [None, "query", "key"])
def test_random_maps_equal_the_library_feature_map(draw, role):
    """The same draw, m and seed give the library's FeatureMap values (its frequencies, its shifts)."""
    x = rows(7, 14, 1.2)
    m_matrix = rows(3, 15, 0.7)
    library_role = "none" if role is None else role
    favor = grf_torch.FAVORPlus(D, m=M_FEATURES, draw=draw, seed=11, stabilizer_epsilon=1e-3).double()
    library = graphrf._graphrf.feature_map("favor", x, library_role, M_FEATURES, draw, False, 11, 1e-3, 0.0, None)
    assert np.allclose(favor(torch.from_numpy(x), role).numpy(), library, rtol=1e-13, atol=0)
    dark = grf_torch.DARK(D, m=M_FEATURES, M=torch.from_numpy(m_matrix), draw=draw, antithetic=True, seed=12,
                          stabilizer_epsilon=1e-3).double()
    library = graphrf._graphrf.feature_map("dark", x, library_role, M_FEATURES, draw, True, 12, 1e-3, 0.0, m_matrix)
    assert np.allclose(dark(torch.from_numpy(x), role).detach().numpy(), library, rtol=1e-13, atol=0)


def test_elementwise_maps_equal_the_library_feature_map():
    x = rows(7, 16)
    assert np.array_equal(grf_torch.ReLU(epsilon=1e-3)(torch.from_numpy(x)).numpy(),
                          graphrf._graphrf.feature_map("relu", x, "key", D, "orthogonal", False, 1, 0.0, 1e-3, None))
    assert np.allclose(grf_torch.EluPlusOne()(torch.from_numpy(x)).numpy(),
                       graphrf._graphrf.feature_map("elu1", x, "key", D, "orthogonal", False, 1, 0.0, 0.0, None),
                       rtol=1e-15, atol=0)


def test_dark_with_identity_is_favor_plus():
    x = torch.from_numpy(rows())
    dark = grf_torch.DARK(D, m=M_FEATURES, seed=2).double()
    favor = grf_torch.FAVORPlus(D, m=M_FEATURES, seed=2).double()
    assert torch.allclose(dark(x, "key"), favor(x, "key"), rtol=1e-14)


def test_dark_gradcheck_of_m():
    x = torch.from_numpy(rows(4, 3))
    dark = grf_torch.DARK(D, m=M_FEATURES, M=torch.from_numpy(rows(3, 5, 0.5)), seed=6).double()

    def features(m_matrix):
        return functional_call(dark, {"M": m_matrix}, (x,))

    m_matrix = dark.M.detach().clone().requires_grad_()
    assert torch.autograd.gradcheck(features, (m_matrix,))
    loss = dark(x, "query").sum()
    loss.backward()
    assert dark.M.grad is not None and torch.isfinite(dark.M.grad).all() and dark.M.grad.abs().max() > 0


def test_dark_gradcheck_through_masked_attention():
    """With stabilizer_epsilon = 0 the shifts cancel in attention, so gradcheck of the whole layer in M holds."""
    g = graphrf.Graph.from_edges([0, 1, 2, 3, 4, 5, 1], [1, 2, 3, 4, 5, 0, 4])
    walks = graphrf.walk(g, walkers=4, p_halt=0.3, max_length=4, seed=2)
    attention = grf_torch.MaskedLinearAttention(walks, f=[1.0, 0.5, 0.25]).double()
    dark = grf_torch.DARK(D, m=M_FEATURES, M=torch.from_numpy(rows(D, 8, 0.5)), stabilizer_epsilon=0.0).double()
    q, k = torch.from_numpy(rows(6, 10)), torch.from_numpy(rows(6, 11))
    v = torch.from_numpy(np.random.default_rng(12).normal(size=(6, 2)))

    def layer(m_matrix):
        phi_q = functional_call(dark, {"M": m_matrix}, (q, "query"))
        phi_k = functional_call(dark, {"M": m_matrix}, (k, "key"))
        return attention(phi_q, phi_k, v)

    assert torch.autograd.gradcheck(layer, (dark.M.detach().clone().requires_grad_(),))


def test_dark_rejects_a_bad_m():
    with pytest.raises(ValueError, match="r x d"):
        grf_torch.DARK(D, M=torch.ones(D + 1, D))
    with pytest.raises(ValueError, match="NaN"):
        grf_torch.DARK(D, M=torch.full((2, D), float("nan")))


def test_save_sigma_is_read_by_the_cli(tmp_path):
    """A 3 x 4 grid, Q/K/V written here: the CLI runs with the saved /M; with M = 0 every feature is m^-1/2, so
    the output is the GRF-masked mean of v, which differs from the output with a nonzero M."""
    src = [r * 4 + c for r in range(3) for c in range(3)] + [r * 4 + c for r in range(2) for c in range(4)]
    dst = [r * 4 + c + 1 for r in range(3) for c in range(3)] + [(r + 1) * 4 + c for r in range(2) for c in range(4)]
    graph = tmp_path / "grid.edges"
    graph.write_text("".join(f"{a} {b}\n" for a, b in zip(src, dst)))
    rng = np.random.default_rng(1)
    qkv = tmp_path / "qkv.h5"
    with h5py.File(qkv, "w") as f:
        f["q"], f["k"], f["v"] = rng.normal(size=(12, D)), rng.normal(size=(12, D)), rng.normal(size=(12, 2))
        f["nodes/id"] = np.arange(12, dtype=np.int64)
    outputs = {}
    for label, m_matrix in (("learned", rows(3, 13)), ("zero", np.zeros((3, D)))):
        dark = grf_torch.DARK(D, M=torch.from_numpy(m_matrix)).double()
        sigma = tmp_path / f"{label}.h5"
        dark.save_sigma(str(sigma))
        with h5py.File(sigma, "r") as f:
            assert np.array_equal(f["M"][:], m_matrix)
        out = tmp_path / f"out_{label}.h5"
        run_cli(["attention", "--graph", str(graph), "--qkv", str(qkv), "--feature", "dark", "--dark-sigma", str(sigma),
                 "--num-features", "8", "--walkers", "4", "--out", str(out)])
        with h5py.File(out, "r") as f:
            outputs[label] = f["attention/output"][:]
    assert np.isfinite(outputs["learned"]).all()
    assert not np.allclose(outputs["learned"], outputs["zero"])
