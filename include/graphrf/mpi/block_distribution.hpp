#pragma once
// Contiguous ownership of global indices: rank r owns [offsets[r], offsets[r+1]). Owner lookup is a binary
// search over P+1 offsets, O(log P), and needs no table of size N.
#include <algorithm>
#include <cstdint>
#include <vector>

namespace graphrf {

class BlockDistribution {
 public:
  BlockDistribution() = default;
  explicit BlockDistribution(std::vector<std::int64_t> offsets) : offsets_(std::move(offsets)) {}
  // n items split as evenly as possible over p ranks (the first n % p ranks get one more).
  static BlockDistribution uniform(std::int64_t n, int p) {
    std::vector<std::int64_t> off(static_cast<size_t>(p) + 1);
    for (int r = 0; r <= p; ++r) off[static_cast<size_t>(r)] = (n / p) * r + std::min<std::int64_t>(r, n % p);
    return BlockDistribution(std::move(off));
  }

  int owner(std::int64_t global) const {
    auto it = std::upper_bound(offsets_.begin(), offsets_.end(), global);
    return static_cast<int>(it - offsets_.begin()) - 1;
  }
  std::int64_t first(int rank) const { return offsets_[static_cast<size_t>(rank)]; }
  std::int64_t count(int rank) const { return offsets_[static_cast<size_t>(rank) + 1] - offsets_[static_cast<size_t>(rank)]; }
  std::int64_t total() const { return offsets_.empty() ? 0 : offsets_.back(); }
  int ranks() const { return static_cast<int>(offsets_.size()) - 1; }
  const std::vector<std::int64_t>& offsets() const { return offsets_; }

 private:
  std::vector<std::int64_t> offsets_;
};

}  // namespace graphrf
