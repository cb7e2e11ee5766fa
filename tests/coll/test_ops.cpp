// Every predefined datatype Ferry reduces, with every op the MPI standard allows on it, at
// counts that span one and several pipeline chunks, in and out of place: Ferry's result
// must be exact, and so equal the MPI library's bit for bit wherever the library's is
// (the inputs make every order exact; see checkAgainstLibrary).
#include <gtest/gtest.h>

#include "coll_test_util.h"

namespace ferry::coll::testing {
namespace {

class AllreduceOps : public ::testing::TestWithParam<TypedOp> {};

TEST_P(AllreduceOps, IsExactAndEqualsTheLibraryWhereItIsExact) {
  const TypedOp& t = GetParam();
  StatsSnapshot before = statsNow();
  int calls = 0;
  for (size_t count : {1, 7, 67, 1000, 40000})
    for (bool inPlace : {false, true}) {
      EXPECT_EQ(checkAgainstLibrary(forcedSettings(), t, count, inPlace, MPI_COMM_WORLD, count), "");
      ++calls;
    }
  EXPECT_EQ(statsNow().ferryCalls - before.ferryCalls, static_cast<uint64_t>(calls))
      << "every call must have run Ferry's algorithm";
}

std::string paramName(const ::testing::TestParamInfo<TypedOp>& info) {
  std::string name = std::string(info.param.info.name).substr(4) + "_" + std::string(opName(info.param.kind)).substr(4);
  return name;
}

INSTANTIATE_TEST_SUITE_P(Every, AllreduceOps, ::testing::ValuesIn(allTypedOps()), paramName);

TEST(AllreduceOpsCoverage, EveryPredefinedIntegerAndFloatingTypeIsCovered) {
  // Guards the list above: a type that silently dropped out would shrink the matrix.
  std::vector<TypedOp> all = allTypedOps();
  auto has = [&](MPI_Datatype t, MPI_Op op) {
    return std::any_of(all.begin(), all.end(), [&](const TypedOp& x) { return x.type == t && x.op == op; });
  };
  for (MPI_Datatype t : {MPI_CHAR, MPI_SIGNED_CHAR, MPI_UNSIGNED_CHAR, MPI_SHORT, MPI_UNSIGNED_SHORT, MPI_INT,
                         MPI_UNSIGNED, MPI_LONG, MPI_UNSIGNED_LONG, MPI_LONG_LONG, MPI_UNSIGNED_LONG_LONG, MPI_INT8_T,
                         MPI_INT16_T, MPI_INT32_T, MPI_INT64_T, MPI_UINT8_T, MPI_UINT16_T, MPI_UINT32_T, MPI_UINT64_T,
                         MPI_AINT, MPI_OFFSET, MPI_COUNT, MPI_INTEGER, MPI_INTEGER4, MPI_INTEGER8})
    for (MPI_Op op : {MPI_MAX, MPI_MIN, MPI_SUM, MPI_PROD, MPI_BAND, MPI_BOR, MPI_BXOR}) EXPECT_TRUE(has(t, op));
  for (MPI_Datatype t : {MPI_FLOAT, MPI_DOUBLE, MPI_LONG_DOUBLE, MPI_REAL, MPI_DOUBLE_PRECISION})
    for (MPI_Op op : {MPI_MAX, MPI_MIN, MPI_SUM, MPI_PROD}) EXPECT_TRUE(has(t, op));
  for (MPI_Op op : {MPI_LAND, MPI_LOR, MPI_LXOR}) {
    EXPECT_TRUE(has(MPI_INT, op));
    EXPECT_TRUE(has(MPI_C_BOOL, op));
    EXPECT_FALSE(has(MPI_DOUBLE, op)) << "logical ops are not defined on floating types";
  }
  EXPECT_FALSE(has(MPI_DOUBLE, MPI_BAND));
  EXPECT_TRUE(has(MPI_BYTE, MPI_BXOR));
  EXPECT_FALSE(has(MPI_BYTE, MPI_SUM));
}

}  // namespace
}  // namespace ferry::coll::testing
