// The documented order of reduction (docs/collectives.md): each node folds its ranks'
// inputs in node-local rank order, ((x0 + x1) + x2) + ..., and the leaders combine the
// node results with the inter-node stage. With one or two nodes that order is fixed; with
// more, the p2p backend's order is a fixed tree (interTree, inter_tree.h), whichever of its two
// algorithms a chunk takes. Ferry's result on arbitrary floating-point inputs must equal the
// fold computed here, bit for bit.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "coll/allreduce.h"
#include "comm/node_split.h"
#include "coll_test_util.h"
#include "inter_tree.h"

namespace ferry::coll::testing {
namespace {

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
