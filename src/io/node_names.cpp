#include "graphrf/io/node_names.hpp"

#include <algorithm>

namespace graphrf {

std::vector<std::int64_t> NodeNames::lengths() const {
  std::vector<std::int64_t> out(size());
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = offsets_[i + 1] - offsets_[i];
  return out;
}

std::size_t NodeNames::longest() const {
  std::int64_t longest = 0;
  for (std::size_t i = 0; i < size(); ++i) longest = std::max(longest, offsets_[i + 1] - offsets_[i]);
  return static_cast<std::size_t>(longest);
}

NodeNames NodeNames::from_lengths(std::string_view bytes, std::span<const std::int64_t> lengths) {
  NodeNames names;
  names.bytes_.assign(bytes);
  names.offsets_.reserve(lengths.size() + 1);
  for (auto length : lengths) names.offsets_.push_back(names.offsets_.back() + length);
  return names;
}

}  // namespace graphrf
