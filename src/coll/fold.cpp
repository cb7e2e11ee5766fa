#include "coll/fold.h"

#include <algorithm>

namespace ferry::coll {
namespace {

// Folds one block. Partial results go straight into `dst` once no later operand is `dst`
// itself (`aliasAt`: the index of the source that is `dst`, or 0 when none is).
Status foldBlock(std::span<const BufferRef> src, const BufferRef& dst, size_t off, size_t n, const ReduceOp& op,
                 size_t aliasAt, FoldScratch& s) {
  uint8_t* dstPtr = dst.pointer() ? dst.pointer() + off : nullptr;
  auto first = src[0].view(off, n, s.a.get());
  if (!first) return first.takeStatus();
  const uint8_t* acc = *first;
  uint8_t* accAt = s.acc.get() + dst.pageOffset(off);  // where dst.write() reads it from
  for (size_t i = 1; i < src.size(); ++i) {
    auto next = src[i].view(off, n, s.b.get());
    if (!next) return next.takeStatus();
    uint8_t* out = dstPtr && i >= aliasAt ? dstPtr : accAt;
    op.fn(out, acc, *next, n / op.elemSize);
    acc = out;
  }
  return acc == dstPtr ? Status() : dst.write(off, acc, n);
}

}  // namespace

FoldScratch& FoldScratch::forThisThread() {
  thread_local FoldScratch s = [] {
    FoldScratch f;
    f.a = allocatePages(kBlock + kCopyPage);
    f.b = allocatePages(kBlock + kCopyPage);
    f.acc = allocatePages(kBlock + kCopyPage);
    return f;
  }();
  return s;
}

Status foldInto(std::span<const BufferRef> src, const BufferRef& dst, size_t off, size_t len, const ReduceOp& op) {
  if (src.size() == 1) return src[0].sameAs(dst) ? Status() : copyRange(src[0], dst, off, len);
  size_t aliasAt = 0;
  for (size_t i = 0; i < src.size(); ++i)
    if (src[i].sameAs(dst)) aliasAt = i;
  FoldScratch& s = FoldScratch::forThisThread();
  for (size_t done = 0; done < len; done += FoldScratch::kBlock) {
    size_t n = std::min(FoldScratch::kBlock, len - done);
    if (Status st = foldBlock(src, dst, off + done, n, op, aliasAt, s); !st) return st;
  }
  return {};
}

Status copyRange(const BufferRef& src, const BufferRef& dst, size_t off, size_t len) {
  if (len == 0) return {};
  if (dst.pointer()) return src.readInto(off, len, dst.pointer() + off);
  if (src.pointer()) return dst.write(off, src.pointer() + off, len);
  return Status(Errc::Internal, "copyRange between two buffers that only process_vm_readv reaches");
}

}  // namespace ferry::coll
