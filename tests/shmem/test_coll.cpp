// Collectives on SHMEM_TEAM_WORLD and on a team split from it (the even PEs): barrier_all,
// sync_all and team_sync as synchronisation points, broadcast from every root (the team form
// writes the root's dest too), collect with a different size per PE, fcollect, alltoall,
// alltoalls with strides, and the reductions for a sample of types, in place too; then the
// deprecated active-set forms with pSync/pWrk arrays. Every expected value is computed here
// from the PE numbers of the team's members.
#include <gtest/gtest.h>

#include <algorithm>
#include <complex>
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <type_traits>
#include <vector>

#include "shmem_test_util.h"

namespace ferry::shmem::testing {
namespace {

// One team the collectives run on: its handle on this PE (SHMEM_TEAM_INVALID outside it)
// and its members, world PE numbers in team order, as the split defines them.
struct TeamCase {
  std::string name;
  shmem_team_t team;
  std::vector<int> members;
  int index(int worldPe) const {
    auto it = std::find(members.begin(), members.end(), worldPe);
    return it == members.end() ? -1 : static_cast<int>(it - members.begin());
  }
  bool mine() const { return index(myPe()) >= 0; }
};

// SHMEM_TEAM_WORLD and the even PEs (start 0, stride 2), made for one test and destroyed after.
class Teams {
 public:
  Teams() {
    const int n = nPes();
    std::vector<int> all(static_cast<size_t>(n)), evens;
    for (int p = 0; p < n; ++p) all[p] = p;
    for (int p = 0; p < n; p += 2) evens.push_back(p);
    shmem_team_t even = SHMEM_TEAM_INVALID;
    splitRc_ = shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, static_cast<int>(evens.size()), nullptr, 0, &even);
    cases_.push_back({"world", SHMEM_TEAM_WORLD, all});
    cases_.push_back({"evens", even, evens});
  }
  ~Teams() {
    if (cases_[1].team != SHMEM_TEAM_INVALID) shmem_team_destroy(cases_[1].team);
  }
  const std::vector<TeamCase>& cases() const { return cases_; }
  int splitRc() const { return splitRc_; }

