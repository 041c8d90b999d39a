#include "graphrf/io/h5_output.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <limits>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <exception>

#include "graphrf/core/fault_injection.hpp"
#include "graphrf/core/unrecoverable.hpp"
#include "graphrf/io/finite_values.hpp"
#include "graphrf/version.hpp"

namespace graphrf {

namespace {

std::uint64_t g_max_write_bytes = std::uint64_t{1} << 30;

hid_t native_type(H5Element e) {
  switch (e) {
    case H5Element::f64: return H5T_NATIVE_DOUBLE;
    case H5Element::f32: return H5T_NATIVE_FLOAT;
    case H5Element::i64: return H5T_NATIVE_INT64;
    case H5Element::i32: return H5T_NATIVE_INT32;
    case H5Element::u64: return H5T_NATIVE_UINT64;
    case H5Element::u8: return H5T_NATIVE_UINT8;
  }
  return H5I_INVALID_HID;
}

std::size_t element_size(H5Element e) {
  switch (e) {
    case H5Element::f64: return sizeof(double);
    case H5Element::f32: return sizeof(float);
    case H5Element::i64: return sizeof(std::int64_t);
    case H5Element::i32: return sizeof(std::int32_t);
    case H5Element::u64: return sizeof(std::uint64_t);
    case H5Element::u8: return sizeof(std::uint8_t);
  }
  return 0;
}

// Value k of a double or float array, for an error message.
double element_value(H5Element e, const void* data, std::int64_t k) {
  return e == H5Element::f32 ? static_cast<const float*>(data)[k] : static_cast<const double*>(data)[k];
}

// FNV-1a over the arguments that must be identical on every rank; compared across ranks by agree().
class Fingerprint {
 public:
  Fingerprint& bytes(const void* data, std::size_t n) {
    const auto* p = static_cast<const unsigned char*>(data);
    for (std::size_t i = 0; i < n; ++i) {
      hash_ ^= p[i];
      hash_ *= 1099511628211ULL;
    }
    return *this;
  }
  template <class T>
  Fingerprint& value(const T& v) {
    static_assert(std::is_trivially_copyable_v<T>);
    return bytes(&v, sizeof v);
  }
  Fingerprint& text(const std::string& s) { return value(s.size()).bytes(s.data(), s.size()); }
  std::uint64_t get() const { return hash_; }

 private:
  std::uint64_t hash_ = 14695981039346656037ULL;
};

// Path components, ignoring empty ones: "/a//b/" -> {a, b}; "/" and "" -> {}.
std::vector<std::string> split_path(const std::string& path) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (start <= path.size()) {
    const std::size_t end = std::min(path.find('/', start), path.size());
    if (end > start) parts.push_back(path.substr(start, end - start));
    start = end + 1;
  }
  return parts;
}

std::string join_path(const std::vector<std::string>& parts, std::size_t count) {
  if (count == 0) return "/";
  std::string out;
  for (std::size_t i = 0; i < count; ++i) out += "/" + parts[i];
  return out;
}

std::string normalize(const std::string& path) {
  const auto parts = split_path(path);
  return join_path(parts, parts.size());
}

std::string rank_prefix(const Communicator& comm) { return "rank " + std::to_string(comm.rank()) + ": "; }

// HDF5 reports a failed write by its own function names; when the file system is full, say so.
std::string storage_hint(const std::string& file) {
  const auto slash = file.find_last_of('/');
  const std::string folder = slash == std::string::npos ? "." : (slash == 0 ? "/" : file.substr(0, slash));
  struct statvfs fs {};
  if (::statvfs(folder.c_str(), &fs) == 0 && fs.f_bavail == 0)
    return " (no space left on device: the file system of " + folder + " is full)";
  return {};
}

// Local argument checks shared by the dataset writers ("" if fine).
std::string check_dataset_path(const std::string& where, const std::string& dataset) {
  if (split_path(dataset).empty()) return where + ": the dataset path is empty";
  return {};
}

}  // namespace

void H5Output::set_max_write_bytes(std::uint64_t bytes) { g_max_write_bytes = std::max<std::uint64_t>(bytes, 1); }
std::uint64_t H5Output::max_write_bytes() { return g_max_write_bytes; }

// ---------------------------------------------------------------------------------------------------------------
// Life cycle

H5Output::H5Output(const Communicator& comm, std::string path)
    : comm_(comm),
      path_(std::move(path)),
      temporary_(comm_, path_),
      partial_(temporary_.path()),
      uncaught_at_construction_(std::uncaught_exceptions()) {
  h5::silence_error_printing();
  auto fapl = h5::PropList::checked(H5Pcreate(H5P_FILE_ACCESS), "create file access properties for", partial_);
  h5::check(H5Pset_fapl_mpio(fapl.get(), comm_.get(), MPI_INFO_NULL), "select the MPI-IO driver for", partial_);
  // Metadata reads and writes collective: every member function is called by all ranks anyway, and it keeps
  // rank 0 from being the only one touching (and every rank from independently reading) the metadata.
  h5::check(H5Pset_all_coll_metadata_ops(fapl.get(), true), "set collective metadata reads for", partial_);
  h5::check(H5Pset_coll_metadata_write(fapl.get(), true), "set collective metadata writes for", partial_);
  file_ = h5::File::checked(H5Fcreate(partial_.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl.get()), "create file",
                            partial_);
}

