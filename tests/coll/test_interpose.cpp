// The interposer (libferry-pmpi.so, linked in here before the MPI library): MPI_Allreduce
// itself runs through Ferry, Ferry's own MPI_Allreduce calls do not recurse, MPI_Alloc_mem
// memory is mapped by peers, and every other call is the library's, untouched. Uses only
// the public C API, as a program would.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cstring>
#include <string>
#include <vector>

#include "ferry/ferry_coll.h"

namespace {

ferry_coll_stats stats() {
  ferry_coll_stats s{};
  EXPECT_EQ(ferry_coll_get_stats(&s, sizeof s), MPI_SUCCESS);
  return s;
}

std::string describe(MPI_Comm c) {
  char text[1024];
  ferry_coll_describe(c, text, sizeof text);
  return text;
}

// Whether peers read this rank's heap buffers in place on `c` (single-copy path, and at
// least one other rank on the node).
bool mapsPeers(MPI_Comm c) {
  std::string d = describe(c);
  return d.find("single-copy") != std::string::npos && d.find(" 1 per node") == std::string::npos;
}

int ranksOf(MPI_Comm c) {
  int n = 0;
  MPI_Comm_size(c, &n);
  return n;
}

int rankOf(MPI_Comm c) {
  int n = 0;
  MPI_Comm_rank(c, &n);
  return n;
}

// Calls `entry`, an interposed binding of MPI_Allreduce, on 300000 longs (in place, with
// `inPlace`), and checks that Ferry ran the call and gave what `library`, its PMPI_ twin,
// gives.
template <typename Count, typename Entry, typename Library>
void expectEntryRunsFerry(Entry entry, Library library, bool inPlace = false) {
  const Count n = 300000;
  std::vector<long> in(n), out(n), want(n);
  for (Count i = 0; i < n; ++i) in[i] = i * 3L + rankOf(MPI_COMM_WORLD);
  if (inPlace) out = in;
  ferry_coll_stats before = stats();
  ASSERT_EQ(entry(inPlace ? MPI_IN_PLACE : in.data(), out.data(), n, MPI_LONG, MPI_SUM, MPI_COMM_WORLD), MPI_SUCCESS);
  ferry_coll_stats after = stats();
  library(in.data(), want.data(), n, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  EXPECT_EQ(out, want);
  EXPECT_EQ(after.ferry_calls, before.ferry_calls + 1) << "FERRY_COLL=on in this test's environment";
}

#if MPI_VERSION >= 4
// MPI-4's large-count binding (MPICH 4): the same path for a count that fits an int. A
// count past INT_MAX goes to the library; not run here, where each buffer would be 2 GiB
// or more on every rank.
TEST(CollInterpose, LargeCountBindingRunsFerry) { expectEntryRunsFerry<MPI_Count>(MPI_Allreduce_c, PMPI_Allreduce_c); }
#endif

TEST(CollInterpose, MpiAllreduceRunsFerry) {
  expectEntryRunsFerry<int>(MPI_Allreduce, PMPI_Allreduce);
  EXPECT_NE(describe(MPI_COMM_WORLD).find("ranks on"), std::string::npos) << describe(MPI_COMM_WORLD);
}

TEST(CollInterpose, MpiAllreduceInPlaceRunsFerry) { expectEntryRunsFerry<int>(MPI_Allreduce, PMPI_Allreduce, true); }

TEST(CollInterpose, FirstCallOnANewCommunicatorDoesNotRecurse) {
  // Its set-up runs MPI_Allreduce and MPI_Allgather internally, which come back through
  // the interposer and must go to the library.
  MPI_Comm c;
  MPI_Comm_split(MPI_COMM_WORLD, 0, -rankOf(MPI_COMM_WORLD), &c);
  ferry_coll_stats before = stats();
  std::vector<double> in(50000, 0.5), out(in.size());
  ASSERT_EQ(MPI_Allreduce(in.data(), out.data(), static_cast<int>(in.size()), MPI_DOUBLE, MPI_SUM, c), MPI_SUCCESS);
  ferry_coll_stats after = stats();
  EXPECT_EQ(out, std::vector<double>(in.size(), 0.5 * ranksOf(c)));
  EXPECT_EQ(after.setups, before.setups + 1);
  EXPECT_EQ(after.ferry_calls, before.ferry_calls + 1);
  MPI_Comm_free(&c);
}

void intSum(void* in, void* inout, int* len, MPI_Datatype*) {
  for (int i = 0; i < *len; ++i) static_cast<int*>(inout)[i] += static_cast<int*>(in)[i];
}

TEST(CollInterpose, WhatFerryDoesNotHandleGoesToTheLibrary) {
  MPI_Op op;
  MPI_Op_create(intSum, 1, &op);
  std::vector<int> in(200000, 2), out(in.size());
  ferry_coll_stats before = stats();
  ASSERT_EQ(MPI_Allreduce(in.data(), out.data(), static_cast<int>(in.size()), MPI_INT, op, MPI_COMM_WORLD), MPI_SUCCESS);
  ferry_coll_stats after = stats();
  EXPECT_EQ(out, std::vector<int>(in.size(), 2 * ranksOf(MPI_COMM_WORLD)));
  EXPECT_EQ(after.library_calls, before.library_calls + 1);
  EXPECT_EQ(after.ferry_calls, before.ferry_calls);
  MPI_Op_free(&op);
}

TEST(CollInterpose, OtherCallsAreTheLibrarys) {
  const int n = 100000;
  std::vector<int> in(n, rankOf(MPI_COMM_WORLD) + 1), out(n, -1);
  int ranks = ranksOf(MPI_COMM_WORLD), sum = ranks * (ranks + 1) / 2;
  ferry_coll_stats before = stats();
  MPI_Reduce(in.data(), out.data(), n, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rankOf(MPI_COMM_WORLD) == 0) {
    EXPECT_EQ(out, std::vector<int>(n, sum));
  }
  MPI_Request r;
  MPI_Iallreduce(in.data(), out.data(), n, MPI_INT, MPI_MAX, MPI_COMM_WORLD, &r);
  MPI_Wait(&r, MPI_STATUS_IGNORE);
  EXPECT_EQ(out, std::vector<int>(n, ranks));
  std::vector<int> counts(static_cast<size_t>(ranks), n / ranks), part(static_cast<size_t>(n / ranks));
  MPI_Reduce_scatter(in.data(), part.data(), counts.data(), MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  EXPECT_EQ(part, std::vector<int>(part.size(), sum));
  ferry_coll_stats after = stats();
  EXPECT_EQ(after.ferry_calls, before.ferry_calls);
  EXPECT_EQ(after.library_calls, before.library_calls) << "these never pass through Ferry";
}

TEST(CollInterpose, AllocMemIsMappedAndReuseIsDetected) {
  const int n = 1 << 18;  // doubles: 2 MiB, above FERRY_COLL_MIN_SIZE
  double *in = nullptr, *out = nullptr;
  ASSERT_EQ(MPI_Alloc_mem(n * sizeof(double), MPI_INFO_NULL, &in), MPI_SUCCESS);
  ASSERT_EQ(MPI_Alloc_mem(n * sizeof(double), MPI_INFO_NULL, &out), MPI_SUCCESS);
  int ranks = ranksOf(MPI_COMM_WORLD), rank = rankOf(MPI_COMM_WORLD);
  for (int i = 0; i < n; ++i) in[i] = rank + i % 10;
  ferry_coll_stats before = stats();
  ASSERT_EQ(MPI_Allreduce(in, out, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD), MPI_SUCCESS);
  ferry_coll_stats after = stats();
  for (int i = 0; i < n; ++i) ASSERT_EQ(out[i], ranks * (ranks - 1) / 2.0 + ranks * (i % 10)) << i;
  bool mapped = mapsPeers(MPI_COMM_WORLD);
  if (mapped) {
    EXPECT_GT(after.bytes_mapped, before.bytes_mapped) << describe(MPI_COMM_WORLD);
    EXPECT_EQ(after.bytes_cma, before.bytes_cma);
  }
  // Free and reallocate at the same address with other contents.
  double* old = in;
  ASSERT_EQ(MPI_Free_mem(in), MPI_SUCCESS);
  ASSERT_EQ(MPI_Alloc_mem(n * sizeof(double), MPI_INFO_NULL, &in), MPI_SUCCESS);
  int reused = in == old, allReused = 0;
  PMPI_Allreduce(&reused, &allReused, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  ASSERT_EQ(allReused, 1) << "precondition: the address is reused on every rank";
  for (int i = 0; i < n; ++i) in[i] = 100.0 * rank - i % 7;
  before = stats();
  ASSERT_EQ(MPI_Allreduce(in, out, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD), MPI_SUCCESS);
  after = stats();
  for (int i = 0; i < n; ++i) ASSERT_EQ(out[i], 100.0 * ranks * (ranks - 1) / 2.0 - ranks * (i % 7)) << i;
  if (mapped) {
    EXPECT_GE(after.reg_cache_invalidations, before.reg_cache_invalidations + 1);
  }
  // Small requests stay with the library, whose MPI_Free_mem takes them back.
  void* small = nullptr;
  ASSERT_EQ(MPI_Alloc_mem(64, MPI_INFO_NULL, &small), MPI_SUCCESS);
  EXPECT_EQ(MPI_Free_mem(small), MPI_SUCCESS);
  EXPECT_EQ(MPI_Free_mem(in), MPI_SUCCESS);
  EXPECT_EQ(MPI_Free_mem(out), MPI_SUCCESS);
}

TEST(CollInterpose, CApiArguments) {
  EXPECT_EQ(ferry_coll_get_stats(nullptr, 0), MPI_ERR_ARG);
  EXPECT_EQ(ferry_coll_alloc(16, nullptr), MPI_ERR_ARG);
  int x = 0;
  EXPECT_EQ(ferry_coll_free(&x), MPI_ERR_ARG) << "not from ferry_coll_alloc";
  void* p = nullptr;
  EXPECT_EQ(ferry_coll_alloc(SIZE_MAX, &p), MPI_ERR_NO_MEM) << "a negative count cast to size_t";
  EXPECT_EQ(p, nullptr);
  ASSERT_EQ(ferry_coll_alloc(4096, &p), MPI_SUCCESS);
  EXPECT_EQ(ferry_coll_free(p), MPI_SUCCESS);
  // A caller built against a smaller struct gets only its part.
  ferry_coll_stats s;
  std::memset(&s, 0xff, sizeof s);
  ASSERT_EQ(ferry_coll_get_stats(&s, sizeof(uint64_t)), MPI_SUCCESS);
  EXPECT_EQ(s.library_calls, UINT64_MAX) << "untouched beyond the given size";
  char text[16];
  MPI_Comm never;
  MPI_Comm_dup(MPI_COMM_WORLD, &never);
  ASSERT_EQ(ferry_coll_describe(never, text, sizeof text), MPI_SUCCESS);
  EXPECT_EQ(std::strlen(text), sizeof text - 1) << "truncated and terminated";
  MPI_Comm_free(&never);
}

}  // namespace
