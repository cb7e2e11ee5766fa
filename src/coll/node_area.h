// The shared segment of one node: a control line per node-local rank, one for the leader,
// and the staging slots. Every counter only grows, across calls as well as chunks, so
// nothing is ever reset and a late reader can never confuse one call's flag with another's.
// Each line is written by its owner only; the others read it.
//
//   | header | RankLine 0 .. k-1 | LeaderLine | inputs[k][depth][input slot] | results[depth][slot] |
//
// Inputs serve the two-copy path; results serve it too, and the single-copy path wherever
// a receive buffer is not in the shared heap (single_copy.cpp). Where single copy works,
// the two-copy path runs only small messages, so its input slots are only that large.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "coll/shared_heap.h"

namespace ferry::coll {

static_assert(std::atomic<uint64_t>::is_always_lock_free, "flags live in memory shared between processes");

// What one rank passed to one call, as it publishes it to the node: MPI requires the same
// count, element type and op on every rank, and Ferry checks that within the node.
struct CallSignature {
  uint64_t bytes = 0;
  uint8_t elem = 0;  // coll::Elem
  uint8_t op = 0;    // coll::OpKind
  bool operator==(const CallSignature&) const = default;
};

// One buffer of one call, as its owner publishes it to the node.
struct BufferDesc {
  uint64_t addr = 0;  // address in the owner
  HeapBlock block;    // the shared-heap block that holds it (block.gen == 0: none)
};

struct alignas(64) RankLine {
  std::atomic<uint64_t> posted;     // call number whose `send`/`recv` below are valid
  std::atomic<uint64_t> stagedIn;   // chunks whose input this rank copied into its slot
  std::atomic<uint64_t> reduced;    // chunks whose share this rank reduced
  std::atomic<uint64_t> delivered;  // chunks whose result this rank has in its buffer
  std::atomic<uint64_t> finished;   // last call this rank is completely done with
  std::atomic<uint64_t> interDone;  // FERRY_COLL_LEADERS=all: chunks whose share this rank
                                    // reduced across nodes
  std::atomic<uint64_t> failed;     // last call this rank failed: its peers fail it too
  BufferDesc send;
  BufferDesc recv;
  // Indexed by call number % 2: a peer can be one call ahead of this rank (the staged path
  // returns without waiting for the others), so the entry for the call a reader is in stays
  // put while it reads it. Only after failed calls, which do not wait for the node, can a
  // peer be two ahead: readers skip it (Pipeline::postedSignaturesAgree).
  CallSignature signature[2];
};

struct alignas(64) LeaderLine {
  std::atomic<uint64_t> interDone;  // chunks the inter-node stage has finished
};

class NodeArea {
 public:
  static size_t bytesFor(int localSize, int depth, size_t inputSlotBytes, size_t slotBytes);

  NodeArea() = default;
  NodeArea(uint8_t* base, int localSize, int depth, size_t inputSlotBytes, size_t slotBytes);

  RankLine& line(int localRank) const { return lines_[localRank]; }
  LeaderLine& leader() const { return *leader_; }
  // Staging slots: rank `r`'s input of a chunk (staged path), and the chunk's result.
  uint8_t* input(int r, size_t slot) const {
    return inputs_ + (static_cast<size_t>(r) * depth_ + slot) * inputSlotBytes_;
  }
  uint8_t* result(size_t slot) const { return results_ + slot * slotBytes_; }
  size_t inputSlotBytes() const { return inputSlotBytes_; }
  size_t slotBytes() const { return slotBytes_; }
  int depth() const { return depth_; }

  // The lowest value of one counter over all ranks of the node.
  uint64_t lowest(std::atomic<uint64_t> RankLine::*counter) const;

 private:
  RankLine* lines_ = nullptr;
  LeaderLine* leader_ = nullptr;
  uint8_t* inputs_ = nullptr;
  uint8_t* results_ = nullptr;
  int localSize_ = 0;
  int depth_ = 0;
  size_t inputSlotBytes_ = 0;
  size_t slotBytes_ = 0;
};

}  // namespace ferry::coll