H5Output::~H5Output() {
  if (state_ != State::open) return;
  if (std::uncaught_exceptions() > uncaught_at_construction_)
    abandon_locally();  // other ranks may not be here: nothing collective
  else
    abandon();
}

void H5Output::abandon() noexcept {
  if (state_ != State::open) return;
  state_ = State::closed;
  pending_texts_.clear();
  file_.reset();  // collective H5Fclose
  MPI_Barrier(comm_.get());
  if (comm_.rank() == 0) std::remove(partial_.c_str());
}

void H5Output::abandon_without_closing() noexcept {
  state_ = State::broken;
  pending_texts_.clear();
  // After a failed write H5Fclose would flush metadata to the same failing storage, and HDF5 leaves the ranks in
  // different collectives when that fails on some of them only: leave the identifier to HDF5 (the job then ends
  // with MPI_Abort, see graphrf/core/unrecoverable.hpp).
  (void)file_.release();
  MPI_Barrier(comm_.get());
  if (comm_.rank() == 0) std::remove(partial_.c_str());
}

void H5Output::abandon_locally() noexcept {
  state_ = State::broken;
  pending_texts_.clear();
  // H5Fclose on an MPI-IO file is collective and would wait for ranks that may never come; HDF5 closes the
  // identifier itself at MPI_Finalize. Any rank may remove the name: the job is failing anyway.
  (void)file_.release();
  ::unlink(partial_.c_str());
}

void H5Output::require_open(const char* operation) const {
  if (state_ == State::open) return;
  const char* why = state_ == State::committed ? "after commit()" : "after an error or abandon()";
  throw Error(std::string("H5Output ") + path_ + ": " + operation + " called " + why);
}

template <class F>
void H5Output::guarded(const char* operation, const F& body) {
  require_open(operation);
  try {
    body();
  } catch (...) {
    // agree() has already cleaned up collectively when every rank is throwing; anything else may be local.
    if (state_ == State::open) abandon_locally();
    throw;
  }
}

void H5Output::agree(const std::string& operation, const std::string& local_error, std::uint64_t fingerprint) {
  // MAX of {h, ~h} gives {max h, ~min h}: the fingerprints agree iff max h == min h. The third entry is
  // size - rank for a failing rank, so its maximum names the lowest failing rank.
  const auto n = static_cast<std::uint64_t>(comm_.size());
  std::vector<std::uint64_t> v{fingerprint, ~fingerprint,
                               local_error.empty() ? 0 : n - static_cast<std::uint64_t>(comm_.rank())};
  v = comm_.allreduce(std::move(v), MPI_MAX);
  std::string message;
  if (v[2] != 0) {
    message = local_error;
    comm_.broadcast(message, static_cast<int>(n - v[2]));
  } else if (v[0] != ~v[1]) {
    message = operation + ": arguments differ between ranks (they must be the same on every rank)";
  } else {
    return;
  }
  abandon();  // every rank is here and is about to throw the same error
  throw Error(message);
}

void H5Output::agree_write(const std::string& dataset, const std::string& local_error) {
  const int failing = comm_.allreduce(local_error.empty() ? comm_.size() : comm_.rank(), MPI_MIN);
  if (failing == comm_.size()) return;
  std::string message = local_error;
  comm_.broadcast(message, failing);
  mark_unrecoverable();  // HDF5 would try to flush this file's metadata at MPI_Finalize, out of step across ranks
  abandon_without_closing();  // every rank is here
  throw InputError("--out " + path_ + ": cannot write " + dataset + ": " + message + storage_hint(partial_),
                   /*collective=*/true);
}

