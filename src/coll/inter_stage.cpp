#include "coll/inter_stage.h"

#include <algorithm>
#include <climits>
#include <string>
#include <vector>

#include "coll/plan.h"
#include "comm/mpi_check.h"

namespace ferry::coll {
namespace {

constexpr int kP2pMaxLeaders = 4;

// MPI_Iallreduce over the leaders. Open MPI and MPICH progress it inside MPI_Test, which the
// pipeline calls between its node-local steps.
class MpiInterStage final : public InterStage {
 public:
  MpiInterStage(MPI_Comm leaderComm, int depth) : comm_(leaderComm), reqs_(static_cast<size_t>(depth), MPI_REQUEST_NULL) {}
  ~MpiInterStage() override {
    // Only reached with requests in flight when a call failed midway; the job is ending then.
    for (auto& r : reqs_)
      if (r != MPI_REQUEST_NULL) MPI_Request_free(&r);
  }

  const char* name() const override { return "mpi"; }

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
  std::vector<MPI_Request> reqs_;
};

}  // namespace

Result<std::unique_ptr<InterStage>> makeInterStage(const Settings& s, MPI_Comm leaderComm) {
  std::string_view name = s.inter;
  int depth = s.depth;
  if (name == "auto") {
    // p2p avoids libnbc's per-call buffers (inter_p2p.cpp). Beyond 4 nodes it has not been
    // measured against the library's MPI_Iallreduce, which may pick better schedules there.
    int leaders = 1;
    MPI_Comm_size(leaderComm, &leaders);
    name = leaders <= kP2pMaxLeaders ? "p2p" : "mpi";
  }
  if (name == "mpi") return std::unique_ptr<InterStage>(new MpiInterStage(leaderComm, depth));
  // No chunk is larger than FERRY_COLL_CHUNK_SIZE, except that none is smaller than one plan unit.
  if (name == "p2p")
    return makeP2pInterStage(leaderComm, depth, s.halvingMin, std::max<uint64_t>(s.chunkSize, Plan::kUnitBytes));
  return Status(Errc::InvalidArgument, "FERRY_COLL_INTER=" + std::string(name) + " names no inter-node backend");
}

}  // namespace ferry::coll
