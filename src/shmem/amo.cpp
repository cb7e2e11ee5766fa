// Atomic memory operations, and quiet, which completes them with the puts. CPU atomics on
// the node's heap segment where the whole job is one node; MPI accumulate operations on the
// window otherwise (target.h says why one agent per word).
#include <array>
#include <atomic>
#include <cstring>
#include <deque>
#include <mutex>

#include "comm/mpi_check.h"
#include "platform/log.h"
#include "shmem/api.h"
#include "shmem/target.h"
#include "shmem/team.h"

namespace ferry::shmem {
namespace {

bool fetches(AmoOp op) {
  return op != AmoOp::Set && op != AmoOp::Add && op != AmoOp::And && op != AmoOp::Or && op != AmoOp::Xor;
}

// Bits are bits: every op but addition is the same on the unsigned type of the width, and
// addition wraps alike in two's complement. Floats only fetch, set, swap and compare.
template <class T>
void cpuAmo(AmoOp op, T* p, const void* operand, const void* compare, void* result) {
  std::atomic_ref<T> a(*p);
  T v = 0, c = 0, old = 0;
  if (operand) std::memcpy(&v, operand, sizeof v);
  if (compare) std::memcpy(&c, compare, sizeof c);
  switch (op) {
    case AmoOp::Fetch: old = a.load(); break;
    case AmoOp::Set: a.store(v); return;
    case AmoOp::Swap: old = a.exchange(v); break;
    case AmoOp::CompareSwap: old = c; a.compare_exchange_strong(old, v); break;
    case AmoOp::FetchAdd: old = a.fetch_add(v); break;
    case AmoOp::Add: a.fetch_add(v); return;
    case AmoOp::FetchAnd: old = a.fetch_and(v); break;
    case AmoOp::And: a.fetch_and(v); return;
    case AmoOp::FetchOr: old = a.fetch_or(v); break;
    case AmoOp::Or: a.fetch_or(v); return;
    case AmoOp::FetchXor: old = a.fetch_xor(v); break;
    case AmoOp::Xor: a.fetch_xor(v); return;
  }
  std::memcpy(result, &old, sizeof old);
}

MPI_Op mpiOp(AmoOp op) {
  switch (op) {
    case AmoOp::Fetch: return MPI_NO_OP;
    case AmoOp::Set:
    case AmoOp::Swap: return MPI_REPLACE;
    case AmoOp::FetchAdd:
    case AmoOp::Add: return MPI_SUM;
    case AmoOp::FetchAnd:
    case AmoOp::And: return MPI_BAND;
    case AmoOp::FetchOr:
    case AmoOp::Or: return MPI_BOR;
    case AmoOp::FetchXor:
    case AmoOp::Xor: return MPI_BXOR;
    case AmoOp::CompareSwap: break;
  }
  return MPI_OP_NULL;
}

// Operands MPI may read after the call returns (non-blocking fetches, and every
// non-fetching op) are copied into storage kept until quiet; past kMaxKeptOperands the
// call quiets its context first, so that a program that never quiets holds a bounded amount.
constexpr size_t kMaxKeptOperands = 4096;
bool keepsOperands(AmoOp op, bool nbi) { return nbi || !fetches(op); }

void mpiAmo(Ctx* ctx, const Target& t, AmoOp op, uint8_t size, const void* operand, const void* compare, void* result,
            bool nbi, const char* call) {
  MPI_Datatype type = size == 8 ? MPI_UINT64_T : MPI_UINT32_T;
  uint64_t scratch = 0;
  Pending& p = pendingOf(ctx);
  if (keepsOperands(op, nbi) && p.kept.load(std::memory_order_relaxed) >= kMaxKeptOperands) quiet(ctx);
  std::unique_lock<std::mutex> lock;
  if (keepsOperands(op, nbi)) {
    lock = std::unique_lock(p.operandsMutex);
    auto& kept = p.operands.emplace_back();
    p.kept.store(p.operands.size(), std::memory_order_relaxed);
    if (operand) std::memcpy(&kept[0], operand, size);
    if (compare) std::memcpy(&kept[1], compare, size);
    operand = &kept[0];
    compare = &kept[1];
  }
  int rc;
  if (op == AmoOp::CompareSwap)
    rc = MPI_Compare_and_swap(operand, compare, result, type, t.pe, t.disp, t.win);
  else if (fetches(op))
    rc = MPI_Fetch_and_op(operand ? operand : &scratch, result, type, t.pe, t.disp, mpiOp(op), t.win);
  else
    rc = MPI_Accumulate(operand, 1, type, t.pe, t.disp, 1, type, mpiOp(op), t.win);
  markPending(p, t);
  if (lock) lock.unlock();
  if (rc != MPI_SUCCESS) misuse(call, comm::mpiStatus(rc, "an MPI atomic", t.pe).message());
  // A blocking fetch returns its value: remote completion. The others complete at quiet
  // with their operands kept: a flush_local per add made MPICH's add rate 3x MPI's own.
  if (nbi || !fetches(op)) return;
  rc = MPI_Win_flush(t.pe, t.win);
  if (rc != MPI_SUCCESS) misuse(call, comm::mpiStatus(rc, "MPI_Win_flush", t.pe).message());
}

}  // namespace

void amo(Ctx* ctx, AmoOp op, AmoType type, void* target, const void* operand, const void* compare, void* result, int pe,
         bool nbi, const char* call) {
  Runtime& r = rt(call);
  int wpe = worldPeOf(r, ctx, pe, call);
  if (reinterpret_cast<uintptr_t>(target) % type.size != 0)
    misuse(call, "the target of an atomic must be aligned to its size (" + std::to_string(type.size) + " B)");
  Target t = resolveAtomic(r, target, type.size, wpe, call);
  if (t.via != Target::Via::Window) {
    if (type.size == 8) cpuAmo<uint64_t>(op, reinterpret_cast<uint64_t*>(t.ptr), operand, compare, result);
    else cpuAmo<uint32_t>(op, reinterpret_cast<uint32_t*>(t.ptr), operand, compare, result);
    return;
  }
  // An atomic on this PE's own memory is how programs poll a variable that other PEs
  // update with atomics; Open MPI's osc/ucx completes those only while this PE enters MPI's
  // progress, which an operation aimed at itself does not (SOS's set_fetch hung).
  if (t.pe == r.me) probeProgress(r);
  mpiAmo(ctx, t, op, type.size, operand, compare, result, nbi, call);
}

Pending& pendingOf(Ctx* ctx) {
  static Pending defaultContext;
  return ctx ? ctx->pending : defaultContext;
}

void quiet(Ctx* ctx) {
  Runtime& r = rt("shmem_quiet");
  Pending& p = pendingOf(ctx);
  if (p.wins.load(std::memory_order_acquire)) {
    // The lock only where non-blocking atomics keep operands: freed after the flush.
    std::unique_lock<std::mutex> lock;
    if (p.kept.load(std::memory_order_acquire)) lock = std::unique_lock(p.operandsMutex);
    // The windows first: a PE marked after this is flushed now or by the next quiet.
    uint8_t wins = p.wins.exchange(0, std::memory_order_acq_rel);
    int pe = p.pe.exchange(kNoPe, std::memory_order_acq_rel);
    log::debug(log::Shmem, "quiet on %s %p: flushing%s%s%s for PE %d (-2: several)",  // tests read it
               ctx ? "context" : "the default context", static_cast<void*>(ctx),
               wins & kCtxWin ? " the context's heap window" : "", wins & kHeapWin ? " the heap window" : "",
               wins & kDataWin ? " the data window" : "", pe);
    MPI_Win own = ctx ? ctx->heapWin : MPI_WIN_NULL;
    for (auto [bit, w] : {std::pair{kCtxWin, own}, std::pair{kHeapWin, r.heapWin}, std::pair{kDataWin, r.dataWin}})
      if ((wins & bit) && w != MPI_WIN_NULL) {
        int rc = pe >= 0 ? MPI_Win_flush(pe, w) : MPI_Win_flush_all(w);
        if (rc != MPI_SUCCESS) misuse("shmem_quiet", comm::mpiStatus(rc, "MPI_Win_flush_all").message());
      }
    if (lock) {
      p.operands.clear();
      p.kept.store(0, std::memory_order_relaxed);
    }
  }
  std::atomic_thread_fence(std::memory_order_seq_cst);
}

}  // namespace ferry::shmem
