#include "graphrf/attention/attention_run.hpp"

#include <limits>

#include "graphrf/attention/attention_memory.hpp"
#include "graphrf/attention/dark_sigma_file.hpp"
#include "graphrf/core/error.hpp"
#include "graphrf/core/memory_budget.hpp"
#include "graphrf/core/memory_size.hpp"
#include "graphrf/core/timer.hpp"
#include "graphrf/mpi/memory_limit.hpp"

namespace graphrf {

namespace {

// Q/K/V of extreme magnitude overflow the feature map or its sums (relu features of 1e200: NaN; V of 1e308: inf):
// refused, naming the node of the first bad row, before any result is reported. Collective.
void check_outputs_finite(const DistributedGraph& g, const std::vector<HeadResult>& heads, const std::string& source) {
  constexpr auto kNone = std::numeric_limits<std::int64_t>::max();
  std::int64_t bad = kNone, id = kNone;
  for (std::int64_t i = 0; i < g.n_local(); ++i)
    for (const auto& r : heads)
      if (!r.output.row(i).allFinite() && g.canonical_index[static_cast<size_t>(i)] < bad) {
        bad = g.canonical_index[static_cast<size_t>(i)];
        id = g.original_id[static_cast<size_t>(i)];
      }
  const std::int64_t first = g.comm->min(bad);
  if (first == kNone) return;
  const std::int64_t node = g.comm->min(bad == first ? id : kNone);
  throw InputError(source + ": the attention output of node " + std::to_string(node) +
                       " is NaN or infinite: the feature map or its sums overflowed; scale Q, K and V down",
                   /*collective=*/true);
}

}  // namespace

AttentionRun run_graph_attention(const DistributedGraph& g, const AttentionRunOptions& o, const Log& log) {
  const Communicator& comm = *g.comm;
  const std::vector<int>& synthetic = o.synthetic;
  AttentionRun run;
  run.options = o;
  Timer phase;
  if (o.qkv_path.empty())  // --heads and --synthetic may ask for any size: refused before it is allocated
    collective_try(comm, [&] {
      const int heads = o.heads;
      // Per row and head: q, k, v, then the output and unmasked linear result and their interleaved copies.
      require_memory(8.0 * static_cast<double>(g.n_local()) * heads * (2.0 * synthetic[0] + 5.0 * synthetic[1]),
                     "synthetic Q/K/V (attention.heads " + std::to_string(heads) + ", attention.synthetic " + std::to_string(synthetic[0]) +
                         "," + std::to_string(synthetic[1]) + ", " + std::to_string(g.n_local()) + " nodes on this rank)");
    });
  run.qkv = o.qkv_path.empty() ? synthetic_qkv(g, o.heads, synthetic[0], synthetic[1], o.config.walk.seed) : read_qkv(g, o.qkv_path);
  const QkvRows& qkv = run.qkv;
  AttentionConfig config = o.config;
  if (!o.dark_sigma_path.empty()) collective_try(comm, [&] { config.dark_m = read_dark_sigma_file(o.dark_sigma_path, qkv.d); });
  run.phases.add("load", phase.seconds());
  if (!qkv.row_order.empty()) log.info("inputs      " + o.qkv_path + ": " + qkv.row_order);
  log.info("inputs      " + (o.qkv_path.empty() ? std::string("synthetic") : o.qkv_path) + ": " + std::to_string(qkv.heads) +
           " head(s), d = " + std::to_string(qkv.d) + ", d_v = " + std::to_string(qkv.dv) + ", features " +
           std::string(feature_kind_name(o.config.features.kind)));
  // Said and checked before the walks (Q/K/V are in memory already; synthetic ones were checked above).
  AttentionShape shape{qkv.heads, qkv.d, qkv.dv, 0};
  collective_try(comm, [&] { shape.m = resolve_feature_count(config.features, qkv.d); });
  const AttentionMemory estimate = estimate_attention_memory(g, config, shape);
  const double need = announce_memory_estimate(
      comm, log, estimate.parts(),
      std::to_string(shape.heads) + " head(s), m = " + std::to_string(shape.m) + " features, d_v = " + std::to_string(shape.dv),
      o.memory_limit,
      "attention (" + std::to_string(shape.heads) + " head(s), S and z of m d_v + m = " +
          std::to_string(shape.m * shape.dv + shape.m) + " values per node)");
  phase.reset();
  run.heads = run_attention(g, qkv, config, log);
  check_outputs_finite(g, run.heads, o.qkv_path.empty() ? "synthetic Q/K/V" : o.qkv_path);
  run.phases.add("walks + attention", phase.seconds());
  run.memory_estimate_mib = need / kMiB;
  run.peak_mib = comm.max(own_peak_memory_mib());
  log.info("memory      " + describe_peak(run.peak_mib, run.memory_estimate_mib));
  return run;
}

std::string describe_attention_pass(const Communicator& comm, const HeadResult& r) {
  return "attention   key pass " + fmt(r.stats.key_seconds) + " s, query pass " + fmt(r.stats.query_seconds) +
         " s, normaliser min " + sci(r.stats.denominator_min) + ", bad rows " + std::to_string(r.stats.bad_rows) +
         ", " + fmt(static_cast<double>(comm.sum(r.stats.bytes_moved)) / 1e6, 2) + " MB moved, " +
         std::to_string(comm.sum(r.stats.peer_columns)) + " key columns and " + std::to_string(comm.sum(r.stats.peer_rows)) +
         " query rows summed by host peers";
}

Report attention_head_figures(int h, const HeadResult& r) {
  const std::string head = "head" + std::to_string(h);
  Report report;
  report.significant(head + "_denominator_min", r.stats.denominator_min).count(head + "_bad_rows", r.stats.bad_rows);
  return report;
}

}  // namespace graphrf
