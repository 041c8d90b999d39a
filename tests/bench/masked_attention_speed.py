"""Forward + backward of GRF-masked linear attention with a learnable f, side by side:

  graphrf   graphrf.torch.MaskedLinearAttention (C++ forward and backward, O(nnz m d));
  baseline  what a PyTorch user writes today with torch.sparse.mm and constant M_t (PyTorch 1.13 would allocate
            N x N for gradients through sparse values, so autograd goes through the dense side only):
              Z = sum_t f_t M_t^T [phi_k ⊗ v, phi_k],  Y = sum_t f_t M_t Z,
              out_i = phi_q_i^T Y_i[num] / phi_q_i^T Y_i[den].

Both get the same walks, features and upstream gradient; the script checks that their outputs and gradients
agree, then prints the median time of `--repeats` forward + backward passes of each and the ratio.

    PYTHONPATH=build/python /usr/bin/python3 tests/bench/masked_attention_speed.py    # grid:316x316, m = d = 16
"""
import argparse
import statistics
import time

import numpy as np
import torch

import graphrf
import graphrf.torch as grf_torch


def baseline_attention(m_t, m_t_transposed, f, phi_q, phi_k, v):
    n, m = phi_q.shape
    d = v.shape[1]
    kv = torch.cat([(phi_k[:, :, None] * v[:, None, :]).reshape(n, m * d), phi_k], dim=1)
    z = sum(f[t] * torch.sparse.mm(m_t_transposed[t], kv) for t in range(len(m_t)))
    y = sum(f[t] * torch.sparse.mm(m_t[t], z) for t in range(len(m_t)))
    numerator = (phi_q[:, :, None] * y[:, :m * d].reshape(n, m, d)).sum(dim=1)
    denominator = (phi_q * y[:, m * d:]).sum(dim=1, keepdim=True)
    return numerator / denominator


def torch_sparse(matrix, dtype):
    coo = matrix.tocoo()
    indices = torch.from_numpy(np.vstack([coo.row, coo.col]).astype(np.int64))
    return torch.sparse_coo_tensor(indices, torch.from_numpy(coo.data).to(dtype), coo.shape).coalesce()


def timed(step, repeats):
    seconds = []
    for _ in range(repeats):
        start = time.perf_counter()
        step()
        seconds.append(time.perf_counter() - start)
    return statistics.median(seconds)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--graph", default="grid:316x316")
    parser.add_argument("--m", type=int, default=16, help="features per query/key")
    parser.add_argument("--d", type=int, default=16, help="value dimension")
    parser.add_argument("--walkers", type=int, default=16)
    parser.add_argument("--p-halt", type=float, default=0.1)
    parser.add_argument("--max-length", type=int, default=8, help="hops per walk at most")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--dtype", choices=("float32", "float64"), default="float32")
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    dtype = getattr(torch, args.dtype)

    graph = graphrf.Graph.load(args.graph)
    walks = graphrf.walk(graph, walkers=args.walkers, p_halt=args.p_halt, max_length=args.max_length, seed=1)
    f0 = torch.tensor([0.5 ** t for t in range(walks.max_length + 1)], dtype=dtype)
    n = graph.num_nodes
    gen = torch.Generator().manual_seed(0)
    phi_q = torch.rand(n, args.m, generator=gen, dtype=dtype) + 0.1
    phi_k = torch.rand(n, args.m, generator=gen, dtype=dtype) + 0.1
    v = torch.randn(n, args.d, generator=gen, dtype=dtype)
    upstream = torch.randn(n, args.d, generator=gen, dtype=dtype)
    by_length = walks.by_length()
    m_t = [torch_sparse(mt, dtype) for mt in by_length]
    m_t_transposed = [torch_sparse(mt.T.tocsr(), dtype) for mt in by_length]
    nnz = walks.length_resolved()[1].size
    print(f"graph {args.graph}: N = {n}, m = {args.m}, d = {args.d}, {args.walkers} walkers, p_halt {args.p_halt}, "
          f"max_length {args.max_length}: {len(m_t)} matrices M_t, {nnz} length-resolved entries, {args.dtype}, "
          f"{torch.get_num_threads()} thread(s)")

    attention = grf_torch.MaskedLinearAttention(walks, f0.clone()).to(dtype)

    def leaves():
        return [t.clone().requires_grad_() for t in (phi_q, phi_k, v)]

    def graphrf_step():
        q, k, val = leaves()
        attention.zero_grad()
        out = attention(q, k, val)
        (out * upstream).sum().backward()
        return out, [attention.f.grad, q.grad, k.grad, val.grad]

    f_baseline = f0.clone().requires_grad_()

    def baseline_step():
        q, k, val = leaves()
        f_baseline.grad = None
        out = baseline_attention(m_t, m_t_transposed, f_baseline, q, k, val)
        (out * upstream).sum().backward()
        return out, [f_baseline.grad, q.grad, k.grad, val.grad]

    # The two compute the same thing (the walks' Phi with f, its gradients).
    ours, theirs = graphrf_step(), baseline_step()
    tolerance = 1e-3 if dtype == torch.float32 else 1e-9
    for name, a, b in zip(("out", "df", "dphi_q", "dphi_k", "dv"), [ours[0]] + ours[1], [theirs[0]] + theirs[1]):
        error = ((a - b).abs().max() / b.abs().max()).item()
        if not error < tolerance:
            raise SystemExit(f"graphrf and the baseline disagree on {name}: relative error {error:.2e}")

    graphrf_seconds = timed(graphrf_step, args.repeats)
    baseline_seconds = timed(baseline_step, args.repeats)
    print(f"forward + backward, median of {args.repeats}: graphrf {graphrf_seconds:.3f} s, "
          f"torch.sparse.mm baseline {baseline_seconds:.3f} s, speed-up {baseline_seconds / graphrf_seconds:.1f}x")


if __name__ == "__main__":
    main()
