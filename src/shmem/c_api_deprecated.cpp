// The C entry points of the deprecated names that OpenSHMEM 1.5 still lists: set-up and
// memory before 1.2, the cache routines, AMO names before 1.4, shmem_wait, and the
// active-set collectives with their pSync and pWrk arrays (accepted, not used).
#include <cstdlib>

#include "shmem/c_api_types.h"
#include "shmem/wait_loops.h"

using core::AmoOp;
using core::RedOp;

extern "C" {

// ---- set-up and memory ---------------------------------------------------------------------------

// npes is ignored, as it was in every implementation: the launcher decides.
// Unlike shmem_init, start_pes needs no shmem_finalize: the standard finalizes the library
// when the program exits. Old programs (the OSU benchmarks among them) return from main
// without one, and MPI then reported each rank as having exited without finalizing.
void start_pes(int) {
  if (core::isInitialized()) return;
  shmem_init();
  if (core::isInitialized()) std::atexit([] { core::finalize(); });  // a no-op once finalized
}

int _my_pe(void) { return core::myPe(); }

int _num_pes(void) { return core::nPes(); }

void* shmalloc(size_t size) { return core::malloc(size, "shmalloc"); }

void shfree(void* ptr) { core::free(ptr); }

void* shrealloc(void* ptr, size_t size) { return core::realloc(ptr, size); }

void* shmemalign(size_t alignment, size_t size) { return core::align(alignment, size); }

// ---- cache management: coherent memory, nothing to do ----------------------------------------------

void shmem_clear_cache_inv(void) {}
void shmem_set_cache_inv(void) {}
void shmem_clear_cache_line_inv(void*) {}
void shmem_set_cache_line_inv(void*) {}
void shmem_udcflush(void) {}
void shmem_udcflush_line(void*) {}

// ---- AMO names before 1.4 --------------------------------------------------------------------------

#define FERRY_CAPI_DEPRECATED_AMO(T, N)                                                                                \
  T shmem_##N##_fadd(T* dest, T value, int pe) {                                                                       \
    return capi::fetchingAmo(nullptr, AmoOp::FetchAdd, dest, value, pe, "shmem_" #N "_fadd");                          \
  }                                                                                                                    \
  T shmem_##N##_finc(T* dest, int pe) {                                                                                \
    return capi::fetchingAmo(nullptr, AmoOp::FetchAdd, dest, static_cast<T>(1), pe, "shmem_" #N "_finc");              \
  }                                                                                                                    \
  void shmem_##N##_add(T* dest, T value, int pe) {                                                                     \
    capi::updatingAmo(nullptr, AmoOp::Add, dest, value, pe, "shmem_" #N "_add");                                       \
  }                                                                                                                    \
  void shmem_##N##_inc(T* dest, int pe) {                                                                              \
    capi::updatingAmo(nullptr, AmoOp::Add, dest, static_cast<T>(1), pe, "shmem_" #N "_inc");                           \
  }                                                                                                                    \
  T shmem_##N##_cswap(T* dest, T cond, T value, int pe) {                                                              \
    return capi::compareSwap(nullptr, dest, cond, value, pe, "shmem_" #N "_cswap");                                    \
  }
FERRY_SHMEM_TYPES_DEPRECATED_AMO(FERRY_CAPI_DEPRECATED_AMO)
#undef FERRY_CAPI_DEPRECATED_AMO

#define FERRY_CAPI_DEPRECATED_AMO_EXTENDED(T, N)                                                                       \
  T shmem_##N##_swap(T* dest, T value, int pe) {                                                                       \
    return capi::fetchingAmo(nullptr, AmoOp::Swap, dest, value, pe, "shmem_" #N "_swap");                              \
  }                                                                                                                    \
  T shmem_##N##_fetch(const T* source, int pe) {                                                                       \
    return capi::atomicFetch(nullptr, source, pe, "shmem_" #N "_fetch");                                               \
  }                                                                                                                    \
  void shmem_##N##_set(T* dest, T value, int pe) {                                                                     \
    capi::updatingAmo(nullptr, AmoOp::Set, dest, value, pe, "shmem_" #N "_set");                                       \
  }
FERRY_SHMEM_TYPES_DEPRECATED_AMO_EXTENDED(FERRY_CAPI_DEPRECATED_AMO_EXTENDED)
#undef FERRY_CAPI_DEPRECATED_AMO_EXTENDED

long shmem_swap(long* dest, long value, int pe) {
  return capi::fetchingAmo(nullptr, AmoOp::Swap, dest, value, pe, "shmem_swap");
}

// ---- shmem_wait: wait while the variable equals cmp_value -------------------------------------------

#define FERRY_CAPI_DEPRECATED_WAIT(T, N)                                                                               \
  void shmem_##N##_wait(T* ivar, T cmp_value) {                                                                        \
    (void)core::waits::waitUntil<T>(ivar, core::Cmp::Ne, cmp_value, "shmem_" #N "_wait");                              \
  }
FERRY_SHMEM_TYPES_DEPRECATED_WAIT(FERRY_CAPI_DEPRECATED_WAIT)
#undef FERRY_CAPI_DEPRECATED_WAIT

void shmem_wait(long* ivar, long cmp_value) {
  (void)core::waits::waitUntil<long>(ivar, core::Cmp::Ne, cmp_value, "shmem_wait");
}

void shmem_wait_until(long* ivar, int cmp, long cmp_value) {
  constexpr const char* call = "shmem_wait_until";
  (void)core::waits::waitUntil<long>(ivar, capi::toCmp(cmp, call), cmp_value, call);
}

// ---- active-set collectives --------------------------------------------------------------------------
// The core makes (and keeps) a team per active set; the routines then are the team ones, but
// return nothing: the core reports a failure itself.

void shmem_barrier(int PE_start, int logPE_stride, int PE_size, long*) {
  // The old barrier also completed this PE's puts; the team sync does not.
  core::quiet(nullptr);
  (void)core::teamSync(core::activeSet(PE_start, logPE_stride, PE_size, "shmem_barrier"));
}

void shmem_sync(int PE_start, int logPE_stride, int PE_size, long*) {
  (void)core::teamSync(core::activeSet(PE_start, logPE_stride, PE_size, "shmem_sync"));
}

#define FERRY_CAPI_ACTIVE_SET(BITS)                                                                                    \
  void shmem_broadcast##BITS(void* dest, const void* source, size_t nelems, int PE_root, int PE_start,                 \
                             int logPE_stride, int PE_size, long*) {                                                   \
    core::Team* set = core::activeSet(PE_start, logPE_stride, PE_size, "shmem_broadcast" #BITS);                       \
    (void)core::broadcast(set, dest, source, nelems * ((BITS) / 8), PE_root, false);                                   \
  }                                                                                                                    \
  void shmem_collect##BITS(void* dest, const void* source, size_t nelems, int PE_start, int logPE_stride,              \
                           int PE_size, long*) {                                                                       \
    core::Team* set = core::activeSet(PE_start, logPE_stride, PE_size, "shmem_collect" #BITS);                         \
    (void)core::collect(set, dest, source, nelems * ((BITS) / 8));                                                     \
  }                                                                                                                    \
  void shmem_fcollect##BITS(void* dest, const void* source, size_t nelems, int PE_start, int logPE_stride,             \
                            int PE_size, long*) {                                                                      \
    core::Team* set = core::activeSet(PE_start, logPE_stride, PE_size, "shmem_fcollect" #BITS);                        \
    (void)core::fcollect(set, dest, source, nelems * ((BITS) / 8));                                                    \
  }                                                                                                                    \
  void shmem_alltoall##BITS(void* dest, const void* source, size_t nelems, int PE_start, int logPE_stride,             \
                            int PE_size, long*) {                                                                      \
    core::Team* set = core::activeSet(PE_start, logPE_stride, PE_size, "shmem_alltoall" #BITS);                        \
    (void)core::alltoall(set, dest, source, nelems * ((BITS) / 8));                                                    \
  }                                                                                                                    \
  void shmem_alltoalls##BITS(void* dest, const void* source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems,              \
                             int PE_start, int logPE_stride, int PE_size, long*) {                                     \
    core::Team* set = core::activeSet(PE_start, logPE_stride, PE_size, "shmem_alltoalls" #BITS);                       \
    (void)core::alltoalls(set, dest, source, dst, sst, nelems, (BITS) / 8);                                            \
  }
FERRY_CAPI_ACTIVE_SET(32)
FERRY_CAPI_ACTIVE_SET(64)
#undef FERRY_CAPI_ACTIVE_SET

}  // extern "C"

