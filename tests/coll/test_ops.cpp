// Every predefined datatype Ferry reduces, with every op the MPI standard allows on it, at
// counts that span one and several pipeline chunks, in and out of place: Ferry's result
// must be exact, and so equal the MPI library's bit for bit wherever the library's is
// (the inputs make every order exact; see checkAgainstLibrary).
#include <gtest/gtest.h>

#include <cstdint>
#include <type_traits>

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

// The test's exact results take each element's width and signedness from Ferry's
// classification; this pins it to the C types the MPI standard names, independently.
template <typename T>
Elem elemOf() {
  if constexpr (std::is_same_v<T, bool>) return Elem::Bool;
  if constexpr (std::is_same_v<T, float>) return Elem::F32;
  if constexpr (std::is_same_v<T, double>) return Elem::F64;
  if constexpr (std::is_same_v<T, long double>) return Elem::F80;
  constexpr bool s = std::is_signed_v<T>;
  switch (sizeof(T)) {
    case 1: return s ? Elem::I8 : Elem::U8;
    case 2: return s ? Elem::I16 : Elem::U16;
    case 4: return s ? Elem::I32 : Elem::U32;
    default: return s ? Elem::I64 : Elem::U64;
  }
}

TEST(AllreduceOpsCoverage, ElementsAreTheCTypesTheStandardNames) {
  const std::pair<MPI_Datatype, Elem> want[] = {
      {MPI_CHAR, elemOf<char>()},
      {MPI_SIGNED_CHAR, elemOf<signed char>()},
      {MPI_UNSIGNED_CHAR, elemOf<unsigned char>()},
      {MPI_SHORT, elemOf<short>()},
      {MPI_UNSIGNED_SHORT, elemOf<unsigned short>()},
      {MPI_INT, elemOf<int>()},
      {MPI_UNSIGNED, elemOf<unsigned>()},
      {MPI_LONG, elemOf<long>()},
      {MPI_UNSIGNED_LONG, elemOf<unsigned long>()},
      {MPI_LONG_LONG, elemOf<long long>()},
      {MPI_UNSIGNED_LONG_LONG, elemOf<unsigned long long>()},
      {MPI_INT8_T, elemOf<int8_t>()},
      {MPI_INT16_T, elemOf<int16_t>()},
      {MPI_INT32_T, elemOf<int32_t>()},
      {MPI_INT64_T, elemOf<int64_t>()},
      {MPI_UINT8_T, elemOf<uint8_t>()},
      {MPI_UINT16_T, elemOf<uint16_t>()},
      {MPI_UINT32_T, elemOf<uint32_t>()},
      {MPI_UINT64_T, elemOf<uint64_t>()},
      {MPI_AINT, elemOf<MPI_Aint>()},
      {MPI_OFFSET, elemOf<MPI_Offset>()},
      {MPI_COUNT, elemOf<MPI_Count>()},
      {MPI_FLOAT, elemOf<float>()},
      {MPI_DOUBLE, elemOf<double>()},
      {MPI_LONG_DOUBLE, elemOf<long double>()},
      {MPI_C_BOOL, elemOf<bool>()},
      {MPI_BYTE, elemOf<unsigned char>()},
  };
  for (auto [type, elem] : want) {
    auto info = classifyType(type);
    ASSERT_TRUE(info.has_value());
    EXPECT_EQ(static_cast<int>(info->elem), static_cast<int>(elem)) << info->name;
  }
  // Fortran INTEGER and REAL kinds: signed integers and IEEE floats of the size MPI reports.
  for (MPI_Datatype type : {MPI_INTEGER, MPI_INTEGER4, MPI_INTEGER8, MPI_REAL, MPI_DOUBLE_PRECISION}) {
    auto info = classifyType(type);
    ASSERT_TRUE(info.has_value());
    int size = 0;
    MPI_Type_size(type, &size);
    bool real = type == MPI_REAL || type == MPI_DOUBLE_PRECISION;
    Elem e = real ? (size == 4 ? Elem::F32 : Elem::F64) : size == 4 ? Elem::I32 : Elem::I64;
    EXPECT_EQ(static_cast<int>(info->elem), static_cast<int>(e)) << info->name;
  }
}

}  // namespace
}  // namespace ferry::coll::testing
