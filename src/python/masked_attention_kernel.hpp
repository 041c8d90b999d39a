#pragma once
// GRF-masked linear attention with a learnable modulation f, forward and backward, for the PyTorch module
// graphrf.torch.MaskedLinearAttention (Reid et al. 2025a, "Linear transformer topological masking with graph
// random features", Alg. 1, and Alg. 2 with two walk ensembles):
//   out = D^-1 (M_hat ⊙ A B^T) V,   M_hat = Phi_q Phi_k^T,   Phi = sum_t f_t M_t,
// with A = phi(Q), B = phi(K) (N x m), V (N x d), computed as Phi_q (Phi_k^T [B ⊗ V, B]) in O(nnz m d) time and
// O(N m d) memory, never an N x N matrix. One process; all matrices row-major, rows in canonical node order.
//
// Backward, given G = dL/dout (the derivation: out_i = A_i^T R_i / A_i . r_i with R_i = sum_l Phi_q[i,l] S_l,
// S_l = sum_j Phi_k[j,l] B_j V_j^T, r and z the same without V):
//   g_i = G_i / den_i, h_i = -(G_i . out_i) / den_i, u_il = S_l g_i + h_i z_l
//   dA_i = sum_l Phi_q[i,l] u_il                  dPhi_q[i,l] = A_i . u_il
//   P_l = sum_i Phi_q[i,l] A_i g_i^T,  p_l = sum_i Phi_q[i,l] h_i A_i,  w_jl = P_l V_j + p_l
//   dB_j = sum_l Phi_k[j,l] w_jl                  dPhi_k[j,l] = B_j . w_jl
//   dV_j = sum_l Phi_k[j,l] P_l^T B_j             df_t = sum over (i, l) of M_t[i,l] dPhi[i,l]
#include <cstdint>
#include <span>
#include <vector>

namespace graphrf::python {

// The sparsity pattern of Phi = sum_t f_t M_t, fixed whatever f is (an entry stays when its sum is 0, so that
// its gradient is kept), and where each length-resolved entry M_t[i, l] lands in it.
class MaskPattern {
 public:
  // Length-resolved rows (CSR with a walk length per entry, sorted by column then length within each row), N x N.
  MaskPattern(std::int64_t n, std::vector<std::int64_t> indptr, std::vector<std::int64_t> indices,
              std::vector<std::int32_t> length, std::vector<double> data);

  std::int64_t n() const { return n_; }
  std::int64_t nnz() const { return static_cast<std::int64_t>(col_.size()); }
  std::int32_t n_lengths() const { return n_lengths_; }  // the longest walk length + 1
  const std::vector<std::int64_t>& indptr() const { return indptr_; }
  const std::vector<std::int64_t>& indices() const { return col_; }

  // Phi's values, one per pattern entry (f_t for t beyond f count as 0).
  template <class T>
  std::vector<T> values(std::span<const T> f) const;
  // df_t = sum of M_t[i, l] dPhi[i, l], t < f_size.
  template <class T>
  std::vector<T> f_gradient(std::span<const T> dphi, std::size_t f_size) const;

 private:
  std::int64_t n_;
  std::int32_t n_lengths_ = 0;
  std::vector<std::int64_t> indptr_, col_;  // Phi's pattern
  std::vector<std::int64_t> slot_;          // per length-resolved entry: its pattern entry
  std::vector<std::int32_t> length_;
  std::vector<double> value_;
};

// Phi's pattern and values for one side of the attention (query: Phi_q, key: Phi_k).
template <class T>
struct MaskValues {
  const MaskPattern& pattern;
  std::span<const T> values;
};

// What backward needs from the forward pass besides the inputs and out.
template <class T>
struct AttentionState {
  std::vector<T> S;    // N x m x d: S_l
  std::vector<T> z;    // N x m
  std::vector<T> den;  // N
};

template <class T>
AttentionState<T> masked_attention_forward(MaskValues<T> q, MaskValues<T> k, const T* A, const T* B, const T* V,
                                           std::int64_t m, std::int64_t d, T* out);

// Fills dA, dB (N x m), dV (N x d) and dphi_q, dphi_k (one per pattern entry).
template <class T>
void masked_attention_backward(MaskValues<T> q, MaskValues<T> k, const T* A, const T* B, const T* V, std::int64_t m,
                               std::int64_t d, const T* out, const AttentionState<T>& state, const T* G, T* dA, T* dB,
                               T* dV, T* dphi_q, T* dphi_k);

}  // namespace graphrf::python
