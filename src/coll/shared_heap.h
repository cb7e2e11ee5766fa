// Memory that same-node peers can map: ferry_coll_alloc(), and MPI_Alloc_mem under the
// interposer. Each block is its own anonymous shared segment (memfd), so a peer maps exactly
// that block and freeing it returns the memory. The table of live blocks is what lets the
// owner tell, in O(log n), whether a buffer handed to allreduce lies in one, and every
// block carries a generation number that is never reused in this process: a peer that
// cached a mapping of a freed block sees that the generation changed (see reg_cache.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>

#include "comm/shm_segment.h"
#include "platform/status.h"

namespace ferry::coll {

struct HeapBlock {
  uint64_t base = 0;  // address in the owner
  uint64_t size = 0;
  uint64_t gen = 0;   // unique per allocation in this process; 0 means "not a heap block"
  int fd = -1;        // the owner's descriptor of the segment, for /proc/<pid>/fd/<fd>
};

// Each block holds one descriptor for as long as it lives, and the descriptors are the
// program's too: a process keeps at most its soft RLIMIT_NOFILE / kFdShareOfBlocks blocks
// (128 under the common limit of 1024), and allocate() refuses more, saying so.
constexpr uint64_t kFdShareOfBlocks = 8;
size_t maxHeapBlocks();
// The largest block: the machine's memory and swap. A shared segment reserves nothing when
// it is made (memfd), so a larger request would "succeed" and the process die of SIGBUS or
// the OOM killer once it touched the pages, where malloc would have refused it.
uint64_t maxHeapBlockBytes();

class SharedHeap {
 public:
  static SharedHeap& instance();

  Result<void*> allocate(size_t bytes);
  // Frees `ptr` if it is the start of a block from allocate(); false if it is not ours.
  bool release(void* ptr);
  // The block that holds all of [addr, addr + len), if any.
  std::optional<HeapBlock> find(const void* addr, size_t len) const;
  size_t blocks() const;

 private:
  struct Entry {
    HeapBlock block;
    comm::ShmSegment segment;
  };
  mutable std::mutex mutex_;
  std::map<uint64_t, Entry> blocks_;  // by base address
  uint64_t nextGen_ = 1;
};

}  // namespace ferry::coll