 private:
  std::vector<TeamCase> cases_;
  int splitRc_ = -1;
};

constexpr long kSentinel = -424242;

// ---- synchronisation ----------------------------------------------------------------------
// Each PE adds to a counter on the team's first PE and completes the add (quiet) before the
// synchronisation; one PE, a different one each round, arrives late. After it, every PE
// must read all of the round's additions: a synchronisation that lets a PE through before
// the late one arrived shows as a short count.
void checkSyncPoint(const TeamCase& tc, const char* what, const std::function<void()>& sync, bool quietFirst) {
  SCOPED_TRACE(tc.name + " " + what);
  auto* counter = static_cast<long*>(shmem_calloc(1, sizeof(long)));
  ASSERT_NE(counter, nullptr);
  const int m = static_cast<int>(tc.members.size()), first = tc.members[0];
  shmem_barrier_all();
  if (tc.mine()) {
    for (int round = 0; round < 6; ++round) {
      if (tc.index(myPe()) == round % m) pauseMs(10);
      shmem_long_atomic_add(counter, 1, first);
      if (quietFirst) shmem_quiet();
      sync();
      EXPECT_EQ(shmem_long_atomic_fetch(counter, first), static_cast<long>(round + 1) * m) << "round " << round;
      sync();  // nobody adds for the next round before every PE has read this one
    }
  }
  shmem_barrier_all();
  shmem_free(counter);
}

TEST(CollSync, BarrierAllSyncAllTeamSync) {
  Teams teams;
  ASSERT_EQ(teams.splitRc(), 0);
  const TeamCase& world = teams.cases()[0];
  checkSyncPoint(world, "barrier_all (completes the adds itself)", [] { shmem_barrier_all(); }, false);
  checkSyncPoint(world, "sync_all", [] { shmem_sync_all(); }, true);
  for (const TeamCase& tc : teams.cases())
    checkSyncPoint(tc, "team_sync", [&] { EXPECT_EQ(shmem_team_sync(tc.team), 0); }, true);
}

// ---- broadcast ------------------------------------------------------------------------------
long valueOf(int worldPe, size_t i) { return 1000L * (worldPe + 1) + static_cast<long>(i); }

TEST(CollBroadcast, FromEveryRootIncludingTheRootsDest) {
  Teams teams;
  ASSERT_EQ(teams.splitRc(), 0);
  const int me = myPe();
  constexpr size_t kElems = 7, kBytes = 13;
  auto* src = static_cast<long*>(shmem_malloc(kElems * sizeof(long)));
  auto* dst = static_cast<long*>(shmem_malloc((kElems + 1) * sizeof(long)));
  auto* bsrc = static_cast<unsigned char*>(shmem_malloc(kBytes));
  auto* bdst = static_cast<unsigned char*>(shmem_malloc(kBytes + 1));
  ASSERT_TRUE(src && dst && bsrc && bdst);
  for (size_t i = 0; i < kElems; ++i) src[i] = valueOf(me, i);
  fillPattern(bsrc, kBytes, me, 0, 11);
  for (const TeamCase& tc : teams.cases()) {
    if (!tc.mine()) continue;
    SCOPED_TRACE(tc.name);
    for (int root = 0; root < static_cast<int>(tc.members.size()); ++root) {
      const int rootPe = tc.members[root];
      std::fill(dst, dst + kElems + 1, kSentinel);
      std::memset(bdst, 0xee, kBytes + 1);
      shmem_team_sync(tc.team);  // every dest is ready before any root sends
      ASSERT_EQ(shmem_long_broadcast(tc.team, dst, src, kElems, root), 0);
      ASSERT_EQ(shmem_broadcastmem(tc.team, bdst, bsrc, kBytes, root), 0);
      for (size_t i = 0; i < kElems; ++i)
        EXPECT_EQ(dst[i], valueOf(rootPe, i)) << "root " << root << " (PE " << rootPe << "), element " << i;
      EXPECT_EQ(dst[kElems], kSentinel) << "broadcast wrote past nelems";
      EXPECT_EQ(firstMismatch(bdst, kBytes, rootPe, 0, 11), kBytes) << "broadcastmem from root " << root;
      EXPECT_EQ(bdst[kBytes], 0xee) << "broadcastmem wrote past nelems";
    }
  }
  shmem_barrier_all();
  shmem_free(bdst);
  shmem_free(bsrc);
  shmem_free(dst);
  shmem_free(src);
}

// ---- collect, fcollect ---------------------------------------------------------------------
// Team member j contributes j+1 elements: dest is the concatenation in team order.
TEST(CollCollect, DifferentSizesPerPe) {
  Teams teams;
  ASSERT_EQ(teams.splitRc(), 0);
  const int n = nPes(), me = myPe();
  const size_t maxTotal = static_cast<size_t>(n) * (n + 1) / 2;
  auto* src = static_cast<int*>(shmem_malloc(static_cast<size_t>(n) * sizeof(int)));
  auto* dst = static_cast<int*>(shmem_malloc((maxTotal + 1) * sizeof(int)));
  auto* bsrc = static_cast<unsigned char*>(shmem_malloc(static_cast<size_t>(n) * 3));
  auto* bdst = static_cast<unsigned char*>(shmem_malloc(maxTotal * 3 + 1));
  ASSERT_TRUE(src && dst && bsrc && bdst);
  for (const TeamCase& tc : teams.cases()) {
    if (!tc.mine()) continue;
    SCOPED_TRACE(tc.name);
    const size_t mineCount = static_cast<size_t>(tc.index(me)) + 1;
    for (size_t k = 0; k < mineCount; ++k) src[k] = static_cast<int>(valueOf(me, k));
    fillPattern(bsrc, mineCount * 3, me, 0, 21);
    std::fill(dst, dst + maxTotal + 1, -1);
    std::memset(bdst, 0xee, maxTotal * 3 + 1);
    shmem_team_sync(tc.team);
    ASSERT_EQ(shmem_int_collect(tc.team, dst, src, mineCount), 0);
    ASSERT_EQ(shmem_collectmem(tc.team, bdst, bsrc, mineCount * 3), 0);
    size_t at = 0;
    for (size_t j = 0; j < tc.members.size(); ++j) {
      for (size_t k = 0; k <= j; ++k, ++at)
        EXPECT_EQ(dst[at], static_cast<int>(valueOf(tc.members[j], k))) << "member " << j << ", element " << k;
      EXPECT_EQ(firstMismatch(bdst + (at - j - 1) * 3, (j + 1) * 3, tc.members[j], 0, 21), (j + 1) * 3)
          << "collectmem, member " << j;
    }
    EXPECT_EQ(dst[at], -1) << "collect wrote past the total";
    EXPECT_EQ(bdst[at * 3], 0xee) << "collectmem wrote past the total";
    shmem_team_sync(tc.team);
  }
  shmem_barrier_all();
  shmem_free(bdst);
  shmem_free(bsrc);
  shmem_free(dst);
  shmem_free(src);
}

TEST(CollCollect, Fcollect) {
  Teams teams;
  ASSERT_EQ(teams.splitRc(), 0);
  const int n = nPes(), me = myPe();
  constexpr size_t kElems = 3;
  auto* src = static_cast<long*>(shmem_malloc(kElems * sizeof(long)));
  auto* dst = static_cast<long*>(shmem_malloc((kElems * static_cast<size_t>(n) + 1) * sizeof(long)));
  auto* bsrc = static_cast<unsigned char*>(shmem_malloc(5));
  auto* bdst = static_cast<unsigned char*>(shmem_malloc(5 * static_cast<size_t>(n)));
  ASSERT_TRUE(src && dst && bsrc && bdst);
  for (size_t k = 0; k < kElems; ++k) src[k] = valueOf(me, k);
  fillPattern(bsrc, 5, me, 0, 31);
  for (const TeamCase& tc : teams.cases()) {
    if (!tc.mine()) continue;
    SCOPED_TRACE(tc.name);
    const size_t m = tc.members.size();
    std::fill(dst, dst + kElems * m + 1, kSentinel);
    shmem_team_sync(tc.team);
    ASSERT_EQ(shmem_long_fcollect(tc.team, dst, src, kElems), 0);
    ASSERT_EQ(shmem_fcollectmem(tc.team, bdst, bsrc, 5), 0);
    for (size_t j = 0; j < m; ++j) {
      for (size_t k = 0; k < kElems; ++k)
        EXPECT_EQ(dst[j * kElems + k], valueOf(tc.members[j], k)) << "member " << j << ", element " << k;
      EXPECT_EQ(firstMismatch(bdst + 5 * j, 5, tc.members[j], 0, 31), 5u) << "fcollectmem, member " << j;
    }
    EXPECT_EQ(dst[kElems * m], kSentinel) << "fcollect wrote past n_pes * nelems";
    shmem_team_sync(tc.team);
  }
  shmem_barrier_all();
  shmem_free(bdst);
  shmem_free(bsrc);
  shmem_free(dst);
  shmem_free(src);
}

// ---- alltoall, alltoalls --------------------------------------------------------------------
int code(int fromPe, int toPe, size_t k) { return 10000 * (fromPe + 1) + 100 * (toPe + 1) + static_cast<int>(k); }

TEST(CollAlltoall, EveryPairExchanges) {
  Teams teams;
  ASSERT_EQ(teams.splitRc(), 0);
  const int n = nPes(), me = myPe();
  constexpr size_t kElems = 2, kBytes = 5;
  auto* src = static_cast<int*>(shmem_malloc(kElems * static_cast<size_t>(n) * sizeof(int)));
  auto* dst = static_cast<int*>(shmem_malloc(kElems * static_cast<size_t>(n) * sizeof(int)));
  auto* bsrc = static_cast<unsigned char*>(shmem_malloc(kBytes * static_cast<size_t>(n)));
  auto* bdst = static_cast<unsigned char*>(shmem_malloc(kBytes * static_cast<size_t>(n)));
  ASSERT_TRUE(src && dst && bsrc && bdst);
  for (const TeamCase& tc : teams.cases()) {
    if (!tc.mine()) continue;
    SCOPED_TRACE(tc.name);
    const size_t m = tc.members.size();
    for (size_t j = 0; j < m; ++j) {
      for (size_t k = 0; k < kElems; ++k) src[j * kElems + k] = code(me, tc.members[j], k);
      fillPattern(bsrc + kBytes * j, kBytes, me, tc.members[j], 41);
    }
    std::fill(dst, dst + kElems * m, -1);
    shmem_team_sync(tc.team);
    ASSERT_EQ(shmem_int_alltoall(tc.team, dst, src, kElems), 0);
    ASSERT_EQ(shmem_alltoallmem(tc.team, bdst, bsrc, kBytes), 0);
    for (size_t i = 0; i < m; ++i) {
      for (size_t k = 0; k < kElems; ++k)
        EXPECT_EQ(dst[i * kElems + k], code(tc.members[i], me, k)) << "from member " << i << ", element " << k;
      EXPECT_EQ(firstMismatch(bdst + kBytes * i, kBytes, tc.members[i], me, 41), kBytes) << "alltoallmem from member " << i;
    }
    shmem_team_sync(tc.team);
  }
  shmem_barrier_all();
  shmem_free(bdst);
  shmem_free(bsrc);
  shmem_free(dst);
  shmem_free(src);
}

// Element k for member j sits at source[(j * nelems + k) * sst]; the one from member i lands
// at dest[(i * nelems + k) * dst]. The elements between the strides stay as they were.
TEST(CollAlltoall, StridedAlltoalls) {
  Teams teams;
  ASSERT_EQ(teams.splitRc(), 0);
  const int n = nPes(), me = myPe();
  constexpr size_t kElems = 2;
  constexpr ptrdiff_t kDst = 2, kSst = 3;
  const size_t srcLen = static_cast<size_t>(n) * kElems * kSst, dstLen = static_cast<size_t>(n) * kElems * kDst;
  auto* src = static_cast<long*>(shmem_malloc(srcLen * sizeof(long)));
  auto* dst = static_cast<long*>(shmem_malloc(dstLen * sizeof(long)));
  ASSERT_TRUE(src && dst);
  for (const TeamCase& tc : teams.cases()) {
    if (!tc.mine()) continue;
    SCOPED_TRACE(tc.name);
    const size_t m = tc.members.size();
    std::fill(src, src + srcLen, kSentinel - 1);
    for (size_t j = 0; j < m; ++j)
      for (size_t k = 0; k < kElems; ++k) src[(j * kElems + k) * kSst] = code(me, tc.members[j], k);
    std::fill(dst, dst + dstLen, kSentinel);
    shmem_team_sync(tc.team);
    ASSERT_EQ(shmem_long_alltoalls(tc.team, dst, src, kDst, kSst, kElems), 0);
    for (size_t i = 0; i < m; ++i)
      for (size_t k = 0; k < kElems; ++k) {
        const size_t at = (i * kElems + k) * kDst;
        EXPECT_EQ(dst[at], code(tc.members[i], me, k)) << "from member " << i << ", element " << k;
        EXPECT_EQ(dst[at + 1], kSentinel) << "alltoalls wrote between the strides at " << at + 1;
      }
    shmem_team_sync(tc.team);
  }
  shmem_barrier_all();
  shmem_free(dst);
  shmem_free(src);
}

// ---- reductions -----------------------------------------------------------------------------
constexpr size_t kReduce = 6;
enum class Op { And, Or, Xor, Max, Min, Sum, Prod };

template <typename T>
T fold(Op op, T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    switch (op) {
      case Op::And: return static_cast<T>(a & b);
      case Op::Or: return static_cast<T>(a | b);
      case Op::Xor: return static_cast<T>(a ^ b);
      default: break;
    }
  }
  if constexpr (!std::is_same_v<T, std::complex<double>>) {
    if (op == Op::Max) return a > b ? a : b;
    if (op == Op::Min) return a < b ? a : b;
  }
  if (op == Op::Sum) return static_cast<T>(a + b);
  return static_cast<T>(a * b);
}

