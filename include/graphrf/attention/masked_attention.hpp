#pragma once
// GRF-masked linear attention across ranks (Reid et al. 2025a, "Linear transformer topological masking with graph
// random features", Alg. 1 and 2), one head at a time. Inputs are this rank's rows: features phi(q_i), phi(k_i)
// (n_local x m), values v_i (n_local x d_v), and the sparse GRF rows of the owned nodes. Nothing of size N x Nm is
// ever formed.
//
// Symmetric (Alg. 1): key pass S[q] += g phi(k_j) v_j^T, z[q] += g phi(k_j) over the nonzeros (q, g) of
// the key-side rows j: each nonzero goes to q's owner, which adds a column's terms in canonical order of j (the
// order of one rank, so the bits do not depend on the rank count, hosts or partition). Query pass:
// out_i = sum_(q,g) g phi(q_i)^T S[q] / sum_(q,g) g phi(q_i)^T z[q], reading the S[q] and z[q] of its host in
// place and fetching those of other hosts. Inside a host both passes share out their columns and rows.
// Asymmetric (Alg. 2): out_i = sum_j G[i,j] phi(q_i).phi(k_j) v_j / sum_j G[i,j] phi(q_i).phi(k_j), fetching
// phi(k_j) and v_j of the visited remote nodes.
//
// Why Alg. 1 needs no N x Nm matrix. Write g_i for the GRF row of node i (sparse, length N). Step 5 of Alg. 1
// (Eq. 12 there) is out_i = num_i / den_i with num_i = sum_j (phi(q_i)^T phi(k_j)) (g_i^T g_j) v_j^T and den_i the
// same sum without v_j^T. Expanding g_i^T g_j = sum_q g_iq g_jq and swapping the sums over j and q:
//   num_i = phi(q_i)^T sum_q g_iq S[q],   S[q] = sum_j g_jq phi(k_j) v_j^T  (m x d_v),
//   den_i = phi(q_i)^T sum_q g_iq z[q],   z[q] = sum_j g_jq phi(k_j)         (m).
// So S and z are sums over the nonzeros of the key-side rows (the key pass), and each query reads only the
// S[q], z[q] of its own nonzeros (the query pass): O(nnz(G) m d_v) work, O(N m d_v) memory, and the result equals
// the dense formula exactly up to rounding. In matrix form S = G^T KV and z = G^T Phi_K, with row j of KV the
// flattened phi(k_j) v_j^T. Alg. 2 divides by (S_i x n) in its last line; a factor common to both of its sums
// cancels in the ratio, so the plain ratio is already the normalised attention, and the extra n (which would only
// scale every output by 1/n) is not applied.
#include <Eigen/Dense>
#include <cstdint>
#include <span>
#include <string_view>

#include "graphrf/graph/distributed_graph.hpp"
#include "graphrf/grf/grf_matrix.hpp"

namespace graphrf {

using RowMatrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

enum class BadNormalizer { error, clamp, skip };
BadNormalizer parse_bad_normalizer(std::string_view);  // InputError naming attention.normalizer

struct AttentionStats {
  double denominator_min = 0;      // global
  std::int64_t bad_rows = 0;       // global: rows with denominator <= eps
  std::int64_t bytes_moved = 0;    // this rank: bytes sent in the key and query passes
  std::int64_t peer_columns = 0;   // this rank: key-pass columns it summed for slower ranks of its host
  std::int64_t peer_rows = 0;      // this rank: query-pass rows it summed for slower ranks of its host
  double key_seconds = 0, query_seconds = 0;
};

struct NormalizerPolicy {
  BadNormalizer action = BadNormalizer::error;
  double eps = 1e-12;
};

// Alg. 1 with M^ = G_query G_key^T (the same G twice for the symmetric estimator).
RowMatrix grf_masked_attention(const DistributedGraph& g, const SparseRows& query_grf, const SparseRows& key_grf,
                               const RowMatrix& phi_q, const RowMatrix& phi_k, const RowMatrix& v,
                               const NormalizerPolicy& policy, AttentionStats& stats);

// Alg. 2 with M^ = G (rows built with f = alpha).
RowMatrix asymmetric_masked_attention(const DistributedGraph& g, const SparseRows& grf, const RowMatrix& phi_q,
                                      const RowMatrix& phi_k, const RowMatrix& v, const NormalizerPolicy& policy,
                                      AttentionStats& stats);

// Alg. 2 on one process holding the whole graph (a frame). Graph node j's rows of phi_q, phi_k, v and of the
// result are row row_of_node[j] (the frame's point order; the graph keeps its nodes in a spatial order), and
// the columns of `grf` are graph nodes. The same sums in the same order as asymmetric_masked_attention over
// the same row, and the same normaliser policy (InputError for `error`).
RowMatrix local_asymmetric_attention(const SparseRows& grf, const RowMatrix& phi_q, const RowMatrix& phi_k,
                                     const RowMatrix& v, std::span<const std::int64_t> row_of_node,
                                     const NormalizerPolicy& policy, AttentionStats& stats);

// Unmasked linear attention with the same features: out_i = phi(q_i)^T sum_j phi(k_j) v_j^T / phi(q_i)^T sum_j phi(k_j).
// The sums over j run in a fixed order of the nodes' canonical indices (RowBlockReducer), so the result has the
// same bits for any rank count and partition.
RowMatrix linear_attention(const DistributedGraph& g, const RowMatrix& phi_q, const RowMatrix& phi_k, const RowMatrix& v,
                           const NormalizerPolicy& policy, AttentionStats& stats);

}  // namespace graphrf
