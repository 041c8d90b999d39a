// Reproducible row sums: fixed blocks of 256 keys, a fixed binary tree over blocks. See reproducible_sum.hpp.
#include "graphrf/mpi/reproducible_sum.hpp"

#include <algorithm>
#include <cstring>
#include <numeric>
#include <string>

namespace graphrf {

namespace {
constexpr int kTreeTagBase = 7600;  // + tree level (below 64 levels: clear of the other tags, 72xx-75xx)
__extension__ typedef __int128 Int128;  // exact n_blocks * rows / N

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

// Evaluates a product into a fresh (aligned) matrix, then copies it out. Writing it straight into `out` would
// let the alignment of `out` (which depends on the block's position in this rank's range) pick between
// vectorised and scalar code paths for small products, and those round differently.
void store(const Eigen::MatrixXd& value, double* out) { std::memcpy(out, value.data(), sizeof(double) * value.size()); }

// Every rank throws the same Error if any rank found a problem (so no rank is left waiting in a collective).
void agree_or_throw(const Communicator& comm, const std::string& local_problem) {
  const int bad = comm.allreduce(local_problem.empty() ? comm.size() : comm.rank(), MPI_MIN);
  if (bad == comm.size()) return;
  std::string message = local_problem;
  comm.broadcast(message, bad);
  throw Error(message);
}
}  // namespace

RowBlockReducer::RowBlockReducer(const DistributedOperator& op)
    : RowBlockReducer(*op.comm, op.n_global, std::span<const std::int64_t>(op.row_keys)) {
  if (static_cast<std::int64_t>(op.row_keys.size()) != op.n_local)
    throw Error("DistributedOperator: row_keys has " + std::to_string(op.row_keys.size()) + " entries for n_local = " +
                std::to_string(op.n_local) + " rows");
}

RowBlockReducer::RowBlockReducer(const Communicator& comm, std::int64_t n_global, std::span<const std::int64_t> row_keys)
    : comm_(&comm), n_global_(n_global), n_local_(static_cast<std::int64_t>(row_keys.size())) {
  const int p = comm.size();
  const int me = comm.rank();
  constexpr std::int64_t B = kBlockRows;
  n_blocks_ = ceil_div(n_global_, B);

  // Local checks first, agreed on by every rank before keys are used as indices.
  std::string problem;
  std::int64_t min_key = n_global_, max_key = -1;
  for (auto k : row_keys) {
    if (k < 0 || k >= n_global_) {
      problem = "row keys must be a permutation of 0.." + std::to_string(n_global_ - 1) + " (rank " +
                std::to_string(me) + " holds key " + std::to_string(k) + ")";
      break;
    }
    min_key = std::min(min_key, k);
    max_key = std::max(max_key, k);
  }
  const auto counts = comm.allgather(n_local_);
  if (problem.empty() && std::accumulate(counts.begin(), counts.end(), std::int64_t{0}) != n_global_)
    problem = "row keys must be a permutation of 0.." + std::to_string(n_global_ - 1) + " (the ranks hold " +
              std::to_string(std::accumulate(counts.begin(), counts.end(), std::int64_t{0})) + " rows in all)";
  agree_or_throw(comm, problem);

  // Homes of blocks: contiguous block ranges per rank, monotone in the rank.
  const auto mins = comm.allgather(min_key);
  const auto maxs = comm.allgather(max_key);
  bool contiguous = true;
  std::int64_t next = 0;
  for (int r = 0; r < p && contiguous; ++r) {
    if (counts[r] == 0) continue;
    contiguous = mins[r] == next && maxs[r] - mins[r] + 1 == counts[r];
    next = maxs[r] + 1;
  }
  block_begin_.assign(static_cast<size_t>(p) + 1, n_blocks_);
  if (contiguous) {
    // The rank holding key 256 j is the home of block j.
    for (int r = p - 1; r >= 0; --r)
      block_begin_[r] = counts[r] > 0 ? ceil_div(mins[r], B) : block_begin_[r + 1];
  } else {
    // Shares proportional to the ranks' row counts.
    std::int64_t before = 0;
    for (int r = 0; r < p; ++r) {
      block_begin_[r] = n_global_ > 0 ? static_cast<std::int64_t>(static_cast<Int128>(n_blocks_) * before / n_global_) : 0;
      before += counts[r];
    }
  }
  block_begin_[0] = 0;  // also when leading ranks are empty
  const std::int64_t first_block = block_begin_[me];

  // Which local rows go where, in key order within each destination.
  std::vector<std::int64_t> order(static_cast<size_t>(n_local_));
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](std::int64_t a, std::int64_t b) { return row_keys[a] < row_keys[b]; });
  std::vector<std::vector<std::int64_t>> by_dest(static_cast<size_t>(p));
  for (auto i : order) {
    const std::int64_t key = row_keys[i];
    const int home = home_of_block(key / B);
    if (home == me) {
      keep_rows_.push_back(i);
      keep_slots_.push_back((key / B - first_block) * B + key % B);
    } else {
      by_dest[home].push_back(i);
    }
  }
  send_rows_per_rank_.assign(static_cast<size_t>(p), 0);
  std::vector<std::int64_t> send_keys;
  for (int r = 0; r < p; ++r) {
    send_rows_per_rank_[r] = static_cast<std::int64_t>(by_dest[r].size());
    for (auto i : by_dest[r]) {
      send_rows_.push_back(i);
      send_keys.push_back(row_keys[i]);
    }
  }
  const auto recv_keys = comm.alltoallv(send_keys, send_rows_per_rank_, &recv_rows_per_rank_);
  recv_slots_.reserve(recv_keys.size());
  for (auto key : recv_keys) recv_slots_.push_back((key / B - first_block) * B + key % B);

  // Permutation check on the homes: every key of every home block arrives exactly once.
  const std::int64_t my_blocks = block_begin_[me + 1] - first_block;
  std::int64_t expected = std::min(block_begin_[me + 1] * B, n_global_) - std::min(first_block * B, n_global_);
  std::vector<unsigned char> seen(static_cast<size_t>(my_blocks * B), 0);
  auto mark = [&](std::int64_t slot) {
    if (slot < 0 || slot >= my_blocks * B || seen[slot]) {
      if (problem.empty())
        problem = "row keys must be a permutation of 0.." + std::to_string(n_global_ - 1) + " (key " +
                  std::to_string((first_block * B) + slot) + " is held by more than one row)";
      return;
    }
    seen[slot] = 1;
    --expected;
  };
  for (auto s : keep_slots_) mark(s);
  for (auto s : recv_slots_) mark(s);
  if (problem.empty() && expected != 0)
    problem = "row keys must be a permutation of 0.." + std::to_string(n_global_ - 1) + " (some keys are missing)";
  agree_or_throw(comm, problem);
}

