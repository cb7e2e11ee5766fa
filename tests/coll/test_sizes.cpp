// Counts from 0 to several MiB, around every boundary the plan has (64-byte share units,
// chunks), in and out of place.
#include <gtest/gtest.h>

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
