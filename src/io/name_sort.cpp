#include "graphrf/io/name_sort.hpp"

#include <algorithm>
#include <string_view>

namespace graphrf {

namespace {

// Names sent to other ranks: lengths and bytes, with per-destination counts of each.
struct PackedNames {
  std::vector<std::int64_t> lengths;
  std::vector<char> bytes;
  Counts name_counts, byte_counts;
};

std::vector<std::string_view> views_of(const NodeNames& names) {
  std::vector<std::string_view> out(names.size());
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = names[i];
  return out;
}

}  // namespace

SortedNames sort_names(const Communicator& comm, const NodeNames& local) {
  const auto p = static_cast<std::size_t>(comm.size());
  // 1. Splitters from a regular sample of every rank's names; every rank gets every sample.
  constexpr std::size_t kSamplesPerRank = 64;
  PackedNames samples;
  samples.name_counts.assign(p, 0);
  samples.byte_counts.assign(p, 0);
  std::vector<std::size_t> picked;
  for (std::size_t k = 0; k < kSamplesPerRank && !local.empty(); ++k) picked.push_back(local.size() * k / kSamplesPerRank);
  picked.erase(std::unique(picked.begin(), picked.end()), picked.end());
  for (std::size_t r = 0; r < p; ++r)
    for (std::size_t i : picked) {
      const std::string_view name = local[i];
      samples.lengths.push_back(static_cast<std::int64_t>(name.size()));
      samples.bytes.insert(samples.bytes.end(), name.begin(), name.end());
      ++samples.name_counts[r];
      samples.byte_counts[r] += static_cast<std::int64_t>(name.size());
    }
  const auto all_lengths = comm.alltoallv(samples.lengths, samples.name_counts);
  const auto all_bytes = comm.alltoallv(samples.bytes, samples.byte_counts);
  const NodeNames all = NodeNames::from_lengths(std::string_view(all_bytes.data(), all_bytes.size()), all_lengths);
  std::vector<std::string_view> sorted_samples = views_of(all);
  std::sort(sorted_samples.begin(), sorted_samples.end());
  NodeNames splitters;
  for (std::size_t j = 1; j < p; ++j)
    splitters.push_back(sorted_samples.empty() ? std::string_view() : sorted_samples[sorted_samples.size() * j / p]);
  const std::vector<std::string_view> bounds = views_of(splitters);
  const auto bucket = [&](std::string_view name) {
    return static_cast<std::size_t>(std::upper_bound(bounds.begin(), bounds.end(), name) - bounds.begin());
  };

  // 2. Route names to their buckets: `local` is sorted, so buckets are consecutive runs.
  PackedNames route;
  route.name_counts.assign(p, 0);
  route.byte_counts.assign(p, 0);
  route.lengths = local.lengths();
  route.bytes.assign(local.bytes().begin(), local.bytes().end());
  for (std::size_t i = 0; i < local.size(); ++i) {
    const std::size_t b = bucket(local[i]);
    ++route.name_counts[b];
    route.byte_counts[b] += static_cast<std::int64_t>(local[i].size());
  }
  Counts asked_counts;
  const auto got_lengths = comm.alltoallv(route.lengths, route.name_counts, &asked_counts);
  const auto got_bytes = comm.alltoallv(route.bytes, route.byte_counts);
  const NodeNames got = NodeNames::from_lengths(std::string_view(got_bytes.data(), got_bytes.size()), got_lengths);

  // 3. Sort this bucket; ranks' blocks follow in rank order.
  std::vector<std::string_view> mine = views_of(got);
  std::sort(mine.begin(), mine.end());
  mine.erase(std::unique(mine.begin(), mine.end()), mine.end());
  SortedNames out;
  for (std::string_view name : mine) out.owned.push_back(name);
  const auto sizes = comm.allgather(static_cast<std::int64_t>(out.owned.size()));
  std::vector<std::int64_t> offsets(p + 1, 0);
  for (std::size_t r = 0; r < p; ++r) offsets[r + 1] = offsets[r] + sizes[r];
  out.dist = BlockDistribution(std::move(offsets));

  // 4. Answer every name asked with its canonical index, in the order asked; the answers come back in the
  //    order each rank sent, which is its own name order.
  const std::int64_t base = out.dist.first(comm.rank());
  std::vector<std::int64_t> answers(got.size());
  for (std::size_t k = 0; k < got.size(); ++k)
    answers[k] = base + (std::lower_bound(mine.begin(), mine.end(), got[k]) - mine.begin());
  out.index_of = comm.alltoallv(answers, asked_counts);
  return out;
}

}  // namespace graphrf
