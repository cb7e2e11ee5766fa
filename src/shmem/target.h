// Where the bytes of a symmetric address are in another PE, and which path reaches them:
// a load/store through the node's heap segment, CMA to a same-node PE's static data, or
// MPI-3 RMA on one of the two windows.
#pragma once

#include <mpi.h>
#include <sys/types.h>

#include <cstddef>
#include <cstdint>

#include "shmem/pending.h"
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

struct Ctx;
// The context's record of what is pending (pending.h); nullptr is the default context.
Pending& pendingOf(Ctx* ctx);

// Called after the operation is issued: a quiet that clears a mark this call then skips
// setting again flushes after the operation began, so it completes it all the same. The
// loads first keep the common case (the same PE again) free of atomic writes.
inline void markPending(Pending& p, const Target& t) {
  int pe = p.pe.load(std::memory_order_relaxed);
  if (pe != t.pe && pe != kManyPes) {
    int expected = kNoPe;
    if (!p.pe.compare_exchange_strong(expected, t.pe, std::memory_order_relaxed) && expected != t.pe)
      p.pe.store(kManyPes, std::memory_order_relaxed);
  }
  if ((p.wins.load(std::memory_order_relaxed) & t.winBit) != t.winBit)
    p.wins.fetch_or(t.winBit, std::memory_order_release);
}

}  // namespace ferry::shmem
