#include "coll/inter_stage.h"

#include <algorithm>
#include <climits>
#include <string>
#include <vector>

#include "coll/failure_notices.h"
#include "coll/plan.h"
#include "comm/mpi_check.h"

namespace ferry::coll {
namespace {

constexpr int kP2pMaxLeaders = 4;

// MPI_Iallreduce over the leaders. Open MPI and MPICH progress it inside MPI_Test, which the
// pipeline calls between its node-local steps.
class MpiInterStage final : public InterStage {
 public:
  MpiInterStage(MPI_Comm leaderComm, int depth)
      : comm_(leaderComm), notices_(leaderComm), reqs_(static_cast<size_t>(depth), MPI_REQUEST_NULL) {}
  // Requests are in flight only after a failed call. They are left as they are: MPI forbids
  // freeing or cancelling a non-blocking collective's request, and the communicator is
  // retired then (callsAfterFailure()).
  ~MpiInterStage() override = default;

  const char* name() const override { return "mpi"; }
  void beginCall(uint64_t call) override { call_ = call; }
  // The other leaders may wait in their MPI_Iallreduce for this one's, which never comes.
  void abandon() override { notices_.send(call_); }
  Status peerFailed() override { return notices_.check(call_); }

  Status start(int slot, void* buf, size_t count, const InterReduction& r) override {
    if (count > INT_MAX) return Status(Errc::Internal, "inter-node chunk of " + std::to_string(count) + " elements");
    return comm::mpiStatus(MPI_Iallreduce(MPI_IN_PLACE, buf, static_cast<int>(count), r.type, r.op, comm_,
                                          &reqs_[static_cast<size_t>(slot)]),
                           "MPI_Iallreduce(leaders)");
  }

  Result<bool> test(int slot) override {
    int done = 0;
    if (Status st = comm::mpiStatus(MPI_Test(&reqs_[static_cast<size_t>(slot)], &done, MPI_STATUS_IGNORE),
                                    "MPI_Test(inter-node allreduce)");
        !st)
      return st;
    return done != 0;
  }

 private:
  MPI_Comm comm_;
  uint64_t call_ = 0;
  FailureNotices notices_;
  std::vector<MPI_Request> reqs_;
};

}  // namespace

std::string_view interBackendName(const Settings& s, int leaders) {
  if (s.inter != "auto") return s.inter;
  // p2p avoids libnbc's per-call buffers (inter_p2p.cpp). Beyond 4 nodes it has not been
  // measured against the library's MPI_Iallreduce, which may pick better schedules there.
  return leaders <= kP2pMaxLeaders ? "p2p" : "mpi";
}

uint64_t callsAfterFailure(std::string_view backend, int depth) { return backend == "mpi" ? 0 : p2pTagCycle(depth); }

Result<std::unique_ptr<InterStage>> makeInterStage(const Settings& s, MPI_Comm leaderComm) {
  int leaders = 1;
  MPI_Comm_size(leaderComm, &leaders);
  std::string_view name = interBackendName(s, leaders);
  int depth = s.depth;
  if (name == "mpi") return std::unique_ptr<InterStage>(new MpiInterStage(leaderComm, depth));
  // No chunk is larger than FERRY_COLL_CHUNK_SIZE, except that none is smaller than one plan unit.
  if (name == "p2p")
    return makeP2pInterStage(leaderComm, depth, s.halvingMin, std::max<uint64_t>(s.chunkSize, Plan::kUnitBytes));
  return Status(Errc::InvalidArgument, "FERRY_COLL_INTER=" + std::string(name) + " names no inter-node backend");
}

}  // namespace ferry::coll
