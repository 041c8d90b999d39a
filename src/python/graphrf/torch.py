"""GRF-masked linear attention for PyTorch, with a learnable modulation f (Reid et al. 2025a, "Linear transformer
topological masking with graph random features", Alg. 1; symmetric=False: Alg. 2 with two walk ensembles).

    walks = graphrf.walk(graph, walkers=16, p_halt=0.1)
    attention = graphrf.torch.MaskedLinearAttention(walks, f=[1.0, 0.5, 0.25])
    out = attention(phi_q, phi_k, v)        # N x m, N x m, N x d -> N x d (or H x N x m heads)

out = D^-1 (M_hat ⊙ phi_q phi_k^T) v with M_hat = Phi Phi^T, Phi = sum_t f_t M_t, D the row sums of the masked
scores, computed as Phi (Phi^T [phi_k ⊗ v, phi_k]) in O(nnz m d) time: no N x N matrix is formed. Forward and
backward run in C++ (graphrf._graphrf); gradients reach phi_q, phi_k, v and f. CPU tensors, float32 or float64.
The feature maps phi are modules here too: ReLU, EluPlusOne, FAVORPlus and DARK (learnable M; feature_maps.py).
"""
import torch
from torch.autograd.function import once_differentiable

from . import _graphrf
from .feature_maps import DARK, FAVORPlus, EluPlusOne, ReLU

__all__ = ["MaskedLinearAttention", "masked_linear_attention", "mask_patterns", "ReLU", "EluPlusOne", "FAVORPlus",
           "DARK"]


def mask_patterns(walks, symmetric=True):
    """The query and key mask patterns of `walks` (the same one when symmetric; else ensembles 0 and 1)."""
    if walks.comm is not None:
        raise ValueError("MaskedLinearAttention needs the walks of every node in this process: pass walks.gather() "
                         "(the walks ran over a communicator)")
    query = _graphrf.MaskPattern(walks.num_nodes, *walks.length_resolved(0))
    if symmetric:
        return query, query
    if walks.ensembles < 2:
        raise ValueError("MaskedLinearAttention(symmetric=False) needs two walk ensembles: graphrf.walk(..., ensembles=2)")
    return query, _graphrf.MaskPattern(walks.num_nodes, *walks.length_resolved(1))


def _numpy(t):
    return t.detach().contiguous().numpy()


class _MaskedLinearAttention(torch.autograd.Function):
    @staticmethod
    def forward(ctx, f, phi_q, phi_k, v, query_pattern, key_pattern):
        f_values = _numpy(f)
        q_values = query_pattern.values(f_values)
        k_values = q_values if key_pattern is query_pattern else key_pattern.values(f_values)
        out, state = _graphrf.masked_attention_forward(query_pattern, q_values, key_pattern, k_values, _numpy(phi_q),
                                                      _numpy(phi_k), _numpy(v))
        out = torch.from_numpy(out)
        ctx.save_for_backward(phi_q, phi_k, v, out)
        ctx.masks = (query_pattern, q_values, key_pattern, k_values, state, f.shape[0])
        return out

    @staticmethod
    @once_differentiable
    def backward(ctx, grad_out):
        phi_q, phi_k, v, out = ctx.saved_tensors
        query_pattern, q_values, key_pattern, k_values, state, f_size = ctx.masks
        d_q, d_k, d_v, dphi_q, dphi_k = _graphrf.masked_attention_backward(
            query_pattern, q_values, key_pattern, k_values, _numpy(phi_q), _numpy(phi_k), _numpy(v), _numpy(out), state,
            _numpy(grad_out.to(out.dtype)))
        d_f = query_pattern.f_gradient(dphi_q, f_size) + key_pattern.f_gradient(dphi_k, f_size)
        grads = [torch.from_numpy(d_f), torch.from_numpy(d_q), torch.from_numpy(d_k), torch.from_numpy(d_v)]
        return tuple(g if needed else None for g, needed in zip(grads, ctx.needs_input_grad)) + (None, None)


def masked_linear_attention(f, phi_q, phi_k, v, query_pattern, key_pattern):
    """The functional form: one head, N x m features, N x d values, f a 1-D tensor, patterns from mask_patterns."""
    dtype = phi_q.dtype
    if dtype not in (torch.float32, torch.float64):
        raise ValueError(f"masked attention: phi_q must be float32 or float64 (got {dtype})")
    for name, t in (("phi_q", phi_q), ("phi_k", phi_k), ("v", v), ("f", f)):
        if t.device.type != "cpu":
            raise ValueError(f"masked attention: {name} is on {t.device}; graphrf runs on the CPU")
    if f.dim() != 1:
        raise ValueError(f"masked attention: f must be one-dimensional (got shape {tuple(f.shape)})")
    return _MaskedLinearAttention.apply(f.to(dtype), phi_q, phi_k.to(dtype), v.to(dtype), query_pattern, key_pattern)


class MaskedLinearAttention(torch.nn.Module):
    """D^-1 (M_hat ⊙ phi_q phi_k^T) v with the GRF mask M_hat = Phi_q Phi_k^T, Phi = sum_t f_t M_t.

    walks: graphrf.walk(...) on the graph whose nodes are the tokens (canonical order). f: f_0, f_1, ... (terms
    beyond the longest walk are unused; walk lengths beyond f count as 0), a Parameter when learn_f. symmetric:
    Phi_q = Phi_k (Alg. 1); False: Phi_q and Phi_k from two independent walk ensembles (walks with ensembles=2).
    forward(phi_q, phi_k, v): feature-mapped queries and keys N x m (or H x N x m, one mask for every head) and
    values N x d (or H x N x d); returns N x d (or H x N x d).
    """

    def __init__(self, walks, f, learn_f=True, symmetric=True):
        super().__init__()
        self.query_pattern, self.key_pattern = mask_patterns(walks, symmetric)
        self.symmetric = symmetric
        # A floating tensor keeps its dtype; numbers become the default dtype (module.double() converts it later).
        f = torch.as_tensor(f)
        f = (f if f.is_floating_point() else f.to(torch.get_default_dtype())).detach().reshape(-1).clone()
        if f.numel() == 0:
            raise ValueError("MaskedLinearAttention: f needs at least f_0")
        if learn_f:
            self.f = torch.nn.Parameter(f)
        else:
            self.register_buffer("f", f)

    def forward(self, phi_q, phi_k, v):
        if phi_q.dim() == 2:
            return masked_linear_attention(self.f, phi_q, phi_k, v, self.query_pattern, self.key_pattern)
        if phi_q.dim() != 3 or phi_k.dim() != 3:
            raise ValueError(f"MaskedLinearAttention: phi_q and phi_k must be N x m or H x N x m (got {tuple(phi_q.shape)})")
        heads = [masked_linear_attention(self.f, phi_q[h], phi_k[h], v if v.dim() == 2 else v[h], self.query_pattern,
                                         self.key_pattern) for h in range(phi_q.shape[0])]
        return torch.stack(heads)

    def extra_repr(self):
        return f"nodes={self.query_pattern.n}, lengths={self.query_pattern.n_lengths}, f={self.f.numel()} terms, " \
               f"symmetric={self.symmetric}"
