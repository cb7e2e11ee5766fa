// Counts from 0 to several MiB, around every boundary the plan has (64-byte share units,
// chunks, the size below which a node takes the staged path), in and out of place.
#include <gtest/gtest.h>

#include <set>

#include "coll/comm_context.h"
#include "coll/copy_probe.h"
#include "coll/select.h"
#include "coll_test_util.h"

namespace ferry::coll::testing {
namespace {

TypedOp find(MPI_Datatype type, MPI_Op op) {
  for (const TypedOp& t : allTypedOps())
    if (t.type == type && t.op == op) return t;
  ADD_FAILURE() << "no such pair";
  return {};
}

TEST(AllreduceSizes, ZeroToSeveralMiB) {
  const size_t counts[] = {0, 1, 2, 3, 7, 8, 9, 15, 16, 17, 63, 64, 65, 1023, 1024, 1025, 4095, 65537, 262143, 786433};
  for (MPI_Datatype type : {MPI_DOUBLE, MPI_INT, MPI_CHAR}) {
    TypedOp t = find(type, MPI_SUM);
    for (size_t count : counts)
      for (bool inPlace : {false, true})
        EXPECT_EQ(checkAgainstLibrary(forcedSettings(), t, count, inPlace, MPI_COMM_WORLD, count + 1), "");
  }
}

// MPI_COMM_WORLD's context, after a call that sets it up (and is checked).
CommContext* worldContext(const Settings& s) {
  EXPECT_EQ(checkAgainstLibrary(s, find(MPI_DOUBLE, MPI_SUM), 1 << 16, false, MPI_COMM_WORLD, 1), "")
      << "sets the communicator up";
  return existingContext(MPI_COMM_WORLD);
}

TEST(AllreduceSizes, AroundTheStagedSizeOfEveryNode) {
  // Nodes of different rank counts switch paths at different sizes, so around each node's
  // switch one call runs staged on some nodes and single copy on others; large calls in
  // between make every call change path on some node, reusing the same slots.
  Settings s = forcedSettings();
  CommContext* ctx = worldContext(s);
  ASSERT_NE(ctx, nullptr);
  int size = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  bool switches = ctx->pathFor(0) == IntraPath::Staged && singleCopy(ctx->pathFor(UINT64_MAX));
  uint64_t mine = switches ? stagedBelow(s, ctx->localSize()) : 0;
  EXPECT_TRUE(!switches || (ctx->pathFor(mine - 1) == IntraPath::Staged && singleCopy(ctx->pathFor(mine))));
  std::vector<uint64_t> all(static_cast<size_t>(size));
  MPI_Allgather(&mine, 1, MPI_UINT64_T, all.data(), 1, MPI_UINT64_T, MPI_COMM_WORLD);
  std::set<uint64_t> sizes(all.begin(), all.end());
  sizes.erase(0);
  if (sizes.empty()) GTEST_SKIP() << "no node switches paths (FERRY_COLL_INTRA forces one)";
  TypedOp t = find(MPI_DOUBLE, MPI_SUM);
  uint64_t seed = 10;
  for (uint64_t below : sizes) {
    size_t edge = static_cast<size_t>(below / sizeof(double));
    for (size_t count : {edge - 1, edge, edge + 1}) {
      EXPECT_EQ(checkAgainstLibrary(s, t, count, false, MPI_COMM_WORLD, ++seed), "") << "count " << count;
      EXPECT_EQ(checkAgainstLibrary(s, t, count, true, MPI_COMM_WORLD, ++seed), "") << "count " << count;
      EXPECT_EQ(checkAgainstLibrary(s, t, 3 * edge + 5, false, MPI_COMM_WORLD, ++seed), "") << "then a large one";
    }
  }
}

TEST(AllreduceSizes, SeveralMiBOfEveryElementSize) {
  // 6 MiB and a little more, so that the last chunk is short.
  for (MPI_Datatype type : {MPI_UINT8_T, MPI_SHORT, MPI_FLOAT, MPI_LONG, MPI_LONG_DOUBLE}) {
    TypedOp t = find(type, MPI_MAX);
    size_t count = (6u << 20) / elemSize(t.info.elem) + 3;
    EXPECT_EQ(checkAgainstLibrary(forcedSettings(), t, count, false, MPI_COMM_WORLD, 99), "");
    EXPECT_EQ(checkAgainstLibrary(forcedSettings(), t, count, true, MPI_COMM_WORLD, 98), "");
  }
}

}  // namespace
}  // namespace ferry::coll::testing