void H5Output::commit() {
  require_open("commit");
  fault_injection_pause_before_commit(path_.c_str());
  // H5Fclose flushes the metadata. If a write fails there on some ranks only (a full disk), HDF5 leaves the ranks
  // in different collectives, waiting for each other forever. So rank 0 first allocates the disk blocks the flush
  // can need (the file's holes, and room past its end for every cached metadata entry and HDF5's allocation
  // blocks), and the ranks agree on the outcome.
  std::size_t max_size = 0, min_clean = 0, metadata_bytes = 0;
  int entries = 0;
  if (H5Fget_mdc_size(file_.get(), &max_size, &min_clean, &metadata_bytes, &entries) < 0) metadata_bytes = max_size;
  metadata_bytes = comm_.max(static_cast<std::uint64_t>(metadata_bytes));
  agree_write(partial_, comm_.rank() == 0 ? temporary_.reserve(metadata_bytes + (std::uint64_t{64} << 10)) : "");
  std::string close_error;
  if (file_.close() < 0) {
    mark_unrecoverable();
    close_error = "--out " + path_ + ": cannot write " + partial_ + ": " + h5::innermost_error() + storage_hint(partial_);
  }
  // The reduction inside agree() also serves as the barrier: rank 0 gets past it only once every rank has
  // closed the file. If closing failed anywhere, every rank throws and rank 0 removes the temporary file.
  agree("commit", close_error, 0);
  state_ = State::closed;
  // Decided together before the rename: if a signal reached any rank, nobody publishes the file.
  if (const int signal = comm_.allreduce(interrupt_signal(), MPI_MAX); signal != 0) {
    if (comm_.rank() == 0) std::remove(partial_.c_str());
    pending_texts_.clear();
    comm_.barrier();
    throw InputError(std::string("interrupted by ") + signal_name(signal) + " while writing: --out " + path_ +
                         " not written (an existing file there is unchanged)",
                     /*collective=*/true);
  }

  // Rank 0: deferred variable-length strings through the serial driver, then the rename. Tag 'H' = Hdf5Error,
  // 'I' = InputError (the output path), "" = success.
  std::string outcome;
  if (comm_.rank() == 0) {
    try {
      if (!pending_texts_.empty()) {
        // Serial (default) driver. Rank 0 is the only one touching the file now, so no lock is needed, and
        // parallel file systems without flock() would make HDF5's locking fail the open.
        auto fapl = h5::PropList::checked(H5Pcreate(H5P_FILE_ACCESS), "commit: file access properties for", partial_);
        h5::check(H5Pset_file_locking(fapl.get(), false, true), "commit: disable file locking for", partial_);
        auto file = h5::File::checked(H5Fopen(partial_.c_str(), H5F_ACC_RDWR, fapl.get()), "commit: reopen file",
                                      partial_);
        const auto type = h5::utf8_string_type();
        for (const auto& p : pending_texts_) {
          auto ds = h5::Dataset::checked(H5Dopen2(file.get(), p.dataset.c_str(), H5P_DEFAULT),
                                         "commit: open dataset", p.dataset);
          const char* text = p.text.c_str();
          h5::check(H5Dwrite(ds.get(), type.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, &text),
                    "commit: write string dataset", p.dataset);
        }
        h5::check(file.close(), "commit: close file", partial_);
      }
      temporary_.trim_reserve();
      if (const std::string error = temporary_.publish(); !error.empty())
        outcome = "I--out " + path_ + ": cannot create file: " + error;
    } catch (const std::exception& e) {
      outcome = std::string("H") + e.what();
    }
    if (!outcome.empty()) std::remove(partial_.c_str());
  }
  pending_texts_.clear();
  // Non-root ranks leave this broadcast only after rank 0 sent it, i.e. after the rename: it is the closing barrier.
  comm_.broadcast(outcome, 0);
  if (outcome.empty()) {
    state_ = State::committed;
    return;
  }
  if (outcome[0] == 'I') throw InputError(outcome.substr(1), /*collective=*/true);
  throw Hdf5Error(outcome.substr(1));
}

// ---------------------------------------------------------------------------------------------------------------
// Groups, datasets, attributes

