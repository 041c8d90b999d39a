#pragma once
// One HDF5 output file written collectively by every rank of a communicator (parallel HDF5, MPI-IO driver).
//
// The file is written under a temporary name of this run's own (PATH.<host>.<pid>.<random>.partial, see
// graphrf/io/output_file.hpp) and renamed to PATH by commit(), so a failed or interrupted run never leaves a file
// that looks finished, and two runs writing the same PATH never mix: the last to finish wins, whole. Every member function is collective: all ranks call the same functions in
// the same order with the same names (and the same values, where the documentation says so). Argument errors are
// agreed on by all ranks before anything is written, so every rank throws the same Error and the object cleans up
// collectively. Errors reported by HDF5 itself are thrown as Hdf5Error on the ranks where they happened.
//
// A termination signal (SIGTERM, SIGINT, SIGHUP, SIGUSR1) received by any rank while the object is alive is recorded (see
// graphrf/core/interrupt.hpp); commit() then removes the temporary file instead of renaming it, and every rank
// throws the same collective InputError: an interrupted run never replaces a previous file at PATH.
//
// Destruction without commit() removes the temporary file:
//  * on normal scope exit (every rank destroys the object): the file is closed collectively and rank 0 removes it;
//  * while an exception is propagating, the other ranks may be blocked elsewhere (an error on one rank only is
//    ended by MPI_Abort in this project), so nothing collective is done: each unwinding rank removes the temporary
//    file and leaves the open file identifier to HDF5, which closes it at MPI_Finalize (H5close). Call abandon()
//    on every rank first (e.g. in the handler of a collective InputError) to close it at once.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "graphrf/core/interrupt.hpp"
#include "graphrf/core/run_phase.hpp"
#include "graphrf/mpi/communicator.hpp"
#include "graphrf/io/h5_handle.hpp"
#include "graphrf/io/output_file.hpp"

namespace graphrf {

// Element types of datasets; the file stores each in its native (in-memory) HDF5 type, so writes need no
// conversion and can stay collective.
enum class H5Element { f64, f32, i64, i32, u64, u8 };

template <class T>
constexpr H5Element h5_element_of() {
  if constexpr (std::is_same_v<T, double>) return H5Element::f64;
  else if constexpr (std::is_same_v<T, float>) return H5Element::f32;
  else if constexpr (std::is_same_v<T, std::int64_t>) return H5Element::i64;
  else if constexpr (std::is_same_v<T, std::int32_t>) return H5Element::i32;
  else if constexpr (std::is_same_v<T, std::uint64_t>) return H5Element::u64;
  else if constexpr (std::is_same_v<T, std::uint8_t>) return H5Element::u8;
  else static_assert(sizeof(T) == 0, "H5Output: supported element types are double, float, int64, int32, uint64, uint8");
}

class H5Output {
 public:
  // Collective. Creates this run's temporary file (see the top of this header) with the MPI-IO driver.
  H5Output(const Communicator& comm, std::string path);
  // Never throws. Without commit(): removes the temporary file (see the top of this header).
  ~H5Output();
  H5Output(const H5Output&) = delete;
  H5Output& operator=(const H5Output&) = delete;
  H5Output(H5Output&&) = delete;
  H5Output& operator=(H5Output&&) = delete;

  // Collective. Closes the file, barrier, rank 0 writes the deferred string datasets (write_text) through the
  // serial driver and renames the temporary file to path, barrier. On failure every rank throws the same error
  // and no file is left at either name. No other member may be called afterwards.
  void commit();
  // Collective. Closes the file and removes the temporary file now (idempotent; no-op after commit()).
  void abandon() noexcept;

  const std::string& path() const { return path_; }
  const std::string& partial_path() const { return partial_; }

