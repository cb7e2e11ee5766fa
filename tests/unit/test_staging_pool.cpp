// The staging pool: buffers come from the device's host allocator, are reused by size class,
// are kept only up to the retain limit, and fall back to ordinary memory when the device has
// none to give.
#include <gtest/gtest.h>

#include <cstdlib>
#include <set>

#include "service/staging_pool.h"

using ferry::service::StagingBuffer;
using ferry::service::StagingPool;

namespace {

struct FakeDevice {
  int allocs = 0, frees = 0;
  bool refuse = false;
  std::set<void*> live;
  StagingPool pool(uint64_t retain) {
    return StagingPool(
        [this](uint64_t n) -> void* {
          if (refuse) return nullptr;
          ++allocs;
          void* p = std::aligned_alloc(4096, n);
          live.insert(p);
          return p;
        },
        [this](void* p) {
          ++frees;
          EXPECT_EQ(live.erase(p), 1u) << "freed memory the device never gave";
          std::free(p);
        },
        retain);
  }
};

}  // namespace

TEST(StagingPool, ReusesAKeptBufferOfTheSameSizeClass) {
  FakeDevice dev;
  StagingPool pool = dev.pool(1 << 30);
  uint8_t* first;
  {
    StagingBuffer b = pool.take(3 << 20);
    ASSERT_TRUE(b);
    EXPECT_EQ(b.size(), 3u << 20);
    first = b.data();
    b.data()[(3 << 20) - 1] = 7;  // the whole size is usable
  }
  EXPECT_EQ(pool.retainedBytes(), 4u << 20) << "3 MiB rounds up to the 4 MiB class";
  StagingBuffer again = pool.take((3 << 20) + 5);
  EXPECT_EQ(again.data(), first);
  EXPECT_EQ(dev.allocs, 1);
  StagingBuffer other = pool.take(100);  // another class: a new buffer
  EXPECT_NE(other.data(), first);
  EXPECT_EQ(dev.allocs, 2);
}

TEST(StagingPool, FreesWhatExceedsTheRetainLimit) {
  FakeDevice dev;
  {
    StagingPool pool = dev.pool(1 << 20);
    {
      StagingBuffer a = pool.take(1 << 20), b = pool.take(1 << 20);
      EXPECT_NE(a.data(), b.data());
    }
    EXPECT_EQ(pool.retainedBytes(), 1u << 20);
    EXPECT_EQ(dev.frees, 1) << "the second 1 MiB buffer is over the 1 MiB limit";
    StagingBuffer big = pool.take(8 << 20);
  }
  EXPECT_EQ(dev.frees, 3) << "the pool frees what it kept, and the buffer over the limit";
  EXPECT_TRUE(dev.live.empty());
}

TEST(StagingPool, RetainZeroKeepsNothing) {
  FakeDevice dev;
  StagingPool pool = dev.pool(0);
  { StagingBuffer a = pool.take(64); }
  { StagingBuffer a = pool.take(64); }
  EXPECT_EQ(dev.allocs, 2);
  EXPECT_EQ(dev.frees, 2);
  EXPECT_EQ(pool.retainedBytes(), 0u);
}

TEST(StagingPool, FallsBackToOrdinaryMemoryWhenTheDeviceHasNone) {
  FakeDevice dev;
  dev.refuse = true;
  StagingPool pool = dev.pool(1 << 30);
  {
    StagingBuffer b = pool.take(1 << 20);
    ASSERT_TRUE(b);
    b.data()[0] = 1;
  }
  dev.refuse = false;
  StagingBuffer again = pool.take(1 << 20);  // the kept unpinned buffer serves
  EXPECT_EQ(dev.allocs, 0);
  EXPECT_EQ(dev.frees, 0) << "ordinary memory never goes to the device's free";
}

TEST(StagingPool, MovedBufferReturnsOnce) {
  FakeDevice dev;
  StagingPool pool = dev.pool(1 << 30);
  StagingBuffer a = pool.take(4096);
  StagingBuffer b = std::move(a);
  EXPECT_FALSE(a);
  b.reset();
  EXPECT_FALSE(b);
  EXPECT_EQ(pool.retainedBytes(), 64u << 10);
}
