// Meshes (PLY, OFF, STL) as loader input: rank 0 reads and parses the whole file (mesh files hold their
// vertices before their faces, and STL numbers vertices by first appearance, so they do not split into
// independent line ranges); its arcs then go to their owners in the loader's exchange like any other.
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "graphrf/core/timer.hpp"
#include "graphrf/mpi/memory_limit.hpp"
#include "mesh_formats.hpp"
#include "whole_file_input.hpp"

namespace graphrf::detail {

namespace {

std::string read_whole_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw FileError(path + ": cannot open: " + std::strerror(errno));
  std::ostringstream bytes;
  bytes << in.rdbuf();
  if (in.bad()) throw FileError(path + ": read failed");
  return std::move(bytes).str();
}

}  // namespace

MeshGraph parse_mesh(GraphFormat format, std::string_view bytes, const std::string& file, bool keep_self_loops) {
  switch (format) {
    case GraphFormat::ply: return parse_ply_mesh(bytes, file, keep_self_loops);
    case GraphFormat::off: return parse_off_mesh(bytes, file, keep_self_loops);
    case GraphFormat::stl: return parse_stl_mesh(bytes, file, keep_self_loops);
    default: break;
  }
  throw std::invalid_argument("parse_mesh: not a mesh format");
}

ArcInput read_mesh(const Communicator& comm, const GraphOptions& options, GraphFormat format, const std::string& reason) {
  Timer timer;
  const std::string& path = options.graph;
  MeshGraph mesh;
  collective_try(comm, [&] {
    if (comm.is_root()) mesh = parse_mesh(format, read_whole_file(path), path, options.keep_self_loops);
  });
  std::int64_t vertices = mesh.vertices, faces = mesh.faces;
  comm.broadcast(vertices);
  comm.broadcast(faces);
  // The loader's per-node arrays for the declared vertices (64 bytes a node, as for text formats).
  const std::int64_t arcs = comm.sum(static_cast<std::int64_t>(mesh.arcs.arcs.size()));
  check_memory_fits(comm, (64.0 * static_cast<double>(vertices) + 48.0 * static_cast<double>(arcs)) / comm.size(),
                    memory_limit_per_rank(comm, options.memory_limit),
                    path + ": the mesh has " + std::to_string(vertices) + " vertices; loading them");
  ArcInput input;
  input.arcs = std::move(mesh.arcs.arcs);
  input.declared_nodes = vertices;
  input.id_base = 0;
  LoadReport& report = input.report;
  report.source = path + " as " + format_name(format) + " (" + reason + "): " + std::to_string(vertices) +
                  " vertices, " + std::to_string(faces) + " faces";
  report.self_loops_dropped = comm.sum(mesh.arcs.self_loops_dropped);
  report.arcs_read = arcs + report.self_loops_dropped;
  report.declared_nodes = vertices;
  report.read_seconds = comm.max(timer.seconds());
  return input;
}

}  // namespace graphrf::detail
