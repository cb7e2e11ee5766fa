// The registration cache in one process: this process plays the owner (SharedHeap) and the
// peer (RegCache maps its own blocks a second time through /proc/self/fd), which is exactly
// what a peer on the node does through /proc/<pid>/fd.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>

#include "coll/reg_cache.h"
#include "coll/shared_heap.h"
#include "coll/stats.h"

namespace ferry::coll {
namespace {

constexpr size_t kBytes = 1 << 20;

struct Block {
  uint8_t* ptr;
  HeapBlock info;
};

Block allocate(size_t bytes = kBytes) {
  auto p = SharedHeap::instance().allocate(bytes);
  EXPECT_TRUE(p.isOk()) << p.status().message();
  auto info = SharedHeap::instance().find(*p, bytes);
  EXPECT_TRUE(info.has_value());
  return {static_cast<uint8_t*>(*p), *info};
}

const uint8_t* mapped(RegCache& cache, const Block& b, size_t off = 0, size_t len = 64) {
  auto m = cache.map(getpid(), b.info, b.info.base + off, len);
  EXPECT_TRUE(m.isOk()) << m.status().message();
  return m.isOk() ? (*m)->data() + off : nullptr;
}

TEST(CollSharedHeap, FindsTheBlockThatHoldsARange) {
  Block b = allocate();
  EXPECT_TRUE(SharedHeap::instance().find(b.ptr + 100, 1000).has_value());
  EXPECT_TRUE(SharedHeap::instance().find(b.ptr, kBytes).has_value());
  EXPECT_FALSE(SharedHeap::instance().find(b.ptr + 1, kBytes).has_value()) << "runs past the end";
  int onStack = 0;
  EXPECT_FALSE(SharedHeap::instance().find(&onStack, sizeof onStack).has_value());
  EXPECT_FALSE(SharedHeap::instance().release(b.ptr + 8)) << "only block starts can be freed";
  EXPECT_TRUE(SharedHeap::instance().release(b.ptr));
  EXPECT_FALSE(SharedHeap::instance().find(b.ptr, 8).has_value());
}

TEST(CollRegCache, MapsOnceThenHits) {
  RegCache cache(1ull << 30);
  Block b = allocate();
  std::memset(b.ptr, 0x11, kBytes);
  StatsSnapshot before = stats().snapshot();
  const uint8_t* view = mapped(cache, b, 4096);
  ASSERT_NE(view, nullptr);
  EXPECT_NE(view, b.ptr + 4096) << "a second mapping of the same pages";
  EXPECT_EQ(view[0], 0x11);
  b.ptr[4096] = 0x22;
  EXPECT_EQ(view[0], 0x22) << "shared pages: the owner's write is visible";
  EXPECT_EQ(mapped(cache, b, 8192), view + 4096) << "any range inside the block hits the same entry";
  StatsSnapshot after = stats().snapshot();
  EXPECT_EQ(after.regMisses - before.regMisses, 1u);
  EXPECT_EQ(after.regHits - before.regHits, 1u);
  EXPECT_EQ(cache.entries(), 1u);
  SharedHeap::instance().release(b.ptr);
}

TEST(CollRegCache, FreedAndReusedAddressIsRemapped) {
  RegCache cache(1ull << 30);
  Block first = allocate();
  std::memset(first.ptr, 0xaa, kBytes);
  ASSERT_EQ(mapped(cache, first)[0], 0xaa);
  SharedHeap::instance().release(first.ptr);
  Block second = allocate();
  ASSERT_EQ(second.ptr, first.ptr) << "precondition: the address is reused";
  ASSERT_NE(second.info.gen, first.info.gen);
  std::memset(second.ptr, 0xbb, kBytes);
  StatsSnapshot before = stats().snapshot();
  EXPECT_EQ(mapped(cache, second)[0], 0xbb) << "the stale mapping still shows 0xaa; it must not be used";
  StatsSnapshot after = stats().snapshot();
  EXPECT_EQ(after.regInvalidations - before.regInvalidations, 1u);
  EXPECT_EQ(cache.entries(), 1u);
  SharedHeap::instance().release(second.ptr);
}

TEST(CollRegCache, OverlappingStaleEntriesAreDropped) {
  RegCache cache(1ull << 30);
  Block small = allocate(64 * 1024);
  mapped(cache, small);
  SharedHeap::instance().release(small.ptr);
  Block big = allocate(4 * kBytes);  // may start below and cover the old block's range
  mapped(cache, big);
  // Whatever the addresses, no two entries of one owner may overlap.
  bool overlaps = big.info.base < small.info.base + small.info.size && small.info.base < big.info.base + big.info.size;
  EXPECT_EQ(cache.entries(), overlaps ? 1u : 2u);
  SharedHeap::instance().release(big.ptr);
}

TEST(CollRegCache, EvictsTheLeastRecentlyUsedBeyondCapacity) {
  RegCache cache(2 * kBytes);
  Block a = allocate(), b = allocate(), c = allocate();
  auto keep = cache.map(getpid(), a.info, a.info.base, 8);
  ASSERT_TRUE(keep.isOk());
  mapped(cache, b);
  mapped(cache, a);  // a is now more recent than b
  StatsSnapshot before = stats().snapshot();
  mapped(cache, c);  // evicts b
  EXPECT_EQ(stats().snapshot().regEvictions - before.regEvictions, 1u);
  EXPECT_EQ(cache.entries(), 2u);
  EXPECT_LE(cache.mappedBytes(), 2 * kBytes);
  before = stats().snapshot();
  mapped(cache, a);
  EXPECT_EQ(stats().snapshot().regHits - before.regHits, 1u) << "a survived";
  // A mapping handed out stays valid after eviction, for as long as it is held.
  RegCache tiny(kBytes);
  auto held = tiny.map(getpid(), a.info, a.info.base, 8);
  ASSERT_TRUE(held.isOk());
  mapped(tiny, b);  // evicts a's entry
  a.ptr[0] = 0x5c;
  EXPECT_EQ((*held)->data()[0], 0x5c);
  for (Block* x : {&a, &b, &c}) SharedHeap::instance().release(x->ptr);
}

TEST(CollRegCache, UnreachableOwnerIsAnError) {
  RegCache cache(1ull << 30);
  HeapBlock bogus{0x10000, 4096, 7, 999};  // no such descriptor in this process
  auto m = cache.map(getpid(), bogus, 0x10000, 8);
  ASSERT_FALSE(m.isOk());
  EXPECT_NE(m.status().message().find("/proc/"), std::string::npos) << m.status().message();
}

}  // namespace
}  // namespace ferry::coll
