#pragma once
// Node names (string node ids) packed into one byte buffer: name i is bytes [offsets[i], offsets[i+1]).
// One allocation for any number of names, and trivially-copyable pieces (bytes, offsets) that MPI can move.
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace graphrf {

class NodeNames {
 public:
  NodeNames() = default;

  std::size_t size() const { return offsets_.size() - 1; }
  bool empty() const { return size() == 0; }
  std::string_view operator[](std::size_t i) const {
    return std::string_view(bytes_).substr(static_cast<std::size_t>(offsets_[i]),
                                           static_cast<std::size_t>(offsets_[i + 1] - offsets_[i]));
  }
  void push_back(std::string_view name) {
    bytes_.append(name);
    offsets_.push_back(static_cast<std::int64_t>(bytes_.size()));
  }
  void clear() {
    bytes_.clear();
    offsets_.assign(1, 0);
  }
  const std::string& bytes() const { return bytes_; }
  // Length of every name, in order (for sending names as bytes + lengths).
  std::vector<std::int64_t> lengths() const;
  std::size_t longest() const;
  // Rebuilds names from their concatenated bytes and lengths (what lengths() and bytes() give).
  static NodeNames from_lengths(std::string_view bytes, std::span<const std::int64_t> lengths);

 private:
  std::string bytes_;
  std::vector<std::int64_t> offsets_{0};
};

}  // namespace graphrf