namespace {

template <class T>
void reduceToAll(RedOp op, T* dest, const T* source, int nreduce, int peStart, int logPeStride, int peSize,
                 const char* call) {
  if (nreduce < 0) capi::misuse(call, "nreduce is negative");
  core::Team* set = core::activeSet(peStart, logPeStride, peSize, call);
  (void)core::reduce(set, op, capi::elemType<T>(), dest, source, static_cast<size_t>(nreduce));
}

}  // namespace

extern "C" {

#define FERRY_CAPI_TO_ALL(T, N, OP, NAME)                                                                              \
  void shmem_##N##_##NAME##_to_all(T* dest, const T* source, int nreduce, int PE_start, int logPE_stride,              \
                                   int PE_size, T*, long*) {                                                           \
    reduceToAll(RedOp::OP, dest, source, nreduce, PE_start, logPE_stride, PE_size, "shmem_" #N "_" #NAME "_to_all");   \
  }
#define FERRY_CAPI_TO_ALL_BITWISE(T, N)                                                                                \
  FERRY_CAPI_TO_ALL(T, N, And, and) FERRY_CAPI_TO_ALL(T, N, Or, or) FERRY_CAPI_TO_ALL(T, N, Xor, xor)
#define FERRY_CAPI_TO_ALL_MINMAX(T, N) FERRY_CAPI_TO_ALL(T, N, Max, max) FERRY_CAPI_TO_ALL(T, N, Min, min)
#define FERRY_CAPI_TO_ALL_ARITH(T, N) FERRY_CAPI_TO_ALL(T, N, Sum, sum) FERRY_CAPI_TO_ALL(T, N, Prod, prod)
FERRY_SHMEM_TYPES_TO_ALL_BITWISE(FERRY_CAPI_TO_ALL_BITWISE)
FERRY_SHMEM_TYPES_TO_ALL_MINMAX(FERRY_CAPI_TO_ALL_MINMAX)
FERRY_SHMEM_TYPES_TO_ALL_ARITH(FERRY_CAPI_TO_ALL_ARITH)
#undef FERRY_CAPI_TO_ALL_BITWISE
#undef FERRY_CAPI_TO_ALL_MINMAX
#undef FERRY_CAPI_TO_ALL_ARITH
#undef FERRY_CAPI_TO_ALL

}  // extern "C"