h5::Group H5Output::ensure_group(const std::string& path) {
  const auto parts = split_path(path);
  auto group = h5::Group::checked(H5Gopen2(file_.get(), "/", H5P_DEFAULT), "open group", "/");
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const std::string here = join_path(parts, i + 1);
    const htri_t exists = h5::check(H5Lexists(group.get(), parts[i].c_str(), H5P_DEFAULT), "look up", here);
    group = exists > 0
                ? h5::Group::checked(H5Gopen2(group.get(), parts[i].c_str(), H5P_DEFAULT), "open group", here)
                : h5::Group::checked(H5Gcreate2(group.get(), parts[i].c_str(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                                     "create group", here);
  }
  return group;
}

h5::Dataset H5Output::create_dataset(const std::string& path, hid_t type, const std::vector<hsize_t>& dims) {
  const auto parts = split_path(path);
  const std::string where = join_path(parts, parts.size());
  std::vector<std::string> parent_parts(parts.begin(), parts.end() - 1);
  auto parent = ensure_group(join_path(parent_parts, parent_parts.size()));
  auto space = dims.empty()
                   ? h5::Dataspace::checked(H5Screate(H5S_SCALAR), "create dataspace for", where)
                   : h5::Dataspace::checked(H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr),
                                            "create dataspace for", where);
  return h5::Dataset::checked(
      H5Dcreate2(parent.get(), parts.back().c_str(), type, space.get(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
      "create dataset", where);
}

void H5Output::write_attribute(const std::string& object, const std::string& name, hid_t type, hid_t space,
                               const void* buf) {
  const auto parts = split_path(object);
  const std::string where = join_path(parts, parts.size());
  const std::string what = where + " attribute " + name;
  h5::Object obj;
  if (parts.empty()) {
    obj = h5::Object::checked(H5Oopen(file_.get(), "/", H5P_DEFAULT), "open", where);
  } else {
    std::vector<std::string> parent_parts(parts.begin(), parts.end() - 1);
    auto parent = ensure_group(join_path(parent_parts, parent_parts.size()));
    const char* leaf = parts.back().c_str();
    if (h5::check(H5Lexists(parent.get(), leaf, H5P_DEFAULT), "look up", where) <= 0) {
      h5::Group created = h5::Group::checked(H5Gcreate2(parent.get(), leaf, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                                             "create group", where);
    }
    obj = h5::Object::checked(H5Oopen(parent.get(), leaf, H5P_DEFAULT), "open", where);
  }
  if (h5::check(H5Aexists(obj.get(), name.c_str()), "look up", what) > 0)
    h5::check(H5Adelete(obj.get(), name.c_str()), "replace", what);
  auto attr = h5::Attribute::checked(H5Acreate2(obj.get(), name.c_str(), type, space, H5P_DEFAULT, H5P_DEFAULT),
                                     "create", what);
  h5::check(H5Awrite(attr.get(), type, buf), "write", what);
}

void H5Output::set_attribute(const std::string& object, const std::string& name, const std::string& value) {
  guarded("set_attribute", [&] {
    const std::string what = "set_attribute " + normalize(object) + " " + name;
    std::string error;
    if (name.empty()) error = what + ": empty attribute name";
    else if (value.find('\0') != std::string::npos) error = what + ": the string contains a NUL character";
    agree(what, error, Fingerprint().text("str").text(object).text(name).text(value).get());
    const auto type = h5::utf8_string_type();
    const auto space = h5::Dataspace::checked(H5Screate(H5S_SCALAR), "create dataspace for", what);
    const char* text = value.c_str();
    write_attribute(object, name, type.get(), space.get(), &text);
  });
}

void H5Output::set_attribute(const std::string& object, const std::string& name, std::int64_t value) {
  guarded("set_attribute", [&] {
    const std::string what = "set_attribute " + normalize(object) + " " + name;
    agree(what, name.empty() ? what + ": empty attribute name" : "",
          Fingerprint().text("i64").text(object).text(name).value(value).get());
    const auto space = h5::Dataspace::checked(H5Screate(H5S_SCALAR), "create dataspace for", what);
    write_attribute(object, name, H5T_NATIVE_INT64, space.get(), &value);
  });
}

void H5Output::set_attribute(const std::string& object, const std::string& name, std::uint64_t value) {
  guarded("set_attribute", [&] {
    const std::string what = "set_attribute " + normalize(object) + " " + name;
    agree(what, name.empty() ? what + ": empty attribute name" : "",
          Fingerprint().text("u64").text(object).text(name).value(value).get());
    const auto space = h5::Dataspace::checked(H5Screate(H5S_SCALAR), "create dataspace for", what);
    write_attribute(object, name, H5T_NATIVE_UINT64, space.get(), &value);
  });
}

void H5Output::set_attribute(const std::string& object, const std::string& name, double value) {
  guarded("set_attribute", [&] {
    const std::string what = "set_attribute " + normalize(object) + " " + name;
    agree(what, name.empty() ? what + ": empty attribute name" : "",
          Fingerprint().text("f64").text(object).text(name).value(value).get());
    const auto space = h5::Dataspace::checked(H5Screate(H5S_SCALAR), "create dataspace for", what);
    write_attribute(object, name, H5T_NATIVE_DOUBLE, space.get(), &value);
  });
}

void H5Output::set_attribute(const std::string& object, const std::string& name,
                             std::span<const std::int64_t> values) {
  guarded("set_attribute", [&] {
    const std::string what = "set_attribute " + normalize(object) + " " + name;
    agree(what, name.empty() ? what + ": empty attribute name" : "",
          Fingerprint()
              .text("i64[]")
              .text(object)
              .text(name)
              .value(values.size())
              .bytes(values.data(), values.size_bytes())
              .get());
    const hsize_t n = values.size();
    const auto space = h5::Dataspace::checked(H5Screate_simple(1, &n, nullptr), "create dataspace for", what);
    const std::int64_t dummy = 0;
    write_attribute(object, name, H5T_NATIVE_INT64, space.get(), values.empty() ? &dummy : values.data());
  });
}

// ---------------------------------------------------------------------------------------------------------------
// Datasets

void H5Output::write_block(const h5::Dataset& dataset, const std::string& path, hid_t type, std::size_t elem_size,
                           const void* data, hsize_t first_row, hsize_t local_rows, const std::vector<hsize_t>& dims) {
  hsize_t row_elems = 1;
  for (std::size_t i = 1; i < dims.size(); ++i) row_elems *= dims[i];
  if (row_elems == 0) return;  // nothing to transfer on any rank (dims are the same everywhere)
  const std::uint64_t row_bytes = row_elems * elem_size;
  const hsize_t rows_per_call = std::max<std::uint64_t>(1, g_max_write_bytes / row_bytes);
  const std::uint64_t calls_here = (local_rows + rows_per_call - 1) / rows_per_call;
  // Every rank makes the same number of collective H5Dwrite calls; ranks out of rows select nothing.
  const std::uint64_t calls = comm_.max(calls_here);
  if (calls == 0) return;

  auto file_space = h5::Dataspace::checked(H5Dget_space(dataset.get()), "get dataspace of", path);
  auto dxpl = h5::PropList::checked(H5Pcreate(H5P_DATASET_XFER), "create transfer properties for", path);
  h5::check(H5Pset_dxpl_mpio(dxpl.get(), H5FD_MPIO_COLLECTIVE), "request collective I/O for", path);
  const auto* bytes = static_cast<const unsigned char*>(data);
  const std::uint64_t dummy = 0;  // HDF5 rejects a null buffer even when nothing is selected
  for (std::uint64_t call = 0; call < calls; ++call) {
    const hsize_t done = call * rows_per_call;
    const hsize_t rows = done < local_rows ? std::min<hsize_t>(rows_per_call, local_rows - done) : 0;
    const hsize_t mem_elems = rows * row_elems;
    auto mem_space =
        h5::Dataspace::checked(H5Screate_simple(1, &mem_elems, nullptr), "create memory dataspace for", path);
    const void* buf = &dummy;
    if (rows > 0) {
      std::vector<hsize_t> start(dims.size(), 0);
      std::vector<hsize_t> count(dims);
      start[0] = first_row + done;
      count[0] = rows;
      h5::check(H5Sselect_hyperslab(file_space.get(), H5S_SELECT_SET, start.data(), nullptr, count.data(), nullptr),
                "select rows of", path);
      buf = bytes + done * row_bytes;
    } else {
      h5::check(H5Sselect_none(file_space.get()), "select nothing in", path);
      h5::check(H5Sselect_none(mem_space.get()), "select nothing in memory for", path);
    }
    std::string write_error;
    if (H5Dwrite(dataset.get(), type, mem_space.get(), file_space.get(), dxpl.get(), buf) < 0)
      write_error = h5::innermost_error();
    agree_write(path, write_error);
    H5D_mpio_actual_io_mode_t mode = H5D_MPIO_NO_COLLECTIVE;
    h5::check(H5Pget_mpio_actual_io_mode(dxpl.get(), &mode), "query the I/O mode of", path);
    last_io_mode_ = mode;
    if (mode == H5D_MPIO_NO_COLLECTIVE) {
      std::uint32_t local_cause = 0, global_cause = 0;
      h5::check(H5Pget_mpio_no_collective_cause(dxpl.get(), &local_cause, &global_cause),
                "query why collective I/O was not used for", path);
      char hex[32];
      std::snprintf(hex, sizeof hex, "0x%x", global_cause);
      throw Hdf5Error("write dataset " + path + ": HDF5 fell back to independent I/O (H5D_mpio_no_collective_cause " +
                      hex + ")");
    }
  }
}

void H5Output::write_rows_raw(const char* operation, const std::string& dataset, H5Element type, const void* data,
                              std::size_t n, std::vector<std::uint64_t> trailing) {
  guarded(operation, [&] {
    const std::string where = std::string(operation) + " " + normalize(dataset);
    std::string error = check_dataset_path(where, dataset);
    std::uint64_t row_elems = 1;
    bool zero_dim = false;
    for (auto d : trailing) {
      if (d == 0) zero_dim = true;
      else row_elems *= d;
    }
    if (error.empty() && trailing.size() + 1 > H5S_MAX_RANK) error = where + ": too many dimensions";
    if (error.empty() && zero_dim) error = where + ": trailing dimensions must be positive";
    if (error.empty() && n % row_elems != 0)
      error = where + ": " + rank_prefix(comm_) + std::to_string(n) + " values is not a whole number of rows of " +
              std::to_string(row_elems);
    Fingerprint fp;
    fp.text(operation).text(dataset).value(type).value(trailing.size());
    for (auto d : trailing) fp.value(d);
    agree(where, error, fp.get());
    const std::int64_t bad = first_non_finite(type, data, n, missing_allowed(normalize(dataset)));
    refuse_non_finite(normalize(dataset), bad < 0 ? -1 : bad / static_cast<std::int64_t>(row_elems),
                      comm_.exscan_sum<std::uint64_t>(n / row_elems), bad < 0 ? 0.0 : element_value(type, data, bad));
    write_rows_agreed(normalize(dataset), type, data, n / row_elems, trailing);
  });
}

void H5Output::write_fixed_strings(const std::string& dataset, std::span<const char> local, std::size_t width) {
  guarded("write_fixed_strings", [&] {
    const std::string where = "write_fixed_strings " + normalize(dataset);
    std::string error = check_dataset_path(where, dataset);
    if (error.empty() && width == 0) error = where + ": the string width must be positive";
    if (error.empty() && local.size() % width != 0)
      error = where + ": " + rank_prefix(comm_) + std::to_string(local.size()) +
              " bytes is not a whole number of strings of " + std::to_string(width);
    agree(where, error, Fingerprint().text("write_fixed_strings").text(dataset).value(width).get());
    const std::string path = normalize(dataset);
    auto type = h5::Datatype::checked(H5Tcopy(H5T_C_S1), "copy string type for", path);
    h5::check(H5Tset_size(type.get(), width), "set the string width of", path);
    h5::check(H5Tset_strpad(type.get(), H5T_STR_NULLPAD), "set NUL padding of", path);
    h5::check(H5Tset_cset(type.get(), H5T_CSET_UTF8), "set UTF-8 character set of", path);
    const std::uint64_t local_rows = local.size() / width;
    const std::uint64_t first_row = comm_.exscan_sum(local_rows);
    const std::vector<hsize_t> dims{comm_.sum(local_rows)};
    const auto ds = create_dataset(path, type.get(), dims);
    write_block(ds, path, type.get(), width, local.data(), first_row, local_rows, dims);
  });
}

void H5Output::write_rows_agreed(const std::string& dataset, H5Element type, const void* data,
                                 std::uint64_t local_rows, const std::vector<std::uint64_t>& trailing) {
  const std::uint64_t first_row = comm_.exscan_sum(local_rows);
  const std::uint64_t total_rows = comm_.sum(local_rows);
  std::vector<hsize_t> dims{total_rows};
  for (auto d : trailing) dims.push_back(d);
  const auto ds = create_dataset(dataset, native_type(type), dims);
  write_block(ds, dataset, native_type(type), element_size(type), data, first_row, local_rows, dims);
}

void H5Output::create_rows_raw(const std::string& dataset, H5Element type, std::vector<std::uint64_t> shape) {
  guarded("create_rows", [&] {
    const std::string where = "create_rows " + normalize(dataset);
    std::string error = check_dataset_path(where, dataset);
    if (error.empty() && (shape.empty() || shape.size() > H5S_MAX_RANK)) error = where + ": needs 1 to 32 dimensions";
    Fingerprint fp;
    fp.text("create_rows").text(dataset).value(type).value(shape.size());
    for (auto d : shape) fp.value(d);
    agree(where, error, fp.get());
    create_dataset(normalize(dataset), native_type(type), std::vector<hsize_t>(shape.begin(), shape.end()));
  });
}

void H5Output::write_rows_at_raw(const std::string& dataset, H5Element type, std::uint64_t first_row, const void* data,
                                 std::size_t n) {
  guarded("write_rows_at", [&] {
    const std::string path = normalize(dataset);
    const std::string where = "write_rows_at " + path;
    std::string error = check_dataset_path(where, dataset);
    std::vector<hsize_t> dims;
    h5::Dataset ds;
    std::uint64_t rows = 0;  // this rank's rows: n / (product of the trailing dimensions)
    if (error.empty()) {
      ds = h5::Dataset::checked(H5Dopen2(file_.get(), path.c_str(), H5P_DEFAULT), "open dataset", path);
      auto space = h5::Dataspace::checked(H5Dget_space(ds.get()), "get dataspace of", path);
      dims.resize(static_cast<size_t>(H5Sget_simple_extent_ndims(space.get())));
      H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr);
      std::uint64_t row_elems = 1;
      for (size_t i = 1; i < dims.size(); ++i) row_elems *= dims[i];
      rows = row_elems == 0 ? 0 : n / row_elems;
      if (dims.empty() || (row_elems > 0 && n % row_elems != 0) || first_row + rows > dims[0])
        error = where + ": " + rank_prefix(comm_) + std::to_string(n) + " values at row " + std::to_string(first_row) +
                " do not fit the dataset's rows";
    }
    Fingerprint fp;
    fp.text("write_rows_at").text(dataset).value(type);
    agree(where, error, fp.get());
    const std::int64_t bad = first_non_finite(type, data, n, missing_allowed(path));
    refuse_non_finite(path, bad < 0 || rows == 0 ? -1 : bad / static_cast<std::int64_t>(n / rows), first_row,
                      bad < 0 ? 0.0 : element_value(type, data, bad));
    write_block(ds, path, native_type(type), element_size(type), data, first_row, rows, dims);
  });
}

void H5Output::write_runs_raw(const std::string& dataset, H5Element type,
                              std::span<const std::pair<std::uint64_t, std::uint64_t>> runs, const void* data,
                              std::size_t n) {
  guarded("write_runs", [&] {
    const std::string path = normalize(dataset);
    const std::string where = "write_runs " + path;
    std::string error = check_dataset_path(where, dataset);
    h5::Dataset ds;
    if (error.empty()) {
      ds = h5::Dataset::checked(H5Dopen2(file_.get(), path.c_str(), H5P_DEFAULT), "open dataset", path);
      auto space = h5::Dataspace::checked(H5Dget_space(ds.get()), "get dataspace of", path);
      hsize_t size = 0;
      std::uint64_t total = 0, end = 0;
      if (H5Sget_simple_extent_ndims(space.get()) != 1) error = where + ": the dataset is not 1-D";
      else H5Sget_simple_extent_dims(space.get(), &size, nullptr);
      for (const auto& [first, count] : runs) {
        if (first < end || first + count > size) error = where + ": " + rank_prefix(comm_) + "runs overlap or leave the dataset";
        end = first + count;
        total += count;
      }
      if (error.empty() && total != n)
        error = where + ": " + rank_prefix(comm_) + std::to_string(n) + " values for runs of " + std::to_string(total);
    }
    agree(where, error, Fingerprint().text("write_runs").text(dataset).value(type).get());
    auto file_space = h5::Dataspace::checked(H5Dget_space(ds.get()), "get dataspace of", path);
    h5::check(H5Sselect_none(file_space.get()), "select nothing in", path);
    for (const auto& [first, count] : runs) {
      if (count == 0) continue;
      const hsize_t start = first, length = count;
      h5::check(H5Sselect_hyperslab(file_space.get(), H5S_SELECT_OR, &start, nullptr, &length, nullptr),
                "select runs of", path);
    }
    const hsize_t mem_elems = n;
    auto mem_space = h5::Dataspace::checked(H5Screate_simple(1, &mem_elems, nullptr), "create memory dataspace for", path);
    if (n == 0) h5::check(H5Sselect_none(mem_space.get()), "select nothing in memory for", path);
    auto dxpl = h5::PropList::checked(H5Pcreate(H5P_DATASET_XFER), "create transfer properties for", path);
    h5::check(H5Pset_dxpl_mpio(dxpl.get(), H5FD_MPIO_COLLECTIVE), "request collective I/O for", path);
    const std::uint64_t dummy = 0;
    std::string write_error;
    if (H5Dwrite(ds.get(), native_type(type), mem_space.get(), file_space.get(), dxpl.get(), n ? data : &dummy) < 0)
      write_error = h5::innermost_error();
    agree_write(path, write_error);
  });
}

void H5Output::write_replicated_raw(const std::string& dataset, H5Element type, const void* data, std::size_t n,
                                    std::vector<std::uint64_t> shape) {
  guarded("write_replicated", [&] {
    const std::string where = "write_replicated " + normalize(dataset);
    if (shape.empty()) shape.push_back(n);
    std::string error = check_dataset_path(where, dataset);
    std::uint64_t product = 1;
    for (auto d : shape) product *= d;
    if (error.empty() && shape.size() > H5S_MAX_RANK) error = where + ": too many dimensions";
    if (error.empty() && product != n)
      error = where + ": the shape has " + std::to_string(product) + " elements but " + std::to_string(n) +
              " values were given";
    Fingerprint fp;
    fp.text("write_replicated").text(dataset).value(type).value(shape.size());
    for (auto d : shape) fp.value(d);
    fp.bytes(data, n * element_size(type));
    agree(where, error, fp.get());
    const std::string path = normalize(dataset);
    const std::vector<hsize_t> dims(shape.begin(), shape.end());
    const auto ds = create_dataset(path, native_type(type), dims);
    // Written once: rank 0 holds every row, the other ranks take part with nothing selected.
    write_block(ds, path, native_type(type), element_size(type), data, 0, comm_.rank() == 0 ? dims[0] : 0, dims);
  });
}

void H5Output::write_text(const std::string& dataset, const std::string& text) {
  guarded("write_text", [&] {
    const std::string where = "write_text " + normalize(dataset);
    std::string error = check_dataset_path(where, dataset);
    if (error.empty() && text.find('\0') != std::string::npos) error = where + ": the text contains a NUL character";
    agree(where, error, Fingerprint().text("write_text").text(dataset).text(text).get());
    const std::string path = normalize(dataset);
    const auto type = h5::utf8_string_type();
    // Created collectively now (scalar); parallel HDF5 cannot write variable-length data, so rank 0 writes it in
    // commit() through the serial driver.
    const auto ds = create_dataset(path, type.get(), {});
    if (comm_.rank() == 0) pending_texts_.push_back({path, text});
  });
}

void H5Output::write_csr(const std::string& group, std::int64_t n_cols, std::span<const std::int64_t> local_indptr,
                         std::span<const std::int64_t> indices, std::span<const double> data) {
  write_csr_any(group, n_cols, local_indptr, indices, data);
}

void H5Output::write_csr(const std::string& group, std::int64_t n_cols, std::span<const std::int64_t> local_indptr,
                         std::span<const std::int32_t> indices, std::span<const double> data) {
  write_csr_any(group, n_cols, local_indptr, indices, data);
}

template <class Index>
void H5Output::write_csr_any(const std::string& group, std::int64_t n_cols, std::span<const std::int64_t> local_indptr,
                             std::span<const Index> indices, std::span<const double> data) {
  guarded("write_csr", [&] {
    const std::string path = normalize(group);
    const std::string where = "write_csr " + path;
    const std::string here = where + ": " + rank_prefix(comm_);
    std::string error;
    const auto nnz = static_cast<std::int64_t>(indices.size());
    if (n_cols < 0) {
      error = where + ": negative number of columns";
    } else if (local_indptr.empty()) {
      error = here + "local_indptr is empty (it needs n_local_rows + 1 entries)";
    } else if (local_indptr.front() != 0) {
      error = here + "local_indptr must start at 0";
    } else if (local_indptr.back() != nnz) {
      error = here + "local_indptr ends at " + std::to_string(local_indptr.back()) + " but there are " +
              std::to_string(nnz) + " indices";
    } else if (data.size() != indices.size()) {
      error = here + std::to_string(data.size()) + " data values but " + std::to_string(nnz) + " indices";
    } else {
      for (std::size_t row = 0; row + 1 < local_indptr.size() && error.empty(); ++row) {
        const std::int64_t begin = local_indptr[row], end = local_indptr[row + 1];
        if (end < begin) {
          error = here + "local_indptr decreases at local row " + std::to_string(row);
          break;
        }
        for (std::int64_t k = begin; k < end; ++k) {
          const std::int64_t col = indices[static_cast<std::size_t>(k)];
          if (col < 0 || col >= n_cols) {
            error = here + "column index " + std::to_string(col) + " in local row " + std::to_string(row) +
                    " is outside [0, " + std::to_string(n_cols) + ")";
            break;
          }
          if (k > begin && col < indices[static_cast<std::size_t>(k - 1)]) {
            error = here + "the column indices of local row " + std::to_string(row) + " are not sorted";
            break;
          }
        }
      }
    }
    agree(where, error, Fingerprint().text("write_csr").text(group).value(n_cols).get());
    {  // the row of the first value that is not finite
      const std::int64_t bad = first_non_finite(H5Element::f64, data.data(), data.size(), missing_allowed(path));
      const auto row = bad < 0 ? local_indptr.end()
                               : std::upper_bound(local_indptr.begin(), local_indptr.end(), bad) - 1;
      refuse_non_finite(path, bad < 0 ? -1 : row - local_indptr.begin(),
                        comm_.exscan_sum<std::uint64_t>(local_indptr.size() - 1),
                        bad < 0 ? 0.0 : data[static_cast<std::size_t>(bad)]);
    }

    const auto n_local = static_cast<std::uint64_t>(local_indptr.size() - 1);
    const auto n_rows = static_cast<std::int64_t>(comm_.sum(n_local));
    const std::int64_t nnz_before = comm_.exscan_sum(nnz);

    ensure_group(path);
    const auto str = h5::utf8_string_type();
    const auto scalar = h5::Dataspace::checked(H5Screate(H5S_SCALAR), "create dataspace for", where);
    const char* encoding_type = "csr_matrix";
    const char* encoding_version = "0.1.0";
    write_attribute(path, "encoding-type", str.get(), scalar.get(), &encoding_type);
    write_attribute(path, "encoding-version", str.get(), scalar.get(), &encoding_version);
    const std::int64_t shape[2] = {n_rows, n_cols};
    const hsize_t two = 2;
    const auto pair = h5::Dataspace::checked(H5Screate_simple(1, &two, nullptr), "create dataspace for", where);
    write_attribute(path, "shape", H5T_NATIVE_INT64, pair.get(), shape);

    // Global indptr: each rank contributes its row starts shifted by the nonzeros before it; the last rank also
    // contributes the closing entry (the total number of nonzeros), even when it has no rows.
    // Index width as scipy chooses it: int32 when every index and offset fits, else int64 (the same on all ranks).
    const bool last = comm_.rank() == comm_.size() - 1;
    const bool narrow = csr_indices_fit_int32(n_cols, comm_.sum(nnz));
    const std::string sub = path == "/" ? "/" : path + "/";
    const std::size_t n_indptr = n_local + (last ? 1 : 0);
    // Indices already of the stored width are written as they are; the others are converted in a copy.
    auto write_indices = [&]<class Stored>(H5Element type) {
      std::vector<Stored> indptr(n_indptr);
      for (std::size_t i = 0; i < n_indptr; ++i) indptr[i] = static_cast<Stored>(local_indptr[i] + nnz_before);
      write_rows_agreed(sub + "indptr", type, indptr.data(), indptr.size(), {});
      if constexpr (std::is_same_v<Stored, Index>) {
        write_rows_agreed(sub + "indices", type, indices.data(), indices.size(), {});
      } else {
        const std::vector<Stored> converted(indices.begin(), indices.end());
        write_rows_agreed(sub + "indices", type, converted.data(), converted.size(), {});
      }
    };
    if (narrow) write_indices.template operator()<std::int32_t>(H5Element::i32);
    else write_indices.template operator()<std::int64_t>(H5Element::i64);
    write_rows_agreed(sub + "data", H5Element::f64, data.data(), data.size(), {});
  });
}

void H5Output::write_provenance(const std::string& command, int n_ranks, const std::string& config_text,
                                std::optional<std::uint64_t> seed) {
  // seed presence decides which calls follow: make sure every rank makes the same ones.
  guarded("write_provenance", [&] {
    agree("write_provenance", "",
          Fingerprint().text(command).value(n_ranks).value(seed.has_value()).value(seed.value_or(0)).get());
  });
  std::string created;
  if (comm_.rank() == 0) {
    const std::time_t now = std::time(nullptr);
    std::tm utc{};
    gmtime_r(&now, &utc);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &utc);
    created = buf;
  }
  comm_.broadcast(created, 0);
  set_attribute("/", "software", "graphrf");
  set_attribute("/", "software_version", std::string(kVersion) + " (" + kGitSha + ")");
  set_attribute("/", "command", command);
  set_attribute("/", "n_ranks", static_cast<std::int64_t>(n_ranks));
  if (seed) set_attribute("/", "seed", *seed);
  set_attribute("/", "created", created);
  write_text("/config", config_text);
}

void H5Output::allow_missing_values(const std::string& dataset) { missing_allowed_.push_back(normalize(dataset)); }

bool H5Output::missing_allowed(const std::string& dataset) const {
  return std::find(missing_allowed_.begin(), missing_allowed_.end(), dataset) != missing_allowed_.end();
}

void H5Output::refuse_non_finite(const std::string& dataset, std::int64_t bad_row, std::uint64_t first_row, double value) {
  constexpr auto kNone = std::numeric_limits<std::uint64_t>::max();
  const std::uint64_t row = comm_.min<std::uint64_t>(bad_row < 0 ? kNone : first_row + static_cast<std::uint64_t>(bad_row));
  if (row == kNone) return;
  const int owner = comm_.min(bad_row >= 0 && first_row + static_cast<std::uint64_t>(bad_row) == row ? comm_.rank() : comm_.size());
  comm_.broadcast(value, owner);
  abandon();  // every rank is here
  throw InputError("--out " + path_ + ": " + dataset + " row " + std::to_string(row) + " is " +
                       (std::isnan(value) ? "NaN" : value > 0 ? "inf" : "-inf") +
                       ": a result overflowed (inputs of extreme magnitude: rescale them); nothing is written",
                   /*collective=*/true);
}

}  // namespace graphrf
