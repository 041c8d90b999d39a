// PageRank for Python: one run_pagerank on the graph with the options of `graphrf pagerank` (checked as the CLI
// checks them), the estimate (and with `reference` the exact PageRank) per node in canonical order: the numbers
// of /pagerank/estimate and /pagerank/exact (on a graph over several ranks: this rank's block of them). The graph decides what the CLI's graph options decide there: arcs kept
// as given when loaded with directed=True, self-loops kept when loaded with keep_self_loops=True.
#include <pybind11/stl.h>

#include <sstream>

#include "bindings.hpp"
#include "graphrf/graph/canonical_order.hpp"
#include "graphrf/walks/pagerank_run.hpp"

namespace graphrf::python {

namespace {

py::dict pagerank(const GraphHandle& h, std::int64_t walkers, double p_halt, const std::optional<std::int64_t>& max_length,
                  std::uint64_t seed, const std::string& coupling, const py::object& sigma, const std::string& step,
                  bool reference) {
  const DistributedGraph& g = *h.graph;
  PageRankRunOptions options;
  options.reference = reference;
  options.step = parse_step_rule(step);
  WalkOptions& walk = options.walk;
  walk.walkers = walkers;
  walk.p_halt = p_halt;
  walk.seed = seed;
  walk.coupling = parse_coupling(coupling);
  if (!sigma.is_none()) {
    if (termination_of(walk.coupling) != Termination::sigma)
      throw InputError("--sigma: only used with --coupling sigma or sigma+repelling (got --coupling " +
                       std::string(coupling_name(walk.coupling)) + ")");
    if (py::isinstance<py::str>(sigma)) {
      walk.sigma = read_sigma_file(sigma.cast<std::string>());
    } else {
      std::ostringstream text;
      for (const auto v : sigma.cast<std::vector<std::int64_t>>()) text << v << ' ';
      walk.sigma = parse_sigma(text.str(), "sigma");
    }
  }
  validate(walk);  // p_halt in (0, 1) before it sets the default length
  walk.max_length = max_length ? *max_length : pagerank_default_max_length(walk.p_halt);
  validate(walk);
  std::vector<double> estimate, exact;
  std::int64_t first_row = 0;
  CallWarnings warnings;
  {
    py::gil_scoped_release unlocked;
    const PageRankResult result = run_pagerank(g, options, warnings.log(*g.comm));
    const CanonicalOrder order(g);
    first_row = order.blocks().first(g.comm->rank());
    estimate = order.route_rows<double>(result.estimate.rank, 1);
    if (result.reference) exact = order.route_rows<double>(result.exact.rank, 1);
  }
  warnings.issue();
  py::dict out;
  out["estimate"] = to_numpy(std::move(estimate));
  out["exact"] = reference ? py::object(to_numpy(std::move(exact))) : py::object(py::none());
  out["first_row"] = first_row;  // the canonical index of this rank's first row
  return out;
}

}  // namespace

void bind_pagerank(py::module_& m) {
  m.def("pagerank", &pagerank, py::arg("graph"), py::arg("walkers"), py::arg("p_halt"), py::arg("max_length"),
        py::arg("seed"), py::arg("coupling"), py::arg("sigma"), py::arg("step"), py::arg("reference"));
}

}  // namespace graphrf::python
