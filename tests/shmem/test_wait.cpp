// Point-to-point synchronisation: wait_until with each comparison, the _all/_any/_some and
// _vector forms with status arrays that exclude elements, and the test forms, which return
// at once. PE 0 sets the flags of the last PE (on another virtual node where the layout has
// them) after a pause, so that the waits really wait, and writes a value that does not
// satisfy the condition first: a wait that returns on it, or on no change at all, shows.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "shmem_test_util.h"

namespace ferry::shmem::testing {
namespace {

constexpr int kPauseMs = 15;

// PE 0 runs `set(waiter)` a pause after the waiter (the last PE) has started `wait()`. On one
// PE, the set comes first. Both are framed by barriers.
void setThenWait(const std::function<void(int waiter)>& set, const std::function<void()>& wait) {
  const int n = nPes(), me = myPe(), waiter = n - 1;
  shmem_barrier_all();
  if (n == 1) {
    set(waiter);
    wait();
  } else if (me == 0) {
    pauseMs(kPauseMs);
    set(waiter);
  } else if (me == waiter) {
    wait();
  }
  shmem_barrier_all();
}

bool isWaiter() { return myPe() == nPes() - 1; }

// ---- wait_until, each comparison, several types ----------------------------------------------
struct Case {
  int cmp;
  long init, intermediate, final, value;  // init and intermediate do not satisfy (cmp, value)
  const char* name;
};
const Case kCases[] = {
    {SHMEM_CMP_EQ, 0, 3, 7, 7, "EQ"},  {SHMEM_CMP_NE, 7, 7, 9, 7, "NE"},  {SHMEM_CMP_GT, 0, 5, 6, 5, "GT"},
    {SHMEM_CMP_GE, 0, 4, 5, 5, "GE"},  {SHMEM_CMP_LT, 10, 5, 4, 5, "LT"}, {SHMEM_CMP_LE, 10, 6, 5, 5, "LE"},
};
constexpr size_t kNumCases = sizeof kCases / sizeof kCases[0];

template <typename T>
struct WaitFns {
  const char* name;
  void (*waitUntil)(T*, int, T);
  int (*test)(T*, int, T);
  void (*p)(T*, T, int);
  void (*atomicSet)(T*, T, int);
};
#define FERRY_WAIT_FNS(T, N) \
  WaitFns<T> { #N, shmem_##N##_wait_until, shmem_##N##_test, shmem_##N##_p, shmem_##N##_atomic_set }

template <typename T>
void checkEachComparison(const WaitFns<T>& f) {
  SCOPED_TRACE(std::string("type ") + f.name);
  T* flags = static_cast<T*>(shmem_malloc(kNumCases * sizeof(T)));
  ASSERT_NE(flags, nullptr);
  for (size_t c = 0; c < kNumCases; ++c) flags[c] = static_cast<T>(kCases[c].init);
  setThenWait(
      [&](int waiter) {
        for (size_t c = 0; c < kNumCases; ++c) f.p(&flags[c], static_cast<T>(kCases[c].intermediate), waiter);
        shmem_quiet();
        pauseMs(kPauseMs);
        for (size_t c = 0; c < kNumCases; ++c) f.atomicSet(&flags[c], static_cast<T>(kCases[c].final), waiter);
      },
      [&] {
        for (size_t c = 0; c < kNumCases; ++c) {
          f.waitUntil(&flags[c], kCases[c].cmp, static_cast<T>(kCases[c].value));
          EXPECT_EQ(flags[c], static_cast<T>(kCases[c].final))
              << "wait_until(" << kCases[c].name << ", " << kCases[c].value << ") returned before the final value";
          EXPECT_EQ(f.test(&flags[c], kCases[c].cmp, static_cast<T>(kCases[c].value)), 1) << kCases[c].name;
        }
      });
  shmem_free(flags);
}

TEST(WaitUntil, EachComparisonLong) { checkEachComparison(FERRY_WAIT_FNS(long, long)); }
TEST(WaitUntil, EachComparisonInt) { checkEachComparison(FERRY_WAIT_FNS(int, int)); }
TEST(WaitUntil, EachComparisonUint64) { checkEachComparison(FERRY_WAIT_FNS(uint64_t, uint64)); }
TEST(WaitUntil, EachComparisonSize) { checkEachComparison(FERRY_WAIT_FNS(size_t, size)); }

// A flag in static data, set by a put rather than an atomic.
long gStaticFlag;
TEST(WaitUntil, FlagInStaticDataSetByPut) {
  gStaticFlag = 0;
  setThenWait(
      [](int waiter) {
        shmem_long_p(&gStaticFlag, 42, waiter);
        shmem_quiet();
      },
      [] {
        shmem_long_wait_until(&gStaticFlag, SHMEM_CMP_EQ, 42);
        EXPECT_EQ(gStaticFlag, 42);
      });
}

// ---- test: returns at once ------------------------------------------------------------------
TEST(Test, ReturnsZeroWithoutBlockingThenOneOnceSet) {
  long* flag = static_cast<long*>(shmem_calloc(1, sizeof(long)));
  ASSERT_NE(flag, nullptr);
  shmem_barrier_all();
  // Nobody sets it yet: each call returns 0 (a blocking test would hang here).
  for (int i = 0; i < 100; ++i) ASSERT_EQ(shmem_long_test(flag, SHMEM_CMP_EQ, 1), 0);
  EXPECT_EQ(shmem_long_test(flag, SHMEM_CMP_NE, 0), 0);
  EXPECT_EQ(shmem_long_test(flag, SHMEM_CMP_GE, 0), 1) << "0 >= 0 holds already";
  // Polling with test until the setter's value arrives.
  setThenWait(
      [&](int waiter) {
        shmem_long_atomic_set(flag, 1, waiter);
      },
      [&] {
        while (shmem_long_test(flag, SHMEM_CMP_EQ, 1) == 0) std::this_thread::yield();
        EXPECT_EQ(*flag, 1);
      });
  shmem_free(flag);
}

// ---- the _all, _any and _some forms --------------------------------------------------------
constexpr size_t kN = 4;

struct Ivars {
  long* v;
  Ivars() : v(static_cast<long*>(shmem_calloc(kN, sizeof(long)))) {}
  ~Ivars() { shmem_free(v); }
};

// wait_until_all ignores the elements its status excludes: element 1 is never set.
TEST(WaitUntilAll, WaitsForEveryIncludedElement) {
  Ivars iv;
  ASSERT_NE(iv.v, nullptr);
  const int status[kN] = {0, 1, 0, 0};
  setThenWait(
      [&](int waiter) {
        for (size_t i : {size_t{0}, size_t{2}, size_t{3}}) {
          shmem_long_atomic_set(&iv.v[i], 1, waiter);
          pauseMs(5);
        }
      },
      [&] {
        shmem_long_wait_until_all(iv.v, kN, status, SHMEM_CMP_EQ, 1);
        EXPECT_EQ(iv.v[0], 1);
        EXPECT_EQ(iv.v[2], 1);
        EXPECT_EQ(iv.v[3], 1) << "wait_until_all returned before the last included element was set";
        EXPECT_EQ(iv.v[1], 0);
      });
  // A null status includes every element.
  setThenWait([&](int waiter) { shmem_long_atomic_set(&iv.v[1], 1, waiter); },
              [&] {
                shmem_long_wait_until_all(iv.v, kN, nullptr, SHMEM_CMP_EQ, 1);
                EXPECT_EQ(iv.v[1], 1);
              });
}

TEST(WaitUntilAny, ReturnsTheIndexThatWasSet) {
  Ivars iv;
  ASSERT_NE(iv.v, nullptr);
  setThenWait([&](int waiter) { shmem_long_atomic_set(&iv.v[2], 5, waiter); },
              [&] {
                EXPECT_EQ(shmem_long_wait_until_any(iv.v, kN, nullptr, SHMEM_CMP_EQ, 5), 2u);
              });
  // Element 2 satisfies the condition already but is excluded: the wait is for element 0.
  const int status[kN] = {0, 0, 1, 0};
  setThenWait([&](int waiter) { shmem_long_atomic_set(&iv.v[0], 5, waiter); },
              [&] {
                EXPECT_EQ(shmem_long_wait_until_any(iv.v, kN, status, SHMEM_CMP_EQ, 5), 0u);
              });
  // Nothing to wait for: SIZE_MAX at once.
  if (isWaiter()) {
    const int none[kN] = {1, 1, 1, 1};
    EXPECT_EQ(shmem_long_wait_until_any(iv.v, kN, none, SHMEM_CMP_EQ, 12345), SIZE_MAX);
    EXPECT_EQ(shmem_long_wait_until_any(iv.v, 0, nullptr, SHMEM_CMP_EQ, 12345), SIZE_MAX);
  }
  shmem_barrier_all();
}

// wait_until_some returns at least one satisfied index, and only satisfied ones; waiting
// again with those excluded finds the rest.
TEST(WaitUntilSome, FindsEverySetElement) {
  Ivars iv;
  ASSERT_NE(iv.v, nullptr);
  setThenWait(
      [&](int waiter) {
        shmem_long_atomic_set(&iv.v[1], 1, waiter);
        pauseMs(kPauseMs);
        shmem_long_atomic_set(&iv.v[3], 1, waiter);
      },
      [&] {
        std::set<size_t> found;
        int status[kN] = {0, 0, 0, 0};
        for (int round = 0; round < 3 && found.size() < 2; ++round) {
          size_t indices[kN] = {99, 99, 99, 99};
          size_t count = shmem_long_wait_until_some(iv.v, kN, indices, status, SHMEM_CMP_EQ, 1);
          ASSERT_GE(count, 1u);
          ASSERT_LE(count, 2u);
          for (size_t k = 0; k < count; ++k) {
            EXPECT_TRUE(indices[k] == 1 || indices[k] == 3) << "index " << indices[k] << " was never set";
            EXPECT_EQ(found.count(indices[k]), 0u) << "index " << indices[k] << " is excluded by the status";
            found.insert(indices[k]);
            if (indices[k] < kN) status[indices[k]] = 1;
          }
        }
        EXPECT_EQ(found, (std::set<size_t>{1, 3}));
      });
}

// ---- the _vector forms: a comparison value per element --------------------------------------
TEST(WaitUntilVector, AllAnySome) {
  Ivars iv;
  ASSERT_NE(iv.v, nullptr);
  long allValues[kN] = {1, 2, 3, 4};
  setThenWait(
      [&](int waiter) {
        for (size_t i = 0; i < kN; ++i) {
          shmem_long_atomic_set(&iv.v[i], static_cast<long>(i) + 1, waiter);
          pauseMs(3);
        }
      },
      [&] {
        shmem_long_wait_until_all_vector(iv.v, kN, nullptr, SHMEM_CMP_EQ, allValues);
        for (size_t i = 0; i < kN; ++i) EXPECT_EQ(iv.v[i], static_cast<long>(i) + 1) << "element " << i;
      });
  // any_vector: element 2 reaches a value, but not its own (30); element 1 its own (20).
  long anyValues[kN] = {10, 20, 30, 40};
  setThenWait(
      [&](int waiter) {
        shmem_long_atomic_set(&iv.v[2], 20, waiter);
        shmem_quiet();
        pauseMs(kPauseMs);
        shmem_long_atomic_set(&iv.v[1], 20, waiter);
      },
      [&] {
        EXPECT_EQ(shmem_long_wait_until_any_vector(iv.v, kN, nullptr, SHMEM_CMP_EQ, anyValues), 1u);
      });
  // some_vector with GE: elements 0 and 3 reach theirs; element 2 (20) stays below 70.
  long someValues[kN] = {5, 60, 70, 8};
  setThenWait(
      [&](int waiter) {
        shmem_long_atomic_set(&iv.v[0], 5, waiter);
        pauseMs(kPauseMs);
        shmem_long_atomic_set(&iv.v[3], 100, waiter);
      },
      [&] {
        std::set<size_t> found;
        int status[kN] = {0, 1, 0, 0};  // element 1 (20) is excluded
        for (int round = 0; round < 3 && found.size() < 2; ++round) {
          size_t indices[kN] = {99, 99, 99, 99};
          size_t count = shmem_long_wait_until_some_vector(iv.v, kN, indices, status, SHMEM_CMP_GE, someValues);
          ASSERT_GE(count, 1u);
          for (size_t k = 0; k < count; ++k) {
            found.insert(indices[k]);
            if (indices[k] < kN) status[indices[k]] = 1;
          }
        }
        EXPECT_EQ(found, (std::set<size_t>{0, 3}));
      });
}

// ---- test_all/_any/_some and their _vector forms: never block -------------------------------
TEST(TestForms, ReportWithoutBlocking) {
  Ivars iv;
  ASSERT_NE(iv.v, nullptr);
  const int n = nPes(), me = myPe(), waiter = n - 1;
  long values[kN] = {1, 2, 3, 4};
  size_t indices[kN];
  shmem_barrier_all();
  if (me == waiter) {  // nothing is set: none of these may wait
    EXPECT_EQ(shmem_long_test_all(iv.v, kN, nullptr, SHMEM_CMP_EQ, 1), 0);
    EXPECT_EQ(shmem_long_test_any(iv.v, kN, nullptr, SHMEM_CMP_EQ, 1), SIZE_MAX);
    EXPECT_EQ(shmem_long_test_some(iv.v, kN, indices, nullptr, SHMEM_CMP_EQ, 1), 0u);
    EXPECT_EQ(shmem_long_test_all_vector(iv.v, kN, nullptr, SHMEM_CMP_EQ, values), 0);
    EXPECT_EQ(shmem_long_test_any_vector(iv.v, kN, nullptr, SHMEM_CMP_EQ, values), SIZE_MAX);
    EXPECT_EQ(shmem_long_test_some_vector(iv.v, kN, indices, nullptr, SHMEM_CMP_EQ, values), 0u);
  }
  shmem_barrier_all();
  if (me == 0) {  // elements 0 and 2 get their vector values, 1 and 3 the value 1
    shmem_long_atomic_set(&iv.v[0], 1, waiter);
    shmem_long_atomic_set(&iv.v[1], 1, waiter);
    shmem_long_atomic_set(&iv.v[2], 3, waiter);
    shmem_long_atomic_set(&iv.v[3], 1, waiter);
    shmem_quiet();
  }
  shmem_barrier_all();
  if (me == waiter) {
    const int skip2[kN] = {0, 0, 1, 0};
    EXPECT_EQ(shmem_long_test_all(iv.v, kN, nullptr, SHMEM_CMP_EQ, 1), 0) << "element 2 is 3";
    EXPECT_EQ(shmem_long_test_all(iv.v, kN, skip2, SHMEM_CMP_EQ, 1), 1) << "with element 2 excluded";
    const size_t any = shmem_long_test_any(iv.v, kN, nullptr, SHMEM_CMP_EQ, 3);
    EXPECT_EQ(any, 2u);
    EXPECT_EQ(shmem_long_test_any(iv.v, kN, skip2, SHMEM_CMP_EQ, 3), SIZE_MAX) << "the only match is excluded";
    size_t count = shmem_long_test_some(iv.v, kN, indices, nullptr, SHMEM_CMP_EQ, 1);
    EXPECT_EQ(count, 3u);
    std::set<size_t> some(indices, indices + std::min(count, kN));
    EXPECT_EQ(some, (std::set<size_t>{0, 1, 3}));
    EXPECT_EQ(shmem_long_test_all_vector(iv.v, kN, nullptr, SHMEM_CMP_EQ, values), 0);
    const int only02[kN] = {0, 1, 0, 1};
    EXPECT_EQ(shmem_long_test_all_vector(iv.v, kN, only02, SHMEM_CMP_EQ, values), 1);
    const size_t anyVec = shmem_long_test_any_vector(iv.v, kN, nullptr, SHMEM_CMP_EQ, values);
    EXPECT_TRUE(anyVec == 0 || anyVec == 2) << "test_any_vector gave " << anyVec;
    count = shmem_long_test_some_vector(iv.v, kN, indices, nullptr, SHMEM_CMP_EQ, values);
    EXPECT_EQ(count, 2u);
    std::set<size_t> someVec(indices, indices + std::min(count, kN));
    EXPECT_EQ(someVec, (std::set<size_t>{0, 2}));
  }
  shmem_barrier_all();
}

}  // namespace
}  // namespace ferry::shmem::testing
