// The inter-node stage of the hierarchical allreduce: the node leaders reduce each chunk's
// node result across nodes, in place, without blocking, so that the node can reduce the next
// chunks meanwhile. It is an interface so that another backend (an in-network reduction such
// as SHARP through UCC) can take the place of the two here: implement start/test, add a name
// to FERRY_COLL_INTER's choices and to makeInterStage().
//   mpi   MPI_Iallreduce over the leaders (the library's algorithm and progress)
//   p2p   pairwise exchanges with MPI_Isend/MPI_Irecv into scratch kept per slot, reduced
//         with Ferry's kernels: recursive doubling, or reduce-scatter and allgather from
//         FERRY_COLL_HALVING_MIN bytes (inter_p2p.cpp, p2p_schedule.h)
//   auto  p2p for up to 4 nodes, mpi beyond
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>

#include "coll/reduce_kernels.h"
#include "coll/settings.h"
#include "platform/status.h"

namespace ferry::coll {

// What the leaders reduce with: the (datatype, op) to hand the library (library_ops.h), or
// Ferry's own kernel for a backend that reduces by itself.
struct InterReduction {
  MPI_Datatype type = MPI_DATATYPE_NULL;
  MPI_Op op = MPI_OP_NULL;
  ReduceOp kernel;
};

class InterStage {
 public:
  virtual ~InterStage() = default;
  virtual const char* name() const = 0;
  // Before a call's first start(): the call's number, the same on every leader
  // (CommContext::beginCall()).
  virtual void beginCall(uint64_t call) {}
  // Starts reducing `count` elements at `buf` across the leaders, in place. `slot` (below
  // the depth given at creation) names the operation until test() reports it finished;
  // every leader starts the same chunks in the same order.
  virtual Status start(int slot, void* buf, size_t count, const InterReduction& r) = 0;
  // Makes progress; true once the operation in `slot` has finished and its result is in the
  // buffer, and from then on until the slot is started again.
  virtual Result<bool> test(int slot) = 0;
  // After a call failed: settle what is still in flight, so that no message lands in a
  // buffer after the call has returned, and tell the other leaders, which may be waiting
  // for this one's messages (failure_notices.h). MPI_Iallreduce cannot be cancelled: the
  // mpi backend leaves it in flight, and its communicator serves no later call
  // (callsAfterFailure()).
  virtual void abandon() {}
  // While the pipeline waits: fails if another leader has said that it failed this call.
  virtual Status peerFailed() { return {}; }
};

// The backend FERRY_COLL_INTER names, over the leaders' communicator.
Result<std::unique_ptr<InterStage>> makeInterStage(const Settings& s, MPI_Comm leaderComm);
// Which backend makeInterStage() makes for `leaders` leaders: FERRY_COLL_INTER with "auto"
// resolved. The same on every rank, leader or not.
std::string_view interBackendName(const Settings& s, int leaders);
// How many calls after a failed one can still use the backend. None for mpi: a leader's
// MPI_Iallreduce left unmatched by a failed leader would be matched by that leader's first
// MPI_Iallreduce of the next call (collectives match in order), which would then reduce the
// wrong chunks or wait for ever. The p2p backend's tags carry the call's number, so later
// calls never take a failed one's messages, until its tags repeat (p2pTagCycle()).
uint64_t callsAfterFailure(std::string_view backend, int depth);
// The calls before the p2p backend's data tags repeat, with `depth` slots: over 67 million
// with MPICH's MPI_TAG_UB (2^28 - 1), 8 thousand with the least MPI allows (32767).
uint64_t p2pTagCycle(int depth);
// The p2p backend (inter_p2p.cpp): chunks of at least `halvingMin` bytes are reduced by
// reduce-scatter and allgather, smaller ones by recursive doubling.
// `maxChunkBytes` bounds every leader's chunk (FERRY_COLL_CHUNK_SIZE).
std::unique_ptr<InterStage> makeP2pInterStage(MPI_Comm leaderComm, int depth, uint64_t halvingMin,
                                              uint64_t maxChunkBytes);

}  // namespace ferry::coll
