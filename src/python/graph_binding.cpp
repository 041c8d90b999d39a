// Graphs for Python: from edge arrays (graph_from_edges) or read with the --graph loader (load_graph), and what
// Graph shows of them in canonical node order (ids, adjacency as `graphrf info --out` writes /graph).
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <optional>
#include <pybind11/stl.h>

#include "bindings.hpp"
#include "graphrf/core/memory_size.hpp"
#include "graphrf/graph/canonical_rows.hpp"
#include "graphrf/graph/graph_from_edges.hpp"
#include "graphrf/io/arc_input.hpp"
#include "graphrf/walks/walk_options.hpp"

namespace graphrf::python {

namespace {

using IdArray = py::array_t<std::int64_t, py::array::c_style | py::array::forcecast>;
using ValueArray = py::array_t<double, py::array::c_style | py::array::forcecast>;

std::span<const std::int64_t> ids_of(const IdArray& a, const char* name) {
  if (a.ndim() != 1) throw InputError(std::string("edges: ") + name + " must be one-dimensional (got " + std::to_string(a.ndim()) + " dimensions)");
  return {a.data(), static_cast<std::size_t>(a.size())};
}

GraphHandle from_edges(const IdArray& src, const IdArray& dst, std::int64_t num_nodes, const std::optional<ValueArray>& weights,
                       const std::string& duplicates, bool keep_self_loops, bool directed, std::uintptr_t comm_address,
                       int host_size, bool replicate_graph) {
  EdgeArrays edges;
  edges.src = ids_of(src, "src");
  edges.dst = ids_of(dst, "dst");
  if (weights) {
    if (weights->ndim() != 1) throw InputError("edges: weights must be one-dimensional");
    edges.weights = {weights->data(), static_cast<std::size_t>(weights->size())};
  }
  edges.num_nodes = num_nodes;
  edges.duplicates = parse_duplicate_policy(duplicates);
  edges.keep_self_loops = keep_self_loops;
  edges.directed = directed;
  std::shared_ptr<const Communicator> comm = communicator_at(comm_address);
  py::gil_scoped_release unlocked;
  DistributedGraph graph = graph_from_edges(*comm, edges, "block", host_size);
  graph.replicate_walk_table = replicate_graph;
  check_replica_fits(graph, 0);
  return GraphHandle{std::move(comm), std::make_shared<const DistributedGraph>(std::move(graph))};
}

// The checks `graphrf` makes on the --graph options before loading (graph_options_from), with its messages.
GraphHandle load(const std::string& path, const std::string& format, const std::string& duplicates, bool keep_self_loops,
                 int weight_column, const std::string& ids, const std::string& partition,
                 bool directed, const std::optional<std::string>& memory_limit) {
  GraphOptions o;
  o.graph = path;
  o.format = format;
  o.duplicates = parse_duplicate_policy(duplicates);
  o.keep_self_loops = keep_self_loops;
  o.weight_column = weight_column;
  o.ids = parse_id_mode(ids);
  o.partition = partition;
  validate_partition_spec(o.partition);
  o.directed = directed;
  if (o.directed && (o.partition == "metis" || o.partition == "ptscotch"))
    throw InputError("--partition " + o.partition + ": METIS and PT-Scotch need undirected graphs; with --directed use "
                     "block or file:PATH");
  if (o.ids == IdMode::string && is_generated_graph(o.graph))
    throw InputError("--ids string applies to edge-list files; " + o.graph + " is a generated graph with integer ids");
  if (memory_limit) o.memory_limit = parse_memory_size(*memory_limit, "--memory-limit");
  if (o.partition.rfind("file:", 0) == 0 && ::access(o.partition.c_str() + 5, R_OK) != 0)
    throw FileError("--partition file: " + o.partition.substr(5) + ": cannot open: " + std::strerror(errno));
  py::gil_scoped_release unlocked;
  return GraphHandle{communicator_at(0), std::make_shared<const DistributedGraph>(load_graph(single_process(), o))};
}

py::tuple adjacency(const GraphHandle& h, const std::string& weights) {
  const DistributedGraph& g = *h.graph;
  const bool normalized = parse_weight_mode(weights) == WeightMode::normalized;  // raw and combinatorial: A
  CanonicalRows rows = canonical_rows(CanonicalOrder(g), g.row_ptr, g.col, normalized ? g.normalized_weight : g.weight);
  return py::make_tuple(to_numpy(std::move(rows.indptr)), to_numpy(std::move(rows.indices)), to_numpy(std::move(rows.data)));
}

}  // namespace

void bind_graph(py::module_& m) {
  py::class_<GraphHandle>(m, "GraphHandle")
      .def_property_readonly("num_nodes", [](const GraphHandle& h) { return h.graph->n_global(); })
      .def_property_readonly("num_edges", [](const GraphHandle& h) { return h.graph->n_edges_global; })
      .def_property_readonly("source", [](const GraphHandle& h) { return h.graph->report.source; })
      .def_property_readonly("directed", [](const GraphHandle& h) { return h.graph->report.directed; })
      .def_property_readonly("ranks", [](const GraphHandle& h) { return h.graph->comm->size(); })
      .def_property_readonly("hosts", [](const GraphHandle& h) { return h.graph->hosts ? h.graph->hosts->count() : 1; })
      .def_property_readonly("replicates_walks", [](const GraphHandle& h) { return h.graph->replicates_walks(); })
      .def("node_ids", [](const GraphHandle& h) {
        return to_numpy(canonical_node_values(CanonicalOrder(*h.graph), h.graph->original_id));
      })
      .def("adjacency", &adjacency, py::arg("weights"));
  m.def("graph_from_edges", &from_edges, py::arg("src"), py::arg("dst"), py::arg("num_nodes"), py::arg("weights"),
        py::arg("duplicates"), py::arg("keep_self_loops"), py::arg("directed"), py::arg("comm_address") = 0,
        py::arg("host_size") = 0, py::arg("replicate_graph") = false);
  m.def("load_graph", &load, py::arg("path"), py::arg("format"), py::arg("duplicates"), py::arg("keep_self_loops"),
        py::arg("weight_column"), py::arg("ids"), py::arg("partition"), py::arg("directed"), py::arg("memory_limit"));
}

}  // namespace graphrf::python
