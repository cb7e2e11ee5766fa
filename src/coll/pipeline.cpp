#include "coll/pipeline.h"

#include <algorithm>

#include "coll/stats.h"
#include "coll/types.h"
#include "platform/copy.h"
#include "platform/parse.h"

namespace ferry::coll {

Pipeline::Pipeline(CommContext& ctx, const CallArgs& args, const Plan& plan)
    : ctx_(ctx),
      args_(args),
      plan_(plan),
      area_(ctx.area()),
      mine_(ctx.area().line(ctx.localRank())),
      me_(ctx.localRank()),
      k_(ctx.localSize()),
      seq_(ctx.beginCall()),
      base_(seq_ << kCallShift) {
  if (ctx_.inter()) ctx_.inter()->beginCall(seq_);
}

bool Pipeline::finished() const { return nextDeliver_ == plan_.chunks(); }

bool Pipeline::resultReady(size_t c) const {
  if (ctx_.numNodes() == 1) return area_.lowest(&RankLine::reduced) >= mark(c);
  if (ctx_.shareLeaders()) return area_.lowest(&RankLine::interDone) >= mark(c);
  return area_.leader().interDone.load(std::memory_order_acquire) >= mark(c);
}

// What the inter-node stage of this rank reduces of chunk `c`: the whole chunk (the leader),
// or this rank's share of it (FERRY_COLL_LEADERS=all), once the node has reduced that much.
bool Pipeline::interReady(size_t c) const {
  if (ctx_.shareLeaders()) return mine_.reduced.load(std::memory_order_acquire) >= mark(c);
  return area_.lowest(&RankLine::reduced) >= mark(c);
}

Status Pipeline::startInter(size_t c, int slot) {
  Range ch = plan_.chunk(c), part = ctx_.shareLeaders() ? plan_.share(c, me_) : ch;
  uint8_t* at = interBuffer(c) + (plan_.offset(part) - plan_.offset(ch));
  return ctx_.inter()->start(slot, at, part.size(), args_.inter);
}

void Pipeline::publishInter(size_t c) {
  if (ctx_.shareLeaders()) mine_.interDone.store(mark(c), std::memory_order_release);
  else area_.leader().interDone.store(mark(c), std::memory_order_release);
}

void Pipeline::copyResultOut(size_t c) {
  Range ch = plan_.chunk(c);
  copyBytes(args_.recv + plan_.offset(ch), area_.result(slot(c)), plan_.bytes(ch));
  stats().bytesStaged.fetch_add(plan_.bytes(ch), std::memory_order_relaxed);
}

// My own share is left out: only I reduce it, from my send buffer in place (a third of the
// bytes a rank moves per chunk with 2 ranks on a node, copy-in, reduction, copy-out, is the
// copy-in, and half of that was the own share).
bool Pipeline::stageInput() {
  size_t c = nextStage_;
  if (c == plan_.chunks() || !slotFree(c, &RankLine::reduced)) return false;
  Range ch = plan_.chunk(c), own = plan_.share(c, me_);
  uint8_t* slotStart = area_.input(me_, slot(c));
  size_t chunkOff = plan_.offset(ch);
  for (Range part : {Range{ch.begin, own.begin}, Range{own.end, ch.end}}) {
    if (part.size() == 0) continue;
    size_t off = plan_.offset(part);
    copyBytes(slotStart + (off - chunkOff), args_.send + off, plan_.bytes(part));
    stats().bytesStaged.fetch_add(plan_.bytes(part), std::memory_order_relaxed);
  }
  mine_.stagedIn.store(mark(c), std::memory_order_release);
  ++nextStage_;
  return true;
}

Result<bool> Pipeline::leaderStep() {
  InterStage* inter = ctx_.inter();
  if (!inter) return false;
  bool moved = false;
  size_t depth = static_cast<size_t>(area_.depth());
  // Start every chunk the node has finished, up to `depth` in flight.
  while (interStarted_ < plan_.chunks() && interStarted_ - interDone_ < depth && interReady(interStarted_)) {
    size_t c = interStarted_;
    if (Status st = startInter(c, static_cast<int>(c % depth)); !st)
      return st.withContext("starting the inter-node stage of chunk " + std::to_string(c));
    ++interStarted_;
    moved = true;
  }
  // Progress every chunk in flight, and publish the finished ones in order: the node
  // delivers a chunk once the counter passes it.
  bool inOrder = true;
  for (size_t c = interDone_; c < interStarted_; ++c) {
    auto done = inter->test(static_cast<int>(c % depth));
    if (!done) return done.takeStatus();
    inOrder = inOrder && *done;
    if (!inOrder) continue;
    interDone_ = c + 1;
    publishInter(c);
    stats().interChunks.fetch_add(1, std::memory_order_relaxed);
    moved = true;
  }
  return moved;
}

namespace {

// "1000 int32 (3.9 KiB) with MPI_SUM"
std::string describeCall(const CallSignature& s) {
  Elem e = static_cast<Elem>(s.elem);
  return std::to_string(s.bytes / elemSize(e)) + " " + elemName(e) + " (" + parse::formatSize(s.bytes) + ") with " +
         opName(static_cast<OpKind>(s.op));
}

}  // namespace

// "node-local rank 1 (rank 3 of comm #2; world rank 5)": how errors name a node peer.
std::string Pipeline::peerName(int r) const {
  int rank = ctx_.rankOfLocal(r), world = ctx_.worldRank(rank);
  return "node-local rank " + std::to_string(r) + " (rank " + std::to_string(rank) + " of " + ctx_.label() +
         (world != rank ? "; world rank " + std::to_string(world) : "") + ")";
}

// A rank that passed another count would have the others read past the end of its buffers,
// or wait for chunks it never sends. Once every node peer has posted this call, each one's
// signature is compared with this rank's; a rank cannot finish a call before every peer
// has posted it, so the last check, before run() returns, always has them all.
Status Pipeline::checkSignatures() {
  if (signaturesChecked_ || area_.lowest(&RankLine::posted) < seq_) return {};
  signaturesChecked_ = true;
  return postedSignaturesAgree();
}

// A peer posts this call's signature before it can fail the call, so what it posted is
// visible once its `posted` (or `failed`) is. The next call's goes to the other slot; only
// once a peer has ended the next call too (a failed call does not wait for the node) may it
// write this slot again. Such a peer is skipped, also when it gets there while this rank
// copies the slot: ending the next call comes before writing the one after, so a copy that
// the second look still finds in time was not written over.
Status Pipeline::postedSignaturesAgree() const {
  const CallSignature& mine = mine_.signature[seq_ % 2];
  auto inThisCallsSlot = [this](const RankLine& l) {
    uint64_t at = l.posted.load(std::memory_order_acquire);
    return at >= seq_ && at <= seq_ + 1 && l.finished.load(std::memory_order_acquire) <= seq_ &&
           l.failed.load(std::memory_order_acquire) <= seq_;
  };
  for (int r = 0; r < k_; ++r) {
    const RankLine& line = area_.line(r);
    if (r == me_ || !inThisCallsSlot(line)) continue;
    CallSignature theirs = line.signature[seq_ % 2];
    std::atomic_thread_fence(std::memory_order_acquire);
    if (!inThisCallsSlot(line) || theirs == mine) continue;
    return Status(Errc::InvalidArgument,
                  peerName(r) + " passed " + describeCall(theirs) + ", this rank " + describeCall(mine) +
                      "; MPI requires every rank to pass the same count, datatype and op to MPI_Allreduce: check "
                      "the arguments of this call on each rank");
  }
  return {};
}

// A peer that failed on a mismatch with this rank may do so before this rank compared the
// two: its notice must not hide the mismatch, which this rank reports as its own (MPI_ERR_ARG
// on every rank that disagrees, whichever looked first).
Status Pipeline::checkPeersFailed() const {
  for (int r = 0; r < k_; ++r) {
    // Failed this call: `failed` may already name a later one (failed calls do not wait for
    // the node), but a peer cannot finish a call this rank has not posted, so one that has
    // not finished this call and failed this or a later one failed this one.
    const RankLine& line = area_.line(r);
    if (r == me_ || line.failed.load(std::memory_order_acquire) < seq_ ||
        line.finished.load(std::memory_order_acquire) >= seq_)
      continue;
    if (Status st = postedSignaturesAgree(); !st) return st;
    return Status(Errc::Unavailable,
                  peerName(r) + " failed this call, so this rank cannot finish it; that rank's error says why");
  }
  return {};
}

Status Pipeline::run() {
  Waiter waiter(ctx_.timeoutSeconds(), ctx_.spinNs(), ctx_.pids(), [this](int r) { return peerName(r); });
  Status st = runSteps(waiter);
  if (st) return st;
  mine_.failed.store(seq_, std::memory_order_release);  // first: node peers stop waiting
  if (ctx_.inter()) ctx_.inter()->abandon();
  return st;
}

Status Pipeline::runSteps(Waiter& waiter) {
  publish();
  // The slot's last reader, a peer still in the call before last, checks that this rank has
  // not ended the previous call yet (postedSignaturesAgree): that end is ordered before
  // the overwrite. Free on x86.
  std::atomic_thread_fence(std::memory_order_release);
  mine_.signature[seq_ % 2] = args_.signature;
  mine_.posted.store(seq_, std::memory_order_release);
  if (Status st = begin(waiter); !st) return st;
  while (!finished()) {
    if (Status st = checkSignatures(); !st) return st;
    bool moved = false;
    for (auto step : {&Pipeline::stageNext, &Pipeline::reduceNext, &Pipeline::leaderStep, &Pipeline::deliverNext}) {
      auto r = (this->*step)();
      if (!r) return r.takeStatus();
      moved = moved || *r;
    }
    if (moved) {
      waiter.progressed();
      continue;
    }
    if (Status st = checkPeersFailed(); !st) return st;
    auto remote = [this] { return ctx_.inter() ? ctx_.inter()->peerFailed() : Status(); };
    if (Status st = waiter.idle([this] { return waitingFor(); }, remote); !st) return st;
  }
  if (Status st = checkSignatures(); !st) return st;
  mine_.finished.store(seq_, std::memory_order_release);
  return end(waiter);
}

std::string Pipeline::waitingFor() const {
  // Each rank's progress in this call, as chunks staged/reduced/delivered.
  auto rel = [this](uint64_t v) { return v <= base_ ? std::string("0") : std::to_string(v - base_); };
  // Ranks are named as in the communicator (and MPI_COMM_WORLD), which the user knows.
  std::string s = "in call " + std::to_string(seq_) + " on " + ctx_.label() + " (" + std::to_string(plan_.chunks()) +
                  " chunks); chunks staged/reduced/delivered by the ranks of this node:";
  for (int r = 0; r < k_; ++r) {
    const RankLine& l = area_.line(r);
    s += " " + ctx_.rankName(ctx_.rankOfLocal(r)) + (r == me_ ? " (this rank)" : "") + ": ";
    if (l.posted.load() < seq_) {
      s += "not in this call yet;";
      continue;
    }
    s += rel(l.stagedIn.load()) + "/" + rel(l.reduced.load()) + "/" + rel(l.delivered.load()) +
         (l.finished.load() >= seq_ ? " (finished)" : "") + ";";
  }
  if (ctx_.numNodes() == 1) return s;
  // Which of the other nodes is late cannot be told from here: name who the stage waits on.
  std::string partners;
  for (int r : ctx_.interPartners()) partners += (partners.empty() ? "" : ", ") + ctx_.rankName(r);
  s += " the inter-node stage, with " + partners + " on the other nodes, finished " +
       rel(ctx_.shareLeaders() ? area_.lowest(&RankLine::interDone) : area_.leader().interDone.load()) + " chunks";
  return s;
}

}  // namespace ferry::coll
