#include "graphrf/reference/sampled_embedding_reference.hpp"

#include "graphrf/reference/laplacian_function_columns.hpp"
#include "graphrf/reference/node_sample.hpp"
#include "graphrf/reference/sample_rows.hpp"
#include "graphrf/reference/sampled_kernel_reference.hpp"

namespace graphrf {

SampledEmbeddingError sampled_embedding_error(const DistributedGraph& g, const DistributedOperator& laplacian,
                                              double lambda_max, const Eigen::MatrixXd& embedding_local,
                                              const std::function<double(double)>& h, std::int64_t samples,
                                              std::uint64_t seed) {
  const NodeSample sample = locate_sample(g, sample_node_indices(g.n_global(), samples, seed));
  const FunctionColumns exact = laplacian_function_columns(laplacian, lambda_max, h, one_hot_columns(g, sample));
  const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> rows = embedding_local;
  const Eigen::MatrixXd sampled_rows = replicate_sampled_rows(*g.comm, sample, rows);
  const Eigen::MatrixXd estimate = embedding_local * sampled_rows.transpose();
  SampledEmbeddingError out;
  out.frobenius = sampled_column_error(g, estimate, exact.local);
  out.degree = exact.degree;
  out.truncation_bound = exact.truncation_bound;
  return out;
}

}  // namespace graphrf
