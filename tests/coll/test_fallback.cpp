// What Ferry does not handle goes to the MPI library, with the library's result: derived
// datatypes, user-defined ops (commutative or not), pair types, count 0, one-rank and
// inter-communicators, and, in auto mode, messages below the crossover and communicators
// with one rank per node.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "coll/allreduce.h"
#include "coll/comm_context.h"
#include "coll/library_comms.h"
#include "coll/types.h"
#include "coll_test_util.h"

namespace ferry::coll::testing {
namespace {

Settings autoSettings() {
  Settings s = settings();
  s.mode = Mode::Auto;
  return s;
}

// A crossover for the tests of what happens below one: MPICH's default is none (0).
constexpr uint64_t kCrossover = 4 * 1024;

// Runs `call` and checks that the library ran it and Ferry did not.
template <typename F>
void expectLibrary(F call, const char* what) {
  StatsSnapshot before = statsNow();
  call();
  StatsSnapshot after = statsNow();
  EXPECT_EQ(after.ferryCalls, before.ferryCalls) << what;
  EXPECT_EQ(after.libraryCalls, before.libraryCalls + 1) << what;
}

void nonCommutativeFirst(void* in, void* inout, int* len, MPI_Datatype*) {
  // inout = in "then" inout: keeps the left operand; MPI applies it in rank order.
  for (int i = 0; i < *len; ++i) static_cast<int*>(inout)[i] = static_cast<int*>(in)[i];
}
void commutativeMax(void* in, void* inout, int* len, MPI_Datatype*) {
  for (int i = 0; i < *len; ++i)
    static_cast<int*>(inout)[i] = std::max(static_cast<int*>(in)[i], static_cast<int*>(inout)[i]);
}

const int kLarge = 1 << 18;  // ints: 1 MiB, well above any crossover

void pairSum(void* in, void* inout, int* len, MPI_Datatype*) {
  for (int i = 0; i < 2 * *len; ++i) static_cast<int*>(inout)[i] += static_cast<int*>(in)[i];
}

void blockSum(void* in, void* inout, int* len, MPI_Datatype*) {  // len elements of kLarge ints
  for (size_t i = 0; i < static_cast<size_t>(*len) * kLarge; ++i) static_cast<int*>(inout)[i] += static_cast<int*>(in)[i];
}

TEST(AllreduceFallback, DerivedDatatype) {
  // Open MPI accepts only user ops on derived datatypes, MPICH predefined ones too.
  MPI_Datatype pair;
  MPI_Type_contiguous(2, MPI_INT, &pair);
  MPI_Type_commit(&pair);
  MPI_Op op;
  MPI_Op_create(pairSum, 1, &op);
  std::vector<int> in(2 * kLarge, rankOf(MPI_COMM_WORLD) + 1), got(in.size()), want(in.size());
  PMPI_Allreduce(in.data(), want.data(), kLarge, pair, op, MPI_COMM_WORLD);
  expectLibrary([&] { allreduceWith(forcedSettings(), in.data(), got.data(), kLarge, pair, op, MPI_COMM_WORLD); },
                "derived datatype");
  EXPECT_EQ(got, want);
  MPI_Op_free(&op);
  MPI_Type_free(&pair);
}

TEST(AllreduceFallback, UserOps) {
  for (bool commute : {true, false}) {
    MPI_Op op;
    MPI_Op_create(commute ? commutativeMax : nonCommutativeFirst, commute, &op);
    std::vector<int> in(kLarge), got(kLarge), want(kLarge);
    for (int i = 0; i < kLarge; ++i) in[i] = (rankOf(MPI_COMM_WORLD) * 31 + i) % 1000;
    PMPI_Allreduce(in.data(), want.data(), kLarge, MPI_INT, op, MPI_COMM_WORLD);
    expectLibrary([&] { allreduceWith(forcedSettings(), in.data(), got.data(), kLarge, MPI_INT, op, MPI_COMM_WORLD); },
                  commute ? "commutative user op" : "non-commutative user op");
    EXPECT_EQ(got, want);
    MPI_Op_free(&op);
  }
}

TEST(AllreduceFallback, PairTypeWithMinloc) {
  struct DoubleInt {
    double v;
    int i;
  };
  std::vector<DoubleInt> in(kLarge / 4), got(in.size()), want(in.size());
  for (size_t i = 0; i < in.size(); ++i) in[i] = {static_cast<double>((i * 7 + rankOf(MPI_COMM_WORLD) * 3) % 11), rankOf(MPI_COMM_WORLD)};
  int n = static_cast<int>(in.size());
  PMPI_Allreduce(in.data(), want.data(), n, MPI_DOUBLE_INT, MPI_MINLOC, MPI_COMM_WORLD);
  expectLibrary([&] { allreduceWith(forcedSettings(), in.data(), got.data(), n, MPI_DOUBLE_INT, MPI_MINLOC, MPI_COMM_WORLD); },
                "MPI_MINLOC");
  for (size_t i = 0; i < in.size(); ++i) EXPECT_TRUE(got[i].v == want[i].v && got[i].i == want[i].i) << i;
}

TEST(AllreduceFallback, CountZeroAndOneRankCommunicator) {
  int x = 5, y = -1;
  expectLibrary([&] { EXPECT_EQ(allreduceWith(forcedSettings(), &x, &y, 0, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_SUCCESS); },
                "count 0");
  EXPECT_EQ(y, -1) << "count 0 writes nothing";
  std::vector<int> in(kLarge, 3), got(kLarge);
  expectLibrary([&] { allreduceWith(forcedSettings(), in.data(), got.data(), kLarge, MPI_INT, MPI_SUM, MPI_COMM_SELF); },
                "MPI_COMM_SELF");
  EXPECT_EQ(got, in);
}

// Erroneous buffers: the library reports the error, of the class it gives without Ferry.
// (A NULL receive buffer is left out: Open MPI 4.1 itself crashes on it.)
TEST(AllreduceFallback, ErroneousBuffersAreTheLibrarysToReport) {
  MPI_Comm c;
  MPI_Comm_dup(MPI_COMM_WORLD, &c);
  MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
  // Open MPI reports buffer errors on MPI_COMM_WORLD, whatever the communicator.
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  std::vector<int> in(kLarge, 1), out(kLarge);
  struct Case {
    const char* what;
    const void* send;
    void* recv;
  };
  const Case cases[] = {{"MPI_IN_PLACE as the receive buffer", in.data(), MPI_IN_PLACE},
                        {"the same send and receive buffer", out.data(), out.data()}};
  for (const Case& k : cases) {
    int got = MPI_SUCCESS;
    expectLibrary([&] { got = allreduceWith(forcedSettings(), k.send, k.recv, kLarge, MPI_INT, MPI_SUM, c); }, k.what);
    int want = PMPI_Allreduce(k.send, k.recv, kLarge, MPI_INT, MPI_SUM, c);
    int gotClass = -1, wantClass = -2;
    MPI_Error_class(got, &gotClass);
    MPI_Error_class(want, &wantClass);
    EXPECT_NE(want, MPI_SUCCESS) << k.what;
    EXPECT_EQ(gotClass, wantClass) << k.what;
  }
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  MPI_Comm_free(&c);
}

TEST(AllreduceFallback, InterCommunicator) {
  int rank = rankOf(MPI_COMM_WORLD), ranks = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  if (ranks < 2) GTEST_SKIP() << "needs two groups";
  MPI_Comm half, inter;
  int color = rank < ranks / 2 ? 0 : 1;
  MPI_Comm_split(MPI_COMM_WORLD, color, rank, &half);
  MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, color == 0 ? ranks / 2 : 0, 11, &inter);
  std::vector<int> in(kLarge, rank + 1), got(kLarge), want(kLarge);
  PMPI_Allreduce(in.data(), want.data(), kLarge, MPI_INT, MPI_SUM, inter);
  expectLibrary([&] { allreduceWith(forcedSettings(), in.data(), got.data(), kLarge, MPI_INT, MPI_SUM, inter); },
                "inter-communicator");
  EXPECT_EQ(got, want);
  MPI_Comm_free(&inter);
  MPI_Comm_free(&half);
}

TEST(AllreduceFallback, SmallMessagesInAutoModeNeverSetUp) {
  MPI_Comm c;
  MPI_Comm_dup(MPI_COMM_WORLD, &c);
  Settings s = autoSettings();
  s.minSize = kCrossover;
  int n = static_cast<int>(s.minSize / sizeof(int)) - 1;  // one int below the crossover
  ASSERT_GT(n, 0);
  std::vector<int> in(static_cast<size_t>(n), 2), got(in.size());
  expectLibrary([&] { allreduceWith(s, in.data(), got.data(), n, MPI_INT, MPI_SUM, c); }, "below the crossover");
  int ranks = 0;
  MPI_Comm_size(c, &ranks);
  EXPECT_EQ(got, std::vector<int>(in.size(), 2 * ranks));
  EXPECT_EQ(existingContext(c), nullptr) << "small calls must not pay for a set-up";
  MPI_Comm_free(&c);
}

// allreduce(), the entry point of the interposer and the C API, decides the smallest calls
// by their count alone (fewer than minSize / kMaxElemSize elements), without asking the
// datatype's size: right for the widest type Ferry reduces, and for a derived type of any
// size, which the library runs anyway.
TEST(AllreduceFallback, FewElementsGoToTheLibraryWhateverTheirType) {
  if (settings().mode != Mode::Auto) GTEST_SKIP() << "the count rule is auto mode's (FERRY_COLL is set)";
  if (settings().minSize < 2 * kMaxElemSize)
    GTEST_SKIP() << "FERRY_COLL_MIN_SIZE is " << settings().minSize << " B (unset with MPICH: 0), so no call is below "
                 << "it by its count; WithoutACrossoverSmallCallsRunInFerry tests that case";
  MPI_Comm c;
  MPI_Comm_dup(MPI_COMM_WORLD, &c);
  int ranks = 0;
  MPI_Comm_size(c, &ranks);
  int n = static_cast<int>(settings().minSize / kMaxElemSize) - 1;
  std::vector<long double> wide(static_cast<size_t>(n), 1.5L), wideSum(wide.size());
  expectLibrary([&] { allreduce(wide.data(), wideSum.data(), n, MPI_LONG_DOUBLE, MPI_SUM, c); }, "long double");
  EXPECT_EQ(wideSum, std::vector<long double>(wide.size(), 1.5L * ranks));

  MPI_Datatype block;  // one element of 1 MiB
  MPI_Type_contiguous(kLarge, MPI_INT, &block);
  MPI_Type_commit(&block);
  MPI_Op op;
  MPI_Op_create(blockSum, 1, &op);
  std::vector<int> in(static_cast<size_t>(2 * kLarge), rankOf(c) + 1), got(in.size()), want(in.size());
  PMPI_Allreduce(in.data(), want.data(), 2, block, op, c);
  expectLibrary([&] { allreduce(in.data(), got.data(), 2, block, op, c); }, "two 1 MiB elements");
  EXPECT_EQ(got, want);
  EXPECT_EQ(got.back(), ranks * (ranks + 1) / 2);
  EXPECT_EQ(existingContext(c), nullptr) << "calls the library runs must not pay for a set-up";
  MPI_Op_free(&op);
  MPI_Type_free(&block);
  MPI_Comm_free(&c);
}

// MPICH's default: no crossover, so the smallest calls run Ferry's algorithm too, where
// ranks share a node.
TEST(AllreduceFallback, WithoutACrossoverSmallCallsRunInFerry) {
  if (settings().mode != Mode::Auto || settings().minSize != 0)
    GTEST_SKIP() << "FERRY_COLL_MIN_SIZE is " << settings().minSize << " B (unset: 0 with MPICH only); "
                 << "FewElementsGoToTheLibraryWhateverTheirType tests a crossover";
  MPI_Comm c;
  MPI_Comm_dup(MPI_COMM_WORLD, &c);
  int ranks = 0;
  MPI_Comm_size(c, &ranks);
  double one = rankOf(c) + 1.0, sum = 0;
  ASSERT_EQ(allreduce(&one, &sum, 1, MPI_DOUBLE, MPI_SUM, c), MPI_SUCCESS);  // sets up
  CommContext* ctx = existingContext(c);
  ASSERT_NE(ctx, nullptr) << "a call of one element sets the communicator up";
  bool shared = ctx->shape().maxLocal > 1;
  StatsSnapshot before = statsNow();
  ASSERT_EQ(allreduce(&one, &sum, 1, MPI_DOUBLE, MPI_SUM, c), MPI_SUCCESS);
  StatsSnapshot after = statsNow();
  EXPECT_EQ(sum, ranks * (ranks + 1) / 2.0);
  EXPECT_EQ(after.ferryCalls - before.ferryCalls, shared ? 1u : 0u) << ctx->describe();
  MPI_Comm_free(&c);
}

TEST(AllreduceFallback, AutoModeUsesTheNodeStructure) {
  // Above the crossover, auto mode runs Ferry unless every node has one rank. The first call
  // sets the communicator up; the later ones, of other sizes and values, take the shortcut
  // for communicators whose every call goes to the library, and must still be right.
  MPI_Comm c;
  MPI_Comm_dup(MPI_COMM_WORLD, &c);
  Settings s = autoSettings();
  int ranks = 0;
  MPI_Comm_size(c, &ranks);
  for (int call = 0; call < 3; ++call) {
    int n = static_cast<int>(std::max(s.minSize, kCrossover) / sizeof(int)) * (4 << call);
    std::vector<int> in(static_cast<size_t>(n), call + 1), got(in.size());
    StatsSnapshot before = statsNow();
    ASSERT_EQ(allreduceWith(s, in.data(), got.data(), n, MPI_INT, MPI_SUM, c), MPI_SUCCESS);
    StatsSnapshot after = statsNow();
    CommContext* ctx = existingContext(c);
    ASSERT_NE(ctx, nullptr);
    ASSERT_TRUE(ctx->usable()) << ctx->disabledReason();
    bool ferryExpected = ctx->shape().maxLocal > 1;
    EXPECT_EQ(after.ferryCalls - before.ferryCalls, ferryExpected ? 1u : 0u) << ctx->describe() << ", call " << call;
    EXPECT_EQ(after.libraryCalls - before.libraryCalls, ferryExpected ? 0u : 1u) << ctx->describe() << ", call " << call;
    EXPECT_EQ(got, std::vector<int>(in.size(), (call + 1) * ranks)) << "call " << call;
  }
  // After its first calls, a communicator of one rank per node is found on the fast path
  // (library_comms.h), until it is freed.
  bool onePerNode = existingContext(c)->shape().maxLocal == 1;
  EXPECT_EQ(libraryComms::contains(c), onePerNode && settings().mode == Mode::Auto) << existingContext(c)->describe();
  MPI_Comm freed = c;
  MPI_Comm_free(&c);
  EXPECT_FALSE(libraryComms::contains(freed)) << "a freed communicator's handle leaves the table";
}

TEST(AllreduceFallback, OneRankCommunicatorsAreFoundOnTheFastPath) {
  if (settings().mode != Mode::Auto) GTEST_SKIP() << "the table serves auto mode (FERRY_COLL is set)";
  MPI_Comm self;
  MPI_Comm_dup(MPI_COMM_SELF, &self);
  // Above any crossover, so that the call reaches the classification that finds one rank.
  std::vector<double> in(std::max(settings().minSize, kCrossover) / sizeof(double) * 2, 2.5), got(in.size());
  for (int call = 0; call < 2; ++call) {
    StatsSnapshot before = statsNow();
    ASSERT_EQ(allreduce(in.data(), got.data(), static_cast<int>(in.size()), MPI_DOUBLE, MPI_SUM, self), MPI_SUCCESS);
    EXPECT_EQ(statsNow().libraryCalls - before.libraryCalls, 1u);
    EXPECT_EQ(got, in);
  }
  EXPECT_TRUE(libraryComms::contains(self));
  EXPECT_EQ(existingContext(self), nullptr) << "no set-up for one rank";
  MPI_Comm freed = self;
  MPI_Comm_free(&self);
  EXPECT_FALSE(libraryComms::contains(freed));
}

TEST(CollTypes, ClassifiesPredefinedTypesOnly) {
  EXPECT_EQ(classifyType(MPI_INT)->elem, Elem::I32);
  EXPECT_EQ(classifyType(MPI_UNSIGNED_LONG)->elem, Elem::U64);
  EXPECT_EQ(classifyType(MPI_LONG_DOUBLE)->elem, Elem::F80);
  EXPECT_EQ(classifyType(MPI_C_BOOL)->group, TypeGroup::Logical);
  EXPECT_EQ(classifyType(MPI_BYTE)->group, TypeGroup::Byte);
  EXPECT_EQ(classifyType(MPI_INTEGER)->group, TypeGroup::FortranInteger);
  EXPECT_FALSE(classifyType(MPI_DOUBLE_INT).has_value());
  EXPECT_FALSE(classifyType(MPI_C_DOUBLE_COMPLEX).has_value());
  MPI_Datatype derived;
  MPI_Type_contiguous(1, MPI_INT, &derived);
  MPI_Type_commit(&derived);
  EXPECT_FALSE(classifyType(derived).has_value()) << "even a derived type with the layout of MPI_INT";
  MPI_Type_free(&derived);
  EXPECT_FALSE(classifyOp(MPI_MINLOC).has_value());
  EXPECT_FALSE(opAllowed(OpKind::Band, TypeGroup::Floating));
  EXPECT_FALSE(opAllowed(OpKind::Land, TypeGroup::FortranInteger));
  EXPECT_FALSE(opAllowed(OpKind::Sum, TypeGroup::Byte));
}

}  // namespace
}  // namespace ferry::coll::testing
