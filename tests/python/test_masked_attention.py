"""graphrf.torch.MaskedLinearAttention: the output equals the dense formula D^-1 (M_hat ⊙ phi_q phi_k^T) v with
M_hat = Phi_q Phi_k^T, Phi = sum_t f_t M_t (N x N numpy here, never in graphrf), and torch.autograd.gradcheck
passes in double for f, phi_q, phi_k and v (forward and backward are the C++ kernels)."""
import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="PyTorch (Debian: python3-torch) is not installed: "
                                            "graphrf.torch is not tested")

import graphrf  # noqa: E402
import graphrf.torch as grf_torch  # noqa: E402

N_SIDE = (3, 4)
M, D = 3, 2


@pytest.fixture(scope="module")
def walks():
    g = graphrf.Graph.from_edges([0, 1, 2, 3, 4, 5, 1, 6, 7, 8, 9, 10, 2], [1, 2, 3, 4, 5, 6, 7, 7, 8, 9, 10, 0, 9],
                                 weights=[1, 2, 1, 1, 3, 1, 1, 2, 1, 1, 1, 1, 2.5])
    return graphrf.walk(g, walkers=4, p_halt=0.3, max_length=6, seed=2, ensembles=2)


def inputs(n, dtype=torch.float64, seed=0):
    gen = torch.Generator().manual_seed(seed)
    phi_q = (torch.rand(n, M, generator=gen, dtype=dtype) + 0.1).requires_grad_()
    phi_k = (torch.rand(n, M, generator=gen, dtype=dtype) + 0.1).requires_grad_()
    v = torch.randn(n, D, generator=gen, dtype=dtype).requires_grad_()
    return phi_q, phi_k, v


def dense_attention(walks, f, phi_q, phi_k, v, symmetric):
    """The formula, written densely: N x N matrices from /grf_by_length's M_t."""
    def phi(ensemble):
        return sum(f[t] * m.toarray() for t, m in enumerate(walks.by_length(ensemble)) if t < len(f))
    phi_query = phi(0)
    phi_key = phi_query if symmetric else phi(1)
    scores = (phi_query @ phi_key.T) * (phi_q @ phi_k.T)
    return (scores @ v) / scores.sum(axis=1, keepdims=True)


@pytest.mark.parametrize("symmetric", [True, False])
def test_output_equals_the_dense_formula(walks, symmetric):
    f = [1.0, 0.7, 0.4, 0.2]
    attention = grf_torch.MaskedLinearAttention(walks, torch.tensor(f, dtype=torch.float64), symmetric=symmetric)
    phi_q, phi_k, v = inputs(walks.num_nodes)
    out = attention(phi_q, phi_k, v)
    expected = dense_attention(walks, f, *(t.detach().numpy() for t in (phi_q, phi_k, v)), symmetric)
    assert out.shape == (walks.num_nodes, D)
    np.testing.assert_allclose(out.detach().numpy(), expected, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("symmetric", [True, False])
def test_gradcheck_in_double_for_every_input(walks, symmetric):
    query, key = grf_torch.mask_patterns(walks, symmetric)
    phi_q, phi_k, v = inputs(walks.num_nodes, seed=1)
    f = torch.tensor([1.0, 0.6, -0.2, 0.3, 0.1], dtype=torch.float64, requires_grad=True)

    def attention(f, phi_q, phi_k, v):
        return grf_torch.masked_linear_attention(f, phi_q, phi_k, v, query, key)

    assert torch.autograd.gradcheck(attention, (f, phi_q, phi_k, v), eps=1e-6, atol=1e-8, rtol=1e-6)
    # Each input alone too (the others constants): its gradient is computed when only it asks for one.
    for which in range(4):
        args = [t.detach().requires_grad_(k == which) for k, t in enumerate((f, phi_q, phi_k, v))]
        assert torch.autograd.gradcheck(attention, tuple(args), eps=1e-6, atol=1e-8, rtol=1e-6)


def test_f_is_learned(walks):
    torch.manual_seed(0)
    attention = grf_torch.MaskedLinearAttention(walks, [1.0, 0.0, 0.0]).double()
    target_attention = grf_torch.MaskedLinearAttention(walks, [1.0, 0.8, 0.5], learn_f=False).double()
    assert [name for name, _ in attention.named_parameters()] == ["f"]
    assert list(target_attention.parameters()) == []
    phi_q, phi_k, v = (t.detach() for t in inputs(walks.num_nodes, seed=3))
    target = target_attention(phi_q, phi_k, v)
    optimizer = torch.optim.Adam(attention.parameters(), lr=0.05)
    losses = []
    for _ in range(60):
        optimizer.zero_grad()
        loss = ((attention(phi_q, phi_k, v) - target) ** 2).mean()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    assert losses[-1] < 0.01 * losses[0]


def test_heads_float32_and_bad_shapes(walks):
    n = walks.num_nodes
    attention = grf_torch.MaskedLinearAttention(walks, [1.0, 0.5, 0.25])
    gen = torch.Generator().manual_seed(4)
    phi_q, phi_k = torch.rand(2, n, M, generator=gen) + 0.1, torch.rand(2, n, M, generator=gen) + 0.1
    v = torch.randn(2, n, D, generator=gen)
    out = attention(phi_q, phi_k, v)
    assert out.dtype == torch.float32 and out.shape == (2, n, D)
    for h in range(2):
        expected = dense_attention(walks, [1.0, 0.5, 0.25], phi_q[h].double().numpy(), phi_k[h].double().numpy(),
                                   v[h].double().numpy(), True)
        np.testing.assert_allclose(out[h].detach().numpy(), expected, rtol=1e-4, atol=1e-5)
    with pytest.raises(ValueError, match=f"phi_q must be {n} x k"):
        attention(torch.rand(n + 1, M), torch.rand(n + 1, M), torch.rand(n + 1, D))
    with pytest.raises(ValueError, match=f"phi_k must be {n} x 3"):
        attention(torch.rand(n, M), torch.rand(n, M + 1), torch.rand(n, D))
    with pytest.raises(ValueError, match="two walk ensembles"):
        grf_torch.MaskedLinearAttention(graphrf.walk(walks.graph, walkers=2), [1.0], symmetric=False)
