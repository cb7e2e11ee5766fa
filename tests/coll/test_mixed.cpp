// Many back-to-back calls of varying shape, mixed with the program's own traffic on the
// same communicator: point-to-point messages in flight across the call, broadcasts, and
// the library's non-blocking allreduce outstanding while Ferry's runs.
#include <gtest/gtest.h>

#include <random>

#include "coll_test_util.h"

namespace ferry::coll::testing {
namespace {

TEST(AllreduceMixed, BackToBackWithOtherTraffic) {
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  std::vector<TypedOp> ops = allTypedOps();
  std::mt19937_64 shared(2024);  // same sequence on every rank: every rank makes the same calls
  const size_t counts[] = {0, 5, 700, 9000, 100000};
  int left = (rank + ranks - 1) % ranks, right = (rank + 1) % ranks;
  for (int i = 0; i < 300; ++i) {
    const TypedOp& t = ops[shared() % ops.size()];
    size_t count = counts[shared() % std::size(counts)];
    bool inPlace = shared() % 2;
    // The program's own messages, posted before and completed after Ferry's call.
    int out = rank * 1000 + i, in = -1;
    MPI_Request p2p[2];
    MPI_Irecv(&in, 1, MPI_INT, left, 7, MPI_COMM_WORLD, &p2p[0]);
    MPI_Isend(&out, 1, MPI_INT, right, 7, MPI_COMM_WORLD, &p2p[1]);
    long lib = rank, libSum = -1;
    MPI_Request nb = MPI_REQUEST_NULL;
    if (i % 7 == 0) PMPI_Iallreduce(&lib, &libSum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD, &nb);

    ASSERT_EQ(checkAgainstLibrary(forcedSettings(), t, count, inPlace, MPI_COMM_WORLD, static_cast<uint64_t>(i)), "")
        << "call " << i;

    MPI_Waitall(2, p2p, MPI_STATUSES_IGNORE);
    ASSERT_EQ(in, left * 1000 + i) << "the program's message of round " << i;
    if (nb != MPI_REQUEST_NULL) {
      MPI_Wait(&nb, MPI_STATUS_IGNORE);
      ASSERT_EQ(libSum, static_cast<long>(ranks) * (ranks - 1) / 2);
    }
    if (i % 10 == 0) {
      int root = i % ranks, value = rank == root ? i : -1;
      MPI_Bcast(&value, 1, MPI_INT, root, MPI_COMM_WORLD);
      ASSERT_EQ(value, i);
    }
  }
}

}  // namespace
}  // namespace ferry::coll::testing
