// The node-local reduction step: one rank folds its share of a chunk over the inputs of all
// ranks of its node, in node-local rank order:
//
//     dst = ((in_0 OP in_1) OP in_2) ... OP in_{k-1}
//
// That order is fixed and documented (docs/collectives.md), so the node's result does not
// depend on timing. The fold runs in blocks that stay in cache; operands a peer's memory
// holds are read in place where mapped, else with one process_vm_readv per block.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "coll/buffer_ref.h"
#include "coll/reduce_kernels.h"
#include "platform/copy.h"
#include "platform/status.h"

namespace ferry::coll {

// Per-thread scratch of the fold (three blocks), allocated once. Each is page-aligned with a
// page to spare: a block that process_vm_readv/writev moves sits at the page offset of the
// peer's address, so that the kernel's copy never meets the 4 KiB-aliasing stall (copy.h).
struct FoldScratch {
  static constexpr size_t kBlock = 128 * 1024;  // a multiple of every element size
  PageBytes a, b, acc;
  static FoldScratch& forThisThread();
};

// dst[off, off + len) = fold of src[i][off, off + len) over i, in order. `dst` may be one of
// the sources (MPI_IN_PLACE): the fold then keeps its partial results aside until it has
// read that source.
Status foldInto(std::span<const BufferRef> src, const BufferRef& dst, size_t off, size_t len, const ReduceOp& op);

// dst[off, off + len) = src[off, off + len); at least one of them must be local or mapped.
Status copyRange(const BufferRef& src, const BufferRef& dst, size_t off, size_t len);

}  // namespace ferry::coll
