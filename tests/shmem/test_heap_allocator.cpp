// The symmetric heap's allocator (src/shmem/heap.h), in one process: symmetry rests on it
// being deterministic, and a long-running program on it coalescing what it frees.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "shmem/heap.h"

using ferry::shmem::HeapAllocator;

namespace {

TEST(ShmemHeap, SameCallsGiveSameOffsets) {
  HeapAllocator a(1 << 20), b(1 << 20);
  std::mt19937 rng(7);
  std::vector<size_t> live;
  for (int i = 0; i < 2000; ++i) {
    if (!live.empty() && rng() % 3 == 0) {
      size_t at = live[rng() % live.size()];
      ASSERT_TRUE(a.release(at));
      ASSERT_TRUE(b.release(at));
      std::erase(live, at);
      continue;
    }
    size_t size = 1 + rng() % 5000, align = size_t{64} << (rng() % 4);
    auto x = a.allocate(size, align), y = b.allocate(size, align);
    ASSERT_EQ(x, y);
    if (!x) continue;
    EXPECT_EQ(*x % align, 0u);
    live.push_back(*x);
  }
}

TEST(ShmemHeap, BlocksNeverOverlap) {
  HeapAllocator a(1 << 16);
  std::vector<std::pair<size_t, size_t>> blocks;
  while (auto at = a.allocate(100 + blocks.size() % 700)) blocks.emplace_back(*at, a.sizeOf(*at));
  ASSERT_GT(blocks.size(), 10u);
  std::sort(blocks.begin(), blocks.end());
  for (size_t i = 1; i < blocks.size(); ++i) EXPECT_LE(blocks[i - 1].first + blocks[i - 1].second, blocks[i].first);
  EXPECT_LE(blocks.back().first + blocks.back().second, a.capacity());
}

TEST(ShmemHeap, FreedNeighboursCoalesce) {
  HeapAllocator a(4096);
  auto x = a.allocate(1024), y = a.allocate(1024), z = a.allocate(2048);
  ASSERT_TRUE(x && y && z);
  EXPECT_FALSE(a.allocate(64));  // full
  a.release(*x);
  a.release(*z);
  a.release(*y);
  EXPECT_EQ(a.used(), 0u);
  EXPECT_EQ(a.largestFree(), 4096u);
  EXPECT_EQ(a.allocate(4096), std::optional<size_t>(0));
}

TEST(ShmemHeap, RefusesWhatDoesNotFit) {
  HeapAllocator a(1 << 12);
  EXPECT_FALSE(a.allocate(0));
  EXPECT_FALSE(a.allocate((1 << 12) + 1));
  EXPECT_FALSE(a.allocate(SIZE_MAX));
  EXPECT_FALSE(a.allocate(64, 3));  // not a power of two
  EXPECT_FALSE(a.release(128));     // no block there
}

TEST(ShmemHeap, ResizesInPlaceWhereTheSpaceAfterIsFree) {
  HeapAllocator a(4096);
  auto x = a.allocate(256);
  ASSERT_TRUE(x);
  EXPECT_TRUE(a.resizeInPlace(*x, 2048));
  EXPECT_EQ(a.sizeOf(*x), 2048u);
  auto y = a.allocate(1024);
  ASSERT_TRUE(y);
  EXPECT_FALSE(a.resizeInPlace(*x, 3500));  // y is in the way
  EXPECT_TRUE(a.resizeInPlace(*x, 128));
  EXPECT_EQ(a.used(), 128u + 1024u);
}

}  // namespace
