// The p2p inter-node backend: pairwise exchanges over the leaders with MPI_Isend/MPI_Irecv.
//
// Why a backend of Ferry's own next to MPI_Iallreduce: Open MPI's non-blocking allreduce
// (libnbc) allocates a temporary buffer for every call, and at one call per chunk the page
// faults on those fresh pages took a third of the time with 4 ranks on 2 cores (profiled;
// 1 MiB allreduce 1150 -> 800 us without them). Here each slot keeps its scratch buffer, the
// reduction is Ferry's exact kernel (library_ops.h lists where the libraries' are not), and
// every leader computes the same bits: each pairwise step combines (lower rank's partial)
// OP (higher rank's partial).
//
// The messages of each chunk follow p2p_schedule.h: recursive doubling below
// FERRY_COLL_HALVING_MIN bytes (fewest messages), reduce-scatter and allgather from there
// (each leader moves about two chunks and reduces about one, whatever the node count). The
// order of reduction is the same either way.
#include <array>
#include <string>
#include <vector>

#include "comm/mpi_check.h"
#include "coll/inter_stage.h"
#include "coll/p2p_schedule.h"

namespace ferry::coll {
namespace {

constexpr int kTagBase = 100;  // leaders' communicator is Ferry's own: any tag is free

class P2pInterStage final : public InterStage {
 public:
  P2pInterStage(MPI_Comm comm, int depth, uint64_t halvingMin)
      : comm_(comm), halvingMin_(halvingMin), ops_(static_cast<size_t>(depth)) {
    MPI_Comm_rank(comm, &rank_);
    MPI_Comm_size(comm, &size_);
  }

  ~P2pInterStage() override {
    // Requests are left only when a call failed midway; the job is ending then.
    for (Op& op : ops_)
      for (MPI_Request& r : op.reqs)
        if (r != MPI_REQUEST_NULL) {
          MPI_Cancel(&r);
          MPI_Request_free(&r);
        }
  }

  const char* name() const override { return "p2p"; }

  Status start(int slot, void* buf, size_t count, const InterReduction& r) override {
    Op& op = ops_[static_cast<size_t>(slot)];
    op.buf = static_cast<uint8_t*>(buf);
    op.bytes = count * r.kernel.elemSize;
    op.kernel = r.kernel;
    auto algorithm = op.bytes >= halvingMin_ ? P2pAlgorithm::Halving : P2pAlgorithm::Doubling;
    PlanKey key{count, r.kernel.elemSize, algorithm};
    if (op.planned != key) {
      op.steps = planP2pSteps(rank_, size_, count, r.kernel.elemSize, algorithm);
      op.planned = key;
    }
    op.step = 0;
    op.done = op.steps.empty();
    if (op.scratch.size() < op.bytes) op.scratch.resize(op.bytes);
    return op.done ? Status() : post(op, slot);
  }

  Result<bool> test(int slot) override {
    Op& op = ops_[static_cast<size_t>(slot)];
    while (!op.done) {
      int finished = 0;
      if (Status st = comm::mpiStatus(MPI_Testall(2, op.reqs.data(), &finished, MPI_STATUSES_IGNORE),
                                      "MPI_Testall(inter-node exchange)", op.steps[op.step].peer);
          !st)
        return st;
      if (!finished) return false;
      reduce(op);
      if (++op.step == op.steps.size()) {
        op.done = true;
        break;
      }
      if (Status st = post(op, slot); !st) return st;
    }
    return true;
  }

 private:
  struct PlanKey {
    size_t count = 0, elemSize = 0;
    P2pAlgorithm algorithm = P2pAlgorithm::Doubling;
    bool operator==(const PlanKey&) const = default;
  };
  struct Op {
    uint8_t* buf = nullptr;
    size_t bytes = 0;
    ReduceOp kernel;
    std::vector<P2pStep> steps;  // planned for `planned`; successive chunks mostly repeat it
    PlanKey planned;
    size_t step = 0;
    bool done = true;
    std::array<MPI_Request, 2> reqs = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    std::vector<uint8_t> scratch;  // kept across calls: no fresh pages per chunk
  };

  Status post(Op& op, int slot) {
    const P2pStep& st = op.steps[op.step];
    int tag = kTagBase + slot;
    if (st.sendLen > 0)
      if (Status s = comm::mpiStatus(MPI_Isend(op.buf + st.sendOff, static_cast<int>(st.sendLen), MPI_BYTE, st.peer,
                                               tag, comm_, &op.reqs[0]),
                                     "MPI_Isend(inter-node)", st.peer);
          !s)
        return s;
    if (st.recvLen == 0) return {};
    uint8_t* into = st.reduce ? op.scratch.data() : op.buf + st.recvOff;
    return comm::mpiStatus(MPI_Irecv(into, static_cast<int>(st.recvLen), MPI_BYTE, st.peer, tag, comm_, &op.reqs[1]),
                           "MPI_Irecv(inter-node)", st.peer);
  }

  // After a step's messages: fold the partner's partial in, the lower rank's first.
  void reduce(Op& op) const {
    const P2pStep& st = op.steps[op.step];
    if (!st.reduce) return;
    uint8_t* mine = op.buf + st.recvOff;
    size_t n = st.recvLen / op.kernel.elemSize;
    if (st.peer < rank_) op.kernel.fn(mine, op.scratch.data(), mine, n);
    else op.kernel.fn(mine, mine, op.scratch.data(), n);
  }

  MPI_Comm comm_;
  int rank_ = 0, size_ = 1;
  uint64_t halvingMin_;
  std::vector<Op> ops_;
};

}  // namespace

std::unique_ptr<InterStage> makeP2pInterStage(MPI_Comm leaderComm, int depth, uint64_t halvingMin) {
  return std::make_unique<P2pInterStage>(leaderComm, depth, halvingMin);
}

}  // namespace ferry::coll
