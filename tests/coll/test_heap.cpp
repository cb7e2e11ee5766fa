// Buffers from Ferry's shared heap (ferry_coll_alloc, MPI_Alloc_mem under the interposer)
// are mapped by the node's peers through the registration cache: a repeated buffer is a
// cache hit, and memory freed and reallocated at the same address with other contents is
// remapped, never read through the stale mapping. Buffers from malloc that are freed and
// reallocated are read afresh with process_vm_readv.
#include <gtest/gtest.h>

#include <sys/mman.h>

#include <cstdlib>
#include <vector>

#include "coll/allreduce.h"
#include "coll/comm_context.h"
#include "coll/select.h"
#include "coll/shared_heap.h"
#include "coll_test_util.h"

namespace ferry::coll::testing {
namespace {

constexpr size_t kCount = 1 << 18;  // doubles: 2 MiB
constexpr size_t kBytes = kCount * sizeof(double);

// The path a call of kBytes takes, and the node's shape.
struct Layout {
  bool singleCopy = false;
  bool copyIn = false;  // single copy with inputs outside the heap copied in
  int localSize = 1;
  int numNodes = 1;
  bool shareLeaders = false;  // FERRY_COLL_LEADERS=all took effect
};

Layout layout() {
  CommContext* ctx = existingContext(MPI_COMM_WORLD);
  if (!ctx) return {};
  IntraPath path = ctx->pathFor(kBytes);
  return {singleCopy(path), path == IntraPath::CopyIn, ctx->localSize(), ctx->numNodes(), ctx->shareLeaders()};
}

int worldRank() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

int worldSize() {
  int r = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &r);
  return r;
}

// Fills `in` with `base + rank` and checks Ferry's sum against the exact value.
void reduceAndCheck(double* in, double* out, double base, const char* what) {
  for (size_t i = 0; i < kCount; ++i) in[i] = base + worldRank() + static_cast<double>(i % 100);
  ASSERT_EQ(allreduceWith(forcedSettings(), in, out, static_cast<int>(kCount), MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD),
            MPI_SUCCESS);
  int n = worldSize();
  for (size_t i = 0; i < kCount; ++i) {
    double want = n * base + n * (n - 1) / 2.0 + n * static_cast<double>(i % 100);
    ASSERT_EQ(out[i], want) << what << ": element " << i;
  }
}

double* heapAlloc() { return static_cast<double*>(*SharedHeap::instance().allocate(kBytes)); }

// What a rank copies into the node's segment of an input of `bytes`: all but its own share
// of each chunk, which it reduces in place; (k-1)/k of it, give or take the 64-byte units
// that shares are cut in.
double stagedInBytes(uint64_t bytes, int localSize) {
  return static_cast<double>(bytes) * (localSize - 1) / localSize;
}

TEST(AllreduceHeap, SharedBuffersAreMappedAndCached) {
  double* in = heapAlloc();
  double* out = heapAlloc();
  reduceAndCheck(in, out, 1, "first call");  // sets up and maps
  StatsSnapshot before = statsNow();
  for (int i = 0; i < 3; ++i) reduceAndCheck(in, out, 2 + i, "repeated call");
  StatsSnapshot after = statsNow();
  Layout l = layout();
  if (l.singleCopy && l.localSize > 1) {
    EXPECT_GT(after.bytesMapped, before.bytesMapped) << "peers' buffers are read in place";
    EXPECT_EQ(after.bytesCma, before.bytesCma) << "no system call for mapped buffers";
    if (l.shareLeaders)  // every rank reduces its share across nodes in memory of its own
      EXPECT_EQ(after.bytesStaged - before.bytesStaged, 3 * kBytes) << "FERRY_COLL_LEADERS=all: results via the slots";
    else
      EXPECT_EQ(after.bytesStaged, before.bytesStaged) << "results reduced in place, not through the slots";
    EXPECT_EQ(after.regMisses, before.regMisses) << "the same buffers are mapped once";
    // Each call looks up both buffers of every peer.
    EXPECT_GE(after.regHits - before.regHits, 3u * 2u * static_cast<uint64_t>(l.localSize - 1));
  }
  SharedHeap::instance().release(in);
  SharedHeap::instance().release(out);
}

TEST(AllreduceHeap, MallocResultsGoThroughTheResultSlots) {
  // Receive buffers that peers cannot map are replaced by the node's result slots: inputs
  // are read with process_vm_readv (or copied in), every rank copies its whole result out
  // of the slots, and nothing is written into, or read from, another process's receive
  // buffer.
  std::vector<double> in(kCount), out(kCount);
  reduceAndCheck(in.data(), out.data(), 3, "first call");
  StatsSnapshot before = statsNow();
  reduceAndCheck(in.data(), out.data(), 4, "second call");
  StatsSnapshot after = statsNow();
  Layout l = layout();
  if (!l.singleCopy) GTEST_SKIP() << "the two-copy path: every call goes through the slots";
  if (l.copyIn) {
    EXPECT_NEAR(static_cast<double>(after.bytesStaged - before.bytesStaged),
                stagedInBytes(kBytes, l.localSize) + kBytes, kBytes / 16.0)
        << "copy-in: the input but the own shares in, the result out";
    EXPECT_EQ(after.bytesCma, before.bytesCma) << "copy-in: peers read the input from the segment";
    return;
  }
  if (l.numNodes == 1 && l.localSize == 2)
    GTEST_SKIP() << "one node of two ranks: each reads its peer's half of the result from the peer's receive buffer";
  EXPECT_EQ(after.bytesStaged - before.bytesStaged, kBytes) << "the whole result, once, from the slots";
  if (l.localSize > 1) {
    // Each rank reads the other ranks' parts of its shares: (k-1)/k of the message.
    uint64_t expected = kBytes * static_cast<uint64_t>(l.localSize - 1) / static_cast<uint64_t>(l.localSize);
    EXPECT_NEAR(static_cast<double>(after.bytesCma - before.bytesCma), static_cast<double>(expected), kBytes / 16.0);
  }
}

TEST(AllreduceHeap, SmallCallsTakeTheTwoCopyPathWhereSingleCopyWorks) {
  // Below FERRY_COLL_STAGED_PER_RANK times the ranks on the node, a call makes no system
  // call: each rank copies its input into the segment and its result out of it. (Where
  // single copy is refused, every call does that.) Every rank takes part: a skip must be
  // decided alike everywhere, so it hangs only on the settings.
  Settings s = forcedSettings();
  if (s.intra != IntraChoice::Auto) GTEST_SKIP() << "FERRY_COLL_INTRA forces one path for every size";
  Layout l = layout();
  // Nodes may have different rank counts (and so sizes): take a count below every node's.
  uint64_t mine = stagedBelow(s, l.localSize), below = 0;
  PMPI_Allreduce(&mine, &below, 1, MPI_UINT64_T, MPI_MIN, MPI_COMM_WORLD);
  ASSERT_GT(below, sizeof(double)) << "the default must send some sizes through the staging slots";
  size_t count = static_cast<size_t>(below / sizeof(double)) - 1;
  std::vector<double> in(count, 1.5 + worldRank()), out(count);
  StatsSnapshot before = statsNow();
  ASSERT_EQ(allreduceWith(s, in.data(), out.data(), static_cast<int>(count), MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD),
            MPI_SUCCESS);
  StatsSnapshot after = statsNow();
  int n = worldSize();
  double want = 1.5 * n + n * (n - 1) / 2.0;
  for (size_t i = 0; i < count; ++i) ASSERT_EQ(out[i], want) << "element " << i;
  EXPECT_EQ(after.bytesCma, before.bytesCma) << "no process_vm_readv below " << below << " B";
  uint64_t bytes = count * sizeof(double);
  EXPECT_NEAR(static_cast<double>(after.bytesStaged - before.bytesStaged),
              stagedInBytes(bytes, l.localSize) + static_cast<double>(bytes), bytes / 16.0)
      << "input but the own share in, result out";
}

TEST(AllreduceHeap, MemoryFreedAndReusedAtTheSameAddressIsRemapped) {
  double* in = heapAlloc();
  double* out = heapAlloc();
  reduceAndCheck(in, out, 10, "before the free");
  double* oldIn = in;
  SharedHeap::instance().release(in);
  in = heapAlloc();  // same size: the kernel hands back the same address
  // Precondition, agreed on by all ranks so that all stop together if it fails.
  int reused = in == oldIn, allReused = 0;
  PMPI_Allreduce(&reused, &allReused, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
#if defined(__SANITIZE_ADDRESS__)
  // ASan's own mappings come and go between the free and the new block, so the kernel may
  // place it elsewhere: then there is no reuse to test (without ASan it is always there).
  if (allReused != 1) GTEST_SKIP() << "under ASan the new block did not reuse the old address on every rank";
#endif
  ASSERT_EQ(allReused, 1) << "the new block must reuse the old address on every rank";
  StatsSnapshot before = statsNow();
  reduceAndCheck(in, out, 1000, "after reuse");  // other contents: a stale mapping shows the old ones
  StatsSnapshot after = statsNow();
  Layout l = layout();
  if (l.singleCopy && l.localSize > 1) {
    EXPECT_GE(after.regInvalidations - before.regInvalidations, static_cast<uint64_t>(l.localSize - 1))
        << "each peer's mapping of the freed block is dropped";
  }
  SharedHeap::instance().release(in);
  SharedHeap::instance().release(out);
}

TEST(AllreduceHeap, CopyInCopiesOnlyInputsOutsideTheHeap) {
  // With copy-in, a rank whose input is in the shared heap leaves it in place for its peers
  // to map; the others copy theirs into the node's segment. Even ranks use the heap here.
  bool inHeap = worldRank() % 2 == 0;
  double* in = inHeap ? heapAlloc() : static_cast<double*>(std::malloc(kBytes));
  std::vector<double> out(kCount);
  reduceAndCheck(in, out.data(), 5, "first call");
  StatsSnapshot before = statsNow();
  reduceAndCheck(in, out.data(), 6, "second call");
  StatsSnapshot after = statsNow();
  if (inHeap) SharedHeap::instance().release(in);
  else std::free(in);
  if (!layout().copyIn) GTEST_SKIP() << "inputs are read in place on this node (no copy-in)";
  EXPECT_EQ(after.bytesCma, before.bytesCma) << "heap inputs are mapped, the others read from the segment";
  EXPECT_NEAR(static_cast<double>(after.bytesStaged - before.bytesStaged),
              (inHeap ? 0 : stagedInBytes(kBytes, layout().localSize)) + kBytes, kBytes / 16.0)
      << (inHeap ? "the result out only" : "the input but the own shares in, the result out");
}

TEST(AllreduceHeap, AutoSaysWhatCopiesItMeasured) {
  // In auto mode each node times both copies at set-up (coll/copy_probe.h), and the
  // communicator's description gives the figures behind its choice.
  Settings s = forcedSettings();
  auto ctx = contextFor(MPI_COMM_WORLD, s);
  ASSERT_TRUE(ctx.isOk()) << ctx.status().message();
  CommContext* c = *ctx;
  if (s.intra != IntraChoice::Auto || !singleCopy(c->path()) || c->localSize() < 2)
    GTEST_SKIP() << "nothing measured: FERRY_COLL_INTRA forces a path, or no peer on this node";
  std::string d = c->describe();
  EXPECT_NE(d.find(" GB/s, process_vm_readv "), std::string::npos) << d;
  EXPECT_NE(d.find(c->path() == IntraPath::CopyIn ? "copying in is cheaper" : "reading in place is as cheap"),
            std::string::npos)
      << d;
}

TEST(AllreduceHeap, MemoryUnmappedAndMappedAgainAtTheSameAddressIsReadAfresh) {
  // What free and malloc of a large block do, made certain: new pages, new contents, the
  // same address (MAP_FIXED_NOREPLACE, just after the unmap). Another thread (MPI's) may
  // map into the hole first: then again with a fresh block, a few times.
  auto* out = static_cast<double*>(std::malloc(kBytes));
  constexpr int kTries = 5;
  int tries = 0;
  for (; tries < kTries; ++tries) {
    void* in = mmap(nullptr, kBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    ASSERT_NE(in, MAP_FAILED);
    reduceAndCheck(static_cast<double*>(in), out, 7 + tries, "before the unmap");
    ASSERT_EQ(munmap(in, kBytes), 0);
    void* again =
        mmap(in, kBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
    // A kernel without MAP_FIXED_NOREPLACE takes the address as a hint. Every rank tries
    // again if any must: the reductions are collective.
    int mine = again == in ? 1 : 0, all = 0;
    MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!all) {
      if (again != MAP_FAILED) munmap(again, kBytes);
      continue;
    }
    reduceAndCheck(static_cast<double*>(again), out, 7000 + tries, "after mapping the address again");
    munmap(again, kBytes);
    break;
  }
  EXPECT_LT(tries, kTries) << "the address was taken between the unmap and the new mapping, " << kTries << " times";
  std::free(out);
}

}  // namespace
}  // namespace ferry::coll::testing
