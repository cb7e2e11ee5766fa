// The C entry points of point-to-point synchronization (the wait_until and test families,
// wait_loops.h), memory ordering and the distributed locks.
#include "shmem/c_api_types.h"
#include "shmem/wait_loops.h"

namespace waits = core::waits;
using waits::EachRef;
using waits::SameRef;
using waits::WaitSet;

extern "C" {

// ---- point-to-point synchronization ------------------------------------------------------------

// Each body knows its routine's name (`call`, for the messages). toCmp checks the comparison
// before any loop starts, since a loop on an unknown one would never end.
#define FERRY_CAPI_P2P_BODY(EXPR)                                                                                      \
  {                                                                                                                    \
    const char* const call = __func__;                                                                                 \
    return EXPR;                                                                                                       \
  }

#define FERRY_CAPI_P2P(T, N)                                                                                           \
  void shmem_##N##_wait_until(T* ivar, int cmp, T cmp_value)                                                           \
      FERRY_CAPI_P2P_BODY((void)waits::waitUntil<T>(ivar, capi::toCmp(cmp, call), cmp_value, call))                    \
  void shmem_##N##_wait_until_all(T* ivars, size_t nelems, const int* status, int cmp, T cmp_value)                    \
      FERRY_CAPI_P2P_BODY(waits::waitUntilAll(ivars, WaitSet{nelems, status}, capi::toCmp(cmp, call),                  \
                                              SameRef<T>{cmp_value}, call))                                            \
  size_t shmem_##N##_wait_until_any(T* ivars, size_t nelems, const int* status, int cmp, T cmp_value)                  \
      FERRY_CAPI_P2P_BODY(waits::waitUntilAny(ivars, WaitSet{nelems, status}, capi::toCmp(cmp, call),                  \
                                              SameRef<T>{cmp_value}, call))                                            \
  size_t shmem_##N##_wait_until_some(T* ivars, size_t nelems, size_t* indices, const int* status, int cmp,             \
                                     T cmp_value)                                                                      \
      FERRY_CAPI_P2P_BODY(waits::waitUntilSome(ivars, WaitSet{nelems, status}, capi::toCmp(cmp, call),                 \
                                               SameRef<T>{cmp_value}, indices, call))                                  \
  void shmem_##N##_wait_until_all_vector(T* ivars, size_t nelems, const int* status, int cmp, T* cmp_values)           \
      FERRY_CAPI_P2P_BODY(waits::waitUntilAll(ivars, WaitSet{nelems, status}, capi::toCmp(cmp, call),                  \
                                              EachRef<T>{cmp_values}, call))                                           \
  size_t shmem_##N##_wait_until_any_vector(T* ivars, size_t nelems, const int* status, int cmp, T* cmp_values)         \
      FERRY_CAPI_P2P_BODY(waits::waitUntilAny(ivars, WaitSet{nelems, status}, capi::toCmp(cmp, call),                  \
                                              EachRef<T>{cmp_values}, call))                                           \
  size_t shmem_##N##_wait_until_some_vector(T* ivars, size_t nelems, size_t* indices, const int* status,               \
                                            int cmp, T* cmp_values)                                                    \
      FERRY_CAPI_P2P_BODY(waits::waitUntilSome(ivars, WaitSet{nelems, status}, capi::toCmp(cmp, call),                 \
                                               EachRef<T>{cmp_values}, indices, call))                                 \
  int shmem_##N##_test(T* ivar, int cmp, T cmp_value)                                                                  \
      FERRY_CAPI_P2P_BODY(waits::test<T>(ivar, capi::toCmp(cmp, call), cmp_value, call))                               \
  int shmem_##N##_test_all(T* ivars, size_t nelems, const int* status, int cmp, T cmp_value)                           \
      FERRY_CAPI_P2P_BODY(waits::testAll(ivars, WaitSet{nelems, status}, capi::toCmp(cmp, call),                       \
                                         SameRef<T>{cmp_value}, call))                                                 \
  size_t shmem_##N##_test_any(T* ivars, size_t nelems, const int* status, int cmp, T cmp_value)                        \
      FERRY_CAPI_P2P_BODY(waits::testAny(ivars, WaitSet{nelems, status}, capi::toCmp(cmp, call),                       \
                                         SameRef<T>{cmp_value}, call))                                                 \
  size_t shmem_##N##_test_some(T* ivars, size_t nelems, size_t* indices, const int* status, int cmp,                   \
                               T cmp_value)                                                                            \
      FERRY_CAPI_P2P_BODY(waits::testSome(ivars, WaitSet{nelems, status}, capi::toCmp(cmp, call),                      \
                                          SameRef<T>{cmp_value}, indices, call))                                       \
  int shmem_##N##_test_all_vector(T* ivars, size_t nelems, const int* status, int cmp, T* cmp_values)                  \
      FERRY_CAPI_P2P_BODY(waits::testAll(ivars, WaitSet{nelems, status}, capi::toCmp(cmp, call),                       \
                                         EachRef<T>{cmp_values}, call))                                                \
  size_t shmem_##N##_test_any_vector(T* ivars, size_t nelems, const int* status, int cmp, T* cmp_values)               \
      FERRY_CAPI_P2P_BODY(waits::testAny(ivars, WaitSet{nelems, status}, capi::toCmp(cmp, call),                       \
                                         EachRef<T>{cmp_values}, call))                                                \
  size_t shmem_##N##_test_some_vector(T* ivars, size_t nelems, size_t* indices, const int* status, int cmp,            \
                                      T* cmp_values)                                                                   \
      FERRY_CAPI_P2P_BODY(waits::testSome(ivars, WaitSet{nelems, status}, capi::toCmp(cmp, call),                      \
                                          EachRef<T>{cmp_values}, indices, call))
FERRY_SHMEM_TYPES_P2P(FERRY_CAPI_P2P)
FERRY_SHMEM_TYPES_P2P_DEPRECATED(FERRY_CAPI_P2P)
#undef FERRY_CAPI_P2P
#undef FERRY_CAPI_P2P_BODY

// ---- memory ordering ---------------------------------------------------------------------------

void shmem_fence(void) { core::fence(nullptr); }

void shmem_quiet(void) { core::quiet(nullptr); }

// The standard makes both a no-op for SHMEM_CTX_INVALID (a context that could not be made).
void shmem_ctx_fence(shmem_ctx_t ctx) {
  if (ctx != SHMEM_CTX_INVALID) core::fence(capi::toCtx(ctx, "shmem_ctx_fence"));
}

void shmem_ctx_quiet(shmem_ctx_t ctx) {
  if (ctx != SHMEM_CTX_INVALID) core::quiet(capi::toCtx(ctx, "shmem_ctx_quiet"));
}

// ---- distributed locks -------------------------------------------------------------------------

void shmem_set_lock(long* lock) { core::setLock(lock); }

void shmem_clear_lock(long* lock) { core::clearLock(lock); }

int shmem_test_lock(long* lock) { return core::testLock(lock); }

}  // extern "C"
