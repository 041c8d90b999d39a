// Halting, antithetic and sigma-coupled termination draws and repelling offsets (Reid, Choromanski, Weller
// 2023, "Quasi-Monte Carlo graph random features"; Reid et al. 2025b, §4.1; Reid, Berger, Choromanski,
// Weller 2024, §3).
#include "graphrf/walks/load_factors.hpp"
#include "graphrf/walks/repelling_packs.hpp"
#include "graphrf/walks/walk_hop.hpp"

#include "graphrf/core/error.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

using namespace graphrf;

namespace {

// Length of a walk that never meets a dead end or max_length: the first step at which it halts.
std::int64_t length_of(const WalkOptions& o, std::int64_t start, std::int64_t walker) {
  for (std::int64_t t = 0;; ++t)
    if (draw_hop(o, start, walker, t).halt) return t;
}

// Chi-square statistic of observed lengths against Geometric(p) on {0, 1, ...}, bins merged into a tail
// once the expected count drops below 20.
double geometric_chi_square(const std::vector<std::int64_t>& lengths, double p, int* dof) {
  const double n = static_cast<double>(lengths.size());
  std::vector<double> observed;
  for (auto l : lengths) {
    if (static_cast<size_t>(l) >= observed.size()) observed.resize(static_cast<size_t>(l) + 1, 0);
    observed[static_cast<size_t>(l)] += 1;
  }
  double chi = 0, tail_obs = n, tail_prob = 1.0;
  int bins = 0;
  for (size_t k = 0;; ++k) {
    const double prob = p * std::pow(1 - p, static_cast<double>(k));
    if (n * prob < 20 || n * (tail_prob - prob) < 20) break;
    const double obs = k < observed.size() ? observed[k] : 0.0;
    chi += (obs - n * prob) * (obs - n * prob) / (n * prob);
    tail_obs -= obs;
    tail_prob -= prob;
    ++bins;
  }
  chi += (tail_obs - n * tail_prob) * (tail_obs - n * tail_prob) / (n * tail_prob);
  *dof = bins;  // bins + tail - 1
  return chi;
}

// Chi-square critical value at level 1e-6 (Wilson-Hilferty with z = 4.9; an upper bound for dof <= 40, and
// accurate to a few percent of the statistic's standard deviation for the 255 used below).
double chi_square_critical(int dof) {
  const double k = dof, z = 4.9;
  return k * std::pow(1 - 2 / (9 * k) + z * std::sqrt(2 / (9 * k)), 3);
}

}  // namespace

TEST(WalkStep, IidLengthsAreGeometric) {
  WalkOptions o;
  o.p_halt = 0.3;
  o.walkers = 8;
  std::vector<std::int64_t> lengths;
  for (std::int64_t start = 0; start < 5000; ++start)
    for (std::int64_t k = 0; k < o.walkers; ++k) lengths.push_back(length_of(o, start * 977 + 13, k));
  int dof = 0;
  const double chi = geometric_chi_square(lengths, o.p_halt, &dof);
  EXPECT_LT(chi, chi_square_critical(dof)) << "dof " << dof;  // fails with probability < 1e-6
}

