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
      uint64_t hostOffset = rng() % 2 ? (rng() % 4096) / 16 * 16 : 0;  // malloc'd data, or page-aligned
      auto p = a.allocate(n, hostOffset);
      if (!p) continue;
      auto next = live.lower_bound(*p);
      if (next != live.end()) {
        ASSERT_LE(*p + n, next->first) << "overlaps the next block";
      }
      if (next != live.begin()) {
        auto prev = std::prev(next);
        ASSERT_LE(prev->first + prev->second, *p) << "overlaps the previous block";
      }
      if (n >= DeviceAllocator::kPage) {
        ASSERT_EQ(*p % DeviceAllocator::kPage, hostOffset);
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

// Blocks of a page or more take the host data's offset in its page, so that copies between
// them run at distance 0 (docs/performance.md, "Copies"); the bytes skipped stay usable.
TEST(DeviceAllocator, LargeBlocksTakeTheHostPageOffset) {
  DeviceAllocator a(kBase, 1 << 20);
  auto big = a.allocate(2 * 4096, 16);  // a malloc'd buffer starts 16 bytes into its page
  ASSERT_TRUE(big);
  EXPECT_EQ(*big % 4096, 16u);
  EXPECT_TRUE(a.contains(*big, 2 * 4096));
  auto odd = a.allocate(5000, 4095 - 63);  // an offset that is no multiple of 64
  ASSERT_TRUE(odd);
  EXPECT_EQ(*odd % 4096, 4032u);
  auto small = a.allocate(100, 16);
  ASSERT_TRUE(small);
  EXPECT_EQ(*small % DeviceAllocator::kAlignment, 0u) << "below a page the offset is not taken";
  EXPECT_EQ(a.free(*big + 16), 0u) << "not an address allocate() returned";
  EXPECT_EQ(a.free(*big), 2u * 4096 + 48) << "the bytes from the address to its block's end (64-byte granules)";
  EXPECT_EQ(a.free(*big), 0u) << "double free";
  EXPECT_GE(a.free(*odd), 5000u);
  a.free(*small);
  EXPECT_EQ(a.used(), 0u);
  EXPECT_EQ(a.largestFree(), 1u << 20) << "the skipped bytes coalesce back";
}

// A heap that fits a block only with its offset's gap: the fit takes it; one byte less fails.
TEST(DeviceAllocator, OffsetBlocksFitExactly) {
  DeviceAllocator a(kBase, 4 * 4096);
  auto p = a.allocate(3 * 4096, 64);
  ASSERT_TRUE(p);
  EXPECT_EQ(*p, kBase + 64);
  EXPECT_FALSE(a.allocate(4096, 0)) << "what is left is the 64-byte gap and 4 KiB - 64";
  EXPECT_TRUE(a.allocate(4096 - 64, 0));
}

}  // namespace
}  // namespace ferry::offload
