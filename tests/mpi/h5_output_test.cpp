// H5Output: parallel writes at 1-4 ranks (uneven and zero-row ranks), read back on rank 0 with the serial HDF5 API
// after commit(); clean-up without commit; collective errors; check_output_writable.
#include <gtest/gtest.h>
#include <hdf5.h>
#include <stdlib.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <limits>
#include <numeric>
#include <regex>
#include <stdexcept>
#include <string>
#include <vector>

#include "graphrf/mpi/communicator.hpp"
#include "graphrf/io/h5_output.hpp"
#include "graphrf/version.hpp"

namespace graphrf {
namespace {

namespace fs = std::filesystem;

template <class T>
hid_t native() {
  if constexpr (std::is_same_v<T, double>) return H5T_NATIVE_DOUBLE;
  else if constexpr (std::is_same_v<T, float>) return H5T_NATIVE_FLOAT;
  else if constexpr (std::is_same_v<T, std::int64_t>) return H5T_NATIVE_INT64;
  else if constexpr (std::is_same_v<T, std::int32_t>) return H5T_NATIVE_INT32;
  else if constexpr (std::is_same_v<T, std::uint64_t>) return H5T_NATIVE_UINT64;
  else if constexpr (std::is_same_v<T, std::uint8_t>) return H5T_NATIVE_UINT8;
}

// Serial reader used on rank 0 after commit(): default file access properties (sec2 driver).
class Reader {
 public:
  explicit Reader(const std::string& path)
      : file_(h5::File::checked(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), "open", path)) {}

  bool exists(const std::string& path) const {
    // Walk the components: H5Lexists fails on a missing intermediate group.
    std::string prefix;
    std::size_t start = 1;
    while (start <= path.size()) {
      std::size_t end = path.find('/', start);
      if (end == std::string::npos) end = path.size();
      prefix = path.substr(0, end);
      if (H5Lexists(file_.get(), prefix.c_str(), H5P_DEFAULT) <= 0) return false;
      start = end + 1;
    }
    return true;
  }
  std::vector<hsize_t> dims(const std::string& path) const {
    auto ds = open(path);
    auto space = h5::Dataspace::checked(H5Dget_space(ds.get()), "space", path);
    const int rank = H5Sget_simple_extent_ndims(space.get());
    std::vector<hsize_t> d(static_cast<std::size_t>(std::max(rank, 0)));
    H5Sget_simple_extent_dims(space.get(), d.data(), nullptr);
    return d;
  }
  // The stored type is exactly T's (class, size, signedness): e.g. int64 vs float64.
  template <class T>
  bool has_type(const std::string& path) const {
    auto ds = open(path);
    auto type = h5::Datatype::checked(H5Dget_type(ds.get()), "type", path);
    return same_type<T>(type.get());
  }
  template <class T>
  std::vector<T> read(const std::string& path) const {
    auto ds = open(path);
    auto space = h5::Dataspace::checked(H5Dget_space(ds.get()), "space", path);
    std::vector<T> out(static_cast<std::size_t>(H5Sget_simple_extent_npoints(space.get())));
    if (!out.empty()) h5::check(H5Dread(ds.get(), native<T>(), H5S_ALL, H5S_ALL, H5P_DEFAULT, out.data()), "read", path);
    return out;
  }
  std::string text(const std::string& path) const {
    auto ds = open(path);
    auto type = h5::Datatype::checked(H5Dget_type(ds.get()), "type", path);
    EXPECT_TRUE(is_utf8_vlen(type.get())) << path;
    auto space = h5::Dataspace::checked(H5Dget_space(ds.get()), "space", path);
    EXPECT_EQ(H5Sget_simple_extent_type(space.get()), H5S_SCALAR) << path;
    auto mem = h5::utf8_string_type();
    char* s = nullptr;
    h5::check(H5Dread(ds.get(), mem.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, &s), "read", path);
    std::string out = s ? s : "";
    H5free_memory(s);
    return out;
  }
  bool has_attr(const std::string& object, const std::string& name) const {
    return H5Aexists_by_name(file_.get(), object.c_str(), name.c_str(), H5P_DEFAULT) > 0;
  }
  std::string attr_string(const std::string& object, const std::string& name) const {
    auto a = attr(object, name);
    auto type = h5::Datatype::checked(H5Aget_type(a.get()), "type", name);
    EXPECT_TRUE(is_utf8_vlen(type.get())) << object << " " << name;
    auto mem = h5::utf8_string_type();
    char* s = nullptr;
    h5::check(H5Aread(a.get(), mem.get(), &s), "read", name);
    std::string out = s ? s : "";
    H5free_memory(s);
    return out;
  }
  template <class T>
  std::vector<T> attr_values(const std::string& object, const std::string& name, bool* scalar = nullptr) const {
    auto a = attr(object, name);
    auto type = h5::Datatype::checked(H5Aget_type(a.get()), "type", name);
    EXPECT_TRUE(same_type<T>(type.get())) << object << " " << name;
    auto space = h5::Dataspace::checked(H5Aget_space(a.get()), "space", name);
    if (scalar) *scalar = H5Sget_simple_extent_type(space.get()) == H5S_SCALAR;
    std::vector<T> out(static_cast<std::size_t>(H5Sget_simple_extent_npoints(space.get())));
    if (!out.empty()) h5::check(H5Aread(a.get(), native<T>(), out.data()), "read", name);
    return out;
  }
  template <class T>
  T attr_scalar(const std::string& object, const std::string& name) const {
    bool scalar = false;
    auto v = attr_values<T>(object, name, &scalar);
    EXPECT_TRUE(scalar) << object << " " << name;
    return v.empty() ? T{} : v[0];
  }

