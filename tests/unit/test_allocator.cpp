// Rank 0's allocator for remote device memory.
#include <gtest/gtest.h>

#include <map>
#include <random>

#include "offload/device_allocator.h"

namespace ferry::offload {
namespace {

constexpr uint64_t kBase = 0x100000000;

TEST(DeviceAllocator, AlignsAndStaysInside) {
  DeviceAllocator a(kBase, 1 << 20);
  auto p = a.allocate(3);
  ASSERT_TRUE(p);
  EXPECT_EQ(*p % DeviceAllocator::kAlignment, 0u);
  EXPECT_GE(*p, kBase);
  EXPECT_TRUE(a.contains(*p, 3));
  EXPECT_FALSE(a.contains(*p + 64, 1)) << "past the block";
  auto z = a.allocate(0);
  ASSERT_TRUE(z) << "a zero-byte allocation still gets a unique address";
  EXPECT_NE(*z, *p);
}

TEST(DeviceAllocator, RefusesWhatDoesNotFit) {
  DeviceAllocator a(kBase, 1 << 20);
  EXPECT_FALSE(a.allocate((1 << 20) + 1));
  auto big = a.allocate(1 << 20);
  ASSERT_TRUE(big);
  EXPECT_FALSE(a.allocate(1));
  EXPECT_EQ(a.free(*big), 1u << 20);
  EXPECT_TRUE(a.allocate(1 << 20)) << "freed space is reusable";
}

TEST(DeviceAllocator, CoalescesNeighbours) {
  DeviceAllocator a(kBase, 4096);
  auto x = a.allocate(1024), y = a.allocate(1024), z = a.allocate(1024), w = a.allocate(1024);
  ASSERT_TRUE(x && y && z && w);
  a.free(*y);
  a.free(*x);
  a.free(*z);
  EXPECT_EQ(a.largestFree(), 3072u) << "three adjacent blocks merge into one";
  a.free(*w);
  EXPECT_EQ(a.largestFree(), 4096u);
  EXPECT_EQ(a.used(), 0u);
}

TEST(DeviceAllocator, UnknownFreeIsReported) {
  DeviceAllocator a(kBase, 4096);
  auto p = a.allocate(64);
  EXPECT_EQ(a.free(*p + 64), 0u);
  EXPECT_EQ(a.free(*p), 64u);
  EXPECT_EQ(a.free(*p), 0u) << "double free";
}

// FERRY_DEVICE_RETAIN's accounting: freed blocks stay resident up to the budget, and a new
// block (placed in freed memory first) uses up what was retained.
TEST(DeviceAllocator, RetainedBytesStayWithinTheBudget) {
  DeviceAllocator a(0x10000, 1 << 24);
  EXPECT_TRUE(a.retain(3 << 20, 4 << 20));
  EXPECT_FALSE(a.retain(2 << 20, 4 << 20)) << "3 + 2 MiB is over a 4 MiB budget";
  EXPECT_TRUE(a.retain(1 << 20, 4 << 20));
  ASSERT_TRUE(a.allocate(2 << 20));
  EXPECT_TRUE(a.retain(2 << 20, 4 << 20)) << "the new block took 2 MiB of the retained 4";
  EXPECT_FALSE(a.retain(1, 4 << 20));
  EXPECT_FALSE(a.retain(1, 0)) << "a zero budget retains nothing";
}

TEST(DeviceAllocator, RandomWorkloadKeepsBlocksDisjoint) {
  DeviceAllocator a(kBase, 64 << 20);
  std::mt19937 rng(3);
  std::map<uint64_t, uint64_t> live;
  for (int i = 0; i < 20000; ++i) {
    if (live.empty() || rng() % 3 != 0) {
      uint64_t n = 1 + rng() % 70000;
      auto p = a.allocate(n);
      if (!p) continue;
      auto next = live.lower_bound(*p);
      if (next != live.end()) {
        ASSERT_LE(*p + n, next->first) << "overlaps the next block";
      }
      if (next != live.begin()) {
        auto prev = std::prev(next);
        ASSERT_LE(prev->first + prev->second, *p) << "overlaps the previous block";
      }
      live[*p] = n;
    } else {
      auto it = live.begin();
      std::advance(it, rng() % live.size());
      ASSERT_GE(a.free(it->first), it->second);
      live.erase(it);
    }
  }
  for (auto& [p, n] : live) a.free(p);
  EXPECT_EQ(a.largestFree(), 64u << 20) << "everything coalesces back";
}

}  // namespace
}  // namespace ferry::offload
