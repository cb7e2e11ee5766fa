// Set-up and query routines: PE numbers, the version and name, which PEs and addresses are
// accessible, and shmem_ptr. Expectations come from the layout CTest started (PE count,
// virtual nodes), never from the library under test.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <vector>

#include "shmem_test_util.h"

namespace ferry::shmem::testing {
namespace {

// Symmetric static data: file-scope arrays live at the same offset of every PE's image.
long g[4];
long gInitialised[4] = {1, 2, 3, 4};  // .data rather than .bss
int gMyPe;
int gAllPes[kMaxPes];
long gSlots[kMaxPes];

TEST(Setup, PeCountIsTheLaunchedCount) {
  const int n = shmem_n_pes();
  ASSERT_GE(n, 1);
  ASSERT_LE(n, kMaxPes);
  if (launchedPes() > 0) {
    EXPECT_EQ(n, launchedPes()) << "the launcher started " << launchedPes() << " processes";
  }
  EXPECT_GE(shmem_my_pe(), 0);
  EXPECT_LT(shmem_my_pe(), n);
}

// Every PE's number, gathered with fcollect: 0..n-1, each exactly once, in PE order.
TEST(Setup, PeNumbersAreDistinctAndDense) {
  const int n = shmem_n_pes();
  gMyPe = shmem_my_pe();
  for (int& v : gAllPes) v = -1;
  shmem_barrier_all();
  ASSERT_EQ(shmem_int_fcollect(SHMEM_TEAM_WORLD, gAllPes, &gMyPe, 1), 0);
  for (int i = 0; i < n; ++i) EXPECT_EQ(gAllPes[i], i) << "slot " << i;
  for (int i = n; i < kMaxPes; ++i) EXPECT_EQ(gAllPes[i], -1) << "fcollect wrote past n_pes elements, slot " << i;
  shmem_barrier_all();
}

TEST(Setup, ThreadLevelIsOneOfTheFour) {
  int provided = -12345;
  shmem_query_thread(&provided);
  EXPECT_TRUE(provided == SHMEM_THREAD_SINGLE || provided == SHMEM_THREAD_FUNNELED ||
              provided == SHMEM_THREAD_SERIALIZED || provided == SHMEM_THREAD_MULTIPLE)
      << "shmem_query_thread gave " << provided;
}

TEST(Setup, VersionIsOnePointFive) {
  int major = -1, minor = -1;
  shmem_info_get_version(&major, &minor);
  EXPECT_EQ(major, 1);
  EXPECT_EQ(minor, 5);
  EXPECT_EQ(SHMEM_MAJOR_VERSION, 1);
  EXPECT_EQ(SHMEM_MINOR_VERSION, 5);
}

TEST(Setup, NameIsTheVendorString) {
  char name[SHMEM_MAX_NAME_LEN];
  std::memset(name, 'x', sizeof name);
  shmem_info_get_name(name);
  size_t len = strnlen(name, sizeof name);
  ASSERT_LT(len, sizeof name) << "the name is not terminated within SHMEM_MAX_NAME_LEN";
  EXPECT_GT(len, 0u);
  EXPECT_STREQ(name, SHMEM_VENDOR_STRING);
}

TEST(Setup, EveryPeIsAccessibleAndNoOther) {
  const int n = shmem_n_pes();
  for (int p = 0; p < n; ++p) EXPECT_EQ(shmem_pe_accessible(p), 1) << "PE " << p;
  EXPECT_EQ(shmem_pe_accessible(-1), 0);
  EXPECT_EQ(shmem_pe_accessible(n), 0);
  EXPECT_EQ(shmem_pe_accessible(n + 100), 0);
}

TEST(Setup, SymmetricAddressesAreAccessiblePrivateOnesAreNot) {
  const int n = shmem_n_pes();
  auto* block = static_cast<long*>(shmem_malloc(64 * sizeof(long)));
  ASSERT_NE(block, nullptr);
  long onStack = 0;
  std::vector<long> privateHeap(8);
  for (int p = 0; p < n; ++p) {
    EXPECT_EQ(shmem_addr_accessible(block, p), 1) << "shmem_malloc'd block, PE " << p;
    EXPECT_EQ(shmem_addr_accessible(block + 63, p), 1) << "last element of the block, PE " << p;
    EXPECT_EQ(shmem_addr_accessible(g, p), 1) << "file-scope array (.bss), PE " << p;
    EXPECT_EQ(shmem_addr_accessible(&g[3], p), 1) << "its last element, PE " << p;
    EXPECT_EQ(shmem_addr_accessible(gInitialised, p), 1) << "initialised file-scope array (.data), PE " << p;
    EXPECT_EQ(shmem_addr_accessible(&onStack, p), 0) << "a stack variable, PE " << p;
    EXPECT_EQ(shmem_addr_accessible(privateHeap.data(), p), 0) << "private malloc'd memory, PE " << p;
  }
  shmem_free(block);
}

// For the calling PE, shmem_ptr is the address itself.
TEST(Setup, PtrToSelfIsTheSameAddress) {
  auto* block = static_cast<int*>(shmem_malloc(16 * sizeof(int)));
  ASSERT_NE(block, nullptr);
  EXPECT_EQ(shmem_ptr(block, shmem_my_pe()), static_cast<void*>(block));
  EXPECT_EQ(shmem_ptr(block + 5, shmem_my_pe()), static_cast<void*>(block + 5));
  EXPECT_EQ(shmem_ptr(g, shmem_my_pe()), static_cast<void*>(g));
  shmem_free(block);
}

// Heap memory of a PE of the same (virtual) node is load/store accessible: shmem_ptr is
// non-NULL and a store through it is seen by the owner after a barrier. Across virtual
// nodes shmem_ptr may be NULL; where it is not, the store must land just the same.
TEST(Setup, PtrStoresOnTheSameNodeAreSeenByTheOwner) {
  const int n = shmem_n_pes(), me = shmem_my_pe();
  auto* block = static_cast<long*>(shmem_calloc(static_cast<size_t>(n), sizeof(long)));
  ASSERT_NE(block, nullptr);
  for (long& v : gSlots) v = 0;
  shmem_barrier_all();
  for (int p = 0; p < n; ++p) {
    auto* remote = static_cast<long*>(shmem_ptr(block, p));
    if (sameNode(p, me)) {
      EXPECT_NE(remote, nullptr) << "PE " << p << " is on my node (FERRY_VIRTUAL_NODES=" << virtualNodes() << ")";
    }
    if (remote) remote[me] = 1000L * (me + 1) + p;
    auto* remoteStatic = static_cast<long*>(shmem_ptr(gSlots, p));
    if (remoteStatic) remoteStatic[me] = 2000L * (me + 1) + p;
  }
  shmem_barrier_all();
  for (int q = 0; q < n; ++q) {
    if (sameNode(q, me)) {
      EXPECT_EQ(block[q], 1000L * (q + 1) + me) << "store of PE " << q << " on my node";
    } else if (block[q] != 0) {
      EXPECT_EQ(block[q], 1000L * (q + 1) + me) << "store of PE " << q << " through a non-NULL shmem_ptr";
    }
    if (gSlots[q] != 0) {
      EXPECT_EQ(gSlots[q], 2000L * (q + 1) + me) << "store of PE " << q << " into static data";
    }
  }
  shmem_barrier_all();
  shmem_free(block);
}

}  // namespace
}  // namespace ferry::shmem::testing
