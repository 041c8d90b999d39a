// PLY meshes (the Stanford format): the header "ply", "format ascii|binary_little_endian|binary_big_endian 1.0",
// `comment` and `obj_info` lines, "element NAME COUNT" each followed by its "property TYPE NAME" or "property
// list COUNT_TYPE ITEM_TYPE NAME" lines, and "end_header"; then the elements in header order, in ASCII one item
// a line, in binary packed. The graph: `vertex` items are the nodes, each `face`'s vertex_indices (or
// vertex_index) list gives the polygon's boundary arcs and each `edge` item (vertex1, vertex2) one arc; other
// elements and properties are skipped.
#include <algorithm>
#include <bit>
#include <limits>
#include <cstring>
#include <vector>

#include "format_text.hpp"
#include "mesh_formats.hpp"

namespace graphrf::detail {

namespace {

enum class PlyType { i8, u8, i16, u16, i32, u32, f32, f64 };

bool parse_ply_type(std::string_view name, PlyType& type) {
  struct Name {
    std::string_view name;
    PlyType type;
  };
  static constexpr Name kNames[] = {
      {"char", PlyType::i8},    {"int8", PlyType::i8},     {"uchar", PlyType::u8},   {"uint8", PlyType::u8},
      {"short", PlyType::i16},  {"int16", PlyType::i16},   {"ushort", PlyType::u16}, {"uint16", PlyType::u16},
      {"int", PlyType::i32},    {"int32", PlyType::i32},   {"uint", PlyType::u32},   {"uint32", PlyType::u32},
      {"float", PlyType::f32},  {"float32", PlyType::f32}, {"double", PlyType::f64}, {"float64", PlyType::f64},
  };
  for (const Name& n : kNames) {
    if (n.name == name) {
      type = n.type;
      return true;
    }
  }
  return false;
}

std::size_t size_of(PlyType type) {
  switch (type) {
    case PlyType::i8: case PlyType::u8: return 1;
    case PlyType::i16: case PlyType::u16: return 2;
    case PlyType::i32: case PlyType::u32: case PlyType::f32: return 4;
    case PlyType::f64: return 8;
  }
  return 0;
}

bool is_integer_type(PlyType type) { return type != PlyType::f32 && type != PlyType::f64; }

struct PlyProperty {
  std::string name;
  bool list = false;
  PlyType count_type = PlyType::u8;
  PlyType type = PlyType::f32;
};

// What an element's items mean for the graph.
enum class PlyRole { vertex, face, edge, other };

struct PlyElement {
  std::string name;
  std::int64_t count = 0;
  std::vector<PlyProperty> properties;
  PlyRole role = PlyRole::other;
  int indices = -1;            // face: the vertex_indices list property
  int ends[2] = {-1, -1};      // edge: vertex1, vertex2
};

enum class PlyEncoding { ascii, little_endian, big_endian };

struct PlyHeader {
  PlyEncoding encoding = PlyEncoding::ascii;
  std::vector<PlyElement> elements;
  std::size_t data_offset = 0;
  std::int64_t data_first_line = 1;
  std::int64_t vertices = -1;
};

PlyHeader parse_ply_header(std::string_view bytes, const std::string& file) {
  PlyHeader header;
  std::size_t pos = 0;
  std::int64_t number = 0;
  bool format_seen = false;
  while (true) {
    const std::size_t nl = bytes.find('\n', pos);
    if (nl == std::string_view::npos) throw_file_error(file, "the PLY header has no 'end_header' line");
    std::string_view line = bytes.substr(pos, nl - pos);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    pos = nl + 1;
    ++number;
    const LineRef at{file, number, line};
    Tokenizer tokens(line, false);
    std::string_view keyword;
    if (!tokens.next(keyword)) continue;
    if (number == 1) {
      if (keyword != "ply") throw_line_error(at, "a PLY file starts with the line 'ply'");
      continue;
    }
    if (keyword == "comment" || keyword == "obj_info") continue;
    if (keyword == "end_header") break;
    std::string_view a, b, c, d;
    if (keyword == "format") {
      if (!tokens.next(a)) throw_line_error(at, "expected 'format ascii|binary_little_endian|binary_big_endian 1.0'");
      if (a == "ascii") header.encoding = PlyEncoding::ascii;
      else if (a == "binary_little_endian") header.encoding = PlyEncoding::little_endian;
      else if (a == "binary_big_endian") header.encoding = PlyEncoding::big_endian;
      else throw_line_error(at, "unknown PLY format '" + excerpt(a) + "' (expected ascii, binary_little_endian or binary_big_endian)");
      format_seen = true;
    } else if (keyword == "element") {
      PlyElement element;
      if (!tokens.next(a) || !tokens.next(b)) throw_line_error(at, "expected 'element NAME COUNT'");
      element.name = std::string(a);
      element.count = parse_id(b, at, "element count", 0, -1);
      if (a == "vertex") {
        element.role = PlyRole::vertex;
        header.vertices = element.count;
      } else if (a == "face") {
        element.role = PlyRole::face;
      } else if (a == "edge") {
        element.role = PlyRole::edge;
      }
      header.elements.push_back(std::move(element));
    } else if (keyword == "property") {
      if (header.elements.empty()) throw_line_error(at, "a PLY property before any element");
      PlyProperty property;
      if (!tokens.next(a)) throw_line_error(at, "expected 'property TYPE NAME' or 'property list COUNT_TYPE TYPE NAME'");
      if (a == "list") {
        property.list = true;
        if (!tokens.next(b) || !tokens.next(c) || !tokens.next(d))
          throw_line_error(at, "expected 'property list COUNT_TYPE TYPE NAME'");
        if (!parse_ply_type(b, property.count_type) || !is_integer_type(property.count_type))
          throw_line_error(at, "a PLY list count type must be an integer type (got '" + excerpt(b) + "')");
        if (!parse_ply_type(c, property.type)) throw_line_error(at, "unknown PLY type '" + excerpt(c) + "'");
        property.name = std::string(d);
      } else {
        if (!tokens.next(b)) throw_line_error(at, "expected 'property TYPE NAME'");
        if (!parse_ply_type(a, property.type)) throw_line_error(at, "unknown PLY type '" + excerpt(a) + "'");
        property.name = std::string(b);
      }
      PlyElement& element = header.elements.back();
      const int index = static_cast<int>(element.properties.size());
      if (element.role == PlyRole::face && property.list &&
          (property.name == "vertex_indices" || property.name == "vertex_index")) {
        if (!is_integer_type(property.type))
          throw_line_error(at, "PLY face vertex indices must have an integer type");
        element.indices = index;
      }
      if (element.role == PlyRole::edge && !property.list && property.name == "vertex1") element.ends[0] = index;
      if (element.role == PlyRole::edge && !property.list && property.name == "vertex2") element.ends[1] = index;
      element.properties.push_back(std::move(property));
    } else {
      throw_line_error(at, "unknown PLY header line");
    }
  }
  header.data_offset = pos;
  header.data_first_line = number + 1;
  if (!format_seen) throw_file_error(file, "the PLY header has no 'format' line");
  if (header.vertices < 0) throw_file_error(file, "the PLY header declares no 'element vertex'");
  std::int64_t connections = 0;
  for (const PlyElement& e : header.elements) {
    if (e.role == PlyRole::face && e.indices < 0 && e.count > 0)
      throw_file_error(file, "the PLY element 'face' has no 'property list ... vertex_indices'");
    if (e.role == PlyRole::edge && (e.ends[0] < 0 || e.ends[1] < 0) && e.count > 0)
      throw_file_error(file, "the PLY element 'edge' needs properties 'vertex1' and 'vertex2'");
    if (e.role == PlyRole::face || e.role == PlyRole::edge) connections += e.count;
  }
  if (connections == 0)
    throw_file_error(file, "a PLY file with " + std::to_string(header.vertices) +
                               " vertices and no faces or edges is a point cloud: read it with --points " + file +
                               " --knn K (or --radius R)");
  return header;
}

// Collects one face's vertex ids and adds its boundary arcs.
void add_polygon(MeshGraph& mesh, const std::vector<std::int64_t>& corners, bool keep_self_loops) {
  for (std::size_t k = 0; k < corners.size(); ++k)
    add_arc(mesh.arcs, corners[k], corners[(k + 1) % corners.size()], 1.0, keep_self_loops);
  ++mesh.faces;
}

// Binary items: a cursor over the data with the file's byte order.
class BinaryReader {
 public:
  BinaryReader(std::string_view data, bool swap, const std::string& file) : data_(data), swap_(swap), file_(file) {}

