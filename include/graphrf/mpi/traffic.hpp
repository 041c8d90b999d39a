#pragma once
// Bytes this process has handed to MPI for other ranks, counted at every send path (point-to-point sends,
// all-to-all blocks for other ranks, a broadcast root's payload once per receiver, a reduction's payload
// once), so the run summary's `sent` column covers graph loading, ghost exchanges, walks, attention,
// filters and references alike.
#include <cstdint>

namespace graphrf {

void count_sent_bytes(std::int64_t bytes);
std::int64_t sent_bytes_total();

}  // namespace graphrf