// IidStep splits one word into the halting decision and the neighbour. Checked exactly over all 2^64 words,
// through the boundaries of the monotone maps (binary search): the halting words are [0, H) with H = p 2^64
// to one word, and every neighbour of a node of degree d is chosen by an interval of the other words whose
// length is (2^64 - H) / d give or take four, i.e. the neighbour is uniform and independent of not halting.
// (choice(x) lies in [x 2^64 / (2^64 - H) - 2, x 2^64 / (2^64 - H)], so each interval boundary moves by less
// than two words from its exact place.)
TEST(WalkStep, IidStepHaltsWithPAndPicksNeighboursUniformly) {
  const auto first_word = [](std::uint64_t lo, auto&& reaches) {  // smallest word >= lo with reaches(word)
    std::uint64_t hi = ~std::uint64_t{0};
    if (!reaches(hi)) return hi;  // never: treat as the end (the caller checks the last interval)
    while (lo < hi) {
      const std::uint64_t mid = lo + (hi - lo) / 2;
      if (reaches(mid)) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  };
  for (double p : {0.0, 1e-3, 0.1, 0.5, 0.9}) {
    const IidStep iid(p);
    const std::uint64_t h = first_word(0, [&](std::uint64_t w) { return !iid.halts(w); });
    EXPECT_NEAR(std::ldexp(static_cast<double>(h), -64), p, 0x1p-60) << "p " << p;
    EXPECT_TRUE(h == 0 || iid.halts(h - 1));
    EXPECT_EQ(iid.choice(h), 0u) << "p " << p;
    for (std::uint64_t d : {std::uint64_t{2}, std::uint64_t{3}, std::uint64_t{7}, std::uint64_t{1000}}) {
      const long double expected = (0x1p64L - static_cast<long double>(h)) / static_cast<long double>(d);
      std::uint64_t begin = h;
      for (std::uint64_t j = 0; j < d; ++j) {
        const std::uint64_t end = j + 1 == d ? ~std::uint64_t{0} : first_word(begin, [&](std::uint64_t w) {
          return uniform_below(iid.choice(w), d) > j;
        });
        // The last interval runs to 2^64 - 1 inclusive.
        const long double length = static_cast<long double>(end - begin) + (j + 1 == d ? 1.0L : 0.0L);
        ASSERT_LE(std::fabs(length - expected), 4.0L) << "p " << p << ", degree " << d << ", neighbour " << j;
        ASSERT_EQ(uniform_below(iid.choice(begin), d), j);
        begin = end;
      }
    }
  }
}

namespace {
// SplitMix64 written out again from its description (Steele, Lea, Flood 2014): the output function, and the
// rule that makes an increment odd with at least 24 bit transitions.
std::uint64_t splitmix_output(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}
std::uint64_t splitmix_increment(std::uint64_t z) {
  z = (z ^ (z >> 33)) * 0xff51afd7ed558ccdULL;
  z = (z ^ (z >> 33)) * 0xc4ceb9fe1a85ec53ULL;
  z = (z ^ (z >> 33)) | 1ULL;
  int transitions = 0;
  for (int b = 0; b < 63; ++b) transitions += ((z >> b) & 1) != ((z >> (b + 1)) & 1);
  return transitions < 24 ? z ^ 0xaaaaaaaaaaaaaaaaULL : z;
}

// The step word of walker k at step t as walker_streams.hpp documents it: position k 2^20 + t + 1 of the start
// node's stream, whose seed is its word of the Philox block of ids 4j .. 4j + 3 and whose increment is mixed
// from the block's last word.
std::uint64_t documented_step_word(const WalkOptions& o, std::int64_t start_id, std::int64_t k, std::int64_t t) {
  const auto block = philox_block(o.seed, RngDomain::walk_step, static_cast<std::uint64_t>(start_id) / 4, o.ensemble);
  const std::uint64_t seed = block[static_cast<size_t>(start_id % 4)];
  const std::uint64_t gamma = splitmix_increment(block[3] + 0x9e3779b97f4a7c15ULL);
  const std::uint64_t position = (static_cast<std::uint64_t>(k) << 20) + static_cast<std::uint64_t>(t) + 1;
  return splitmix_output(seed + position * gamma);
}

// Chi-square statistic of the top 4 bits of two words against independent uniform pairs (256 cells).
double pair_chi_square(const std::vector<std::pair<std::uint64_t, std::uint64_t>>& pairs) {
  std::vector<double> cells(256, 0.0);
  for (const auto& [a, b] : pairs) cells[static_cast<size_t>(((a >> 60) << 4) | (b >> 60))] += 1;
  const double expected = static_cast<double>(pairs.size()) / 256.0;
  double chi = 0;
  for (double c : cells) chi += (c - expected) * (c - expected) / expected;
  return chi;
}
}  // namespace

TEST(WalkStep, StepWordsAreTheStartNodesSplitMix64StreamAtDisjointPositions) {
  for (std::uint64_t seed : {1u, 77u}) {
    for (std::uint64_t ensemble : {0u, 3u}) {
      WalkOptions o;
      o.seed = seed;
      o.ensemble = ensemble;
      for (std::int64_t start : {0, 1, 2, 3, 4, 5, 1000003, 123456789}) {
        const StartNodeStreams root(o, start);
        for (std::int64_t k : {0, 1, 15, 1000}) {
          WalkerDraws draws;  // derived on first use, as an arriving walker's
          for (std::int64_t t : {0, 1, 2, 7, 99999}) {
            const std::uint64_t want = documented_step_word(o, start, k, t);
            ASSERT_EQ(root.walker(k).word(t), want) << start << " " << k << " " << t;
            ASSERT_EQ(step_word(o, start, k, t, draws), want) << start << " " << k << " " << t;
          }
        }
      }
    }
  }
  // Nodes taken in ascending order share their root block; the roots are the same as computed alone.
  WalkOptions o;
  StartNodeRoots roots(o);
  for (std::int64_t start = 0; start < 40; start += (start % 3) + 1)
    EXPECT_EQ(roots(start).walker(2).word(5), documented_step_word(o, start, 2, 5)) << start;
}

// Words that the walks use side by side look independent: walkers k and k+1 of a node at one step, steps t and
// t+1 of one walker, walker k at step t+1 against walker k+1 at step t (equal if walkers' stretches of the
// stream overlapped), and one walker at nodes sharing a root block (ids 4j, 4j+1) and not (4j, 4j+4). Each
// chi-square test over 256 cells (255 degrees of freedom) fails with probability below 1e-6 for independent
// uniform words; the single words' top bytes are tested likewise.
TEST(WalkStep, StepWordsOfNeighbouringWalkersStepsAndNodesLookIndependent) {
  WalkOptions o;
  o.seed = 11;
  const int n = 64000;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> walkers, steps, shifted, same_block, other_block;
  std::vector<double> top(256, 0.0);
  for (int i = 0; i < n; ++i) {
    const std::int64_t start = 8 * static_cast<std::int64_t>(i);  // a root block of its own (4j and 4j+1 share)
    const std::int64_t k = i % 13, t = i % 7;
    const auto word = [&](std::int64_t s, std::int64_t kk, std::int64_t tt) { return walker_stream(o, s, kk).word(tt); };
    walkers.push_back({word(start, k, t), word(start, k + 1, t)});
    steps.push_back({word(start, k, t), word(start, k, t + 1)});
    shifted.push_back({word(start, k, t + 1), word(start, k + 1, t)});
    same_block.push_back({word(start, k, t), word(start + 1, k, t)});
    other_block.push_back({word(start, k, t), word(start + 4, k, t)});
    top[static_cast<size_t>(word(start + 2, k, t) >> 56)] += 1;
  }
  const double critical = chi_square_critical(255);
  EXPECT_LT(pair_chi_square(walkers), critical);
  EXPECT_LT(pair_chi_square(steps), critical);
  EXPECT_LT(pair_chi_square(shifted), critical);
  EXPECT_LT(pair_chi_square(same_block), critical);
  EXPECT_LT(pair_chi_square(other_block), critical);
  double chi = 0;
  for (double c : top) chi += (c - n / 256.0) * (c - n / 256.0) / (n / 256.0);
  EXPECT_LT(chi, critical);
}

TEST(WalkStep, AntitheticPairsNeverHaltTogetherAndStayGeometric) {
  for (double p : {0.1, 0.25, 0.5}) {
    WalkOptions o;
    o.p_halt = p;
    o.walkers = 6;
    o.coupling = Coupling::antithetic;
    std::vector<std::int64_t> lengths;
    for (std::int64_t start = 0; start < 4000; ++start) {
      for (std::int64_t k = 0; k < o.walkers / 2; ++k) {
        for (std::int64_t t = 0; t < 30; ++t) {
          const bool a = draw_hop(o, start, k, t).halt, b = draw_hop(o, start, k + o.walkers / 2, t).halt;
          ASSERT_FALSE(a && b) << "p " << p << " start " << start << " pair " << k << " step " << t;
          if (p == 0.5) ASSERT_TRUE(a || b);  // exactly one halts at every step
        }
      }
      for (std::int64_t k = 0; k < o.walkers; ++k) lengths.push_back(length_of(o, start, k));
    }
    int dof = 0;
    const double chi = geometric_chi_square(lengths, p, &dof);
    EXPECT_LT(chi, chi_square_critical(dof)) << "p " << p << " dof " << dof;
  }
}

TEST(WalkStep, WeightedPickFollowsCumulativeWeights) {
  const double cumulative[4] = {1.0, 3.0, 3.5, 7.5};  // weights 1, 2, 0.5, 4
  std::vector<int> hits(4, 0);
  const int n = 150000;
  for (int i = 0; i < n; ++i) ++hits[static_cast<size_t>(pick_weighted(cumulative, 4, philox_block(5, RngDomain::walk_step, static_cast<std::uint64_t>(i))[1]))];
  const double w[4] = {1, 2, 0.5, 4};
  for (int k = 0; k < 4; ++k) {
    const double prob = w[k] / 7.5, sd = std::sqrt(n * prob * (1 - prob));
    EXPECT_NEAR(hits[static_cast<size_t>(k)], n * prob, 6 * sd);  // 6 sd: p < 2e-9 per bin
  }
}

namespace {
// Quantile tile q of Geometric(p) in lengths: [F^-1(q/m), F^-1(((q+1)/m)^-)].
std::pair<std::int64_t, std::int64_t> tile_lengths(int q, int m, double p) {
  return {geometric_quantile(static_cast<double>(q) / m, p),
          geometric_quantile(std::nextafter(static_cast<double>(q + 1) / m, 0.0), p)};
}
}  // namespace

TEST(WalkStep, SigmaCoupledLengthsAreGeometricPerWalkerAndMatchTheirTiles) {
  for (const std::vector<int>& sigma : {std::vector<int>{1, 3, 2, 4, 0}, std::vector<int>{7, 6, 5, 4, 3, 2, 1, 0}}) {
    WalkOptions o;
    o.p_halt = 0.3;
    o.walkers = 4;
    o.coupling = Coupling::sigma;
    o.sigma = sigma;
    const int m = static_cast<int>(sigma.size());
    std::vector<std::vector<std::int64_t>> lengths(static_cast<size_t>(o.walkers));
    for (std::int64_t start = 0; start < 6000; ++start) {
      for (std::int64_t k = 0; k < o.walkers; ++k) lengths[static_cast<size_t>(k)].push_back(length_of(o, start, k));
      for (std::int64_t pair = 0; pair < o.walkers / 2; ++pair) {
        const std::int64_t l1 = fixed_walk_length(o, start, pair), l2 = fixed_walk_length(o, start, pair + 2);
        bool some_tile = false;  // the pair sits in tiles (q, sigma(q)) for some q
        for (int q = 0; q < m; ++q) {
          const auto [lo1, hi1] = tile_lengths(q, m, o.p_halt);
          const auto [lo2, hi2] = tile_lengths(sigma[static_cast<size_t>(q)], m, o.p_halt);
          some_tile |= l1 >= lo1 && l1 <= hi1 && l2 >= lo2 && l2 <= hi2;
        }
        ASSERT_TRUE(some_tile) << "start " << start << " pair " << pair << ": " << l1 << ", " << l2;
      }
    }
    // Each walker's lengths alone: Geometric(p). 2 x 4 tests at level 1e-6 each.
    for (std::int64_t k = 0; k < o.walkers; ++k) {
      int dof = 0;
      const double chi = geometric_chi_square(lengths[static_cast<size_t>(k)], o.p_halt, &dof);
      EXPECT_LT(chi, chi_square_critical(dof)) << "m " << m << " walker " << k << " dof " << dof;
    }
  }
}

TEST(WalkStep, ReversedSigmaAntiCorrelatesPairLengths) {
  // sigma = identity gives equal quantiles (comonotone lengths), the reversal opposite ones: their sample
  // correlations over 20000 pairs have standard errors below 0.01, far from the +-0.5 separations checked.
  auto correlation = [](const std::vector<int>& sigma) {
    WalkOptions o;
    o.p_halt = 0.3;
    o.walkers = 2;
    o.coupling = Coupling::sigma;
    o.sigma = sigma;
    double s1 = 0, s2 = 0, s11 = 0, s22 = 0, s12 = 0;
    const int n = 20000;
    for (std::int64_t start = 0; start < n; ++start) {
      const double a = static_cast<double>(fixed_walk_length(o, start, 0));
      const double b = static_cast<double>(fixed_walk_length(o, start, 1));
      s1 += a, s2 += b, s11 += a * a, s22 += b * b, s12 += a * b;
    }
    const double cov = s12 / n - s1 / n * s2 / n;
    return cov / std::sqrt((s11 / n - s1 * s1 / n / n) * (s22 / n - s2 * s2 / n / n));
  };
  std::vector<int> identity(16), reversed(16);
  for (int q = 0; q < 16; ++q) identity[static_cast<size_t>(q)] = q, reversed[static_cast<size_t>(q)] = 15 - q;
  EXPECT_GT(correlation(identity), 0.9);
  EXPECT_LT(correlation(reversed), -0.5);
}

TEST(WalkStep, QuantileWalksStayInTheirTile) {
  WalkOptions o;
  o.p_halt = 0.4;
  o.quantile_order = 6;
  for (int q = 0; q < 6; ++q) {
    o.quantile = q;
    const auto [lo, hi] = tile_lengths(q, 6, o.p_halt);
    for (std::int64_t start = 0; start < 500; ++start) {
      const auto l = length_of(o, start, start % 7);
      ASSERT_GE(l, lo);
      ASSERT_LE(l, hi);
    }
  }
}

TEST(WalkStep, SigmaFilesAreCheckedLineByLine) {
  EXPECT_EQ(parse_sigma("2 4 3\n5 1  # Fig. 2\n", "s.txt"), (std::vector<int>{1, 3, 2, 4, 0}));
  auto message = [](const std::string& text) {
    try {
      parse_sigma(text, "s.txt");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message("1 2\n2\n"), "s.txt:2: value 2 appears twice (not a permutation)");
  EXPECT_EQ(message("1 4 2\n"), "s.txt:1: value 4 outside 1..3 (a permutation of 3 values, 1-based)");
  EXPECT_EQ(message("1\n2 x\n"), "s.txt:2: expected a positive integer, got 'x'");
  EXPECT_EQ(message("# nothing\n"), "s.txt: no permutation (expected whitespace-separated values 1..m)");
}

TEST(WalkStep, RepellingOffsetsSpreadWalkersAndStayUniformPerWalker) {
  // For every (c walkers, degree) shape: stratified offsets are distinct, cyclic blocks use every neighbour
  // once, and each walker r's offset is uniform over the neighbours (chi-square with degree - 1 dof over
  // 20000 keyed draws, level 1e-6 per walker; 46 walkers in all, so a false failure has probability < 5e-5).
  WalkOptions o;
  o.seed = 3;
  const std::pair<std::int64_t, std::int64_t> shapes[] = {{1, 4}, {3, 5}, {5, 5}, {7, 3}, {8, 4}, {11, 2}, {7, 6}};
  for (const auto& [c, degree] : shapes) {
    const int draws = 20000;
    std::vector<std::vector<double>> hits(static_cast<size_t>(c), std::vector<double>(static_cast<size_t>(degree), 0));
    std::vector<std::int64_t> offsets(static_cast<size_t>(c));
    for (int key = 0; key < draws; ++key) {
      repelling_offsets(o, 1000 + key, key % 5, key % 9, c, degree, offsets.data());
      for (std::int64_t b = 0; b * degree < c; ++b) {  // each block (or the whole group when c <= degree)
        std::vector<int> used(static_cast<size_t>(degree), 0);
        for (std::int64_t j = b * degree; j < std::min(c, (b + 1) * degree); ++j)
          ASSERT_EQ(used[static_cast<size_t>(offsets[static_cast<size_t>(j)])]++, 0) << c << " on " << degree;
      }
      for (std::int64_t r = 0; r < c; ++r) hits[static_cast<size_t>(r)][static_cast<size_t>(offsets[static_cast<size_t>(r)])] += 1;
    }
    for (std::int64_t r = 0; r < c; ++r) {
      double chi = 0;
      const double expected = static_cast<double>(draws) / static_cast<double>(degree);
      for (double h : hits[static_cast<size_t>(r)]) chi += (h - expected) * (h - expected) / expected;
      EXPECT_LT(chi, chi_square_critical(static_cast<int>(degree - 1))) << c << " walkers on degree " << degree << ", walker " << r;
    }
  }
}
