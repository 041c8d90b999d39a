#pragma once
// Repelling walks (Reid, Berger, Choromanski, Weller 2024, "Repelling random walks", §3): the c surviving
// walkers of one group (ascending walker id, r = 0..c-1) at a node of degree `degree` get neighbour offsets
// that spread them out while each one stays uniform on 0..degree-1:
//   c <= degree: one U ~ U(0,1); walker r takes floor(degree * ((r/c + U) mod 1)) (stratified: all distinct);
//   c >  degree: floor(c/degree) full blocks, each a cyclic shift (j + s_b) mod degree with its own uniform
//                s_b, so every neighbour is used once per block; the c mod degree others take (j + s) mod degree.
// Draws are keyed by (seed, start id, the group's lowest walker id, step, ensemble): the same on every rank.
// split_pack is the rule: both the walk engine's groups and the frames path's packs split with it.
#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

#include "graphrf/core/counter_rng.hpp"
#include "graphrf/walks/walk_options.hpp"

namespace graphrf {

// The k-th random word of a repelling group's draw at one step (four per Philox block).
class RepellingWords {
 public:
  RepellingWords(const WalkOptions& o, std::int64_t start_id, std::int64_t leader, std::int64_t step)
      : o_(o), start_id_(start_id), leader_(leader), step_(step) {}
  std::uint64_t operator()(std::int64_t k) {  // k = 0, 1, 2, ... in order
    if ((k & 3) == 0)
      words_ = philox_block(o_.seed, RngDomain::walk_repel, static_cast<std::uint64_t>(start_id_),
                            static_cast<std::uint64_t>(leader_), static_cast<std::uint64_t>(step_),
                            (o_.ensemble << 40) | static_cast<std::uint64_t>(k >> 2));
    return words_[static_cast<size_t>(k & 3)];
  }

 private:
  const WalkOptions& o_;
  std::int64_t start_id_, leader_, step_;
  std::array<std::uint64_t, 4> words_{};
};

// c <= degree: walker r's offset, floor(degree * ((r/c + u) mod 1)) with u = unit_uniform(word 0).
inline std::int64_t stratified_offset(double u, std::int64_t r, std::int64_t c, std::int64_t degree) {
  double x = static_cast<double>(r) / static_cast<double>(c) + u;
  if (x >= 1.0) x -= 1.0;
  return std::min(degree - 1, static_cast<std::int64_t>(static_cast<double>(degree) * x));
}

// c > degree: the shift s_b of block b (walkers b * degree .. b * degree + degree - 1 take (j + s_b) mod degree).
inline std::int64_t block_shift(RepellingWords& word, std::int64_t b, std::int64_t degree) {
  return static_cast<std::int64_t>(uniform_below(word(b), static_cast<std::uint64_t>(degree)));
}

// One child of a split pack: the walkers that take arc offset offset(), as positions 0..c-1 in the group, in
// ascending order. Positions are computed when asked for, so a child that needs only its size costs nothing.
class PackChild {
 public:
  PackChild(std::int64_t offset, std::int64_t degree, std::int64_t full_blocks, bool in_last_block,
            std::int64_t last_position, const std::int64_t* shifts)
      : offset_(offset), degree_(degree), full_(full_blocks), size_(full_blocks + in_last_block),
        last_(last_position), shifts_(shifts) {}

  std::int64_t offset() const { return offset_; }
  std::int64_t size() const { return size_; }
  // Its k-th walker (k < size()): in full block k the one at (offset - s_k) mod degree, then the one in the
  // partial last block.
  std::int64_t operator[](std::int64_t k) const {
    if (k == full_) return full_ * degree_ + last_;
    const std::int64_t j = offset_ - shifts_[k];
    return k * degree_ + (j < 0 ? j + degree_ : j);
  }

 private:
  std::int64_t offset_, degree_, full_, size_, last_;
  const std::int64_t* shifts_;
};

// Splits a group of c walkers at a node of degree `degree` by the offset each takes (the rule above, words
// drawn in order from `word`): calls child(PackChild) once per offset taken. c <= degree: one child per walker,
// in walker order; c > degree: every offset has at least one walker, in ascending offset order. `shifts` is
// scratch (the block shifts), kept by the caller so that splitting allocates nothing.
template <class Child>
void split_pack(RepellingWords& word, std::int64_t c, std::int64_t degree, std::vector<std::int64_t>& shifts,
                Child&& child) {
  if (c <= degree) {
    const double u = unit_uniform(word(0));
    for (std::int64_t r = 0; r < c; ++r) child(PackChild(stratified_offset(u, r, c, degree), degree, 0, true, r, nullptr));
    return;
  }
  const std::int64_t blocks = (c + degree - 1) / degree;  // the last one may be partial (the remainder)
  shifts.resize(static_cast<size_t>(blocks));
  for (std::int64_t b = 0; b < blocks; ++b) shifts[static_cast<size_t>(b)] = block_shift(word, b, degree);
  const std::int64_t full = c / degree, rest = c % degree;
  for (std::int64_t o = 0; o < degree; ++o) {
    std::int64_t last = degree;  // offset o's position in the partial block: (o - s_full) mod degree
    if (rest > 0) {
      const std::int64_t j = o - shifts[static_cast<size_t>(full)];
      last = j < 0 ? j + degree : j;
    }
    child(PackChild(o, degree, full, last < rest, last, shifts.data()));
  }
}

// Every walker's offset, offsets[r] for r = 0..c-1 (tests, and callers that want them per walker).
inline void repelling_offsets(const WalkOptions& o, std::int64_t start_id, std::int64_t leader, std::int64_t step,
                              std::int64_t c, std::int64_t degree, std::int64_t* offsets) {
  RepellingWords word(o, start_id, leader, step);
  std::vector<std::int64_t> shifts;
  split_pack(word, c, degree, shifts, [&](const PackChild& child) {
    for (std::int64_t k = 0; k < child.size(); ++k) offsets[child[k]] = child.offset();
  });
}

}  // namespace graphrf
