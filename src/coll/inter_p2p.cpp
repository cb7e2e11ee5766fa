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
//
// A leader that fails a call tells the others (failure_notices.h), since they may be waiting
// for its messages. Messages of a failed call may be left unreceived (a leader that failed
// before it posted its receives); their tags carry the call's number, so that a later
// call's receives never take them, and the communicator's context hands its calls to the
// library before the tags come round to a failed call's (p2pTagCycle(),
// CommContext::callFailed()).
#include <algorithm>
#include <array>
#include <memory>
#include <string>
#include <vector>

#include "comm/mpi_check.h"
#include "coll/failure_notices.h"
#include "coll/inter_stage.h"
#include "coll/p2p_schedule.h"
#include "platform/copy.h"

namespace ferry::coll {
namespace {

constexpr int kTagBase = 100;  // data: kTagBase + (call mod cycle) * depth + slot
static_assert(FailureNotices::kTag < kTagBase);

class P2pInterStage final : public InterStage {
 public:
  P2pInterStage(MPI_Comm comm, int depth, uint64_t halvingMin, uint64_t maxChunkBytes)
      : comm_(comm),
        notices_(comm),
        halvingMin_(halvingMin),
        maxChunkBytes_(maxChunkBytes),
        ops_(static_cast<size_t>(depth)) {
    MPI_Comm_rank(comm, &rank_);
    MPI_Comm_size(comm, &size_);
    tagCycle_ = p2pTagCycle(depth);
  }

  ~P2pInterStage() override { settle(); }

  void beginCall(uint64_t call) override { call_ = call; }

  void abandon() override {
    settle();
    notices_.send(call_);
  }

  Status peerFailed() override { return notices_.check(call_); }

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
    // Page-aligned, like the slots the partners send from: the copy into it (the kernel's,
    // for a single-copy MPI library) then never meets the 4 KiB-aliasing stall (copy.h).
    if (!op.scratch) op.scratch = allocatePages(maxChunkBytes_);  // untouched until used
    return op.done ? Status() : post(op, slot);
  }

