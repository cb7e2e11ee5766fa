// The chunk pipeline of Ferry's allreduce, shared by both same-node data paths:
//
//   for each chunk c (every rank, as soon as what it needs is there):
//     [stage]    staged path only: copy my input of c into my staging slot
//     reduce     fold my share of c over the node's inputs (node-local rank order)
//     [inter]    leader, several nodes: MPI_Iallreduce of c across the leaders, in place,
//                while the node goes on with c+1, c+2, ... (FERRY_COLL_LEADERS=all: every
//                rank, on its share of c, across the ranks of its node-local index)
//     deliver    copy the finished c into my receive buffer
//
// Each step is a short non-blocking "try"; run() loops over them and waits (waiter.h)
// only when none could move. Ranks learn about each other's progress from the monotonic
// counters in the node's shared segment (node_area.h). Subclasses supply where the data
// lives; this class supplies the order, the leader's stage and the waiting.
#pragma once

#include <mpi.h>

#include <string>

#include "coll/comm_context.h"
#include "coll/fold.h"
#include "coll/plan.h"
#include "coll/waiter.h"
#include "platform/status.h"

namespace ferry::coll {

struct CallArgs {
  const uint8_t* send = nullptr;  // == recv for MPI_IN_PLACE
  uint8_t* recv = nullptr;
  ReduceOp reduce;
  InterReduction inter;  // what the leaders reduce with across nodes
  CallSignature signature;
};

class Pipeline {
 public:
  virtual ~Pipeline() = default;
  Status run();

 protected:
  Pipeline(CommContext& ctx, const CallArgs& args, const Plan& plan);

  // Before the first chunk / after the last one (single copy: publish and learn buffer
  // addresses, and wait until no peer reads my buffers any more). publish() writes what
  // peers may read once this rank's `posted` counter reaches the call.
  virtual void publish() {}
  virtual Status begin(Waiter& waiter) { return {}; }
  virtual Status end(Waiter& waiter) { return {}; }
  virtual Result<bool> stageNext() { return false; }
  virtual Result<bool> reduceNext() = 0;
  virtual Result<bool> deliverNext() = 0;
  // Where the inter-node stage reduces chunk `c` in place (its start, also with shares).
  virtual uint8_t* interBuffer(size_t c) = 0;

  // The counter value that says "chunk c is done" in this call: the call's number above
  // the chunk's. Not a running count of chunks: ranks that passed different counts to a
  // call that failed cut it into different numbers of chunks, and their next calls must
  // still agree on every mark (a running count left them waiting for each other for ever).
  static constexpr int kCallShift = 32;  // no call has 2^32 chunks: a chunk is >= 64 bytes
  uint64_t mark(size_t c) const { return base_ + c + 1; }
  // The staging slot of chunk `c`. Chunk `c` may take it once every rank has passed chunk
  // c - depth, which used it before, through `counter`.
  size_t slot(size_t c) const { return c % static_cast<size_t>(area_.depth()); }
  bool slotFree(size_t c, std::atomic<uint64_t> RankLine::*counter) const {
    size_t depth = static_cast<size_t>(area_.depth());
    return c < depth || area_.lowest(counter) >= mark(c - depth);
  }
  // Whether chunk `c`'s result may be delivered: the node reduced it, and, with several
  // nodes, the leaders reduced it across nodes.
  bool resultReady(size_t c) const;
  // Copies chunk `c`'s result out of its result slot into this rank's receive buffer.
  void copyResultOut(size_t c);
  // Copies this rank's input of the next chunk, but for its own share, into its input slot,
  // once every rank has reduced the chunk that used the slot before, and publishes it
  // (stagedIn). A rank reduces its own share from its send buffer.
  bool stageInput();
  std::string waitingFor() const;
  std::string peerName(int localRank) const;
  // Fails the call, once every node peer has posted it, if one passed another count, type
  // or op.
  Status checkSignatures();
  // Fails the call if a node peer that has posted it passed another count, type or op.
  Status postedSignaturesAgree() const;
  // Fails the call if a node peer failed it: its chunks will never come (a leader whose
  // inter-node stage failed, say).
  Status checkPeersFailed() const;
  // A wait for `cond` on the node's counters, through the waiter (dead peers fail it).
  template <typename Cond>
  Status waitUntil(Waiter& waiter, Cond cond);

  CommContext& ctx_;
  const CallArgs& args_;
  const Plan& plan_;
  const NodeArea& area_;
  RankLine& mine_;
  int me_, k_;
  uint64_t seq_, base_;
  size_t nextStage_ = 0, nextReduce_ = 0, nextDeliver_ = 0;

 private:
  Status runSteps(Waiter& waiter);
  Result<bool> leaderStep();
  bool interReady(size_t c) const;
  Status startInter(size_t c, int slot);
  void publishInter(size_t c);
  bool finished() const;

  size_t interStarted_ = 0, interDone_ = 0;
  bool signaturesChecked_ = false;
};

template <typename Cond>
Status Pipeline::waitUntil(Waiter& waiter, Cond cond) {
  while (!cond()) {
    if (Status st = checkPeersFailed(); !st) return st;
    if (Status st = waiter.idle([this] { return waitingFor(); }); !st) return st;
  }
  waiter.progressed();
  return {};
}

// Run one call on the communicator's data path.
Status runSingleCopy(CommContext& ctx, const CallArgs& args, const Plan& plan, IntraPath path);
Status runStaged(CommContext& ctx, const CallArgs& args, const Plan& plan);

}  // namespace ferry::coll
