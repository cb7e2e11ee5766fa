// Which ranks share a node. Nodes come from MPI_Comm_split_type(MPI_COMM_TYPE_SHARED);
// FERRY_VIRTUAL_NODES=k then cuts each physical node's ranks into k contiguous blocks, so
// that one machine runs the inter-node code paths (tests, benchmarks).
#pragma once

#include <mpi.h>

#include <vector>

#include "platform/status.h"

namespace ferry::comm {

struct NodeSplit {
  int node = 0;          // my node id: nodes are numbered by their lowest rank, in rank order
  int numNodes = 1;
  int localRank = 0;     // my rank within my node
  int localSize = 1;     // ranks on my node
  int physNode = 0;      // physical node id (before the virtual split)
  std::vector<int> nodeOfRank;      // node id of every rank of `comm`
  std::vector<int> physNodeOfRank;  // physical node id of every rank
  MPI_Comm nodeComm = MPI_COMM_NULL;    // my node's ranks, ordered by rank
  MPI_Comm leaderComm = MPI_COMM_NULL;  // node-local rank 0 of every node; NULL elsewhere
};

// Collective over `comm`. The communicators it creates belong to the caller.
Result<NodeSplit> splitNodes(MPI_Comm comm, int virtualNodes);

// Block index (0..k-1) of node-local rank `localRank` among `localSize` ranks split into k
// virtual nodes. With k >= localSize every rank is its own node.
int virtualBlock(int localRank, int localSize, int k);

}  // namespace ferry::comm