// Inputs chosen so that every result is exact whatever the order (small integers; products
// of 1..3), and differ between PEs and elements.
template <typename T>
T input(Op op, int pe, size_t i) {
  const long k = static_cast<long>(i);
  if constexpr (std::is_same_v<T, std::complex<double>>) {
    if (op == Op::Prod) return {static_cast<double>(pe % 2 + 1), static_cast<double>((pe + k) % 2)};
    return {static_cast<double>(pe * 3 + k), static_cast<double>(pe - k)};
  } else {
    switch (op) {
      case Op::Prod: return static_cast<T>((pe + k) % 3 + 1);
      case Op::Sum: return static_cast<T>(pe * 3 + k + 1);
      case Op::Max:
      case Op::Min:
        if constexpr (std::is_signed_v<T>) return static_cast<T>((pe * 7 + k * 3) % 11 - 5);
        else return static_cast<T>((pe * 7 + k * 3) % 11);
      default: {
        const uint64_t bits = (0x9E3779B97F4A7C15ull * static_cast<uint64_t>(pe + 1)) >> (3 * i);
        return static_cast<T>(bits);
      }
    }
  }
}

template <typename T>
using ReduceFn = int (*)(shmem_team_t, T*, const T*, size_t);

template <typename T>
void checkReduce(const Teams& teams, const char* name, Op op, ReduceFn<T> reduce) {
  const int me = myPe();
  auto* src = static_cast<T*>(shmem_malloc(kReduce * sizeof(T)));
  auto* dst = static_cast<T*>(shmem_malloc((kReduce + 1) * sizeof(T)));
  ASSERT_TRUE(src && dst);
  for (const TeamCase& tc : teams.cases()) {
    if (!tc.mine()) continue;
    for (bool inPlace : {false, true}) {
      SCOPED_TRACE(std::string(name) + " on " + tc.name + (inPlace ? ", in place" : ""));
      for (size_t i = 0; i < kReduce; ++i) src[i] = input<T>(op, me, i);
      const T sentinel = static_cast<T>(77);
      std::fill(dst, dst + kReduce + 1, sentinel);
      if (inPlace) std::copy(src, src + kReduce, dst);
      shmem_team_sync(tc.team);
      ASSERT_EQ(reduce(tc.team, dst, inPlace ? dst : src, kReduce), 0);
      for (size_t i = 0; i < kReduce; ++i) {
        T want = input<T>(op, tc.members[0], i);
        for (size_t j = 1; j < tc.members.size(); ++j) want = fold(op, want, input<T>(op, tc.members[j], i));
        EXPECT_EQ(dst[i], want) << "element " << i;
      }
      EXPECT_EQ(dst[kReduce], sentinel) << "the reduction wrote past nreduce";
      if (!inPlace) {
        for (size_t i = 0; i < kReduce; ++i) EXPECT_EQ(src[i], input<T>(op, me, i)) << "source changed, element " << i;
      }
      shmem_team_sync(tc.team);
    }
  }
  shmem_barrier_all();
  shmem_free(dst);
  shmem_free(src);
}