int RowBlockReducer::home_of_block(std::int64_t block) const {
  // Last rank r with block_begin_[r] <= block: empty ranges (begin[r] == begin[r+1]) are skipped.
  const auto it = std::upper_bound(block_begin_.begin(), block_begin_.end() - 1, block);
  return static_cast<int>(it - block_begin_.begin()) - 1;
}

std::vector<double> RowBlockReducer::reduce(const std::vector<const Eigen::MatrixXd*>& locals, std::size_t m,
                                            const Leaf& leaf) const {
  const Communicator& comm = *comm_;
  const int me = comm.rank();
  constexpr std::int64_t B = kBlockRows;
  std::vector<double> result(m, 0.0);
  if (n_blocks_ == 0) return result;

  // 1. Ship rows to their block's home: per row, the row of each input in turn.
  std::int64_t width = 0;
  for (const auto* x : locals) {
    if (x->rows() != n_local_) throw Error("RowBlockReducer: block has " + std::to_string(x->rows()) +
                                           " rows, expected n_local = " + std::to_string(n_local_));
    width += x->cols();
  }
  std::vector<double> send;
  send.reserve(send_rows_.size() * static_cast<size_t>(width));
  for (auto i : send_rows_)
    for (const auto* x : locals)
      for (Eigen::Index c = 0; c < x->cols(); ++c) send.push_back((*x)(i, c));
  Counts send_counts(send_rows_per_rank_.size());
  for (size_t r = 0; r < send_counts.size(); ++r) send_counts[r] = send_rows_per_rank_[r] * width;
  const auto recv = comm.alltoallv(send, send_counts);

  // 2. Assemble the home blocks in key order and compute their contributions.
  const std::int64_t first_block = block_begin_[me];
  const std::int64_t my_blocks = block_begin_[me + 1] - first_block;
  std::vector<Eigen::MatrixXd> assembled;
  for (const auto* x : locals) assembled.emplace_back(my_blocks * B, x->cols());
  for (size_t t = 0; t < keep_rows_.size(); ++t)
    for (size_t k = 0; k < locals.size(); ++k) assembled[k].row(keep_slots_[t]) = locals[k]->row(keep_rows_[t]);
  for (size_t t = 0; t < recv_slots_.size(); ++t) {
    const double* src = recv.data() + t * static_cast<size_t>(width);
    for (size_t k = 0; k < locals.size(); ++k)
      for (Eigen::Index c = 0; c < assembled[k].cols(); ++c) assembled[k](recv_slots_[t], c) = *src++;
  }
  std::vector<double> level(static_cast<size_t>(my_blocks) * m);
  std::vector<Eigen::MatrixXd> blocks(locals.size());
  for (std::int64_t b = 0; b < my_blocks; ++b) {
    const std::int64_t rows = std::min(B, n_global_ - (first_block + b) * B);
    // A fresh contiguous copy: the product below sees the same matrix, stride and alignment at any rank count.
    for (size_t k = 0; k < locals.size(); ++k) blocks[k] = assembled[k].middleRows(b * B, rows);
    leaf(blocks, level.data() + b * static_cast<std::int64_t>(m));
  }

  // 3. The fixed binary tree over blocks, one level at a time. At level l a node covers `span` = 2^l blocks.
  MPI_Comm mpi = comm.get();
  const int mcount = static_cast<int>(m);
  std::int64_t span = 1;  // blocks per node at the previous level
  std::int64_t n_prev = n_blocks_;
  for (int l = 1; n_prev > 1; ++l) {
    const std::int64_t prev_lo = ceil_div(block_begin_[me], span), prev_hi = ceil_div(block_begin_[me + 1], span);
    const std::int64_t cur_span = 2 * span;
    const std::int64_t cur_lo = ceil_div(block_begin_[me], cur_span), cur_hi = ceil_div(block_begin_[me + 1], cur_span);
    const std::int64_t n_cur = ceil_div(n_prev, 2);
    // A right child whose parent lives elsewhere (only the first node of the range can be one).
    std::vector<MPI_Request> sends;
    for (std::int64_t c = prev_lo; c < prev_hi; ++c) {
      if (c % 2 == 0) continue;
      const int parent_home = home_of_block((c - 1) * span);
      if (parent_home == me) continue;
      sends.emplace_back();
      count_sent_bytes(static_cast<std::int64_t>(m * sizeof(double)));
      check_mpi(MPI_Isend(level.data() + (c - prev_lo) * static_cast<std::int64_t>(m), mcount, MPI_DOUBLE, parent_home,
                          kTreeTagBase + l, mpi, &sends.back()),
                "MPI_Isend");
    }
    std::vector<double> next(static_cast<size_t>(std::max<std::int64_t>(cur_hi - cur_lo, 0)) * m);
    std::vector<double> remote(m);
    for (std::int64_t q = cur_lo; q < cur_hi; ++q) {
      const double* left = level.data() + (2 * q - prev_lo) * static_cast<std::int64_t>(m);
      double* out = next.data() + (q - cur_lo) * static_cast<std::int64_t>(m);
      const std::int64_t rc = 2 * q + 1;
      if (rc >= n_prev) {
        std::copy(left, left + m, out);
        continue;
      }
      const double* right;
      const int right_home = home_of_block(rc * span);
      if (right_home == me) {
        right = level.data() + (rc - prev_lo) * static_cast<std::int64_t>(m);
      } else {
        check_mpi(MPI_Recv(remote.data(), mcount, MPI_DOUBLE, right_home, kTreeTagBase + l, mpi, MPI_STATUS_IGNORE),
                  "MPI_Recv");
        right = remote.data();
      }
      for (std::size_t t = 0; t < m; ++t) out[t] = left[t] + right[t];
    }
    if (!sends.empty())
      check_mpi(MPI_Waitall(static_cast<int>(sends.size()), sends.data(), MPI_STATUSES_IGNORE), "MPI_Waitall");
    level = std::move(next);
    span = cur_span;
    n_prev = n_cur;
  }

  // 4. The root lives with the home of block 0.
  const int root = home_of_block(0);
  if (me == root) std::copy(level.begin(), level.begin() + static_cast<std::ptrdiff_t>(m), result.begin());
  check_mpi(MPI_Bcast(result.data(), mcount, MPI_DOUBLE, root, mpi), "MPI_Bcast");
  if (me == root) count_sent_bytes(static_cast<std::int64_t>(m * sizeof(double)) * (comm_->size() - 1));
  return result;
}

