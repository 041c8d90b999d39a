#include "graphrf/grf/grf_output.hpp"

namespace graphrf {

namespace {

// Global indptr of row blocks: each rank writes the offsets of its rows; the last rank adds the end.
std::vector<std::int64_t> global_indptr(const Communicator& comm, const std::vector<std::int64_t>& local_indptr) {
  const std::int64_t base = comm.exscan_sum(local_indptr.back());
  std::vector<std::int64_t> out(local_indptr.begin(), local_indptr.end() - (comm.rank() + 1 == comm.size() ? 0 : 1));
  for (auto& v : out) v += base;
  return out;
}

// "walkers" means walkers per node everywhere (the --walkers option); the total is "walks".
void write_walk_statistics(H5Output& out, const std::string& group, const WalkStatistics& s, std::int64_t walkers_per_node) {
  out.write_replicated<std::int64_t>(group + "/length_histogram", s.length_histogram);
  out.write_per_rank<std::int64_t>(group + "/messages_sent", s.messages_sent);
  out.write_per_rank<std::int64_t>(group + "/bytes_sent", s.bytes_sent);
  out.write_per_rank<double>(group + "/walk_seconds", s.walk_seconds);
  out.set_attribute(group, "walks", s.walkers);
  out.set_attribute(group, "walkers_per_node", walkers_per_node);
  out.set_attribute(group, "hops", s.hops);
  out.set_attribute(group, "dead_ends", s.dead_ends);
  out.set_attribute(group, "truncated", s.truncated);
  out.set_attribute(group, "cross_rank_hops", s.cross_rank_hops);
}

}  // namespace

void write_sparse_rows(H5Output& out, const std::string& group, const SparseRows& rows, std::int64_t n_cols) {
  out.write_csr(group, n_cols, rows.indptr, rows.col, rows.value);
}

void write_grf(H5Output& out, const DistributedGraph& g, const GrfRun& run, const KernelSpec& kernel,
               const WalkOptions& walk) {
  const Communicator& comm = *g.comm;
  const std::int64_t n = g.n_global();
  for (size_t e = 0; e < run.phi.size(); ++e) {
    const std::string name = e == 0 ? "/grf" : "/grf" + std::to_string(e + 1);
    write_sparse_rows(out, name, run.phi[e], n);
    const auto& m = run.by_length[e];
    const std::string by_length = e == 0 ? "/grf_by_length" : "/grf" + std::to_string(e + 1) + "_by_length";
    out.write_rows<std::int64_t>(by_length + "/indptr", global_indptr(comm, m.indptr));
    out.write_rows<std::int64_t>(by_length + "/indices", m.col);
    out.write_rows<std::int32_t>(by_length + "/length", m.length);
    out.write_rows<double>(by_length + "/data", m.value);
    const std::int64_t shape[2] = {n, n};
    out.set_attribute(by_length, "shape", std::span<const std::int64_t>(shape, 2));
    out.set_attribute(by_length, "max_length", walk.max_length);
    out.set_attribute(by_length, "description",
                      std::string("M_t[i, q] = (1/n) sum of loads of walks from i at q after t hops; Phi = sum_t f_t M_t"));
    write_walk_statistics(out, e == 0 ? "/walks" : "/walks" + std::to_string(e + 1), run.walks[e], walk.walkers);
  }
  out.write_replicated<double>("/kernel/f", run.f);
  out.write_replicated<double>("/kernel/alpha", run.alpha);
  out.set_attribute("/kernel", "description", describe(kernel));
  out.set_attribute("/kernel", "estimator", std::string(estimator_name(run.estimator)));
  out.set_attribute("/kernel", "weights", std::string(walk.weights == WeightMode::normalized ? "normalized" : "raw"));
}

}  // namespace graphrf