#define FERRY_REDUCE(T, N, OP, KIND) checkReduce<T>(teams, #N "_" #OP "_reduce", Op::KIND, shmem_##N##_##OP##_reduce)

TEST(CollReduce, MinMaxSumProd) {
  Teams teams;
  ASSERT_EQ(teams.splitRc(), 0);
  FERRY_REDUCE(int, int, max, Max);
  FERRY_REDUCE(int, int, min, Min);
  FERRY_REDUCE(int, int, sum, Sum);
  FERRY_REDUCE(int, int, prod, Prod);
  FERRY_REDUCE(long, long, max, Max);
  FERRY_REDUCE(long, long, min, Min);
  FERRY_REDUCE(long, long, sum, Sum);
  FERRY_REDUCE(long, long, prod, Prod);
  FERRY_REDUCE(double, double, max, Max);
  FERRY_REDUCE(double, double, min, Min);
  FERRY_REDUCE(double, double, sum, Sum);
  FERRY_REDUCE(double, double, prod, Prod);
  FERRY_REDUCE(float, float, max, Max);
  FERRY_REDUCE(float, float, min, Min);
  FERRY_REDUCE(float, float, sum, Sum);
  FERRY_REDUCE(float, float, prod, Prod);
  FERRY_REDUCE(unsigned long long, ulonglong, max, Max);
  FERRY_REDUCE(unsigned long long, ulonglong, min, Min);
  FERRY_REDUCE(unsigned long long, ulonglong, sum, Sum);
  FERRY_REDUCE(unsigned long long, ulonglong, prod, Prod);
}

