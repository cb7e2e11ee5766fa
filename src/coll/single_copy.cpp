// The single-copy data path: each rank reads its share of every chunk straight from its node
// peers' send buffers. Peers' buffers in Ferry's shared heap are mapped (through the
// registration cache) and read in place; any other buffer is read with process_vm_readv.
// Either way each input byte crosses between processes once.
//
// Where the reduced shares go. If every receive buffer the call writes is in the shared heap
// (one node: every rank's; across nodes: the leader's), or the node is one of two ranks
// alone, shares are reduced straight into the receive buffers and ranks copy the others'
// shares (one node) or the leader's chunk (across nodes) from there. Otherwise the node's
// result slots take their place: shares are reduced into a slot, the leaders reduce the
// slot across nodes, and every rank copies the chunk out with memcpy. process_vm_readv
// copies at about half the speed of memcpy and costs a system call per peer, so this takes
// k-1 of those calls, and the slower copy, off every chunk of every rank.
//
// Copy-in (IntraPath::CopyIn, where copy_probe.h measured it cheaper, or forced): a rank
// whose send buffer is not in the shared heap copies its input of each chunk into its input
// slot in the node's segment, and its peers read it there by pointer instead of through
// process_vm_readv. Results then go through the result slots unless every receive buffer
// the call writes is in the heap; buffers in the heap are still read in place.
//
// Because peers read this rank's buffers in place, a rank may return only once every peer
// of its node is done with the call (end()).
#include <atomic>
#include <memory>
#include <vector>

#include "coll/pipeline.h"
#include "coll/reg_cache.h"
#include "coll/shared_heap.h"
#include "platform/log.h"

namespace ferry::coll {
namespace {

class SingleCopy final : public Pipeline {
 public:
  SingleCopy(CommContext& ctx, const CallArgs& args, const Plan& plan, IntraPath path)
      : Pipeline(ctx, args, plan), path_(path) {}

 private:
  void publish() override;
  Status begin(Waiter& waiter) override;
  Status end(Waiter& waiter) override;
  Result<bool> stageNext() override { return copiesIn(me_) && stageInput(); }
  Result<bool> reduceNext() override;
  Result<bool> deliverNext() override;
  uint8_t* interBuffer(size_t c) override {
    return viaSlots_ ? area_.result(slot(c)) : args_.recv + plan_.offset(plan_.chunk(c));
  }

  BufferRef reach(int r, const BufferDesc& d);
  // Where my shares go: my receive buffer, or the leader's, from which the leaders reduce
  // across nodes and every rank of the node then copies the result.
  const BufferRef& reduceTarget() const { return ctx_.numNodes() > 1 ? recvs_[0] : recvs_[me_]; }
  bool recvsInHeap() const;
  // Whether node-local rank `r` copies its inputs into its input slot (copy-in, see above).
  bool copiesIn(int r) const { return path_ == IntraPath::CopyIn && area_.line(r).send.block.gen == 0; }
  bool inputsReady(size_t c) const;
  Status reduceShare(size_t c, const Range& share);
  Status deliverFromLeader(size_t c);
  Status deliverFromPeers(size_t c);