  // Attributes (collective; the same value on every rank, checked). `object` is a group or dataset path, "/" is
  // the root; missing groups along the path are created. An existing attribute of that name is replaced.
  // Strings are stored as variable-length UTF-8 (h5py reads them as str); they must not contain NUL.
  void set_attribute(const std::string& object, const std::string& name, const std::string& value);
  void set_attribute(const std::string& object, const std::string& name, const char* value) {
    set_attribute(object, name, std::string(value));
  }
  void set_attribute(const std::string& object, const std::string& name, std::int64_t value);
  void set_attribute(const std::string& object, const std::string& name, std::uint64_t value);
  void set_attribute(const std::string& object, const std::string& name, double value);
  // 1-D int64 array attribute (e.g. the CSR `shape`).
  void set_attribute(const std::string& object, const std::string& name, std::span<const std::int64_t> values);
  void set_attribute(const std::string& object, const std::string& name, const std::vector<std::int64_t>& values) {
    set_attribute(object, name, std::span<const std::int64_t>(values));
  }
  // Any other integer (int, unsigned, ...) is stored as int64 or uint64.
  template <class I>
    requires(std::is_integral_v<I> && !std::is_same_v<I, bool> && !std::is_same_v<I, std::int64_t> &&
             !std::is_same_v<I, std::uint64_t>)
  void set_attribute(const std::string& object, const std::string& name, I value) {
    if constexpr (std::is_signed_v<I>)
      set_attribute(object, name, static_cast<std::int64_t>(value));
    else
      set_attribute(object, name, static_cast<std::uint64_t>(value));
  }

  // Scalar variable-length UTF-8 string dataset (any length, e.g. the full /config). The same text on every rank
  // (checked). Parallel HDF5 cannot write variable-length data, so the dataset is created now and rank 0 writes
  // the text through the serial driver in commit().
  void write_text(const std::string& dataset, const std::string& text);

  // The same values on every rank (checked; small replicated arrays such as kernel coefficients or histograms),
  // written once, by rank 0, in a collective write. `shape` defaults to {values.size()}; its product must equal
  // values.size().
  template <class T>
  void write_replicated(const std::string& dataset, std::span<const T> values, std::vector<std::uint64_t> shape = {}) {
    write_replicated_raw(dataset, h5_element_of<T>(), values.data(), values.size(), std::move(shape));
  }
  template <class T>
  void write_replicated(const std::string& dataset, const std::vector<T>& values, std::vector<std::uint64_t> shape = {}) {
    write_replicated(dataset, std::span<const T>(values), std::move(shape));
  }

  // Row-block dataset of shape {sum of local rows, trailing...}: every rank passes its own consecutive rows
  // (row-major); ranks hold consecutive blocks in rank order (offset = exclusive prefix sum of local row counts).
  // Ranks with zero rows take part; a dataset with zero rows is still created. `trailing` must be the same on
  // every rank and have positive entries; local.size() must be a multiple of their product.
  template <class T>
  void write_rows(const std::string& dataset, std::span<const T> local, std::vector<std::uint64_t> trailing = {}) {
    write_rows_raw("write_rows", dataset, h5_element_of<T>(), local.data(), local.size(), std::move(trailing));
  }
  template <class T>
  void write_rows(const std::string& dataset, const std::vector<T>& local, std::vector<std::uint64_t> trailing = {}) {
    write_rows(dataset, std::span<const T>(local), std::move(trailing));
  }

  // A row-block dataset filled in several collective rounds (frames processed in batches): create it once with
  // its whole shape (the same on every rank), then in each round every rank writes its own consecutive rows
  // (rows = the first dimension) starting at `first_row`; zero rows are allowed, and ranks must not overlap.
  template <class T>
  void create_rows(const std::string& dataset, std::vector<std::uint64_t> shape) {
    create_rows_raw(dataset, h5_element_of<T>(), std::move(shape));
  }
  template <class T>
  void write_rows_at(const std::string& dataset, std::uint64_t first_row, std::span<const T> local) {
    write_rows_at_raw(dataset, h5_element_of<T>(), first_row, local.data(), local.size());
  }

