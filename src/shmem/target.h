// Where the bytes of a symmetric address are in another PE, and which path reaches them:
// a load/store through the node's heap segment, CMA to a same-node PE's static data, or
// MPI-3 RMA on one of the two windows.
#pragma once

#include <mpi.h>
#include <sys/types.h>

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "shmem/runtime.h"

namespace ferry::shmem {

struct Target {
  enum class Via : uint8_t { Direct, Cma, Window };
  Via via = Via::Direct;
  bool inHeap = false;
  int pe = 0;              // world PE
  uint8_t* ptr = nullptr;  // Direct
  uint64_t addr = 0;       // Cma: the address in that PE
  pid_t pid = 0;           // Cma
  MPI_Win win = MPI_WIN_NULL;
  MPI_Aint disp = 0;       // Window
  uint8_t winBit = 0;      // Window: kHeapWin or kDataWin
};

// Resolves [addr, addr + len) of this PE's symmetric memory in world PE `pe`; a range
// outside the symmetric heap and the static data is a misuse of `call`.
Target resolve(Runtime& r, const void* addr, size_t len, int pe, const char* call);
// The same for an atomic: the window unless CPU atomics are safe (Runtime::directAmo).
Target resolveAtomic(Runtime& r, const void* addr, size_t len, int pe, const char* call);

// The windows with RMA issued and not yet completed at the target: quiet and fence flush
// those only, so that a program that stays within a node never calls into MPI for them, and
// one that uses the heap alone pays for one window's flush.
inline constexpr uint8_t kHeapWin = 1, kDataWin = 2;
inline std::atomic<uint8_t> gPendingWins{0};
// The one PE those operations went to (kNoPe: none, kManyPes: several): quiet then flushes
// that PE alone, which costs MPI less than a flush of every PE.
inline constexpr int kNoPe = -1, kManyPes = -2;
inline std::atomic<int> gPendingPe{kNoPe};
// Called after the operation is issued: a quiet that clears a mark this call then skips
// setting again flushes after the operation began, so it completes it all the same. The
// loads first keep the common case (the same PE again) free of atomic writes.
inline void markPending(const Target& t) {
  int pe = gPendingPe.load(std::memory_order_relaxed);
  if (pe != t.pe && pe != kManyPes) {
    int expected = kNoPe;
    if (!gPendingPe.compare_exchange_strong(expected, t.pe, std::memory_order_relaxed) && expected != t.pe)
      gPendingPe.store(kManyPes, std::memory_order_relaxed);
  }
  if ((gPendingWins.load(std::memory_order_relaxed) & t.winBit) != t.winBit)
    gPendingWins.fetch_or(t.winBit, std::memory_order_release);
}

}  // namespace ferry::shmem
