#include "graphrf/points/point_cloud.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>

#include "graphrf/core/error.hpp"
#include "graphrf/io/h5_input.hpp"

namespace graphrf {

namespace {

std::string lower_extension(const std::string& path) {
  const auto dot = path.find_last_of('.');
  if (dot == std::string::npos || path.find('/', dot) != std::string::npos) return "";
  std::string ext = path.substr(dot + 1);
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return ext;
}

std::string read_file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw FileError(path + ": cannot open point file");
  std::ostringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

void fill_row_ids(PointCloud& cloud) {
  cloud.id.resize(cloud.coords.size() / static_cast<size_t>(std::max(cloud.dim, 1)));
  for (size_t i = 0; i < cloud.id.size(); ++i) cloud.id[i] = static_cast<std::int64_t>(i);
}

PointCloud read_h5_points(const std::string& path) {
  const H5Input in(path);
  if (!in.has("/points")) throw InputError(path + ": no /points dataset (expected N x d coordinates)");
  const auto shape = in.shape("/points");
  if (shape.size() != 2 || shape[1] < 1)
    throw InputError(path + ": /points must be 2-D, N x d with d >= 1 (got " + std::to_string(shape.size()) + " dimensions)");
  PointCloud cloud;
  if (shape[1] > static_cast<std::uint64_t>(std::numeric_limits<int>::max()))
    throw InputError(path + ": /points declares " + std::to_string(shape[1]) + " coordinates per point (at most 2^31 - 1)");
  cloud.dim = static_cast<int>(shape[1]);
  cloud.coords = in.read_rows_double("/points", 0, shape[0]);
  if (in.has("/nodes/id")) {
    const auto id_shape = in.shape("/nodes/id");
    if (id_shape.size() != 1 || id_shape[0] != shape[0])
      throw InputError(path + ": /nodes/id must be a vector of " + std::to_string(shape[0]) + " ids, one per row of /points");
    if (!in.is_integer("/nodes/id")) throw InputError(path + ": /nodes/id must hold integers");
    cloud.id = in.read_rows_int64("/nodes/id", 0, shape[0]);
  } else {
    fill_row_ids(cloud);
  }
  return cloud;
}

bool parse_number(const std::string& token, double& value) {
  if (token.empty()) return false;
  char* end = nullptr;
  value = std::strtod(token.c_str(), &end);
  return end == token.c_str() + token.size();
}

// One PLY scalar property of the vertex element: its byte size and where it goes (x, y, z or nowhere).
struct PlyProperty {
  std::string type;
  int bytes = 0;
  int axis = -1;
};

int ply_type_bytes(const std::string& type, const std::string& path) {
  if (type == "char" || type == "uchar" || type == "int8" || type == "uint8") return 1;
  if (type == "short" || type == "ushort" || type == "int16" || type == "uint16") return 2;
  if (type == "int" || type == "uint" || type == "int32" || type == "uint32" || type == "float" || type == "float32") return 4;
  if (type == "double" || type == "float64") return 8;
  throw InputError(path + ": PLY header: unknown property type '" + type + "'");
}

double ply_binary_value(const PlyProperty& p, const char* at) {
  auto load = [&](auto value) {
    std::memcpy(&value, at, sizeof(value));
    return static_cast<double>(value);
  };
  const std::string& t = p.type;
  if (t == "char" || t == "int8") return load(std::int8_t{});
  if (t == "uchar" || t == "uint8") return load(std::uint8_t{});
  if (t == "short" || t == "int16") return load(std::int16_t{});
  if (t == "ushort" || t == "uint16") return load(std::uint16_t{});
  if (t == "int" || t == "int32") return load(std::int32_t{});
  if (t == "uint" || t == "uint32") return load(std::uint32_t{});
  if (t == "float" || t == "float32") return load(float{});
  return load(double{});
}

PointCloud read_ply_points(const std::string& path) {
  const std::string bytes = read_file_bytes(path);
  std::istringstream header(bytes);
  std::string line;
  std::getline(header, line);
  if (line.rfind("ply", 0) != 0) throw InputError(path + ": line 1: not a PLY file (expected 'ply')");
  bool binary = false, in_vertex = false, vertex_seen = false;
  std::int64_t vertices = -1, line_number = 1;
  std::int64_t later_element_lines = 0;  // ASCII: one line per item of the elements after the vertices
  std::vector<PlyProperty> properties;
  for (;;) {
    if (!std::getline(header, line)) throw InputError(path + ": PLY header has no end_header line");
    ++line_number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    std::istringstream words(line);
    std::string keyword;
    words >> keyword;
    const std::string where = path + ": line " + std::to_string(line_number) + ": ";
    if (keyword == "end_header") break;
    if (keyword == "format") {
      std::string kind;
      words >> kind;
      if (kind == "binary_little_endian") binary = true;
      else if (kind != "ascii") throw InputError(where + "PLY format '" + kind + "' is not supported (ascii or binary_little_endian)");
    } else if (keyword == "element") {
      std::string name;
      std::int64_t count = -1;
      words >> name >> count;
      if (vertex_seen && name != "vertex") {
        in_vertex = false;
        later_element_lines += std::max<std::int64_t>(count, 0);
        continue;
      }
      if (name != "vertex") throw InputError(where + "the vertex element must come first (found '" + name + "')");
      if (count < 0) throw InputError(where + "bad vertex count");
      vertices = count;
      in_vertex = vertex_seen = true;
    } else if (keyword == "property" && in_vertex) {
      std::string type, name;
      words >> type >> name;
      if (type == "list") throw InputError(where + "list properties on vertices are not supported");
      PlyProperty p{type, ply_type_bytes(type, path), -1};
      if (name == "x") p.axis = 0;
      if (name == "y") p.axis = 1;
      if (name == "z") p.axis = 2;
      properties.push_back(p);
    }
  }
  if (!vertex_seen) throw InputError(path + ": PLY header declares no vertex element");
  int dim = 0;
  for (const auto& p : properties) dim = std::max(dim, p.axis + 1);
  for (int axis = 0; axis < dim; ++axis)
    if (std::none_of(properties.begin(), properties.end(), [&](const PlyProperty& p) { return p.axis == axis; }))
      throw InputError(path + ": PLY vertices lack the property " + std::string(1, "xyz"[axis]));
  if (dim == 0) throw InputError(path + ": PLY vertices have no x, y or z property");
  PointCloud cloud;
  cloud.dim = dim;
  const std::streamoff body_start = header.tellg();
  const auto body = body_start < 0 ? bytes.size() : static_cast<size_t>(body_start);
  // A header may declare any count (10^12 vertices in a 100-byte file): no more vertices are allocated than
  // the body has room for (binary: whole records; ASCII: a digit per number, a separator or newline after
  // all but the last), so a short body is reported below instead of exhausting memory.
  size_t stride = 0;
  for (const auto& p : properties) stride += static_cast<size_t>(p.bytes);
  const size_t room = binary ? (bytes.size() - body) / stride : (bytes.size() - body + 1) / (2 * properties.size());
  const auto allocated = std::min(static_cast<size_t>(vertices), room);
  cloud.coords.resize(allocated * static_cast<size_t>(dim));
  if (binary) {
    if (allocated < static_cast<size_t>(vertices))
      throw InputError(path + ": PLY body is shorter than " + std::to_string(vertices) + " binary vertices");
    for (std::int64_t v = 0; v < vertices; ++v) {
      const char* at = bytes.data() + body + stride * static_cast<size_t>(v);
      for (const auto& p : properties) {
        if (p.axis >= 0) cloud.coords[static_cast<size_t>(v * dim + p.axis)] = ply_binary_value(p, at);
        at += p.bytes;
      }
    }
  } else {
    for (std::int64_t v = 0; v < vertices; ++v) {
      if (!std::getline(header, line) || static_cast<size_t>(v) >= allocated)
        throw InputError(path + ": PLY body ends after " + std::to_string(v) + " of " + std::to_string(vertices) + " vertices");
      ++line_number;
      std::istringstream words(line);
      for (const auto& p : properties) {
        std::string token;
        double value = 0;
        if (!(words >> token) || !parse_number(token, value))
          throw InputError(path + ": line " + std::to_string(line_number) + ": expected " +
                           std::to_string(properties.size()) + " numbers for a vertex");
        if (!std::isfinite(value))
          throw InputError(path + ": line " + std::to_string(line_number) + ": coordinate is NaN or infinite");
        if (p.axis >= 0) cloud.coords[static_cast<size_t>(v * dim + p.axis)] = value;
      }
      if (std::string extra; words >> extra)
        throw InputError(path + ": line " + std::to_string(line_number) + ": more than the " +
                         std::to_string(properties.size()) + " numbers the header declares for a vertex");
    }
    // Lines beyond the declared elements mean the header's counts are wrong: refused, not ignored.
    std::int64_t body_lines = 0;
    while (std::getline(header, line)) {
      ++line_number;
      if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
      if (++body_lines > later_element_lines)
        throw InputError(path + ": line " + std::to_string(line_number) + ": more lines than the header declares (" +
                         std::to_string(vertices) + " vertices" +
                         (later_element_lines > 0 ? " and " + std::to_string(later_element_lines) + " other element lines" : "") +
                         "); fix the element counts");
    }
  }
  fill_row_ids(cloud);
  return cloud;
}

PointCloud read_text_points(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw FileError(path + ": cannot open point file");
  PointCloud cloud;
  std::string line;
  std::int64_t line_number = 0;
  bool first_data_line = true;
  while (std::getline(in, line)) {
    ++line_number;
    for (char& c : line)
      if (c == ',' || c == '\t' || c == ';' || c == '\r') c = ' ';
    const auto start = line.find_first_not_of(' ');
    if (start == std::string::npos || line[start] == '#') continue;
    std::istringstream words(line);
    std::vector<double> row;
    std::string token;
    bool numeric = true;
    while (words >> token) {
      double v = 0;
      if (!parse_number(token, v)) numeric = false;
      row.push_back(v);
    }
    const std::string where = path + ": line " + std::to_string(line_number) + ": ";
    if (!numeric) {
      if (first_data_line) {  // column names
        first_data_line = false;
        continue;
      }
      throw InputError(where + "expected numbers only");
    }
    first_data_line = false;
    if (cloud.dim == 0) cloud.dim = static_cast<int>(row.size());
    if (static_cast<int>(row.size()) != cloud.dim)
      throw InputError(where + "expected " + std::to_string(cloud.dim) + " coordinates like the first point (got " +
                       std::to_string(row.size()) + ")");
    for (double v : row)
      if (!std::isfinite(v)) throw InputError(where + "coordinate is NaN or infinite");
    cloud.coords.insert(cloud.coords.end(), row.begin(), row.end());
  }
  fill_row_ids(cloud);
  return cloud;
}

}  // namespace

void validate_point_cloud(const PointCloud& cloud, const std::string& where) {
  if (cloud.size() == 0 || cloud.dim < 1) throw InputError(where + ": no points");
  for (size_t k = 0; k < cloud.coords.size(); ++k)
    if (!std::isfinite(cloud.coords[k]))
      throw InputError(where + ": point " + std::to_string(cloud.id[k / static_cast<size_t>(cloud.dim)]) + " (row " +
                       std::to_string(k / static_cast<size_t>(cloud.dim)) + ") has a NaN or infinite coordinate");
  std::vector<std::int64_t> ids = cloud.id;
  std::sort(ids.begin(), ids.end());
  const auto repeat = std::adjacent_find(ids.begin(), ids.end());
  if (repeat != ids.end()) throw InputError(where + ": point id " + std::to_string(*repeat) + " appears twice");
}

PointCloud read_point_cloud(const std::string& path, const std::string& format) {
  std::string kind = format;
  if (kind == "auto") {
    const std::string ext = lower_extension(path);
    kind = ext == "h5" || ext == "hdf5" ? "h5" : ext == "ply" ? "ply" : "xyz";
  }
  PointCloud cloud;
  if (kind == "h5") cloud = read_h5_points(path);
  else if (kind == "ply") cloud = read_ply_points(path);
  else if (kind == "xyz" || kind == "csv") cloud = read_text_points(path);
  else throw InputError("points.format: expected auto, h5, ply or xyz (got '" + format + "')");
  validate_point_cloud(cloud, path);
  return cloud;
}

}  // namespace graphrf