// The bitwise reductions exist for the unsigned and fixed-width types only (OpenSHMEM 1.5).
TEST(CollReduce, AndOrXor) {
  Teams teams;
  ASSERT_EQ(teams.splitRc(), 0);
  FERRY_REDUCE(unsigned long long, ulonglong, and, And);
  FERRY_REDUCE(unsigned long long, ulonglong, or, Or);
  FERRY_REDUCE(unsigned long long, ulonglong, xor, Xor);
  FERRY_REDUCE(unsigned int, uint, and, And);
  FERRY_REDUCE(unsigned int, uint, or, Or);
  FERRY_REDUCE(unsigned int, uint, xor, Xor);
  FERRY_REDUCE(int32_t, int32, and, And);
  FERRY_REDUCE(int64_t, int64, or, Or);
  FERRY_REDUCE(uint8_t, uint8, xor, Xor);
}

TEST(CollReduce, ComplexSumProd) {
  Teams teams;
  ASSERT_EQ(teams.splitRc(), 0);
  FERRY_REDUCE(std::complex<double>, complexd, sum, Sum);
  FERRY_REDUCE(std::complex<double>, complexd, prod, Prod);
}

// ---- the deprecated active-set forms -----------------------------------------------------------
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

// Symmetric work and synchronisation arrays, sized by the standard's constants.
long gSyncBarrier[SHMEM_BARRIER_SYNC_SIZE];
long gSyncBcast[SHMEM_BCAST_SYNC_SIZE];
long gSyncCollect[SHMEM_COLLECT_SYNC_SIZE];
long gSyncReduce[SHMEM_REDUCE_SYNC_SIZE];
constexpr int kToAll = 5;
constexpr int kWrk = std::max(kToAll / 2 + 1, static_cast<int>(SHMEM_REDUCE_MIN_WRKDATA_SIZE));
int gIntWrk[kWrk];
double gDoubleWrk[kWrk];

