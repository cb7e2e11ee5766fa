// What a context has issued through MPI and not yet completed at the target: quiet and fence
// on that context flush those windows (and that PE, where it was one) only. Each context
// keeps its own record, so that a thread's quiet on its private context neither waits for
// nor completes another thread's transfers to other PEs, and contexts on different threads
// never write the same cache line on their hot path.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <deque>
#include <mutex>

namespace ferry::shmem {

// The library's heap and data windows, and the context's own heap window (Ctx::heapWin).
inline constexpr uint8_t kHeapWin = 1, kDataWin = 2, kCtxWin = 4;
// The one PE the operations went to (kNoPe: none, kManyPes: several).
inline constexpr int kNoPe = -1, kManyPes = -2;

struct Pending {
  std::atomic<uint8_t> wins{0};  // kHeapWin | kDataWin | kCtxWin
  std::atomic<int> pe{kNoPe};
  // Operands MPI reads after an atomic call returned (non-blocking fetches and every
  // non-fetching op): kept until this context's quiet. The mutex keeps a quiet on another
  // thread (a shared context) from freeing them between their copy and the MPI call.
  std::mutex operandsMutex;
  std::deque<std::array<uint64_t, 2>> operands;
  std::atomic<size_t> kept{0};  // operands.size(), readable without the lock
};

}  // namespace ferry::shmem
