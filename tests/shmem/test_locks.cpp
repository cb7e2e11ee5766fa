// Distributed locks: shmem_set_lock/shmem_clear_lock make a read-modify-write of a counter
// on PE 0 (a get and a put, not an atomic) exclusive, so no increment is lost; and
// shmem_clear_lock completes the puts of the critical section (the standard has it quiet
// before releasing), which is why the loop has no shmem_quiet of its own. shmem_test_lock
// takes a free lock and never a held one.
#include <gtest/gtest.h>

#include <thread>

#include "shmem_test_util.h"

namespace ferry::shmem::testing {
namespace {

constexpr int kIncrements = 100;

long gLock;          // symmetric, zero: unlocked
long gHeldCounter;   // on PE 0, guarded by gLock

TEST(Locks, SetLockMakesGetPutIncrementsExclusive) {
  const int n = nPes();
  auto* lock = static_cast<long*>(shmem_calloc(1, sizeof(long)));  // a lock in the heap
  auto* counter = static_cast<long*>(shmem_calloc(1, sizeof(long)));
  ASSERT_NE(lock, nullptr);
  ASSERT_NE(counter, nullptr);
  gHeldCounter = 0;
  shmem_barrier_all();
  for (int i = 0; i < kIncrements; ++i) {
    shmem_set_lock(lock);
    long v = shmem_long_g(counter, 0);
    shmem_long_p(counter, v + 1, 0);
    shmem_clear_lock(lock);
    // The same with the lock and the counter in static data.
    shmem_set_lock(&gLock);
    long w = shmem_long_g(&gHeldCounter, 0);
    shmem_long_p(&gHeldCounter, w + 1, 0);
    shmem_clear_lock(&gLock);
  }
  shmem_barrier_all();
  EXPECT_EQ(shmem_long_g(counter, 0), static_cast<long>(kIncrements) * n) << "increments lost under a heap lock";
  EXPECT_EQ(shmem_long_g(&gHeldCounter, 0), static_cast<long>(kIncrements) * n)
      << "increments lost under a static lock";
  shmem_barrier_all();
  shmem_free(counter);
  shmem_free(lock);
}

TEST(Locks, TestLockTakesOnlyAFreeLock) {
  const int n = nPes(), me = myPe();
  auto* lock = static_cast<long*>(shmem_calloc(1, sizeof(long)));
  auto* counter = static_cast<long*>(shmem_calloc(1, sizeof(long)));
  ASSERT_NE(lock, nullptr);
  ASSERT_NE(counter, nullptr);
  shmem_barrier_all();
  // The last PE holds the lock: every other PE's test_lock fails (returns 1), without
  // queueing for it.
  const int holder = n - 1;
  if (me == holder) shmem_set_lock(lock);
  shmem_barrier_all();
  if (me != holder) {
    for (int i = 0; i < 3; ++i) EXPECT_EQ(shmem_test_lock(lock), 1) << "test_lock took a lock PE " << holder << " holds";
  }
  shmem_barrier_all();
  if (me == holder) shmem_clear_lock(lock);
  shmem_barrier_all();
  // Now every PE takes it by test_lock alone, kIncrements times, and increments under it.
  for (int i = 0; i < kIncrements / 4; ++i) {
    while (shmem_test_lock(lock) != 0) std::this_thread::yield();
    long v = shmem_long_g(counter, 0);
    shmem_long_p(counter, v + 1, 0);
    shmem_clear_lock(lock);
  }
  shmem_barrier_all();
  EXPECT_EQ(shmem_long_g(counter, 0), static_cast<long>(kIncrements / 4) * n) << "increments lost under test_lock";
  // A free lock is taken at the first try.
  if (me == 0) {
    EXPECT_EQ(shmem_test_lock(lock), 0) << "test_lock of a free lock";
    shmem_clear_lock(lock);
  }
  shmem_barrier_all();
  shmem_free(counter);
  shmem_free(lock);
}

}  // namespace
}  // namespace ferry::shmem::testing