  // Scattered pieces of a 1-D dataset made by create_rows, in one collective write: this rank's values,
  // contiguous in memory, go to the file ranges `runs` = (first element, count) in that order (ascending,
  // disjoint from every other rank's). HDF5 hyperslab unions: the alternative to routing rows to contiguous
  // blocks that bench-output measures.
  template <class T>
  void write_runs(const std::string& dataset, std::span<const std::pair<std::uint64_t, std::uint64_t>> runs,
                  std::span<const T> local) {
    write_runs_raw(dataset, h5_element_of<T>(), runs, local.data(), local.size());
  }

  // 1-D dataset of fixed-length strings (`width` bytes each, NUL-padded, UTF-8 character set; h5py reads them as
  // bytes): every rank passes its own consecutive rows as local.size() / width packed strings, ranks in row order
  // as in write_rows. `width` must be positive and the same on every rank.
  void write_fixed_strings(const std::string& dataset, std::span<const char> local, std::size_t width);
  void write_fixed_strings(const std::string& dataset, const std::vector<char>& local, std::size_t width) {
    write_fixed_strings(dataset, std::span<const char>(local), width);
  }

  // One value per rank gathered into a 1-D dataset of length n_ranks (index = rank).
  template <class T>
  void write_per_rank(const std::string& dataset, T value) {
    write_rows_raw("write_per_rank", dataset, h5_element_of<T>(), &value, 1, {});
  }

  // CSR matrix in the anndata / scipy layout under `group`: attributes encoding-type="csr_matrix",
  // encoding-version="0.1.0", shape=[n_rows_global, n_cols] (int64 array); datasets indptr (n_rows + 1), indices
  // and data (float64); indptr and indices are int32 when n_cols and the number of nonzeros fit (scipy's own
  // rule, so scipy and anndata use them without a copy), int64 otherwise. Each rank passes its own consecutive rows (rank order = row order):
  // local_indptr has n_local + 1 entries starting at 0, non-decreasing, ending at indices.size() == data.size();
  // indices lie in [0, n_cols) and are sorted (non-decreasing) within each row. Violations throw Error on every rank.
  void write_csr(const std::string& group, std::int64_t n_cols, std::span<const std::int64_t> local_indptr,
                 std::span<const std::int64_t> indices, std::span<const double> data);
  // scipy's rule, used by write_csr: int32 indices and indptr when both the column count and the number of
  // nonzeros (all ranks) fit.
  static bool csr_indices_fit_int32(std::int64_t n_cols, std::int64_t total_nnz) {
    return std::max(n_cols, total_nnz) <= std::numeric_limits<std::int32_t>::max();
  }
  // The same with int32 column indices (widened on the way out if the matrix needs int64 after all).
  void write_csr(const std::string& group, std::int64_t n_cols, std::span<const std::int64_t> local_indptr,
                 std::span<const std::int32_t> indices, std::span<const double> data);

  // Root provenance: attributes software="graphrf", software_version="<version> (<git sha>)", command,
  // n_ranks (int64), seed (uint64, only if given), created (ISO 8601 UTC, taken on rank 0 and broadcast), and the
  // string dataset /config holding config_text.
  void write_provenance(const std::string& command, int n_ranks, const std::string& config_text,
                        std::optional<std::uint64_t> seed);

  // I/O mode HDF5 reports for the last dataset write (H5Pget_mpio_actual_io_mode). Writes ask for collective I/O
  // and throw Hdf5Error if HDF5 fell back to independent I/O. H5D_MPIO_NO_COLLECTIVE until the first write; not
  // updated by writes of zero total elements (nothing to transfer).
  H5D_mpio_actual_io_mode_t last_io_mode() const { return last_io_mode_; }