Eigen::MatrixXd RowBlockReducer::cross(const Eigen::MatrixXd& x_local, const Eigen::MatrixXd& y_local) const {
  const auto bx = x_local.cols(), by = y_local.cols();
  const auto m = static_cast<std::size_t>(bx * by);
  auto sum = reduce({&x_local, &y_local}, m, [&](const std::vector<Eigen::MatrixXd>& blk, double* out) {
    store(blk[0].transpose() * blk[1], out);
  });
  return Eigen::Map<Eigen::MatrixXd>(sum.data(), bx, by);
}

Eigen::MatrixXd RowBlockReducer::gram(const Eigen::MatrixXd& x_local) const {
  const auto b = x_local.cols();
  auto sum = reduce({&x_local}, static_cast<std::size_t>(b * b), [&](const std::vector<Eigen::MatrixXd>& blk, double* out) {
    store(blk[0].transpose() * blk[0], out);
  });
  Eigen::MatrixXd g = Eigen::Map<Eigen::MatrixXd>(sum.data(), b, b);
  g.triangularView<Eigen::StrictlyUpper>() = g.transpose();  // the product kernel need not be exactly symmetric
  return g;
}

double RowBlockReducer::squared_norm(const Eigen::MatrixXd& x_local) const {
  auto sum = reduce({&x_local}, 1, [](const std::vector<Eigen::MatrixXd>& blk, double* out) {
    double s = 0.0;  // plain loop in memory order: a fixed order of additions
    const double* d = blk[0].data();
    for (Eigen::Index i = 0; i < blk[0].size(); ++i) s += d[i] * d[i];
    *out = s;
  });
  return sum[0];
}

std::vector<double> RowBlockReducer::column_sums(const Eigen::MatrixXd& x_local) const {
  const auto b = x_local.cols();
  return reduce({&x_local}, static_cast<std::size_t>(b), [](const std::vector<Eigen::MatrixXd>& blk, double* out) {
    for (Eigen::Index c = 0; c < blk[0].cols(); ++c) {
      double s = 0.0;  // plain loop down the column: a fixed order of additions
      for (Eigen::Index i = 0; i < blk[0].rows(); ++i) s += blk[0](i, c);
      out[c] = s;
    }
  });
}

}  // namespace graphrf
