// The type-generic names in C++ (include/ferry/shmem/shmem_cxx.h): each call, written as a
// C++ program ported from another OpenSHMEM library writes it, reaches the typed routine of
// its pointer's type. A wrong overload moves the wrong number of bytes or applies the wrong
// arithmetic, which the values below show.
#include <gtest/gtest.h>
#include <shmem.h>

#include <complex>
#include <cstdint>
#include <string>
#include <vector>

#include "shmem_test_util.h"

namespace ferry::shmem::testing {
namespace {

// A value every PE can compute: of type T, different per writer, reader and index.
template <typename T>
T valueFor(int from, int to, size_t i) {
  return static_cast<T>((from * 7 + to * 3 + static_cast<int>(i) * 5) % 100 + 1);
}

// put, put_nbi, p and g through the generic names on one type, around the ring, on the
// default context and on a created one.
template <typename T>
void ringOf(const char* name) {
  SCOPED_TRACE(name);
  constexpr size_t kCount = 9;
  const int me = myPe(), right = rightOf(me), left = leftOf(me);
  auto* slots = static_cast<T*>(shmem_calloc(3 * kCount, sizeof(T)));
  ASSERT_NE(slots, nullptr);
  std::vector<T> src(kCount);
  for (size_t i = 0; i < kCount; ++i) src[i] = valueFor<T>(me, right, i);
  shmem_ctx_t ctx;
  ASSERT_EQ(shmem_ctx_create(0, &ctx), 0);
  shmem_barrier_all();
  shmem_put(slots, src.data(), kCount, right);
  shmem_put_nbi(ctx, slots + kCount, src.data(), kCount, right);
  shmem_ctx_quiet(ctx);
  for (size_t i = 0; i < kCount; ++i) shmem_p(slots + 2 * kCount + i, src[i], right);
  shmem_barrier_all();
  for (size_t s = 0; s < 3; ++s)
    for (size_t i = 0; i < kCount; ++i)
      ASSERT_EQ(slots[s * kCount + i], valueFor<T>(left, me, i)) << "slot " << s << ", element " << i;
  std::vector<T> got(kCount);
  shmem_get(got.data(), slots, kCount, right);
  for (size_t i = 0; i < kCount; ++i) EXPECT_EQ(got[i], valueFor<T>(me, right, i)) << "get, element " << i;
  EXPECT_EQ(shmem_g(slots + 4, right), valueFor<T>(me, right, 4));
  EXPECT_EQ(shmem_g(ctx, slots + 5, right), valueFor<T>(me, right, 5));
  shmem_barrier_all();
  shmem_ctx_destroy(ctx);
  shmem_free(slots);
}

TEST(GenericCxx, RmaReachesTheTypedRoutineOfEachType) {
  ringOf<char>("char");
  ringOf<signed char>("signed char");
  ringOf<unsigned short>("unsigned short");
  ringOf<int>("int");
  ringOf<long>("long");
  ringOf<unsigned long long>("unsigned long long");
  ringOf<float>("float");
  ringOf<double>("double");
  ringOf<long double>("long double");
}

TEST(GenericCxx, AtomicsAddSwapAndBitwise) {
  const int me = myPe(), n = nPes();
  auto* words = static_cast<long*>(shmem_calloc(2, sizeof(long)));
  auto* bits = static_cast<unsigned int*>(shmem_calloc(1, sizeof(unsigned int)));
  auto* real = static_cast<double*>(shmem_calloc(1, sizeof(double)));
  ASSERT_TRUE(words && bits && real);
  shmem_barrier_all();
  shmem_atomic_add(&words[0], static_cast<long>(me + 1), 0);
  (void)shmem_atomic_fetch_add(SHMEM_CTX_DEFAULT, &words[0], 1000L, 0);
  shmem_atomic_inc(&words[1], 0);
  (void)shmem_atomic_fetch_or(bits, 1u << (me % 32), 0);
  if (me == n - 1) shmem_atomic_set(real, 2.5, 0);
  shmem_barrier_all();
  if (me == 0) {
    EXPECT_EQ(words[0], static_cast<long>(n) * (n + 1) / 2 + 1000L * n);
    EXPECT_EQ(words[1], n);
    unsigned expected = 0;
    for (int p = 0; p < n; ++p) expected |= 1u << (p % 32);
    EXPECT_EQ(*bits, expected);
    EXPECT_EQ(*real, 2.5);
  }
  shmem_barrier_all();
  // compare_swap: exactly one PE wins the word.
  long old = shmem_atomic_compare_swap(&words[1], static_cast<long>(n), static_cast<long>(100 + me), 0);
  int won = old == n ? 1 : 0;
  static int wins, winsTotal;
  wins = won;
  shmem_barrier_all();
  shmem_sum_reduce(SHMEM_TEAM_WORLD, &winsTotal, &wins, 1);
  EXPECT_EQ(winsTotal, 1);
  if (me == 0) {
    EXPECT_EQ(shmem_atomic_swap(real, 3.5, 0), 2.5);
  }
  shmem_barrier_all();
  EXPECT_EQ(shmem_atomic_fetch(real, 0), 3.5);
  shmem_barrier_all();
  shmem_free(real);
  shmem_free(bits);
  shmem_free(words);
}

TEST(GenericCxx, ReductionsOnComplexSignedCharAndUnsignedShort) {
  const int me = myPe(), n = nPes();
  static std::complex<double> zs[2], zsum[2];
  static signed char c[3], cand[3];
  static unsigned short us[2], usmax[2];
  zs[0] = {static_cast<double>(me), 1.0};
  zs[1] = {0.5, static_cast<double>(-me)};
  c[0] = static_cast<signed char>(0x7f);
  c[1] = static_cast<signed char>(1 << (me % 7));
  c[2] = static_cast<signed char>(-1);
  us[0] = static_cast<unsigned short>(1000 + me);
  us[1] = static_cast<unsigned short>(60000 - me);
  shmem_barrier_all();
  ASSERT_EQ(shmem_sum_reduce(SHMEM_TEAM_WORLD, zsum, zs, 2), 0);
  ASSERT_EQ(shmem_and_reduce(SHMEM_TEAM_WORLD, cand, c, 3), 0);
  ASSERT_EQ(shmem_max_reduce(SHMEM_TEAM_WORLD, usmax, us, 2), 0);
  const double sumPe = n * (n - 1) / 2.0;
  EXPECT_EQ(zsum[0], std::complex<double>(sumPe, n));
  EXPECT_EQ(zsum[1], std::complex<double>(0.5 * n, -sumPe));
  EXPECT_EQ(cand[0], 0x7f);
  EXPECT_EQ(cand[1], n == 1 ? 1 : 0);
  EXPECT_EQ(cand[2], -1);
  EXPECT_EQ(usmax[0], 1000 + n - 1);
  EXPECT_EQ(usmax[1], 60000);
}

TEST(GenericCxx, WaitTestBroadcastAndFcollect) {
  const int me = myPe(), n = nPes(), right = rightOf(me);
  auto* flag = static_cast<short*>(shmem_calloc(1, sizeof(short)));
  auto* all = static_cast<long*>(shmem_calloc(static_cast<size_t>(n), sizeof(long)));
  static long mine, root;
  ASSERT_TRUE(flag && all);
  shmem_barrier_all();
  shmem_p(flag, static_cast<short>(7), right);
  shmem_wait_until(flag, SHMEM_CMP_EQ, static_cast<short>(7));
  EXPECT_EQ(shmem_test(flag, SHMEM_CMP_EQ, static_cast<short>(7)), 1);
  EXPECT_EQ(shmem_test(flag, SHMEM_CMP_GT, static_cast<short>(7)), 0);
  mine = 10 + me;
  root = me == 0 ? 4242 : -1;
  shmem_barrier_all();
  ASSERT_EQ(shmem_fcollect(SHMEM_TEAM_WORLD, all, &mine, 1), 0);
  for (int p = 0; p < n; ++p) EXPECT_EQ(all[p], 10 + p) << "slot " << p;
  static long got;
  got = -1;
  ASSERT_EQ(shmem_broadcast(SHMEM_TEAM_WORLD, &got, &root, 1, 0), 0);
  EXPECT_EQ(got, 4242);
  ASSERT_EQ(shmem_sync(SHMEM_TEAM_WORLD), 0);
  shmem_free(all);
  shmem_free(flag);
}

// The 1.3 generic names (deprecated, warned about at the call, silenced here) and GNU
// _Complex data in the reductions, as C++ programs of other libraries use them.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
TEST(GenericCxx, DeprecatedNamesAndGnuComplex) {
  const int me = myPe(), n = nPes();
  static int added;
  static long incremented;
  static double real;
  static short flag;
  __extension__ static _Complex double z[1], zsum[1];
  added = 0;
  incremented = 0;
  real = 0;
  flag = 0;
  shmem_barrier_all();
  shmem_add(&added, me + 1, 0);
  shmem_inc(&incremented, 0);
  if (me == n - 1) shmem_set(&real, 1.5, 0);
  shmem_barrier_all();
  EXPECT_EQ(shmem_fetch(&added, 0), n * (n + 1) / 2);
  EXPECT_EQ(shmem_fetch(&incremented, 0), n);
  EXPECT_EQ(shmem_fetch(&real, 0), 1.5);
  shmem_barrier_all();
  if (me == 0) {
    EXPECT_EQ(shmem_swap(&added, -1, 0), n * (n + 1) / 2);
    EXPECT_EQ(shmem_finc(&incremented, 0), n);
  }
  shmem_short_p(&flag, 3, rightOf(me));
  shmem_wait(&flag, static_cast<short>(0));  // until it is no longer 0
  EXPECT_EQ(flag, 3);
  __real__ z[0] = me;
  __imag__ z[0] = 1;
  shmem_barrier_all();
  ASSERT_EQ(shmem_sum_reduce(SHMEM_TEAM_WORLD, zsum, z, 1), 0);
  EXPECT_EQ(__real__ zsum[0], n * (n - 1) / 2.0);
  EXPECT_EQ(__imag__ zsum[0], n);
  shmem_barrier_all();
}
#pragma GCC diagnostic pop

}  // namespace
}  // namespace ferry::shmem::testing