 private:
  h5::Dataset open(const std::string& path) const {
    return h5::Dataset::checked(H5Dopen2(file_.get(), path.c_str(), H5P_DEFAULT), "open", path);
  }
  h5::Attribute attr(const std::string& object, const std::string& name) const {
    return h5::Attribute::checked(H5Aopen_by_name(file_.get(), object.c_str(), name.c_str(), H5P_DEFAULT, H5P_DEFAULT),
                                  "open attribute", object + " " + name);
  }
  template <class T>
  static bool same_type(hid_t type) {
    const hid_t want = native<T>();
    return H5Tget_class(type) == H5Tget_class(want) && H5Tget_size(type) == H5Tget_size(want) &&
           (H5Tget_class(type) != H5T_INTEGER || H5Tget_sign(type) == H5Tget_sign(want));
  }
  static bool is_utf8_vlen(hid_t type) {
    return H5Tget_class(type) == H5T_STRING && H5Tis_variable_str(type) > 0 && H5Tget_cset(type) == H5T_CSET_UTF8;
  }
  h5::File file_;
};

class H5OutputTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    Communicator comm;
    if (comm.rank() == 0) {
      std::string tmpl = (fs::temp_directory_path() / "graphrf-h5out-XXXXXX").string();
      if (!mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed");
      dir_ = tmpl;
    }
    comm.broadcast(dir_, 0);
  }
  static void TearDownTestSuite() {
    Communicator comm;
    comm.barrier();
    // GRAPHRF_KEEP_TEST_OUTPUT=1 keeps the files (e.g. to inspect them with h5py).
    if (comm.rank() == 0) {
      if (std::getenv("GRAPHRF_KEEP_TEST_OUTPUT"))
        std::printf("h5_output_test: files kept in %s\n", dir_.c_str());
      else
        fs::remove_all(dir_);
    }
  }
  std::string file(const std::string& name) const { return dir_ + "/" + name; }
  // Whether a temporary file of a writer of `path` (PATH.<host>.<pid>.<random>.partial) is in the folder.
  static bool has_temporary(const std::string& path) {
    const fs::path p(path);
    const std::string prefix = p.filename().string() + ".";
    for (const auto& entry : fs::directory_iterator(p.parent_path())) {
      const std::string name = entry.path().filename().string();
      if (name.rfind(prefix, 0) == 0 && name.size() > 8 && name.compare(name.size() - 8, 8, ".partial") == 0) return true;
    }
    return false;
  }

  Communicator comm;
  int rank = comm.rank();
  int size = comm.size();
  static std::string dir_;
};
std::string H5OutputTest::dir_;

// Uneven row counts with zero-row ranks.
int rows_a(int r) { return r * (r + 1) % 3; }  // 0, 2, 0, 0
int rows_b(int r) { return (r + 2) % 3; }      // 2, 0, 1, 2
std::int64_t rows_before(int r, int (*rows)(int)) {
  std::int64_t s = 0;
  for (int q = 0; q < r; ++q) s += rows(q);
  return s;
}

TEST_F(H5OutputTest, RowBlocksWithUnevenAndZeroRowRanks) {
  const std::string path = file("rows.h5");
  const std::int64_t a0 = rows_before(rank, rows_a), b0 = rows_before(rank, rows_b);
  const std::int64_t na = rows_before(size, rows_a), nb = rows_before(size, rows_b);
  {
    H5Output out(comm, path);
    std::vector<std::int64_t> a;
    for (std::int64_t g = a0; g < a0 + rows_a(rank); ++g) a.push_back(g * 100);
    out.write_rows("/rows/a", a);

    std::vector<double> b2;  // 2-D: rows x 3
    std::vector<float> b3;   // 3-D: rows x 2 x 2
    std::vector<std::uint8_t> u8;
    std::vector<std::int32_t> i32;
    std::vector<std::uint64_t> u64;
    for (std::int64_t g = b0; g < b0 + rows_b(rank); ++g) {
      for (int c = 0; c < 3; ++c) b2.push_back(static_cast<double>(g) + 0.125 * c);
      for (int c = 0; c < 4; ++c) b3.push_back(static_cast<float>(g) - 0.5f * static_cast<float>(c));
      u8.push_back(static_cast<std::uint8_t>(g * 7 % 256));
      for (int c = 0; c < 2; ++c) i32.push_back(static_cast<std::int32_t>(-(g * 3 + c)));
      u64.push_back((std::uint64_t{1} << 40) + static_cast<std::uint64_t>(g));
    }
    out.write_rows("/rows/b2", b2, {3});
    EXPECT_NE(out.last_io_mode(), H5D_MPIO_NO_COLLECTIVE);
    out.write_rows("/rows/b3", b3, {2, 2});
    out.write_rows("/rows/u8", u8);
    out.write_rows("/deep/er/i32", i32, {2});
    out.write_rows("/rows/u64", std::span<const std::uint64_t>(u64));
    EXPECT_NE(out.last_io_mode(), H5D_MPIO_NO_COLLECTIVE);
    comm.barrier();
    if (rank == 0) {
      EXPECT_TRUE(fs::exists(out.partial_path()));
      EXPECT_TRUE(has_temporary(path));
    }
    out.commit();
  }
  comm.barrier();
  if (rank != 0) return;
  EXPECT_FALSE(has_temporary(path));
  Reader f(path);
  EXPECT_EQ(f.dims("/rows/a"), (std::vector<hsize_t>{static_cast<hsize_t>(na)}));
  EXPECT_TRUE(f.has_type<std::int64_t>("/rows/a"));
  std::vector<std::int64_t> want_a;
  for (std::int64_t g = 0; g < na; ++g) want_a.push_back(g * 100);
  EXPECT_EQ(f.read<std::int64_t>("/rows/a"), want_a);

  const auto n = static_cast<hsize_t>(nb);
  EXPECT_EQ(f.dims("/rows/b2"), (std::vector<hsize_t>{n, 3}));
  EXPECT_TRUE(f.has_type<double>("/rows/b2"));
  EXPECT_FALSE(f.has_type<std::int64_t>("/rows/b2"));
  EXPECT_EQ(f.dims("/rows/b3"), (std::vector<hsize_t>{n, 2, 2}));
  EXPECT_TRUE(f.has_type<float>("/rows/b3"));
  EXPECT_EQ(f.dims("/rows/u8"), (std::vector<hsize_t>{n}));
  EXPECT_TRUE(f.has_type<std::uint8_t>("/rows/u8"));
  EXPECT_EQ(f.dims("/deep/er/i32"), (std::vector<hsize_t>{n, 2}));
  EXPECT_TRUE(f.has_type<std::int32_t>("/deep/er/i32"));
  EXPECT_TRUE(f.has_type<std::uint64_t>("/rows/u64"));
  std::vector<double> want_b2;
  std::vector<float> want_b3;
  std::vector<std::uint8_t> want_u8;
  std::vector<std::int32_t> want_i32;
  std::vector<std::uint64_t> want_u64;
  for (std::int64_t g = 0; g < nb; ++g) {
    for (int c = 0; c < 3; ++c) want_b2.push_back(static_cast<double>(g) + 0.125 * c);
    for (int c = 0; c < 4; ++c) want_b3.push_back(static_cast<float>(g) - 0.5f * static_cast<float>(c));
    want_u8.push_back(static_cast<std::uint8_t>(g * 7 % 256));
    for (int c = 0; c < 2; ++c) want_i32.push_back(static_cast<std::int32_t>(-(g * 3 + c)));
    want_u64.push_back((std::uint64_t{1} << 40) + static_cast<std::uint64_t>(g));
  }
  EXPECT_EQ(f.read<double>("/rows/b2"), want_b2);
  EXPECT_EQ(f.read<float>("/rows/b3"), want_b3);
  EXPECT_EQ(f.read<std::uint8_t>("/rows/u8"), want_u8);
  EXPECT_EQ(f.read<std::int32_t>("/deep/er/i32"), want_i32);
  EXPECT_EQ(f.read<std::uint64_t>("/rows/u64"), want_u64);
}

