// The symmetric heap: shmem_malloc, calloc, align, realloc, free and malloc_with_hints.
// Each block is used remotely (a neighbour's put) as well as locally, and the heap must
// reuse freed space: this binary runs with SHMEM_SYMMETRIC_SIZE=8M (CMakeLists.txt), so
// the 200 allocations of 64 KiB below only fit if frees give their space back.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "shmem_test_util.h"

namespace ferry::shmem::testing {
namespace {

// The heap size this binary is started with (CMakeLists.txt).
constexpr size_t kHeapBytes = size_t{8} << 20;

// Each PE puts a pattern into its right neighbour's block; each checks what its left
// neighbour wrote. Proves that the block is symmetric, not just local memory.
void checkRemotelyUsable(void* block, size_t bytes, unsigned salt) {
  const int me = myPe();
  std::vector<unsigned char> src(bytes);
  fillPattern(src.data(), bytes, me, rightOf(me), salt);
  shmem_barrier_all();  // the neighbour is done with the block's previous contents
  shmem_putmem(block, src.data(), bytes, rightOf(me));
  shmem_barrier_all();
  EXPECT_EQ(firstMismatch(block, bytes, leftOf(me), me, salt), bytes) << bytes << " B from PE " << leftOf(me);
  shmem_barrier_all();
}

TEST(Memory, MallocGivesARemotelyUsableBlock) {
  const size_t bytes = 4096;
  void* p = shmem_malloc(bytes);
  ASSERT_NE(p, nullptr);
  std::memset(p, 0x5a, bytes);  // writable locally
  checkRemotelyUsable(p, bytes, 1);
  shmem_free(p);
}

TEST(Memory, CallocIsZeroedEvenWhereAFreedBlockWas) {
  const size_t count = 1000, size = sizeof(uint64_t);
  // Dirty the space first, so that calloc reusing it without clearing shows.
  void* dirty = shmem_malloc(count * size);
  ASSERT_NE(dirty, nullptr);
  std::memset(dirty, 0xab, count * size);
  shmem_free(dirty);
  auto* p = static_cast<uint64_t*>(shmem_calloc(count, size));
  ASSERT_NE(p, nullptr);
  for (size_t i = 0; i < count; ++i) ASSERT_EQ(p[i], 0u) << "element " << i;
  checkRemotelyUsable(p, count * size, 2);
  shmem_free(p);
}

TEST(Memory, AlignRespectsTheAlignment) {
  for (size_t alignment : {size_t{64}, size_t{4096}}) {
    void* odd = shmem_malloc(24);  // leaves the heap's next free byte unaligned
    ASSERT_NE(odd, nullptr);
    void* p = shmem_align(alignment, 100);
    ASSERT_NE(p, nullptr) << "alignment " << alignment;
    EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % alignment, 0u) << "alignment " << alignment;
    checkRemotelyUsable(p, 100, 3);
    shmem_free(p);
    shmem_free(odd);
  }
}

// Growing a block keeps its contents, even where it must move (a block allocated after it
// stands in the way), and the grown block is symmetric to its very end.
TEST(Memory, ReallocKeepsTheContents) {
  const int me = myPe();
  const size_t small = 100, large = 100000;
  auto* p = static_cast<int*>(shmem_malloc(small * sizeof(int)));
  ASSERT_NE(p, nullptr);
  for (size_t i = 0; i < small; ++i) p[i] = static_cast<int>(i) * 7 + me;
  void* after = shmem_malloc(64);
  ASSERT_NE(after, nullptr);
  auto* q = static_cast<int*>(shmem_realloc(p, large * sizeof(int)));
  ASSERT_NE(q, nullptr);
  for (size_t i = 0; i < small; ++i) ASSERT_EQ(q[i], static_cast<int>(i) * 7 + me) << "element " << i;
  shmem_barrier_all();
  shmem_int_p(&q[large - 1], 4242 + me, rightOf(me));
  shmem_barrier_all();
  EXPECT_EQ(q[large - 1], 4242 + leftOf(me)) << "the last element of the grown block, put by PE " << leftOf(me);
  // Shrinking keeps the front.
  auto* r = static_cast<int*>(shmem_realloc(q, 10 * sizeof(int)));
  ASSERT_NE(r, nullptr);
  for (size_t i = 0; i < 10; ++i) EXPECT_EQ(r[i], static_cast<int>(i) * 7 + me) << "element " << i << " after shrinking";
  shmem_free(r);
  shmem_free(after);
}

TEST(Memory, ReallocOfNullIsMalloc) {
  void* p = shmem_realloc(nullptr, 256);
  ASSERT_NE(p, nullptr);
  checkRemotelyUsable(p, 256, 4);
  shmem_free(p);
}

// OpenSHMEM 1.5: a size of zero gives a null pointer (and no barrier); freeing NULL does
// nothing.
TEST(Memory, ZeroBytesGiveNull) {
  EXPECT_EQ(shmem_malloc(0), nullptr);
  EXPECT_EQ(shmem_calloc(0, 8), nullptr);
  EXPECT_EQ(shmem_calloc(8, 0), nullptr);
  EXPECT_EQ(shmem_align(64, 0), nullptr);
  shmem_free(nullptr);
  shmem_barrier_all();
}

// The heap is the size the binary was started with, so the reuse tests below prove reuse.
TEST(Memory, HeapIsTheConfiguredSize) {
  EXPECT_EQ(shmem_malloc(kHeapBytes + 4096), nullptr) << "more than SHMEM_SYMMETRIC_SIZE=8M fits: is it set?";
  void* p = shmem_malloc(kHeapBytes / 2);
  EXPECT_NE(p, nullptr) << "half of SHMEM_SYMMETRIC_SIZE=8M";
  shmem_free(p);
}

// 200 x 64 KiB is more than the 8 MiB heap: it only fits if every free gives its space back.
// (Few, large blocks: each cycle is two collectives, which MPICH on 3 PEs and 2 cores makes
// milliseconds long.)
TEST(Memory, ManyAllocationsReuseTheSpace) {
  const int me = myPe();
  constexpr size_t kBlock = 64 << 10;
  static_assert(200 * kBlock > kHeapBytes, "the cycles must outgrow the heap");
  for (int i = 0; i < 200; ++i) {
    auto* p = static_cast<unsigned char*>(shmem_malloc(kBlock));
    ASSERT_NE(p, nullptr) << "allocation " << i << " of 64 KiB failed: freed blocks are not reused";
    p[0] = static_cast<unsigned char>(i);
    p[kBlock - 1] = static_cast<unsigned char>(me);
    shmem_free(p);
  }
}

// After many small blocks, freed in an interleaved order, the space joins up again: one
// block of half the heap fits.
TEST(Memory, FreedNeighboursCoalesce) {
  std::vector<void*> blocks;
  for (int i = 0; i < 1000; ++i) {
    blocks.push_back(shmem_malloc(1024));
    ASSERT_NE(blocks.back(), nullptr) << "block " << i;
  }
  for (size_t i = 0; i < blocks.size(); i += 2) shmem_free(blocks[i]);
  for (size_t i = 1; i < blocks.size(); i += 2) shmem_free(blocks[i]);
  void* big = shmem_malloc(kHeapBytes / 2);
  ASSERT_NE(big, nullptr) << "half of SHMEM_SYMMETRIC_SIZE after freeing everything";
  checkRemotelyUsable(big, kHeapBytes / 2, 5);
  shmem_free(big);
}

// Blocks that are alive together never overlap, locally or as the neighbour sees them.
TEST(Memory, LiveBlocksDoNotOverlap) {
  const int me = myPe();
  const size_t sizes[] = {1, 8, 100, 4096, 3, 65536, 17};
  std::vector<unsigned char*> blocks;
  for (size_t s : sizes) {
    blocks.push_back(static_cast<unsigned char*>(shmem_malloc(s)));
    ASSERT_NE(blocks.back(), nullptr);
  }
  shmem_barrier_all();
  for (size_t b = 0; b < blocks.size(); ++b) {
    std::vector<unsigned char> src(sizes[b], static_cast<unsigned char>(b * 16 + me));
    shmem_putmem(blocks[b], src.data(), sizes[b], rightOf(me));
  }
  shmem_barrier_all();
  for (size_t b = 0; b < blocks.size(); ++b)
    for (size_t i = 0; i < sizes[b]; ++i)
      ASSERT_EQ(blocks[b][i], static_cast<unsigned char>(b * 16 + leftOf(me))) << "block " << b << " byte " << i;
  for (auto* p : blocks) shmem_free(p);
}

TEST(Memory, MallocWithHints) {
  for (long hints : {0L, static_cast<long>(SHMEM_MALLOC_ATOMICS_REMOTE), static_cast<long>(SHMEM_MALLOC_SIGNAL_REMOTE)}) {
    auto* p = static_cast<uint64_t*>(shmem_malloc_with_hints(8 * sizeof(uint64_t), hints));
    ASSERT_NE(p, nullptr) << "hints " << hints;
    p[0] = 0;
    shmem_barrier_all();
    shmem_uint64_atomic_add(&p[0], static_cast<uint64_t>(myPe() + 1), 0);
    shmem_barrier_all();
    const uint64_t n = static_cast<uint64_t>(nPes());
    if (myPe() == 0) {
      EXPECT_EQ(p[0], n * (n + 1) / 2) << "atomics on a block with hints " << hints;
    }
    checkRemotelyUsable(p, 8 * sizeof(uint64_t), 6);
    shmem_free(p);
  }
  EXPECT_EQ(shmem_malloc_with_hints(0, 0), nullptr);
}

}  // namespace
}  // namespace ferry::shmem::testing