// Every pSync back to SHMEM_SYNC_VALUE, and every PE past that before any uses one.
void resetSyncArrays() {
  std::fill(gSyncBarrier, gSyncBarrier + SHMEM_BARRIER_SYNC_SIZE, SHMEM_SYNC_VALUE);
  std::fill(gSyncBcast, gSyncBcast + SHMEM_BCAST_SYNC_SIZE, SHMEM_SYNC_VALUE);
  std::fill(gSyncCollect, gSyncCollect + SHMEM_COLLECT_SYNC_SIZE, SHMEM_SYNC_VALUE);
  std::fill(gSyncReduce, gSyncReduce + SHMEM_REDUCE_SYNC_SIZE, SHMEM_SYNC_VALUE);
  shmem_barrier_all();
}

// The active set PE_start = 0, logPE_stride = 1, PE_size = ceil(n/2): the even PEs.
struct ActiveSet {
  int start = 0, logStride = 1, size = (nPes() + 1) / 2;
  bool mine() const { return myPe() % 2 == 0; }
  int index() const { return myPe() / 2; }
  int pe(int i) const { return 2 * i; }
};

TEST(CollActiveSet, Barrier) {
  const ActiveSet as;
  auto* counter = static_cast<long*>(shmem_calloc(1, sizeof(long)));
  ASSERT_NE(counter, nullptr);
  resetSyncArrays();
  if (as.mine()) {
    for (int round = 0; round < 4; ++round) {
      if (as.index() == round % as.size) pauseMs(10);
      shmem_long_atomic_add(counter, 1, 0);
      shmem_barrier(as.start, as.logStride, as.size, gSyncBarrier);  // completes the add too
      EXPECT_EQ(shmem_long_atomic_fetch(counter, 0), static_cast<long>(round + 1) * as.size) << "round " << round;
      shmem_barrier(as.start, as.logStride, as.size, gSyncBarrier);
    }
  }
  shmem_barrier_all();
  shmem_free(counter);
}