TEST_F(H5OutputTest, RunsInterleavedAcrossRanks) {
  // Element e of a 1-D dataset of 40 belongs to rank (e / 3) % size, in runs of 3 (rank 0 also has an empty run
  // and, at one rank, everything); each rank writes value 10 e + rank's check digit from one contiguous buffer.
  const std::string path = file("runs.h5");
  const std::uint64_t n = 40;
  {
    H5Output out(comm, path);
    out.create_rows<std::int64_t>("/runs", {n});
    std::vector<std::pair<std::uint64_t, std::uint64_t>> runs;
    std::vector<std::int64_t> values;
    if (rank == 0) runs.push_back({0, 0});
    for (std::uint64_t first = 0; first < n; first += 3) {
      if (static_cast<int>((first / 3) % static_cast<std::uint64_t>(size)) != rank) continue;
      const std::uint64_t count = std::min<std::uint64_t>(3, n - first);
      runs.push_back({first, count});
      for (std::uint64_t e = first; e < first + count; ++e) values.push_back(static_cast<std::int64_t>(10 * e));
    }
    out.write_runs<std::int64_t>("/runs", runs, values);
    out.commit();
  }
  comm.barrier();
  if (rank != 0) return;
  Reader f(path);
  std::vector<std::int64_t> want(n);
  for (std::uint64_t e = 0; e < n; ++e) want[e] = static_cast<std::int64_t>(10 * e);
  EXPECT_EQ(f.read<std::int64_t>("/runs"), want);
}

TEST_F(H5OutputTest, RunsThatOverlapOrDoNotMatchTheValuesThrowEverywhere) {
  H5Output out(comm, file("bad_runs.h5"));
  out.create_rows<double>("/runs", {10});
  std::vector<std::pair<std::uint64_t, std::uint64_t>> runs{{4, 2}};
  if (rank == size - 1) runs.push_back({5, 1});  // overlaps the previous run
  const std::vector<double> values(runs.size() == 1 ? 2 : 3, 1.0);
  EXPECT_THROW(out.write_runs<double>("/runs", runs, values), Error);
}

// A value that overflowed on the last rank only: every rank throws the same InputError naming the dataset and
// the global row, and nothing is published; NaN passes where it marks a missing value.
TEST_F(H5OutputTest, NonFiniteRowsAreRefusedOnEveryRank) {
  const std::string path = file("non_finite.h5");
  std::vector<double> rows(4, 1.0);  // 2 rows of 2 per rank
  if (rank == size - 1) rows[3] = std::numeric_limits<double>::infinity();
  {
    H5Output out(comm, path);
    out.allow_missing_values("/missing");
    out.write_rows("/missing", std::vector<double>(2, std::nan("")));
    try {
      out.write_rows("/values", rows, {2});
      ADD_FAILURE() << "no error";
    } catch (const InputError& e) {
      EXPECT_TRUE(e.collective());
      const std::string what = e.what();
      EXPECT_NE(what.find("/values row " + std::to_string(2 * (size - 1) + 1) + " is inf"), std::string::npos) << what;
    }
  }
  comm.barrier();
  EXPECT_FALSE(fs::exists(path));
}

