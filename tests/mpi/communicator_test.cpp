// A Communicator borrows an MPI_Comm or owns a duplicate: the duplicate is a private channel (a message on it
// is not seen on the original), owners move but are never copied, and the duplicate is freed with its owner;
// collective_try keeps the kind of the error it agrees on.
#include "graphrf/mpi/communicator.hpp"

#include <gtest/gtest.h>

#include <utility>

#include "graphrf/core/error.hpp"
#include "mpi_test_support.hpp"

using namespace graphrf;
using graphrf::testing::world;

TEST(Communicator, ADuplicateIsAPrivateChannelOwnedByItsCommunicator) {
  const Communicator& comm = world();
  EXPECT_FALSE(comm.owns());
  Communicator copy = comm;  // a borrower copies freely
  EXPECT_EQ(copy.get(), comm.get());
  Communicator dup = comm.duplicate();
  EXPECT_TRUE(dup.owns());
  EXPECT_EQ(dup.rank(), comm.rank());
  EXPECT_EQ(dup.size(), comm.size());
  int relation = 0;
  MPI_Comm_compare(dup.get(), comm.get(), &relation);
  EXPECT_EQ(relation, MPI_CONGRUENT);  // same group, another context
  // A message to this rank on the duplicate is not seen on the original.
  const int value = 7 + comm.rank();
  MPI_Request request;
  MPI_Isend(&value, 1, MPI_INT, comm.rank(), 3, dup.get(), &request);
  int on_original = 1, on_duplicate = 0;
  MPI_Iprobe(comm.rank(), 3, comm.get(), &on_original, MPI_STATUS_IGNORE);
  while (!on_duplicate) MPI_Iprobe(comm.rank(), 3, dup.get(), &on_duplicate, MPI_STATUS_IGNORE);
  EXPECT_EQ(on_original, 0);
  int got = 0;
  MPI_Recv(&got, 1, MPI_INT, comm.rank(), 3, dup.get(), MPI_STATUS_IGNORE);
  MPI_Wait(&request, MPI_STATUS_IGNORE);
  EXPECT_EQ(got, value);
  EXPECT_THROW(Communicator{dup}, Error);  // an owner is never copied
  Communicator moved = std::move(dup);
  EXPECT_TRUE(moved.owns());
  EXPECT_FALSE(dup.owns());  // NOLINT(bugprone-use-after-move): the moved-from one no longer frees it
  EXPECT_EQ(moved.sum(1), comm.size());
}

namespace {
int g_frees = 0;  // times a communicator carrying the test's attribute was freed
int count_free(MPI_Comm, int, void*, void*) {
  ++g_frees;
  return MPI_SUCCESS;
}
}  // namespace

TEST(Communicator, TheDuplicateIsFreedOnceWithItsLastOwner) {
  int key = MPI_KEYVAL_INVALID;
  ASSERT_EQ(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, count_free, &key, nullptr), MPI_SUCCESS);
  g_frees = 0;
  {
    Communicator outer = world();
    {
      Communicator dup = world().duplicate();
      MPI_Comm_set_attr(dup.get(), key, nullptr);
      outer = std::move(dup);
    }
    EXPECT_EQ(g_frees, 0);  // moved away, not freed
    EXPECT_TRUE(outer.owns());
  }
  EXPECT_EQ(g_frees, 1);
  MPI_Comm_free_keyval(&key);
}

// collective_try agrees on one rank's error and keeps its kind (a file that cannot be read, or bad input), so that
// every rank reports it alike (the Python package raises OSError for the first, ValueError for the second).
TEST(Communicator, CollectiveTryKeepsTheErrorKind) {
  const Communicator& comm = world();
  const int last = comm.size() - 1;
  for (const bool file : {true, false}) {
    try {
      collective_try(comm, [&] {
        if (comm.rank() != last) return;
        if (file) throw FileError("data.txt: cannot open: No such file or directory");
        throw InputError("data.txt:3: expected a number");
      });
      ADD_FAILURE() << "no rank threw";
    } catch (const InputError& e) {
      EXPECT_TRUE(e.collective());
      EXPECT_EQ(e.kind(), file ? InputError::Kind::file : InputError::Kind::input);
      EXPECT_STREQ(e.what(), file ? "data.txt: cannot open: No such file or directory" : "data.txt:3: expected a number");
    }
  }
}
