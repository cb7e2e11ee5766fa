// The inter-node stage of the hierarchical allreduce: the node leaders reduce each chunk's
// node result across nodes, in place, without blocking, so that the node can reduce the next
// chunks meanwhile. It is an interface so that another backend (an in-network reduction such
// as SHARP through UCC) can replace MPI_Iallreduce: implement start/test, add a name to
// FERRY_COLL_INTER's choices and to makeInterStage().
#pragma once

#include <mpi.h>

#include <cstddef>
#include <memory>
#include <string_view>

#include "platform/status.h"

namespace ferry::coll {

class InterStage {
 public:
  virtual ~InterStage() = default;
  virtual const char* name() const = 0;
  // Starts reducing `count` elements of `type` at `buf` with `op` across the leaders, in
  // place. `slot` (below the depth given at creation) names the operation until test()
  // reports it finished; every leader starts the same chunks in the same order.
  virtual Status start(int slot, void* buf, size_t count, MPI_Datatype type, MPI_Op op) = 0;
  // True once the operation in `slot` has finished and its result is in the buffer.
  virtual Result<bool> test(int slot) = 0;
};

// The backend FERRY_COLL_INTER names, over the leaders' communicator.
Result<std::unique_ptr<InterStage>> makeInterStage(std::string_view name, MPI_Comm leaderComm, int depth);

}  // namespace ferry::coll
