// The documented order of reduction (docs/collectives.md): each node folds its ranks'
// inputs in node-local rank order, ((x0 + x1) + x2) + ..., and the leaders combine the
// node results with the inter-node stage. With one or two nodes that order is fixed; with
// more, the p2p backend's order is a fixed tree (interTree below), whichever of its two
// algorithms a chunk takes. Ferry's result on arbitrary floating-point inputs must equal the
// fold computed here, bit for bit.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "coll/allreduce.h"
#include "comm/node_split.h"
#include "coll_test_util.h"

namespace ferry::coll::testing {
namespace {

// The p2p backend's tree over the node results v[0..L): with pof2 the largest power of two
// <= L and rem = L - pof2, nodes 2i and 2i+1 (i < rem) are combined first; then the pof2
// partials are combined pairwise, partners differing in bit 0, then bit 1, ..., each pair as
// (lower node's partial) + (higher node's partial).
template <typename T>
std::vector<T> interTree(std::vector<std::vector<T>> v) {
  int nodes = static_cast<int>(v.size()), pof2 = 1;
  while (pof2 * 2 <= nodes) pof2 *= 2;
  int rem = nodes - pof2;
  std::vector<std::vector<T>> w;
  for (int j = 0; j < pof2; ++j) {
    if (j >= rem) {
      w.push_back(v[static_cast<size_t>(j + rem)]);
      continue;
    }
    std::vector<T> sum = v[static_cast<size_t>(2 * j)];
    for (size_t i = 0; i < sum.size(); ++i) sum[i] = sum[i] + v[static_cast<size_t>(2 * j + 1)][i];
    w.push_back(std::move(sum));
  }
  for (int mask = 1; mask < pof2; mask <<= 1) {
    std::vector<std::vector<T>> next = w;
    for (int j = 0; j < pof2; ++j) {
      const auto& lo = w[static_cast<size_t>(std::min(j, j ^ mask))];
      const auto& hi = w[static_cast<size_t>(std::max(j, j ^ mask))];
      for (size_t i = 0; i < lo.size(); ++i) next[static_cast<size_t>(j)][i] = lo[i] + hi[i];
    }
    w = std::move(next);
  }
  return w[0];
}

template <typename T>
std::vector<T> expectedSum(const std::vector<T>& all, size_t count, const comm::NodeSplit& split, int ranks) {
  std::vector<std::vector<T>> node(static_cast<size_t>(split.numNodes));
  for (int r = 0; r < ranks; ++r) {  // rank order is node-local rank order (splitNodes keys by rank)
    auto& acc = node[static_cast<size_t>(split.nodeOfRank[r])];
    const T* x = all.data() + static_cast<size_t>(r) * count;
    if (acc.empty()) acc.assign(x, x + count);
    else
      for (size_t i = 0; i < count; ++i) acc[i] = acc[i] + x[i];
  }
  if (split.numNodes == 1) return node[0];
  return interTree(std::move(node));  // two nodes: node0 + node1, in any order the same in IEEE
}

// Whether the leaders' stage is the p2p backend, whose order across nodes is Ferry's.
bool p2pAcrossNodes(int nodes) {
  const std::string& inter = settings().inter;
  return inter == "p2p" || (inter == "auto" && nodes <= 4);  // inter_stage.cpp's auto rule
}

template <typename T>
void checkOrder(MPI_Datatype type, bool inPlace) {
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  auto split = comm::splitNodes(MPI_COMM_WORLD, settings().virtualNodes);
  ASSERT_TRUE(split.isOk()) << split.status().message();
  if (split->numNodes > 2 && !p2pAcrossNodes(split->numNodes))
    GTEST_SKIP() << "with more than two nodes and FERRY_COLL_INTER=mpi the inter-node order is the library's";
  const size_t count = 50000;  // several chunks
  std::mt19937_64 rng(static_cast<uint64_t>(rank) + 17);
  std::uniform_real_distribution<double> dist(-1e3, 1e3);
  std::vector<T> mine(count);
  for (auto& v : mine) v = static_cast<T>(dist(rng)) / static_cast<T>(3);  // not exact in binary
  std::vector<T> all(count * static_cast<size_t>(ranks));
  PMPI_Allgather(mine.data(), static_cast<int>(count), type, all.data(), static_cast<int>(count), type, MPI_COMM_WORLD);
  std::vector<T> want = expectedSum(all, count, *split, ranks);
  std::vector<T> got(count);
  int rc = MPI_SUCCESS;
  if (inPlace) {
    got = mine;
    rc = allreduceWith(forcedSettings(), MPI_IN_PLACE, got.data(), static_cast<int>(count), type, MPI_SUM, MPI_COMM_WORLD);
  } else {
    rc = allreduceWith(forcedSettings(), mine.data(), got.data(), static_cast<int>(count), type, MPI_SUM, MPI_COMM_WORLD);
  }
  ASSERT_EQ(rc, MPI_SUCCESS);
  for (size_t i = 0; i < count; ++i) ASSERT_EQ(got[i], want[i]) << "element " << i << (inPlace ? " (in place)" : "");
  MPI_Comm_free(&split->nodeComm);
  if (split->leaderComm != MPI_COMM_NULL) MPI_Comm_free(&split->leaderComm);
}

TEST(AllreduceOrder, DoubleSumFollowsTheDocumentedOrder) { checkOrder<double>(MPI_DOUBLE, false); }
TEST(AllreduceOrder, FloatSumInPlaceFollowsTheDocumentedOrder) { checkOrder<float>(MPI_FLOAT, true); }
TEST(AllreduceOrder, LongDoubleSumFollowsTheDocumentedOrder) { checkOrder<long double>(MPI_LONG_DOUBLE, false); }

}  // namespace
}  // namespace ferry::coll::testing
