// The p2p inter-node backend: recursive doubling over the leaders with MPI_Isend/MPI_Irecv.
//
// Why a backend of Ferry's own next to MPI_Iallreduce: Open MPI's non-blocking allreduce
// (libnbc) allocates a temporary buffer for every call, and at one call per chunk the page
// faults on those fresh pages took a third of the time with 4 ranks on 2 cores (profiled;
// 1 MiB allreduce 1150 -> 800 us without them). Here each slot keeps its scratch buffer, the
// reduction is Ferry's exact kernel (library_ops.h lists where the libraries' are not), and
// every leader computes the same bits: each pairwise step combines (lower rank's partial)
// OP (higher rank's partial).
//
// Rounds, for L leaders, pof2 the largest power of two <= L and rem = L - pof2: the first
// 2*rem ranks pair up (even sends to odd, which reduces), leaving pof2 ranks; those run
// log2(pof2) exchange rounds; the odd ranks then send the result back to their even
// partner. Latency-optimal; each leader moves log2(L) chunks, so with many nodes the
// library's bandwidth-optimal algorithms (FERRY_COLL_INTER=mpi) move less.
#include <array>
#include <string>
#include <vector>

#include "comm/mpi_check.h"
#include "coll/inter_stage.h"

namespace ferry::coll {
namespace {

constexpr int kTagBase = 100;  // leaders' communicator is Ferry's own: any tag is free

enum class Kind : uint8_t {
  SendOnly,      // hand my contribution to my odd partner, then wait for the result
  RecvReduce,    // take my even partner's contribution
  Exchange,      // swap partials with the partner of this doubling round
  SendResult,    // give the result back to my even partner
  RecvResult,    // take the result from my odd partner
};

struct Round {
  Kind kind;
  int peer;
};

std::vector<Round> planRounds(int rank, int size) {
  int pof2 = 1;
  while (pof2 * 2 <= size) pof2 *= 2;
  int rem = size - pof2;
  std::vector<Round> rounds;
  int newRank = rank - rem;
  if (rank < 2 * rem) {
    if (rank % 2 == 0) return {{Kind::SendOnly, rank + 1}, {Kind::RecvResult, rank + 1}};
    rounds.push_back({Kind::RecvReduce, rank - 1});
    newRank = rank / 2;
  }
  for (int mask = 1; mask < pof2; mask <<= 1) {
    int newPeer = newRank ^ mask;
    rounds.push_back({Kind::Exchange, newPeer < rem ? newPeer * 2 + 1 : newPeer + rem});
  }
  if (rank < 2 * rem) rounds.push_back({Kind::SendResult, rank - 1});
  return rounds;
}

class P2pInterStage final : public InterStage {
 public:
  P2pInterStage(MPI_Comm comm, int depth) : comm_(comm), ops_(static_cast<size_t>(depth)) {
    int rank = 0, size = 1;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    rank_ = rank;
    rounds_ = planRounds(rank, size);
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
    op.round = 0;
    op.done = rounds_.empty();
    if (op.scratch.size() < op.bytes) op.scratch.resize(op.bytes);
    return op.done ? Status() : post(op, slot);
  }

  Result<bool> test(int slot) override {
    Op& op = ops_[static_cast<size_t>(slot)];
    while (!op.done) {
      int finished = 0;
      if (Status st = comm::mpiStatus(MPI_Testall(2, op.reqs.data(), &finished, MPI_STATUSES_IGNORE),
                                      "MPI_Testall(inter-node exchange)", rounds_[op.round].peer);
          !st)
        return st;
      if (!finished) return false;
      reduce(op);
      if (++op.round == rounds_.size()) {
        op.done = true;
        break;
      }
      if (Status st = post(op, slot); !st) return st;
    }
    return true;
  }

 private:
  struct Op {
    uint8_t* buf = nullptr;
    size_t bytes = 0;
    ReduceOp kernel;
    size_t round = 0;
    bool done = true;
    std::array<MPI_Request, 2> reqs = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    std::vector<uint8_t> scratch;  // kept across calls: no fresh pages per chunk
  };

  Status post(Op& op, int slot) {
    const Round& r = rounds_[op.round];
    int tag = kTagBase + slot, n = static_cast<int>(op.bytes);
    bool send = r.kind == Kind::SendOnly || r.kind == Kind::Exchange || r.kind == Kind::SendResult;
    bool recvScratch = r.kind == Kind::RecvReduce || r.kind == Kind::Exchange;
    if (send)
      if (Status st = comm::mpiStatus(MPI_Isend(op.buf, n, MPI_BYTE, r.peer, tag, comm_, &op.reqs[0]),
                                      "MPI_Isend(inter-node)", r.peer);
          !st)
        return st;
    if (recvScratch || r.kind == Kind::RecvResult)
      return comm::mpiStatus(MPI_Irecv(recvScratch ? op.scratch.data() : op.buf, n, MPI_BYTE, r.peer, tag, comm_,
                                       &op.reqs[1]),
                             "MPI_Irecv(inter-node)", r.peer);
    return {};
  }

  // After a round's messages: fold the partner's partial in, the lower rank's first.
  void reduce(Op& op) const {
    const Round& r = rounds_[op.round];
    if (r.kind != Kind::RecvReduce && r.kind != Kind::Exchange) return;
    size_t n = op.bytes / op.kernel.elemSize;
    if (r.peer < rank_) op.kernel.fn(op.buf, op.scratch.data(), op.buf, n);
    else op.kernel.fn(op.buf, op.buf, op.scratch.data(), n);
  }

  MPI_Comm comm_;
  int rank_ = 0;
  std::vector<Round> rounds_;
  std::vector<Op> ops_;
};

}  // namespace

std::unique_ptr<InterStage> makeP2pInterStage(MPI_Comm leaderComm, int depth) {
  return std::make_unique<P2pInterStage>(leaderComm, depth);
}

}  // namespace ferry::coll