  Result<bool> test(int slot) override {
    Op& op = ops_[static_cast<size_t>(slot)];
    while (!op.done) {
      int finished = 0;
      std::array<MPI_Status, 2> statuses;
      int rc = MPI_Testall(2, op.reqs.data(), &finished, statuses.data());
      if (rc != MPI_SUCCESS || finished)
        if (Status st = checkStep(op, rc, statuses); !st) return st;
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
  // After a failed call (abandon()) or at the end: the other leaders posted the same steps
  // of the chunks they started, so most exchanges in flight complete (with an error where
  // sizes disagree) once progressed: they get a second, unless their partner has said that
  // it failed the call (it may never post its side). A send still in flight then is left
  // to complete on its own (cancelling sends is deprecated); a receive is cancelled and
  // waited for, which MPI guarantees to return whatever the other side does (MPI 4.0,
  // 3.8.4), so none writes into a buffer after this.
  void settle() {
    double deadline = MPI_Wtime() + 1.0;
    auto waiting = [this] {
      (void)notices_.check(call_);  // reads the notices that came meanwhile
      return anyInFlightWithLivePartner();
    };
    while (MPI_Wtime() < deadline && waiting())
      for (Op& op : ops_)
        for (MPI_Request& r : op.reqs) {
          int done = 0;
          if (r != MPI_REQUEST_NULL && MPI_Test(&r, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS) r = MPI_REQUEST_NULL;
        }
    for (Op& op : ops_) {
      if (op.reqs[0] != MPI_REQUEST_NULL) MPI_Request_free(&op.reqs[0]);
      if (op.reqs[1] != MPI_REQUEST_NULL) {
        MPI_Cancel(&op.reqs[1]);
        MPI_Wait(&op.reqs[1], MPI_STATUS_IGNORE);
      }
      op.done = true;
    }
  }

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
    // Kept across calls (no fresh pages per chunk), and as large as any chunk (see post()).
    PageBytes scratch;
  };

  Status post(Op& op, int slot) {
    const P2pStep& st = op.steps[op.step];
    int tag = kTagBase + static_cast<int>((call_ % tagCycle_) * ops_.size()) + slot;
    if (st.sendLen > 0)
      if (Status s = comm::mpiStatus(MPI_Isend(op.buf + st.sendOff, static_cast<int>(st.sendLen), MPI_BYTE, st.peer,
                                               tag, comm_, &op.reqs[0]),
                                     "MPI_Isend(inter-node)", st.peer);
          !s)
        return s;
    if (st.recvLen == 0) return {};
    // A reduce step receives into scratch, with room for a whole chunk of any leader: where
    // the ranks passed different counts (an erroneous program), a partner's message may be
    // longer than this rank's plan says, and Open MPI 4.1's shared-memory path writes a
    // truncated message past the end of the receive (checked: 64 of 64 guard bytes
    // overwritten). checkStep() then sees the length and fails the call. Every chunk's first
    // step reduces, so the direct receives of later steps only run on plans that agree.
    bool intoScratch = st.reduce;
    uint8_t* into = intoScratch ? op.scratch.get() : op.buf + st.recvOff;
    size_t room = intoScratch ? maxChunkBytes_ : st.recvLen;
    return comm::mpiStatus(MPI_Irecv(into, static_cast<int>(room), MPI_BYTE, st.peer, tag, comm_, &op.reqs[1]),
                           "MPI_Irecv(inter-node)", st.peer);
  }

  bool anyInFlightWithLivePartner() const {
    for (const Op& op : ops_) {
      bool inFlight = op.reqs[0] != MPI_REQUEST_NULL || op.reqs[1] != MPI_REQUEST_NULL;
      if (inFlight && !notices_.failed(call_, op.steps[op.step].peer)) return true;
    }
    return false;
  }

  // A step's messages are as long as the plan says on both sides, unless the ranks passed
  // different counts (an erroneous program: the plans differ). Then a message is longer
  // or shorter than expected (longer ones fit: see post(); a truncated one is reported
  // too); either way the call fails and says why, instead of reducing a partial chunk.
  // Peers are node numbers: leaders are numbered as their nodes.
  Status checkStep(const Op& op, int rc, const std::array<MPI_Status, 2>& statuses) const {
    const P2pStep& st = op.steps[op.step];
    int got = static_cast<int>(st.recvLen);
    if (rc == MPI_ERR_IN_STATUS) {
      for (const MPI_Status& s : statuses) {
        if (s.MPI_ERROR == MPI_SUCCESS || s.MPI_ERROR == MPI_ERR_PENDING) continue;
        int cls = 0;
        MPI_Error_class(s.MPI_ERROR, &cls);
        if (cls != MPI_ERR_TRUNCATE) return comm::mpiStatus(s.MPI_ERROR, "inter-node exchange", st.peer);
        got = -1;  // more than expected
      }
    } else if (rc != MPI_SUCCESS) {
      return comm::mpiStatus(rc, "MPI_Testall(inter-node exchange)", st.peer);
    } else if (st.recvLen > 0) {
      MPI_Get_count(&statuses[1], MPI_BYTE, &got);
    }
    if (got == static_cast<int>(st.recvLen)) return {};
    return Status(Errc::InvalidArgument,
                  "the leader of node " + std::to_string(st.peer) + " sent " +
                      (got < 0 ? "more than the " + std::to_string(st.recvLen) + " bytes this rank expected"
                               : std::to_string(got) + " bytes where this rank expected " + std::to_string(st.recvLen)) +
                      " in a step of the leaders' exchange: the ranks passed different counts, datatypes or ops to "
                      "this call, which MPI requires to be the same on every rank");
  }

  // After a step's messages: fold the partner's partial in, the lower rank's first.
  void reduce(Op& op) const {
    const P2pStep& st = op.steps[op.step];
    if (!st.reduce) return;
    uint8_t* mine = op.buf + st.recvOff;
    size_t n = st.recvLen / op.kernel.elemSize;
    if (st.peer < rank_) op.kernel.fn(mine, op.scratch.get(), mine, n);
    else op.kernel.fn(mine, mine, op.scratch.get(), n);
  }

  MPI_Comm comm_;
  int rank_ = 0, size_ = 1;
  uint64_t call_ = 0;
  uint64_t tagCycle_ = 1;  // calls before a data tag repeats
  FailureNotices notices_;
  uint64_t halvingMin_;
  uint64_t maxChunkBytes_;  // no leader's chunk is larger: FERRY_COLL_CHUNK_SIZE is agreed
  std::vector<Op> ops_;
};

}  // namespace

// MPI_TAG_UB, an attribute of MPI_COMM_WORLD, is the same on every rank, so every rank
// computes the same cycle, leader or not. MPI guarantees tags up to at least 32767.
uint64_t p2pTagCycle(int depth) {
  int* tagUb = nullptr;
  int found = 0;
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &tagUb, &found);
  int ub = found && tagUb ? *tagUb : 32767;
  return static_cast<uint64_t>(std::max(1, (ub - kTagBase + 1) / std::max(depth, 1)));
}

std::unique_ptr<InterStage> makeP2pInterStage(MPI_Comm leaderComm, int depth, uint64_t halvingMin,
                                              uint64_t maxChunkBytes) {
  return std::make_unique<P2pInterStage>(leaderComm, depth, halvingMin, maxChunkBytes);
}

}  // namespace ferry::coll
