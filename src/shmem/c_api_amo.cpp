// The C entry points of the atomic memory operations, each with its shmem_ctx_ twin. inc is
// add with an operand of 1; the _nbi forms deliver the fetched value once the context is
// quiet.
#include "shmem/c_api_types.h"

using core::AmoOp;

extern "C" {

#define FERRY_CAPI_AMO(T, N)                                                                                           \
  FERRY_CAPI_CTX_PAIR(T, N##_atomic_fetch_inc, (T* dest, int pe),                                                      \
                      return capi::fetchingAmo(c, AmoOp::FetchAdd, dest, static_cast<T>(1), pe, call);)                \
  FERRY_CAPI_CTX_PAIR(void, N##_atomic_inc, (T* dest, int pe),                                                         \
                      capi::updatingAmo(c, AmoOp::Add, dest, static_cast<T>(1), pe, call);)                            \
  FERRY_CAPI_CTX_PAIR(T, N##_atomic_fetch_add, (T* dest, T value, int pe),                                             \
                      return capi::fetchingAmo(c, AmoOp::FetchAdd, dest, value, pe, call);)                            \
  FERRY_CAPI_CTX_PAIR(void, N##_atomic_add, (T* dest, T value, int pe),                                                \
                      capi::updatingAmo(c, AmoOp::Add, dest, value, pe, call);)                                        \
  FERRY_CAPI_CTX_PAIR(T, N##_atomic_compare_swap, (T* dest, T cond, T value, int pe),                                  \
                      return capi::compareSwap(c, dest, cond, value, pe, call);)                                       \
  FERRY_CAPI_CTX_PAIR(void, N##_atomic_fetch_inc_nbi, (T* fetch, T* dest, int pe),                                     \
                      capi::fetchingAmoNbi(c, AmoOp::FetchAdd, fetch, dest, static_cast<T>(1), pe, call);)             \
  FERRY_CAPI_CTX_PAIR(void, N##_atomic_fetch_add_nbi, (T* fetch, T* dest, T value, int pe),                            \
                      capi::fetchingAmoNbi(c, AmoOp::FetchAdd, fetch, dest, value, pe, call);)                         \
  FERRY_CAPI_CTX_PAIR(void, N##_atomic_compare_swap_nbi, (T* fetch, T* dest, T cond, T value, int pe),                 \
                      capi::compareSwapNbi(c, fetch, dest, cond, value, pe, call);)
FERRY_SHMEM_TYPES_AMO(FERRY_CAPI_AMO)
#undef FERRY_CAPI_AMO

#define FERRY_CAPI_AMO_EXTENDED(T, N)                                                                                  \
  FERRY_CAPI_CTX_PAIR(T, N##_atomic_fetch, (const T* source, int pe),                                                  \
                      return capi::atomicFetch(c, source, pe, call);)                                                  \
  FERRY_CAPI_CTX_PAIR(void, N##_atomic_set, (T* dest, T value, int pe),                                                \
                      capi::updatingAmo(c, AmoOp::Set, dest, value, pe, call);)                                        \
  FERRY_CAPI_CTX_PAIR(T, N##_atomic_swap, (T* dest, T value, int pe),                                                  \
                      return capi::fetchingAmo(c, AmoOp::Swap, dest, value, pe, call);)                                \
  FERRY_CAPI_CTX_PAIR(void, N##_atomic_fetch_nbi, (T* fetch, const T* source, int pe),                                 \
                      capi::atomicFetchNbi(c, fetch, source, pe, call);)                                               \
  FERRY_CAPI_CTX_PAIR(void, N##_atomic_swap_nbi, (T* fetch, T* dest, T value, int pe),                                 \
                      capi::fetchingAmoNbi(c, AmoOp::Swap, fetch, dest, value, pe, call);)
FERRY_SHMEM_TYPES_AMO_EXTENDED(FERRY_CAPI_AMO_EXTENDED)
#undef FERRY_CAPI_AMO_EXTENDED

#define FERRY_CAPI_AMO_BITWISE_OP(T, N, OP, FETCH_OP, UPDATE_OP)                                                       \
  FERRY_CAPI_CTX_PAIR(T, N##_atomic_fetch_##OP, (T* dest, T value, int pe),                                            \
                      return capi::fetchingAmo(c, AmoOp::FETCH_OP, dest, value, pe, call);)                            \
  FERRY_CAPI_CTX_PAIR(void, N##_atomic_##OP, (T* dest, T value, int pe),                                               \
                      capi::updatingAmo(c, AmoOp::UPDATE_OP, dest, value, pe, call);)                                  \
  FERRY_CAPI_CTX_PAIR(void, N##_atomic_fetch_##OP##_nbi, (T* fetch, T* dest, T value, int pe),                         \
                      capi::fetchingAmoNbi(c, AmoOp::FETCH_OP, fetch, dest, value, pe, call);)
#define FERRY_CAPI_AMO_BITWISE(T, N)                                                                                   \
  FERRY_CAPI_AMO_BITWISE_OP(T, N, and, FetchAnd, And)                                                                  \
  FERRY_CAPI_AMO_BITWISE_OP(T, N, or, FetchOr, Or)                                                                     \
  FERRY_CAPI_AMO_BITWISE_OP(T, N, xor, FetchXor, Xor)
FERRY_SHMEM_TYPES_AMO_BITWISE(FERRY_CAPI_AMO_BITWISE)
#undef FERRY_CAPI_AMO_BITWISE
#undef FERRY_CAPI_AMO_BITWISE_OP

}  // extern "C"