TEST_F(H5OutputTest, ZeroTotalRowsStillCreatesTheDatasets) {
  const std::string path = file("empty.h5");
  {
    H5Output out(comm, path);
    out.write_rows("/empty1d", std::vector<std::int64_t>{});
    out.write_rows("/empty2d", std::vector<double>{}, {3});
    out.write_replicated("/empty_replicated", std::vector<double>{});
    out.commit();
  }
  comm.barrier();
  if (rank != 0) return;
  Reader f(path);
  EXPECT_EQ(f.dims("/empty1d"), (std::vector<hsize_t>{0}));
  EXPECT_TRUE(f.has_type<std::int64_t>("/empty1d"));
  EXPECT_EQ(f.dims("/empty2d"), (std::vector<hsize_t>{0, 3}));
  EXPECT_TRUE(f.has_type<double>("/empty2d"));
  EXPECT_EQ(f.dims("/empty_replicated"), (std::vector<hsize_t>{0}));
}

// Once commit() returns, every rank may open the published file with HDF5's default (locking) reader although
// the writer object is still alive: the temporary's lock (rank 0's, against stale-file sweeps) went with the
// rename. A lock kept until the writer died failed a reader on another rank now and then ("unable to lock file").
TEST_F(H5OutputTest, ThePublishedFileOpensForReadingBeforeTheWriterIsDestroyed) {
  const std::string path = file("read-at-once.h5");
  H5Output out(comm, path);
  out.write_replicated("/x", std::vector<double>{1.0, 2.0});
  out.commit();
  {
    Reader f(path);
    EXPECT_EQ(f.dims("/x"), (std::vector<hsize_t>{2}));
  }
  const int fd = ::open(path.c_str(), O_RDONLY);
  ASSERT_GE(fd, 0);
  EXPECT_EQ(::flock(fd, LOCK_SH | LOCK_NB), 0) << "the published file is still locked";
  ::close(fd);
  comm.barrier();
}

// Restores the per-call write limit even if a test fails.
struct MaxWriteBytes {
  explicit MaxWriteBytes(std::uint64_t bytes) : saved(H5Output::max_write_bytes()) { H5Output::set_max_write_bytes(bytes); }
  ~MaxWriteBytes() { H5Output::set_max_write_bytes(saved); }
  std::uint64_t saved;
};

TEST_F(H5OutputTest, LargeBlocksAreWrittenInSeveralCollectiveCalls) {
  const std::string path = file("chunked.h5");
  // rank r holds r + 2 rows of 2 doubles (16 bytes); 40 bytes per call -> 2 rows per call, and ranks run out of
  // rows after different numbers of calls.
  const auto local_rows = [](int r) { return r + 2; };
  std::int64_t first = 0, total = 0;
  for (int q = 0; q < size; ++q) (q < rank ? first : total) += local_rows(q);
  total += first;
  {
    MaxWriteBytes limit(40);
    H5Output out(comm, path);
    std::vector<double> v;
    for (std::int64_t g = first; g < first + local_rows(rank); ++g) v.insert(v.end(), {static_cast<double>(g), -static_cast<double>(g)});
    out.write_rows("/x", v, {2});
    EXPECT_NE(out.last_io_mode(), H5D_MPIO_NO_COLLECTIVE);
    std::vector<std::int64_t> big(1000);
    std::iota(big.begin(), big.end(), 0);
    out.write_replicated("/replicated", big);  // 8000 bytes from rank 0 in 200 calls
    out.commit();
  }
  comm.barrier();
  if (rank != 0) return;
  Reader f(path);
  std::vector<double> want;
  for (std::int64_t g = 0; g < total; ++g) want.insert(want.end(), {static_cast<double>(g), -static_cast<double>(g)});
  EXPECT_EQ(f.read<double>("/x"), want);
  std::vector<std::int64_t> big(1000);
  std::iota(big.begin(), big.end(), 0);
  EXPECT_EQ(f.read<std::int64_t>("/replicated"), big);
}

TEST_F(H5OutputTest, CollectiveIoIsUsedAndReported) {
  H5Output out(comm, file("mode.h5"));
  EXPECT_EQ(out.last_io_mode(), H5D_MPIO_NO_COLLECTIVE);  // nothing written yet
  std::vector<double> every(static_cast<std::size_t>(rank + 1), 1.0);
  out.write_rows("/every_rank_has_rows", every);
  EXPECT_EQ(out.last_io_mode(), H5D_MPIO_CONTIGUOUS_COLLECTIVE);
  std::vector<double> some(static_cast<std::size_t>(rows_b(rank)), 2.0);
  out.write_rows("/some_ranks_have_rows", some);  // zero-row ranks take part in the collective write
  EXPECT_NE(out.last_io_mode(), H5D_MPIO_NO_COLLECTIVE);
  out.write_per_rank("/per_rank", 1.5);
  EXPECT_EQ(out.last_io_mode(), H5D_MPIO_CONTIGUOUS_COLLECTIVE);
  out.commit();
}

// Global row g of the test CSR: g % 3 nonzeros (rows 0, 3, 6, ... empty) in sorted columns j * 3 + g % 2.
struct CsrRows {
  std::vector<std::int64_t> indptr{0}, indices;
  std::vector<double> data;
  void add_row(std::int64_t g) {
    for (std::int64_t j = 0; j < g % 3; ++j) {
      indices.push_back(j * 3 + g % 2);
      data.push_back(static_cast<double>(g) + 0.25 * static_cast<double>(j));
    }
    indptr.push_back(static_cast<std::int64_t>(indices.size()));
  }
};
int csr_rows(int r) { return r % 2 == 1 ? 0 : r + 3; }  // odd ranks (the last one at 2 and 4 ranks) have none