// shmem_broadcast64 from each root of the set: the others receive, the root's dest is left alone.
TEST(CollActiveSet, Broadcast64) {
  const ActiveSet as;
  const int me = myPe();
  constexpr size_t kElems = 4;
  auto* src = static_cast<int64_t*>(shmem_malloc(kElems * sizeof(int64_t)));
  auto* dst = static_cast<int64_t*>(shmem_malloc(kElems * sizeof(int64_t)));
  ASSERT_TRUE(src && dst);
  for (size_t i = 0; i < kElems; ++i) src[i] = valueOf(me, i);
  for (int root = 0; root < as.size; ++root) {
    std::fill(dst, dst + kElems, kSentinel);
    resetSyncArrays();
    if (as.mine()) {
      shmem_broadcast64(dst, src, kElems, root, as.start, as.logStride, as.size, gSyncBcast);
      for (size_t i = 0; i < kElems; ++i) {
        if (as.index() == root) {
          EXPECT_EQ(dst[i], kSentinel) << "the active-set broadcast wrote the root's dest, element " << i;
        } else {
          EXPECT_EQ(dst[i], valueOf(as.pe(root), i)) << "root " << root << ", element " << i;
        }
      }
    } else {
      for (size_t i = 0; i < kElems; ++i) EXPECT_EQ(dst[i], kSentinel) << "a PE outside the active set received";
    }
  }
  shmem_barrier_all();
  shmem_free(dst);
  shmem_free(src);
}

