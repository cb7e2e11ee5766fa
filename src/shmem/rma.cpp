// Put, get, their strided forms, put-with-signal, and the ordering calls that complete them.
#include <atomic>
#include <cstring>
#include <memory>

#include "comm/cma.h"
#include "comm/mpi_check.h"
#include "shmem/api.h"
#include "shmem/target.h"
#include "shmem/team.h"

namespace ferry::shmem {
namespace {

// MPI counts are int: a larger transfer goes in pieces of this size.
constexpr size_t kMaxMpiBytes = size_t{1} << 30;

void mpiOrDie(int rc, const char* what, int pe, const char* call) {
  if (rc == MPI_SUCCESS) [[likely]]
    return;
  misuse(call, comm::mpiStatus(rc, what, pe).message());
}

void windowPut(Ctx* ctx, const Target& t, const void* source, size_t bytes, const char* call) {
  const auto* src = static_cast<const uint8_t*>(source);
  for (size_t at = 0; at < bytes; at += kMaxMpiBytes) {
    int n = static_cast<int>(std::min(kMaxMpiBytes, bytes - at));
    mpiOrDie(MPI_Put(src + at, n, MPI_BYTE, t.pe, t.disp + static_cast<MPI_Aint>(at), n, MPI_BYTE, t.win), "MPI_Put",
             t.pe, call);
  }
  markPending(pendingOf(ctx), t);
}

// Small blocking puts across nodes copy their source into a per-thread arena that MPI reads
// from, so that they return without waiting for MPI's local completion (a flush per put, 15%
// of an 8-byte put's latency). An arena is reused only after a local flush of every window,
// which completes what this thread put from it on any context.
constexpr size_t kBounceMax = 512;
constexpr size_t kArenaBytes = 64 << 10;
struct Arena {
  std::unique_ptr<uint8_t[]> bytes{new uint8_t[kArenaBytes]};
  size_t used = 0;
};
thread_local Arena tArena;

const void* bounce(Runtime& r, const void* source, size_t bytes, const char* call) {
  Arena& a = tArena;
  if (a.used + bytes > kArenaBytes) {
    forEachWindow(r, [&](MPI_Win& w) {
      if (w != MPI_WIN_NULL) mpiOrDie(MPI_Win_flush_local_all(w), "MPI_Win_flush_local_all", r.me, call);
    });
    a.used = 0;
  }
  uint8_t* at = a.bytes.get() + a.used;
  std::memcpy(at, source, bytes);
  a.used += (bytes + 15) & ~size_t{15};
  return at;
}

void windowGet(const Target& t, void* dest, size_t bytes, const char* call) {
  auto* dst = static_cast<uint8_t*>(dest);
  for (size_t at = 0; at < bytes; at += kMaxMpiBytes) {
    int n = static_cast<int>(std::min(kMaxMpiBytes, bytes - at));
    mpiOrDie(MPI_Get(dst + at, n, MPI_BYTE, t.pe, t.disp + static_cast<MPI_Aint>(at), n, MPI_BYTE, t.win), "MPI_Get",
             t.pe, call);
  }
}

void cmaOrDie(const Status& st, const char* call) {
  if (!st) misuse(call, st.message() + " (FERRY_SHM=off makes static data travel through MPI)");
}

// Element-wise copy for the strided forms on the direct and CMA paths.
void strided(uint8_t* dst, const uint8_t* src, ptrdiff_t dstStride, ptrdiff_t srcStride, size_t n, size_t size) {
  for (size_t i = 0; i < n; ++i)
    std::memcpy(dst + static_cast<ptrdiff_t>(i) * dstStride, src + static_cast<ptrdiff_t>(i) * srcStride, size);
}

MPI_Datatype stridedType(size_t n, size_t size, ptrdiff_t strideElems) {
  MPI_Datatype t;
  MPI_Type_create_hvector(static_cast<int>(n), static_cast<int>(size),
                          static_cast<MPI_Aint>(strideElems) * static_cast<MPI_Aint>(size), MPI_BYTE, &t);
  MPI_Type_commit(&t);
  return t;
}

// The remote range a strided access touches, for resolve(): first to last element.
size_t stridedSpan(size_t n, size_t size, ptrdiff_t stride) {
  return n == 0 ? 0 : (n - 1) * static_cast<size_t>(stride) * size + size;
}

// A created context's puts and gets across nodes go on its own window (team.cpp): its
// quiet then flushes that one. Static data has one window for all.
Target onContext(Ctx* ctx, Target t) {
  if (ctx && ctx->heapWin != MPI_WIN_NULL && t.via == Target::Via::Window && t.winBit == kHeapWin) {
    t.win = ctx->heapWin;
    t.winBit = kCtxWin;
  }
  return t;
}

void checkStrides(ptrdiff_t dst, ptrdiff_t sst, const char* call) {
  if (dst < 1 || sst < 1)
    misuse(call, "strides must be positive (dst " + std::to_string(dst) + ", sst " + std::to_string(sst) + ")");
}

}  // namespace

void put(Ctx* ctx, void* dest, const void* source, size_t bytes, int pe, bool nbi, const char* call) {
  Runtime& r = rt(call);
  int wpe = worldPeOf(r, ctx, pe, call);
  if (bytes == 0) return;
  Target t = onContext(ctx, resolve(r, dest, bytes, wpe, call));
  switch (t.via) {
    case Target::Via::Direct: std::memmove(t.ptr, source, bytes); return;
    case Target::Via::Cma: return cmaOrDie(comm::cmaWrite(t.pid, t.addr, source, bytes), call);
    case Target::Via::Window:
      if (!nbi && bytes <= kBounceMax) return windowPut(ctx, t, bounce(r, source, bytes, call), bytes, call);
      windowPut(ctx, t, source, bytes, call);
      // The source may be reused when a blocking put returns: local completion.
      if (!nbi) mpiOrDie(MPI_Win_flush_local(t.pe, t.win), "MPI_Win_flush_local", t.pe, call);
      return;
  }
}

void get(Ctx* ctx, void* dest, const void* source, size_t bytes, int pe, bool nbi, const char* call) {
  Runtime& r = rt(call);
  int wpe = worldPeOf(r, ctx, pe, call);
  if (bytes == 0) return;
  Target t = onContext(ctx, resolve(r, source, bytes, wpe, call));
  switch (t.via) {
    case Target::Via::Direct: std::memmove(dest, t.ptr, bytes); return;
    case Target::Via::Cma: return cmaOrDie(comm::cmaRead(t.pid, t.addr, dest, bytes), call);
    case Target::Via::Window:
      windowGet(t, dest, bytes, call);
      // A blocking get is complete here; a non-blocking one at the next quiet.
      if (nbi) markPending(pendingOf(ctx), t);
      else mpiOrDie(MPI_Win_flush(t.pe, t.win), "MPI_Win_flush", t.pe, call);
      return;
  }
}

void iput(Ctx* ctx, void* dest, const void* source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, size_t size, int pe,
          const char* call) {
  Runtime& r = rt(call);
  int wpe = worldPeOf(r, ctx, pe, call);
  checkStrides(dst, sst, call);
  if (nelems == 0) return;
  Target t = onContext(ctx, resolve(r, dest, stridedSpan(nelems, size, dst), wpe, call));
  const auto* src = static_cast<const uint8_t*>(source);
  ptrdiff_t db = dst * static_cast<ptrdiff_t>(size), sb = sst * static_cast<ptrdiff_t>(size);
  if (t.via == Target::Via::Direct) return strided(t.ptr, src, db, sb, nelems, size);
  if (t.via == Target::Via::Cma) {
    for (size_t i = 0; i < nelems; ++i)
      cmaOrDie(comm::cmaWrite(t.pid, t.addr + i * static_cast<size_t>(db), src + static_cast<ptrdiff_t>(i) * sb, size),
               call);
    return;
  }
  MPI_Datatype origin = stridedType(nelems, size, sst), target = stridedType(nelems, size, dst);
  mpiOrDie(MPI_Put(src, 1, origin, t.pe, t.disp, 1, target, t.win), "MPI_Put(strided)", t.pe, call);
  MPI_Type_free(&origin);
  MPI_Type_free(&target);
  markPending(pendingOf(ctx), t);
  mpiOrDie(MPI_Win_flush_local(t.pe, t.win), "MPI_Win_flush_local", t.pe, call);
}

void iget(Ctx* ctx, void* dest, const void* source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, size_t size, int pe,
          const char* call) {
  Runtime& r = rt(call);
  int wpe = worldPeOf(r, ctx, pe, call);
  checkStrides(dst, sst, call);
  if (nelems == 0) return;
  Target t = onContext(ctx, resolve(r, source, stridedSpan(nelems, size, sst), wpe, call));
  auto* out = static_cast<uint8_t*>(dest);
  ptrdiff_t db = dst * static_cast<ptrdiff_t>(size), sb = sst * static_cast<ptrdiff_t>(size);
  if (t.via == Target::Via::Direct) return strided(out, t.ptr, db, sb, nelems, size);
  if (t.via == Target::Via::Cma) {
    for (size_t i = 0; i < nelems; ++i)
      cmaOrDie(comm::cmaRead(t.pid, t.addr + i * static_cast<size_t>(sb), out + static_cast<ptrdiff_t>(i) * db, size),
               call);
    return;
  }
  MPI_Datatype origin = stridedType(nelems, size, dst), target = stridedType(nelems, size, sst);
  mpiOrDie(MPI_Get(out, 1, origin, t.pe, t.disp, 1, target, t.win), "MPI_Get(strided)", t.pe, call);
  MPI_Type_free(&origin);
  MPI_Type_free(&target);
  mpiOrDie(MPI_Win_flush(t.pe, t.win), "MPI_Win_flush", t.pe, call);
}

// The data first, complete at the target, then the signal through the atomics' agent, so
// that a PE that sees the signal finds the data in place.
void putSignal(Ctx* ctx, void* dest, const void* source, size_t bytes, uint64_t* sigAddr, uint64_t signal, int sigOp,
               int pe, bool nbi, const char* call) {
  Runtime& r = rt(call);
  int wpe = worldPeOf(r, ctx, pe, call);
  if (sigOp != kSignalSet && sigOp != kSignalAdd)
    misuse(call, "sig_op " + std::to_string(sigOp) + " is neither SHMEM_SIGNAL_SET nor SHMEM_SIGNAL_ADD");
  if (bytes) {
    Target t = onContext(ctx, resolve(r, dest, bytes, wpe, call));
    if (t.via == Target::Via::Direct) std::memmove(t.ptr, source, bytes);
    else if (t.via == Target::Via::Cma) cmaOrDie(comm::cmaWrite(t.pid, t.addr, source, bytes), call);
    else {
      windowPut(ctx, t, source, bytes, call);
      mpiOrDie(MPI_Win_flush(t.pe, t.win), "MPI_Win_flush", t.pe, call);
    }
  }
  std::atomic_thread_fence(std::memory_order_release);
  amo(ctx, sigOp == kSignalSet ? AmoOp::Set : AmoOp::Add, AmoType{Kind::Unsigned, 8}, sigAddr, &signal, nullptr,
      nullptr, pe, false, call);
  (void)nbi;  // the blocking and non-blocking forms complete alike: the data had to arrive first
}

uint64_t signalFetch(const uint64_t* sigAddr) {
  return __atomic_load_n(sigAddr, __ATOMIC_ACQUIRE);
}

void fence(Ctx* ctx) { quiet(ctx); }

}  // namespace ferry::shmem