  // The value of one property (integers exactly; floats read but only integers are used as ids).
  std::int64_t integer(PlyType type, const PlyElement& element, std::int64_t item) {
    unsigned char raw[8];
    take(raw, size_of(type), element, item);
    switch (type) {
      case PlyType::i8: return static_cast<std::int8_t>(raw[0]);
      case PlyType::u8: return raw[0];
      case PlyType::i16: return as<std::int16_t>(raw);
      case PlyType::u16: return as<std::uint16_t>(raw);
      case PlyType::i32: return as<std::int32_t>(raw);
      case PlyType::u32: return as<std::uint32_t>(raw);
      case PlyType::f32: case PlyType::f64: return 0;
    }
    return 0;
  }
  void skip(std::size_t bytes, const PlyElement& element, std::int64_t item) {
    if (data_.size() - pos_ < bytes) truncated(element, item);
    pos_ += bytes;
  }
  std::size_t left() const { return data_.size() - pos_; }

 private:
  template <class T>
  T as(unsigned char* raw) const {
    if (swap_) std::reverse(raw, raw + sizeof(T));
    T value;
    std::memcpy(&value, raw, sizeof(T));
    return value;
  }
  void take(unsigned char* out, std::size_t bytes, const PlyElement& element, std::int64_t item) {
    if (data_.size() - pos_ < bytes) truncated(element, item);
    std::memcpy(out, data_.data() + pos_, bytes);
    pos_ += bytes;
  }
  [[noreturn]] void truncated(const PlyElement& element, std::int64_t item) const {
    throw_file_error(file_, "the data ends inside " + element.name + " " + std::to_string(item) + " (the header declares " +
                                std::to_string(element.count) + "): truncated file?");
  }
  std::string_view data_;
  std::size_t pos_ = 0;
  bool swap_;
  const std::string& file_;
};

std::string range_error(std::int64_t index, std::int64_t vertices) {
  return "vertex index " + std::to_string(index) + " out of range 0.." + std::to_string(vertices - 1) + " (" +
         std::to_string(vertices) + " vertices)";
}

void read_binary(const PlyHeader& header, std::string_view data, const std::string& file, bool keep_self_loops,
                 MeshGraph& mesh) {
  const bool file_little = header.encoding == PlyEncoding::little_endian;
  BinaryReader reader(data, file_little != (std::endian::native == std::endian::little), file);
  std::vector<std::int64_t> corners;
  for (const PlyElement& element : header.elements) {
    for (std::int64_t item = 0; item < element.count; ++item) {
      std::int64_t ends[2] = {0, 0};
      for (std::size_t p = 0; p < element.properties.size(); ++p) {
        const PlyProperty& property = element.properties[p];
        const bool wanted = static_cast<int>(p) == element.indices || static_cast<int>(p) == element.ends[0] ||
                            static_cast<int>(p) == element.ends[1];
        if (!property.list) {
          if (!wanted) {
            reader.skip(size_of(property.type), element, item);
            continue;
          }
          ends[static_cast<int>(p) == element.ends[0] ? 0 : 1] = reader.integer(property.type, element, item);
          continue;
        }
        const std::int64_t count = reader.integer(property.count_type, element, item);
        if (count < 0) throw_file_error(file, element.name + " " + std::to_string(item) + ": negative list length");
        if (!wanted) {
          reader.skip(static_cast<std::size_t>(count) * size_of(property.type), element, item);
          continue;
        }
        corners.clear();
        for (std::int64_t k = 0; k < count; ++k) corners.push_back(reader.integer(property.type, element, item));
      }
      if (element.role == PlyRole::face) {
        if (corners.size() < 3) throw_file_error(file, "face " + std::to_string(item) + ": a PLY face needs at least 3 vertices");
        for (std::int64_t v : corners)
          if (v < 0 || v >= header.vertices) throw_file_error(file, "face " + std::to_string(item) + ": " + range_error(v, header.vertices));
        add_polygon(mesh, corners, keep_self_loops);
      } else if (element.role == PlyRole::edge) {
        for (std::int64_t v : ends)
          if (v < 0 || v >= header.vertices) throw_file_error(file, "edge " + std::to_string(item) + ": " + range_error(v, header.vertices));
        add_arc(mesh.arcs, ends[0], ends[1], 1.0, keep_self_loops);
      }
    }
  }
  if (reader.left() > 0)
    throw_file_error(file, std::to_string(reader.left()) + " bytes follow the last element the header declares");
}

void read_ascii(const PlyHeader& header, std::string_view data, const std::string& file, bool keep_self_loops,
                MeshGraph& mesh) {
  std::size_t element = 0;
  std::int64_t item = 0;
  std::vector<std::int64_t> corners;
  const auto next_element = [&] {
    while (element < header.elements.size() && item == header.elements[element].count) {
      ++element;
      item = 0;
    }
  };
  next_element();
  for_each_line(data, [&](std::string_view line, std::int64_t index) {
    const LineRef at{file, header.data_first_line + index, line};
    if (trim(line).empty()) return;
    if (element == header.elements.size()) throw_line_error(at, "more lines than the PLY header's elements declare");
    const PlyElement& e = header.elements[element];
    Tokenizer tokens(line, false);
    std::string_view token;
    const auto value = [&](bool wanted) -> std::int64_t {
      if (!tokens.next(token)) throw_line_error(at, "fewer values than the PLY header declares for a " + e.name);
      return wanted ? parse_id(token, at, "vertex index", std::numeric_limits<std::int64_t>::min(), -1) : 0;
    };
    std::int64_t ends[2] = {0, 0};
    for (std::size_t p = 0; p < e.properties.size(); ++p) {
      const PlyProperty& property = e.properties[p];
      const bool wanted = static_cast<int>(p) == e.indices || static_cast<int>(p) == e.ends[0] ||
                          static_cast<int>(p) == e.ends[1];
      if (!property.list) {
        const std::int64_t v = value(wanted);
        if (wanted) ends[static_cast<int>(p) == e.ends[0] ? 0 : 1] = v;
        continue;
      }
      if (!tokens.next(token)) throw_line_error(at, "fewer values than the PLY header declares for a " + e.name);
      const std::int64_t count = parse_id(token, at, "list length", 0, -1);
      if (wanted) corners.clear();
      for (std::int64_t k = 0; k < count; ++k) {
        const std::int64_t v = value(wanted);
        if (wanted) corners.push_back(v);
      }
    }
    if (tokens.next(token)) throw_line_error(at, "more values than the PLY header declares for a " + e.name);
    if (e.role == PlyRole::face) {
      if (corners.size() < 3) throw_line_error(at, "a PLY face needs at least 3 vertices");
      for (std::int64_t v : corners)
        if (v < 0 || v >= header.vertices) throw_line_error(at, range_error(v, header.vertices));
      add_polygon(mesh, corners, keep_self_loops);
    } else if (e.role == PlyRole::edge) {
      for (std::int64_t v : ends)
        if (v < 0 || v >= header.vertices) throw_line_error(at, range_error(v, header.vertices));
      add_arc(mesh.arcs, ends[0], ends[1], 1.0, keep_self_loops);
    }
    ++item;
    next_element();
  });
  if (element < header.elements.size())
    throw_file_error(file, "the data ends after " + std::to_string(item) + " of the " +
                               std::to_string(header.elements[element].count) + " " + header.elements[element].name +
                               " items the PLY header declares: truncated file?");
}

}  // namespace

MeshGraph parse_ply_mesh(std::string_view bytes, const std::string& file, bool keep_self_loops) {
  const PlyHeader header = parse_ply_header(bytes, file);
  MeshGraph mesh;
  mesh.vertices = header.vertices;
  const std::string_view data = bytes.substr(header.data_offset);
  if (header.encoding == PlyEncoding::ascii) {
    read_ascii(header, data, file, keep_self_loops, mesh);
  } else {
    read_binary(header, data, file, keep_self_loops, mesh);
  }
  return mesh;
}

}  // namespace graphrf::detail