TEST(CollActiveSet, FcollectAndCollect) {
  const ActiveSet as;
  const int n = nPes(), me = myPe();
  auto* src32 = static_cast<int32_t*>(shmem_malloc(3 * sizeof(int32_t)));
  auto* dst32 = static_cast<int32_t*>(shmem_malloc(3 * sizeof(int32_t) * static_cast<size_t>(n)));
  auto* src64 = static_cast<int64_t*>(shmem_malloc(static_cast<size_t>(n + 2) * sizeof(int64_t)));
  auto* dst64 = static_cast<int64_t*>(shmem_malloc(static_cast<size_t>(n * (n + 2)) * sizeof(int64_t)));
  ASSERT_TRUE(src32 && dst32 && src64 && dst64);
  for (size_t k = 0; k < 3; ++k) src32[k] = static_cast<int32_t>(valueOf(me, k));
  resetSyncArrays();
  if (as.mine()) {
    shmem_fcollect32(dst32, src32, 3, as.start, as.logStride, as.size, gSyncCollect);
    for (int j = 0; j < as.size; ++j)
      for (size_t k = 0; k < 3; ++k)
        EXPECT_EQ(dst32[3 * j + k], static_cast<int32_t>(valueOf(as.pe(j), k))) << "fcollect32, member " << j;
  }
  // fcollect64 over the whole world (stride 2^0).
  for (size_t k = 0; k < 2; ++k) src64[k] = valueOf(me, k + 10);
  resetSyncArrays();
  shmem_fcollect64(dst64, src64, 2, 0, 0, n, gSyncCollect);
  for (int q = 0; q < n; ++q)
    for (size_t k = 0; k < 2; ++k) EXPECT_EQ(dst64[2 * q + k], valueOf(q, k + 10)) << "fcollect64, PE " << q;
  // collect64: member j of the active set contributes j + 1 elements.
  const size_t mineCount = static_cast<size_t>(as.index()) + 1;
  for (size_t k = 0; k < mineCount; ++k) src64[k] = valueOf(me, k + 20);
  resetSyncArrays();
  if (as.mine()) {
    shmem_collect64(dst64, src64, mineCount, as.start, as.logStride, as.size, gSyncCollect);
    size_t at = 0;
    for (int j = 0; j < as.size; ++j)
      for (size_t k = 0; k <= static_cast<size_t>(j); ++k, ++at)
        EXPECT_EQ(dst64[at], valueOf(as.pe(j), k + 20)) << "collect64, member " << j << ", element " << k;
  }
  shmem_barrier_all();
  shmem_free(dst64);
  shmem_free(src64);
  shmem_free(dst32);
  shmem_free(src32);
}

int gIntSrc[kToAll], gIntDst[kToAll];
double gDoubleSrc[kToAll], gDoubleDst[kToAll];

TEST(CollActiveSet, SumToAllAndMaxToAll) {
  const ActiveSet as;
  const int n = nPes(), me = myPe();
  for (int i = 0; i < kToAll; ++i) {
    gIntSrc[i] = me * 10 + i;
    gDoubleSrc[i] = static_cast<double>((me * 7 + i * 3) % 11) - 4.5;
    gIntDst[i] = -1;
    gDoubleDst[i] = -1e9;
  }
  resetSyncArrays();
  if (as.mine()) {
    shmem_int_sum_to_all(gIntDst, gIntSrc, kToAll, as.start, as.logStride, as.size, gIntWrk, gSyncReduce);
    for (int i = 0; i < kToAll; ++i) {
      int want = 0;
      for (int j = 0; j < as.size; ++j) want += as.pe(j) * 10 + i;
      EXPECT_EQ(gIntDst[i], want) << "int_sum_to_all, element " << i;
    }
  }
  resetSyncArrays();
  // The whole world as the active set, for the double max.
  shmem_double_max_to_all(gDoubleDst, gDoubleSrc, kToAll, 0, 0, n, gDoubleWrk, gSyncReduce);
  for (int i = 0; i < kToAll; ++i) {
    double want = -1e9;
    for (int q = 0; q < n; ++q) want = std::max(want, static_cast<double>((q * 7 + i * 3) % 11) - 4.5);
    EXPECT_EQ(gDoubleDst[i], want) << "double_max_to_all, element " << i;
  }
  // In place, on the even PEs.
  resetSyncArrays();
  if (as.mine()) {
    for (int i = 0; i < kToAll; ++i) gIntDst[i] = me + i;
    shmem_barrier(as.start, as.logStride, as.size, gSyncBarrier);
    shmem_int_sum_to_all(gIntDst, gIntDst, kToAll, as.start, as.logStride, as.size, gIntWrk, gSyncReduce);
    for (int i = 0; i < kToAll; ++i) {
      int want = 0;
      for (int j = 0; j < as.size; ++j) want += as.pe(j) + i;
      EXPECT_EQ(gIntDst[i], want) << "int_sum_to_all in place, element " << i;
    }
  }
  shmem_barrier_all();
}

#pragma GCC diagnostic pop

}  // namespace
}  // namespace ferry::shmem::testing