  IntraPath path_;
  bool viaSlots_ = false;  // results go through the node's slots (see above)
  std::vector<BufferRef> sends_, recvs_, shifted_;
  std::vector<std::shared_ptr<const comm::ShmSegment>> pins_;  // mappings used by this call
};

BufferDesc describeBuffer(const void* p, size_t len) {
  BufferDesc d;
  d.addr = reinterpret_cast<uint64_t>(p);
  if (auto block = SharedHeap::instance().find(p, len)) d.block = *block;
  return d;
}

void SingleCopy::publish() {
  size_t len = plan_.count() * plan_.elemSize();
  mine_.send = describeBuffer(args_.send, len);
  mine_.recv = describeBuffer(args_.recv, len);
}

BufferRef SingleCopy::reach(int r, const BufferDesc& d) {
  pid_t pid = ctx_.pids()[static_cast<size_t>(r)];
  if (d.block.gen != 0) {
    auto mapping = regCache().map(pid, d.block, d.addr, plan_.count() * plan_.elemSize());
    if (mapping) {
      pins_.push_back(*mapping);
      return BufferRef::mapped((*mapping)->data() + (d.addr - d.block.base));
    }
    static std::atomic<bool> warned{false};
    if (!warned.exchange(true))
      log::warn(log::Coll, "%s: cannot map node-local rank %d's buffer, reading it with process_vm_readv instead: %s",
                ctx_.label().c_str(), r, mapping.status().message().c_str());
  }
  return BufferRef::remote(pid, d.addr);
}

bool SingleCopy::recvsInHeap() const {
  int needed = ctx_.numNodes() > 1 ? 1 : k_;  // across nodes only the leader's is written by peers
  for (int r = 0; r < needed; ++r)
    if (area_.line(r).recv.block.gen == 0) return false;
  return true;
}

Status SingleCopy::begin(Waiter& waiter) {
  if (Status st = waitUntil(waiter, [this] { return area_.lowest(&RankLine::posted) >= seq_; }); !st)
    return st.withContext("waiting for the node's buffer addresses");
  if (Status st = checkSignatures(); !st) return st;  // before reading peers' buffers at my length
  // Decided from what the ranks published for this call, so that every rank of the node
  // agrees. On one node of two ranks, reading the peer's half costs about what copying the
  // whole chunk out of a slot costs, and measured faster at 256 KiB to 1 MiB; from three
  // ranks on, the k-1 calls per chunk cost more (docs/collectives.md, "Same-node data paths").
  // With shares reduced across nodes by every rank, each needs its share in memory of its
  // own process for MPI: the slots.
  // With copy-in, reading a peer's results in place costs what copy-in saves on its inputs.
  bool copyIn = path_ == IntraPath::CopyIn;
  viaSlots_ = !ctx_.directResults(path_) &&
              (ctx_.shareLeaders() || (!recvsInHeap() && (ctx_.numNodes() > 1 || k_ > 2 || copyIn)));
  size_t chunk = plan_.bytes(plan_.chunk(0));
  if ((viaSlots_ && chunk > area_.slotBytes()) || (copyIn && chunk > area_.inputSlotBytes()))
    return Status(Errc::Internal,
                  "a chunk of " + std::to_string(chunk) + " bytes would not fit the node's staging slots");
  sends_.resize(static_cast<size_t>(k_));
  recvs_.resize(static_cast<size_t>(k_));
  for (int r = 0; r < k_; ++r) {
    if (r == me_) {
      sends_[r] = BufferRef::local(const_cast<uint8_t*>(args_.send));
      recvs_[r] = BufferRef::local(args_.recv);
    } else {
      sends_[r] = reach(r, area_.line(r).send);
      recvs_[r] = reach(r, area_.line(r).recv);
    }
  }
  return {};
}

bool SingleCopy::inputsReady(size_t c) const {
  for (int r = 0; r < k_; ++r)
    if (r != me_ && copiesIn(r) && area_.line(r).stagedIn.load(std::memory_order_acquire) < mark(c)) return false;
  return true;
}

// Folds my share of chunk `c`, with every operand addressed from the chunk's start: a
// result slot and an input slot hold chunk c alone.
Status SingleCopy::reduceShare(size_t c, const Range& share) {
  size_t chunkOff = plan_.offset(plan_.chunk(c));
  shifted_.clear();
  for (int r = 0; r < k_; ++r)
    shifted_.push_back(r != me_ && copiesIn(r) ? BufferRef::local(area_.input(r, slot(c)))
                                               : sends_[r].advanced(chunkOff));
  BufferRef target = viaSlots_ ? BufferRef::local(area_.result(slot(c))) : reduceTarget().advanced(chunkOff);
  return foldInto(shifted_, target, plan_.offset(share) - chunkOff, plan_.bytes(share), args_.reduce);
}

Result<bool> SingleCopy::reduceNext() {
  if (nextReduce_ == plan_.chunks()) return false;
  size_t c = nextReduce_;
  if ((viaSlots_ && !slotFree(c, &RankLine::delivered)) || !inputsReady(c)) return false;
  if (Status st = reduceShare(c, plan_.share(c, me_)); !st)
    return st.withContext("reducing chunk " + std::to_string(c) + " on " + ctx_.label());
  mine_.reduced.store(mark(c), std::memory_order_release);
  ++nextReduce_;
  return true;
}

Result<bool> SingleCopy::deliverNext() {
  if (nextDeliver_ == plan_.chunks() || !resultReady(nextDeliver_)) return false;
  size_t c = nextDeliver_;
  if (viaSlots_) copyResultOut(c);
  else if (Status st = ctx_.numNodes() > 1 ? deliverFromLeader(c) : deliverFromPeers(c); !st) return st;
  mine_.delivered.store(mark(c), std::memory_order_release);
  ++nextDeliver_;
  return true;
}

Status SingleCopy::deliverFromLeader(size_t c) {
  if (ctx_.isLeader()) return {};  // the leaders reduced in place
  Range ch = plan_.chunk(c);
  if (Status st = copyRange(recvs_[0], BufferRef::local(args_.recv), plan_.offset(ch), plan_.bytes(ch)); !st)
    return st.withContext("copying chunk " + std::to_string(c) + " from the node leader on " + ctx_.label());
  return {};
}

Status SingleCopy::deliverFromPeers(size_t c) {
  BufferRef dst = BufferRef::local(args_.recv);
  for (int s = 0; s < k_; ++s) {
    if (s == me_) continue;
    Range share = plan_.share(c, s);
    if (Status st = copyRange(recvs_[s], dst, plan_.offset(share), plan_.bytes(share)); !st)
      return st.withContext("copying node-local rank " + std::to_string(s) + "'s share of chunk " + std::to_string(c) +
                            " on " + ctx_.label());
  }
  return {};
}

Status SingleCopy::end(Waiter& waiter) {
  if (Status st = waitUntil(waiter, [this] { return area_.lowest(&RankLine::finished) >= seq_; }); !st)
    return st.withContext("waiting for the node's ranks to finish with this rank's buffers");
  return {};
}

}  // namespace

Status runSingleCopy(CommContext& ctx, const CallArgs& args, const Plan& plan, IntraPath path) {
  SingleCopy p(ctx, args, plan, path);
  return p.run();
}

}  // namespace ferry::coll