TEST_F(H5OutputTest, CsrMatrixInAnndataLayout) {
  const std::string path = file("csr.h5");
  const std::int64_t first = rows_before(rank, csr_rows), n_rows = rows_before(size, csr_rows);
  {
    H5Output out(comm, path);
    CsrRows local;
    for (std::int64_t g = first; g < first + csr_rows(rank); ++g) local.add_row(g);
    out.write_csr("/obsm/features", 7, local.indptr, local.indices, local.data);
    EXPECT_NE(out.last_io_mode(), H5D_MPIO_NO_COLLECTIVE);
    const std::vector<std::int64_t> start{0};
    out.write_csr("/empty_csr", 5, start, std::span<const std::int64_t>{}, {});
    // More columns than int32 holds: indices and indptr stay int64 (scipy's rule).
    out.write_csr("/wide_csr", std::int64_t{1} << 31, local.indptr, local.indices, local.data);
    // int32 indices in: stored as they are when they fit, widened when the matrix needs int64.
    const std::vector<std::int32_t> narrow(local.indices.begin(), local.indices.end());
    out.write_csr("/narrow_in", 7, local.indptr, std::span<const std::int32_t>(narrow), local.data);
    out.write_csr("/narrow_in_wide", std::int64_t{1} << 31, local.indptr, std::span<const std::int32_t>(narrow), local.data);
    out.commit();
  }
  comm.barrier();
  if (rank != 0) return;
  EXPECT_FALSE(has_temporary(path));
  Reader f(path);
  CsrRows want;
  for (std::int64_t g = 0; g < n_rows; ++g) want.add_row(g);
  EXPECT_EQ(f.attr_string("/obsm/features", "encoding-type"), "csr_matrix");
  EXPECT_EQ(f.attr_string("/obsm/features", "encoding-version"), "0.1.0");
  bool scalar = true;
  EXPECT_EQ(f.attr_values<std::int64_t>("/obsm/features", "shape", &scalar), (std::vector<std::int64_t>{n_rows, 7}));
  EXPECT_FALSE(scalar);
  EXPECT_TRUE(f.has_type<std::int32_t>("/obsm/features/indptr"));  // everything fits in int32
  EXPECT_TRUE(f.has_type<std::int32_t>("/obsm/features/indices"));
  EXPECT_TRUE(f.has_type<double>("/obsm/features/data"));
  EXPECT_EQ(f.dims("/obsm/features/indptr"), (std::vector<hsize_t>{static_cast<hsize_t>(n_rows + 1)}));
  EXPECT_EQ(f.read<std::int64_t>("/obsm/features/indptr"), want.indptr);
  EXPECT_EQ(f.read<std::int64_t>("/obsm/features/indices"), want.indices);
  EXPECT_EQ(f.read<double>("/obsm/features/data"), want.data);
  EXPECT_TRUE(f.has_type<std::int64_t>("/wide_csr/indptr"));
  EXPECT_TRUE(f.has_type<std::int64_t>("/wide_csr/indices"));
  EXPECT_EQ(f.read<std::int64_t>("/wide_csr/indptr"), want.indptr);
  EXPECT_EQ(f.read<std::int64_t>("/wide_csr/indices"), want.indices);
  EXPECT_EQ(f.attr_values<std::int64_t>("/wide_csr", "shape"), (std::vector<std::int64_t>{n_rows, std::int64_t{1} << 31}));

  EXPECT_TRUE(f.has_type<std::int32_t>("/narrow_in/indices"));
  EXPECT_EQ(f.read<std::int64_t>("/narrow_in/indptr"), want.indptr);
  EXPECT_EQ(f.read<std::int64_t>("/narrow_in/indices"), want.indices);
  EXPECT_EQ(f.read<double>("/narrow_in/data"), want.data);
  EXPECT_TRUE(f.has_type<std::int64_t>("/narrow_in_wide/indptr"));
  EXPECT_TRUE(f.has_type<std::int64_t>("/narrow_in_wide/indices"));
  EXPECT_EQ(f.read<std::int64_t>("/narrow_in_wide/indices"), want.indices);
  EXPECT_EQ(f.attr_values<std::int64_t>("/empty_csr", "shape"), (std::vector<std::int64_t>{0, 5}));
  EXPECT_EQ(f.read<std::int64_t>("/empty_csr/indptr"), (std::vector<std::int64_t>{0}));
  EXPECT_EQ(f.dims("/empty_csr/indices"), (std::vector<hsize_t>{0}));
  EXPECT_TRUE(f.has_type<std::int32_t>("/empty_csr/indices"));
  EXPECT_EQ(f.dims("/empty_csr/data"), (std::vector<hsize_t>{0}));
  EXPECT_TRUE(f.has_type<double>("/empty_csr/data"));
}

// Every rank throws the same Error (the message of the lowest failing rank) and nothing is left on disk.
void expect_collective_error(const Communicator& comm, const std::function<void()>& fn, const std::string& needle) {
  std::string message;
  try {
    fn();
    ADD_FAILURE() << "no exception";
  } catch (const Error& e) {
    message = e.what();
  }
  EXPECT_NE(message.find(needle), std::string::npos) << message;
  std::string first = message;
  comm.broadcast(first, 0);
  EXPECT_EQ(message, first) << "ranks disagree on the error";
}

TEST_F(H5OutputTest, UnsortedCsrIndicesOnOneRankThrowEverywhere) {
  const std::string path = file("unsorted.h5");
  H5Output out(comm, path);
  CsrRows local;
  local.add_row(2);  // columns {0, 3}
  if (rank == size - 1) std::swap(local.indices[0], local.indices[1]);
  expect_collective_error(
      comm, [&] { out.write_csr("/m", 7, local.indptr, local.indices, local.data); },
      "write_csr /m: rank " + std::to_string(size - 1) + ": the column indices of local row 0 are not sorted");
  EXPECT_THROW(out.commit(), Error);  // unusable after the error
  comm.barrier();
  if (rank == 0) {
    EXPECT_FALSE(fs::exists(path));
    EXPECT_FALSE(has_temporary(path));
  }
}

