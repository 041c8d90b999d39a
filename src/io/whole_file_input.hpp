#pragma once
// Inputs the loader reads whole rather than in line-aligned text chunks (internal to the library):
// graphrf's own HDF5 graphs (each rank reads its block of rows) and PLY/OFF/STL meshes (rank 0 parses the
// file; the loader's exchange then sends every arc to its owner).
#include <string>

#include "graphrf/io/arc_input.hpp"

namespace graphrf::detail {

// The /graph CSR group (anndata/scipy layout, as `info --out` writes it) with /nodes/id (original ids; else
// 0..N-1) and /nodes/name (names or labels) when present. Each rank reads its uniform block of rows.
ArcInput read_h5_graph(const Communicator& comm, const GraphOptions& options, const std::string& reason);

// A PLY, OFF or STL mesh's edges (mesh_formats.hpp), nodes 0..N-1.
ArcInput read_mesh(const Communicator& comm, const GraphOptions& options, GraphFormat format, const std::string& reason);

}  // namespace graphrf::detail