  // Largest number of bytes one rank passes to one H5Dwrite call (default 1 GiB, far below MPI-IO's 2 GiB int
  // limit); larger blocks are written in several collective calls. Tests lower it to exercise that path.
  static void set_max_write_bytes(std::uint64_t bytes);
  static std::uint64_t max_write_bytes();

  // Row datasets of doubles or floats are refused when they hold an infinity or a NaN (a result that
  // overflowed); in `dataset`, written after this call, NaN marks a missing value and is kept.
  void allow_missing_values(const std::string& dataset);

 private:
  enum class State { open, committed, closed, broken };

  void write_rows_raw(const char* operation, const std::string& dataset, H5Element type, const void* data,
                      std::size_t n, std::vector<std::uint64_t> trailing);
  // After the arguments were agreed on: creates the dataset and writes this rank's rows.
  void write_rows_agreed(const std::string& dataset, H5Element type, const void* data, std::uint64_t local_rows,
                         const std::vector<std::uint64_t>& trailing);
  void write_replicated_raw(const std::string& dataset, H5Element type, const void* data, std::size_t n,
                            std::vector<std::uint64_t> shape);
  void create_rows_raw(const std::string& dataset, H5Element type, std::vector<std::uint64_t> shape);
  void write_rows_at_raw(const std::string& dataset, H5Element type, std::uint64_t first_row, const void* data, std::size_t n);
  void write_runs_raw(const std::string& dataset, H5Element type,
                      std::span<const std::pair<std::uint64_t, std::uint64_t>> runs, const void* data, std::size_t n);
  void write_attribute(const std::string& object, const std::string& name, hid_t type, hid_t space, const void* buf);
  template <class Index>
  void write_csr_any(const std::string& group, std::int64_t n_cols, std::span<const std::int64_t> local_indptr,
                     std::span<const Index> indices, std::span<const double> data);

  // Collective after a write: when it failed on any rank, every rank abandons the file and throws the same
  // InputError naming the output, the dataset and the cause.
  void agree_write(const std::string& dataset, const std::string& local_error);
  // Collective before a write: when any rank's values (`bad_row`: this rank's first row holding an infinity or
  // a NaN, -1 when none; rows numbered from `first_row`) are not finite, every rank abandons the file and throws
  // the same InputError naming the dataset, its first such row and the value.
  void refuse_non_finite(const std::string& dataset, std::int64_t bad_row, std::uint64_t first_row, double value);
  bool missing_allowed(const std::string& dataset) const;
  template <class F>
  void guarded(const char* operation, const F& body);
  void require_open(const char* operation) const;
  void agree(const std::string& operation, const std::string& local_error, std::uint64_t fingerprint);
  void abandon_locally() noexcept;
  // Collective: drops the file without H5Fclose after a failed write (see agree_write) and removes it.
  void abandon_without_closing() noexcept;

  h5::Group ensure_group(const std::string& path);
  h5::Dataset create_dataset(const std::string& path, hid_t type, const std::vector<hsize_t>& dims);
  void write_block(const h5::Dataset& dataset, const std::string& path, hid_t type, std::size_t elem_size,
                   const void* data, hsize_t first_row, hsize_t local_rows, const std::vector<hsize_t>& dims);

  Communicator comm_;
  std::string path_;
  OutputTemporary temporary_;  // this run's own file, renamed to path_ by commit()
  std::string partial_;
  h5::File file_;
  State state_ = State::open;
  int uncaught_at_construction_ = 0;
  OutputWindow interrupt_window_;  // SIGTERM/SIGINT while writing: recorded, and commit() does not publish
  std::vector<std::string> missing_allowed_;  // datasets where NaN marks a missing value
  RunPhase phase_{"writing " + path_};  // names the output in an out-of-memory message
  H5D_mpio_actual_io_mode_t last_io_mode_ = H5D_MPIO_NO_COLLECTIVE;
  struct PendingText {
    std::string dataset;
    std::string text;
  };
  std::vector<PendingText> pending_texts_;  // kept on rank 0 only
};

}  // namespace graphrf