TEST_F(H5OutputTest, MalformedCsrAndRowArgumentsThrowEverywhere) {
  const std::vector<std::int64_t> indptr{0, 1}, idx{9};
  const std::vector<double> val{1.0};
  {
    H5Output out(comm, file("bad1.h5"));
    expect_collective_error(comm, [&] { out.write_csr("/m", 7, indptr, idx, val); }, "is outside [0, 7)");
  }
  {
    H5Output out(comm, file("bad2.h5"));
    const std::vector<std::int64_t> wrong{0, 2};
    expect_collective_error(comm, [&] { out.write_csr("/m", 7, wrong, idx, val); }, "local_indptr ends at 2");
  }
  {
    H5Output out(comm, file("bad3.h5"));
    // Only the last rank passes a ragged block.
    std::vector<double> v(rank == size - 1 ? 5 : 4, 0.0);
    expect_collective_error(comm, [&] { out.write_rows("/r", v, {2}); }, "not a whole number of rows of 2");
  }
  comm.barrier();
  if (rank == 0) {
    for (const char* name : {"bad1.h5", "bad2.h5", "bad3.h5"}) {
      EXPECT_FALSE(fs::exists(file(name)));
      EXPECT_FALSE(has_temporary(file(name)));
    }
  }
}

TEST_F(H5OutputTest, ArgumentsThatDifferBetweenRanksThrowEverywhere) {
  if (size == 1) GTEST_SKIP() << "needs two ranks";
  {
    H5Output out(comm, file("differ1.h5"));
    const std::vector<double> v{static_cast<double>(rank)};
    expect_collective_error(comm, [&] { out.write_replicated("/coef", v); }, "arguments differ between ranks");
  }
  {
    H5Output out(comm, file("differ2.h5"));
    std::vector<double> v(static_cast<std::size_t>(2 * (rank + 1)), 0.0);
    expect_collective_error(
        comm, [&] { out.write_rows("/r", v, {rank == 0 ? 1u : 2u}); }, "arguments differ between ranks");
  }
  {
    H5Output out(comm, file("differ3.h5"));
    expect_collective_error(
        comm, [&] { out.set_attribute("/", "who", std::int64_t{rank}); }, "arguments differ between ranks");
  }
}

TEST_F(H5OutputTest, ReplicatedAndPerRankDatasets) {
  const std::string path = file("replicated.h5");
  const std::vector<double> coef{0.5, 0.25, 0.125, -1.0 / 3.0};
  const std::vector<std::int64_t> hist{1, 2, 3, 40, 50, 60};
  const std::vector<std::uint8_t> flags{1, 0, 1};
  {
    H5Output out(comm, path);
    out.write_replicated("/kernel/coefficients", coef);
    out.write_replicated("/stats/histogram", hist, {2, 3});
    out.write_replicated("/stats/flags", std::span<const std::uint8_t>(flags));
    out.write_per_rank("/comm/messages_sent", std::int64_t{rank} * rank + 1);
    out.write_per_rank("/comm/seconds", 0.5 * rank);
    out.write_per_rank("/comm/bytes", (std::uint64_t{1} << 33) + static_cast<std::uint64_t>(rank));
    out.commit();
  }
  comm.barrier();
  if (rank != 0) return;
  Reader f(path);
  EXPECT_EQ(f.read<double>("/kernel/coefficients"), coef);
  EXPECT_TRUE(f.has_type<double>("/kernel/coefficients"));
  EXPECT_EQ(f.dims("/stats/histogram"), (std::vector<hsize_t>{2, 3}));
  EXPECT_TRUE(f.has_type<std::int64_t>("/stats/histogram"));
  EXPECT_EQ(f.read<std::int64_t>("/stats/histogram"), hist);
  EXPECT_EQ(f.read<std::uint8_t>("/stats/flags"), flags);
  std::vector<std::int64_t> sent;
  std::vector<double> seconds;
  std::vector<std::uint64_t> bytes;
  for (int r = 0; r < size; ++r) {
    sent.push_back(std::int64_t{r} * r + 1);
    seconds.push_back(0.5 * r);
    bytes.push_back((std::uint64_t{1} << 33) + static_cast<std::uint64_t>(r));
  }
  EXPECT_EQ(f.dims("/comm/messages_sent"), (std::vector<hsize_t>{static_cast<hsize_t>(size)}));
  EXPECT_TRUE(f.has_type<std::int64_t>("/comm/messages_sent"));
  EXPECT_EQ(f.read<std::int64_t>("/comm/messages_sent"), sent);
  EXPECT_TRUE(f.has_type<double>("/comm/seconds"));
  EXPECT_EQ(f.read<double>("/comm/seconds"), seconds);
  EXPECT_EQ(f.read<std::uint64_t>("/comm/bytes"), bytes);
}

std::string long_utf8_text() {
  std::string text = "# graphrf config — ünïcödé, 日本語\n";
  for (int i = 0; text.size() < 100 * 1024; ++i) text += "walk_length_" + std::to_string(i) + " = " + std::to_string(i * 7) + "\n";
  return text;
}

TEST_F(H5OutputTest, TextDatasetsLongerThan64KiB) {
  const std::string path = file("text.h5");
  const std::string text = long_utf8_text();
  ASSERT_GT(text.size(), 64u * 1024u);
  {
    H5Output out(comm, path);
    out.write_text("/config", text);
    out.write_text("/meta/notes", "short");
    out.write_text("/meta/empty", "");
    out.commit();
  }
  comm.barrier();
  if (rank != 0) return;
  Reader f(path);
  EXPECT_EQ(f.text("/config"), text);
  EXPECT_EQ(f.text("/meta/notes"), "short");
  EXPECT_EQ(f.text("/meta/empty"), "");
}

