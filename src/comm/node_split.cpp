#include "comm/node_split.h"

#include <algorithm>
#include <map>

#include "comm/mpi_check.h"

namespace ferry::comm {

int virtualBlock(int localRank, int localSize, int k) {
  k = std::max(1, std::min(k, localSize));
  return static_cast<int>(static_cast<long>(localRank) * k / localSize);
}

Result<NodeSplit> splitNodes(MPI_Comm comm, int virtualNodes) {
  NodeSplit s;
  int rank = 0, size = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);

  MPI_Comm phys = MPI_COMM_NULL;
  if (Status st = mpiStatus(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &phys),
                            "MPI_Comm_split_type(SHARED)");
      !st)
    return st;
  int physRank = 0, physSize = 0, physLowest = rank;
  MPI_Comm_rank(phys, &physRank);
  MPI_Comm_size(phys, &physSize);
  Status lowest =
      mpiStatus(PMPI_Allreduce(&rank, &physLowest, 1, MPI_INT, MPI_MIN, phys), "PMPI_Allreduce(node's lowest rank)");
  MPI_Comm_free(&phys);
  if (!lowest) return lowest;

  // Key of my virtual node: (lowest rank of my physical node, my block in it).
  int block = virtualBlock(physRank, physSize, virtualNodes);
  int key[2] = {physLowest, block};
  std::vector<int> keys(2 * static_cast<size_t>(size));
  if (Status st = mpiStatus(MPI_Allgather(key, 2, MPI_INT, keys.data(), 2, MPI_INT, comm), "MPI_Allgather(node keys)");
      !st)
    return st;

  // Number nodes in order of their lowest rank, so that ids are stable and documented.
  std::map<std::pair<int, int>, int> nodeIds;
  std::map<int, int> physIds;
  s.nodeOfRank.resize(size);
  s.physNodeOfRank.resize(size);
  for (int r = 0; r < size; ++r) {
    auto k = std::make_pair(keys[2 * r], keys[2 * r + 1]);
    auto [it, fresh] = nodeIds.emplace(k, static_cast<int>(nodeIds.size()));
    s.nodeOfRank[r] = it->second;
    auto [pit, pfresh] = physIds.emplace(keys[2 * r], static_cast<int>(physIds.size()));
    s.physNodeOfRank[r] = pit->second;
  }
  s.node = s.nodeOfRank[rank];
  s.physNode = s.physNodeOfRank[rank];
  s.numNodes = static_cast<int>(nodeIds.size());

  if (Status st = mpiStatus(MPI_Comm_split(comm, s.node, rank, &s.nodeComm), "MPI_Comm_split(node)"); !st) return st;
  MPI_Comm_rank(s.nodeComm, &s.localRank);
  MPI_Comm_size(s.nodeComm, &s.localSize);
  int color = s.localRank == 0 ? 0 : MPI_UNDEFINED;
  if (Status st = mpiStatus(MPI_Comm_split(comm, color, rank, &s.leaderComm), "MPI_Comm_split(leaders)"); !st)
    return st;
  return s;
}

}  // namespace ferry::comm
