// The two-copy data path, for machines where one process may not read another's memory
// (Yama, containers), and for small calls: each rank copies its input of a chunk, but for
// its own share, into its staging slot in the node's segment, the shares are reduced from
// the slots (and each rank's own input) into a result slot, and each rank copies the result
// out. `depth` slots per rank let copies of later chunks proceed while
// earlier ones are reduced; a slot is reused only once every rank is done with it. Nothing
// reads this rank's own buffers, so it may return as soon as its result is in place.
#include <vector>

#include "coll/pipeline.h"

namespace ferry::coll {
namespace {

class Staged final : public Pipeline {
 public:
  Staged(CommContext& ctx, const CallArgs& args, const Plan& plan)
      : Pipeline(ctx, args, plan), sources_(static_cast<size_t>(ctx.localSize())) {}

 private:
  Result<bool> stageNext() override { return stageInput(); }
  Result<bool> reduceNext() override;
  Result<bool> deliverNext() override;
  uint8_t* interBuffer(size_t c) override { return area_.result(slot(c)); }

  std::vector<BufferRef> sources_;
};

Result<bool> Staged::reduceNext() {
  size_t c = nextReduce_;
  if (c == plan_.chunks() || area_.lowest(&RankLine::stagedIn) < mark(c) || !slotFree(c, &RankLine::delivered))
    return false;
  Range ch = plan_.chunk(c), share = plan_.share(c, me_);
  // My own input of my share is not in my slot (stageInput()): it is read where it is.
  for (int r = 0; r < k_; ++r)
    sources_[static_cast<size_t>(r)] = BufferRef::local(r == me_ ? const_cast<uint8_t*>(args_.send) + plan_.offset(ch)
                                                                 : area_.input(r, slot(c)));
  if (Status st = foldInto(sources_, BufferRef::local(area_.result(slot(c))), plan_.offset(share) - plan_.offset(ch),
                           plan_.bytes(share), args_.reduce);
      !st)
    return st;
  mine_.reduced.store(mark(c), std::memory_order_release);
  ++nextReduce_;
  return true;
}

Result<bool> Staged::deliverNext() {
  size_t c = nextDeliver_;
  if (c == plan_.chunks() || !resultReady(c)) return false;
  copyResultOut(c);
  mine_.delivered.store(mark(c), std::memory_order_release);
  ++nextDeliver_;
  return true;
}

}  // namespace

Status runStaged(CommContext& ctx, const CallArgs& args, const Plan& plan) {
  Staged p(ctx, args, plan);
  return p.run();
}

}  // namespace ferry::coll