TEST_F(H5OutputTest, Attributes) {
  const std::string path = file("attrs.h5");
  const std::vector<std::int64_t> dims{3, -4, 5};
  {
    H5Output out(comm, path);
    out.set_attribute("/", "title", "graphrf — ü");
    out.set_attribute("/", "answer", std::int64_t{41});
    out.set_attribute("/", "answer", std::int64_t{42});  // replaced
    out.set_attribute("/", "small", 7);                  // int -> int64
    out.set_attribute("/", "pi", 3.14159);
    out.set_attribute("/", "big", std::uint64_t{18446744073709551615ULL});
    out.set_attribute("/", "dims", dims);
    out.set_attribute("/", "none", std::vector<std::int64_t>{});
    out.set_attribute("/a/b/c", "where", std::string("deep"));  // groups created on demand
    out.set_attribute("/a", "level", std::int64_t{1});          // existing group
    out.write_rows("/data/x", std::vector<double>(static_cast<std::size_t>(rank), 1.0));
    out.set_attribute("/data/x", "unit", "metre");  // on a dataset
    out.commit();
  }
  comm.barrier();
  if (rank != 0) return;
  Reader f(path);
  EXPECT_EQ(f.attr_string("/", "title"), "graphrf — ü");
  EXPECT_EQ(f.attr_scalar<std::int64_t>("/", "answer"), 42);
  EXPECT_EQ(f.attr_scalar<std::int64_t>("/", "small"), 7);
  EXPECT_EQ(f.attr_scalar<double>("/", "pi"), 3.14159);
  EXPECT_EQ(f.attr_scalar<std::uint64_t>("/", "big"), 18446744073709551615ULL);
  EXPECT_EQ(f.attr_values<std::int64_t>("/", "dims"), dims);
  EXPECT_TRUE(f.attr_values<std::int64_t>("/", "none").empty());
  EXPECT_TRUE(f.exists("/a/b/c"));
  EXPECT_EQ(f.attr_string("/a/b/c", "where"), "deep");
  EXPECT_EQ(f.attr_scalar<std::int64_t>("/a", "level"), 1);
  EXPECT_EQ(f.attr_string("/data/x", "unit"), "metre");
}

TEST_F(H5OutputTest, Provenance) {
  const std::string path = file("provenance.h5"), path2 = file("provenance_noseed.h5");
  const std::string config = long_utf8_text();
  {
    H5Output out(comm, path);
    out.write_provenance("graphrf features --walks 8", size, config, std::uint64_t{12345678901234567890ULL});
    out.commit();
  }
  {
    H5Output out(comm, path2);
    out.write_provenance("graphrf", size, "x = 1\n", std::nullopt);
    out.commit();
  }
  comm.barrier();
  if (rank != 0) return;
  Reader f(path);
  EXPECT_EQ(f.attr_string("/", "software"), "graphrf");
  EXPECT_EQ(f.attr_string("/", "software_version"), std::string(kVersion) + " (" + kGitSha + ")");
  EXPECT_EQ(f.attr_string("/", "command"), "graphrf features --walks 8");
  EXPECT_EQ(f.attr_scalar<std::int64_t>("/", "n_ranks"), size);
  EXPECT_EQ(f.attr_scalar<std::uint64_t>("/", "seed"), 12345678901234567890ULL);
  EXPECT_TRUE(std::regex_match(f.attr_string("/", "created"), std::regex(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)")))
      << f.attr_string("/", "created");
  EXPECT_EQ(f.text("/config"), config);
  Reader g(path2);
  EXPECT_FALSE(g.has_attr("/", "seed"));
  EXPECT_TRUE(g.has_attr("/", "created"));
  EXPECT_EQ(g.text("/config"), "x = 1\n");
}

TEST_F(H5OutputTest, DestroyedWithoutCommitLeavesNoFile) {
  const std::string path = file("uncommitted.h5");
  {
    H5Output out(comm, path);
    out.write_rows("/x", std::vector<double>(static_cast<std::size_t>(rows_b(rank)), 1.0));
    out.write_text("/config", "never written");
    comm.barrier();
    if (rank == 0) {
      EXPECT_TRUE(has_temporary(path));
    }
  }
  comm.barrier();
  if (rank == 0) {
    EXPECT_FALSE(fs::exists(path));
    EXPECT_FALSE(has_temporary(path));
  }
}

TEST_F(H5OutputTest, AbandonRemovesThePartialFile) {
  const std::string path = file("abandoned.h5");
  H5Output out(comm, path);
  out.write_per_rank("/r", rank);
  out.abandon();
  out.abandon();  // idempotent
  comm.barrier();
  if (rank == 0) {
    EXPECT_FALSE(fs::exists(path));
    EXPECT_FALSE(has_temporary(path));
  }
  EXPECT_THROW(out.commit(), Error);
  EXPECT_THROW(out.write_per_rank("/s", rank), Error);
}

TEST_F(H5OutputTest, ExceptionPropagatingThroughLeavesNoFile) {
  const std::string path = file("unwound.h5");
  EXPECT_THROW(
      {
        H5Output out(comm, path);
        out.write_per_rank("/r", rank);
        throw std::runtime_error("compute failed");
      },
      std::runtime_error);
  comm.barrier();
  if (rank == 0) {
    EXPECT_FALSE(fs::exists(path));
    EXPECT_FALSE(has_temporary(path));
  }
}

TEST_F(H5OutputTest, Hdf5FailuresNameTheOperationAndObject) {
  const std::string path = file("dup.h5");
  {
    H5Output out(comm, path);
    out.write_per_rank("/dup", 1.0);
    std::string message;
    try {
      out.write_per_rank("/dup", 2.0);
    } catch (const Hdf5Error& e) {
      message = e.what();
    }
    EXPECT_NE(message.find("create dataset /dup: "), std::string::npos) << message;
    EXPECT_NE(message.find("already exists"), std::string::npos) << message;
    EXPECT_THROW(out.commit(), Error);
  }
  comm.barrier();
  if (rank == 0) {
    EXPECT_FALSE(fs::exists(path));
    EXPECT_FALSE(has_temporary(path));
  }
  // The constructor reports HDF5's own reason too.
  try {
    H5Output out(comm, file("no-such-dir/x.h5"));
    ADD_FAILURE() << "created a file in a missing directory";
  } catch (const InputError& e) {
    EXPECT_TRUE(e.collective());
    EXPECT_NE(std::string(e.what()).find("cannot create file: No such file or directory (creating " +
                                         file("no-such-dir/x.h5.")),
              std::string::npos)
        << e.what();
  }
}

TEST_F(H5OutputTest, UseAfterCommitThrows) {
  H5Output out(comm, file("done.h5"));
  out.commit();
  EXPECT_THROW(out.write_per_rank("/late", 1), Error);
  EXPECT_THROW(out.commit(), Error);
}

// The error starts with "--out PATH: cannot create file: " + reason.
void expect_not_writable(const Communicator& comm, const std::string& path, const std::string& reason,
                         const std::vector<NamedInput>& inputs = {}) {
  try {
    check_output_writable(comm, path, inputs);
    ADD_FAILURE() << path << " reported writable";
  } catch (const InputError& e) {
    EXPECT_TRUE(e.collective());
    EXPECT_EQ(std::string(e.what()).rfind("--out " + path + ": cannot create file: " + reason, 0), 0u) << e.what();
  }
}

TEST_F(H5OutputTest, CheckOutputWritable) {
  // The reason names the file whose creation failed: the run's temporary file, written first and then renamed.
  const auto creating = [](const std::string& path) { return "No such file or directory (creating " + path + "."; };
  expect_not_writable(comm, "/proc/nonexistent/x.h5", creating("/proc/nonexistent/x.h5"));
  expect_not_writable(comm, file("missing-dir/x.h5"), creating(file("missing-dir/x.h5")));
  expect_not_writable(comm, dir_, "Is a directory");
  try {
    check_output_writable(comm, "");
    ADD_FAILURE() << "an empty --out reported writable";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), "--out: the file name is empty");
  }
  const std::string ok = file("writable.h5");
  EXPECT_NO_THROW(check_output_writable(comm, ok));
  comm.barrier();
  if (rank == 0) {
    EXPECT_FALSE(fs::exists(ok));
    EXPECT_FALSE(has_temporary(ok));
  }
}

// An existing output that is not a regular file, or that is one of the inputs (also through a symlink or a hard
// link), is refused and left as it was; an input that does not exist yet cannot clash.
// Temporary files of a dead run (nobody holds their lock) are removed by the next run to the same output; a live
// run's (locked) and files of other names are not.
TEST_F(H5OutputTest, StaleTemporariesOfDeadRunsAreRemoved) {
  const std::string out = file("swept.h5");
  const std::string dead = out + ".node7.4242.0123456789abcdef.partial", live = out + ".node7.4343.fedcba9876543210.partial";
  const std::vector<std::string> others{out + ".backup.partial", out + ".node7.4242.0123456789abcdef.partial.keep",
                                        file("other.h5.node7.1.0123456789abcdef.partial")};
  int live_fd = -1;
  if (rank == 0) {
    for (const auto& path : others) std::fclose(std::fopen(path.c_str(), "w"));
    std::fclose(std::fopen(dead.c_str(), "w"));
    live_fd = ::open(live.c_str(), O_RDWR | O_CREAT, 0600);
    ASSERT_GE(live_fd, 0);
    ASSERT_EQ(::flock(live_fd, LOCK_EX | LOCK_NB), 0);
  }
  comm.barrier();
  {
    H5Output output(comm, out);
    if (rank == 0) {
      EXPECT_FALSE(fs::exists(dead));
      EXPECT_TRUE(fs::exists(live));
      for (const auto& path : others) EXPECT_TRUE(fs::exists(path)) << path;
    }
    output.commit();
  }
  if (rank == 0) {
    ::close(live_fd);
    EXPECT_TRUE(fs::exists(live));  // its owner is alive (this process held the lock) until now
  }
}

TEST_F(H5OutputTest, CheckOutputRefusesSpecialFilesAndInputs) {
  const std::string fifo = file("fifo"), input = file("input.txt"), link = file("link.txt"), hard = file("hard.txt");
  if (rank == 0) {
    ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
    std::FILE* f = std::fopen(input.c_str(), "w");
    std::fputs("0 1\n", f);
    std::fclose(f);
    fs::create_symlink(input, link);
    fs::create_hard_link(input, hard);
  }
  comm.barrier();
  expect_not_writable(comm, fifo, "it is a FIFO; only regular files are replaced");
  const std::vector<NamedInput> inputs{{"--qkv", file("absent.h5")}, {"--graph", input}};
  const std::string clash = "it is the same file as --graph " + input + " (writing it would destroy the input)";
  expect_not_writable(comm, input, clash, inputs);
  expect_not_writable(comm, link, clash, inputs);
  expect_not_writable(comm, hard, clash, inputs);
  EXPECT_NO_THROW(check_output_writable(comm, file("absent.h5"), inputs));
  comm.barrier();
  if (rank == 0) {
    EXPECT_TRUE(fs::is_fifo(fifo));
    EXPECT_EQ(fs::file_size(input), 4u);
    EXPECT_TRUE(fs::is_symlink(link));
    for (const auto& path : {fifo, input, link, hard}) EXPECT_FALSE(has_temporary(path));
  }
}

}  // namespace
}  // namespace graphrf
