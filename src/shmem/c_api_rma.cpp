// The C entry points of RMA: every typed, sized and byte form, each with its shmem_ctx_
// twin. The core moves bytes, so a form differs from the others only in the element size it
// passes (long double's included: its bytes are moved, not its value).
#include "shmem/c_api_types.h"

extern "C" {

#define FERRY_CAPI_RMA(T, N)                                                                                           \
  FERRY_CAPI_CTX_PAIR(void, N##_put, (T* dest, const T* source, size_t nelems, int pe),                                \
                      core::put(c, dest, source, nelems * sizeof(T), pe, false, call);)                                \
  FERRY_CAPI_CTX_PAIR(void, N##_get, (T* dest, const T* source, size_t nelems, int pe),                                \
                      core::get(c, dest, source, nelems * sizeof(T), pe, false, call);)                                \
  FERRY_CAPI_CTX_PAIR(void, N##_put_nbi, (T* dest, const T* source, size_t nelems, int pe),                            \
                      core::put(c, dest, source, nelems * sizeof(T), pe, true, call);)                                 \
  FERRY_CAPI_CTX_PAIR(void, N##_get_nbi, (T* dest, const T* source, size_t nelems, int pe),                            \
                      core::get(c, dest, source, nelems * sizeof(T), pe, true, call);)                                 \
  FERRY_CAPI_CTX_PAIR(void, N##_p, (T* dest, T value, int pe),                                                         \
                      core::put(c, dest, &value, sizeof(T), pe, false, call);)                                         \
  FERRY_CAPI_CTX_PAIR(T, N##_g, (const T* source, int pe), T value{};                                                  \
                      core::get(c, &value, source, sizeof(T), pe, false, call); return value;)                         \
  FERRY_CAPI_CTX_PAIR(void, N##_iput,                                                                                  \
                      (T* dest, const T* source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe),                 \
                      core::iput(c, dest, source, dst, sst, nelems, sizeof(T), pe, call);)                             \
  FERRY_CAPI_CTX_PAIR(void, N##_iget,                                                                                  \
                      (T* dest, const T* source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe),                 \
                      core::iget(c, dest, source, dst, sst, nelems, sizeof(T), pe, call);)
FERRY_SHMEM_TYPES_RMA(FERRY_CAPI_RMA)
#undef FERRY_CAPI_RMA

#define FERRY_CAPI_RMA_SIZED(BITS)                                                                                     \
  FERRY_CAPI_CTX_PAIR(void, put##BITS, (void* dest, const void* source, size_t nelems, int pe),                        \
                      core::put(c, dest, source, nelems * ((BITS) / 8), pe, false, call);)                             \
  FERRY_CAPI_CTX_PAIR(void, get##BITS, (void* dest, const void* source, size_t nelems, int pe),                        \
                      core::get(c, dest, source, nelems * ((BITS) / 8), pe, false, call);)                             \
  FERRY_CAPI_CTX_PAIR(void, put##BITS##_nbi, (void* dest, const void* source, size_t nelems, int pe),                  \
                      core::put(c, dest, source, nelems * ((BITS) / 8), pe, true, call);)                              \
  FERRY_CAPI_CTX_PAIR(void, get##BITS##_nbi, (void* dest, const void* source, size_t nelems, int pe),                  \
                      core::get(c, dest, source, nelems * ((BITS) / 8), pe, true, call);)                              \
  FERRY_CAPI_CTX_PAIR(void, iput##BITS,                                                                                \
                      (void* dest, const void* source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe),           \
                      core::iput(c, dest, source, dst, sst, nelems, (BITS) / 8, pe, call);)                            \
  FERRY_CAPI_CTX_PAIR(void, iget##BITS,                                                                                \
                      (void* dest, const void* source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe),           \
                      core::iget(c, dest, source, dst, sst, nelems, (BITS) / 8, pe, call);)
FERRY_SHMEM_SIZES_RMA(FERRY_CAPI_RMA_SIZED)
#undef FERRY_CAPI_RMA_SIZED

FERRY_CAPI_CTX_PAIR(void, putmem, (void* dest, const void* source, size_t nelems, int pe),
                    core::put(c, dest, source, nelems, pe, false, call);)
FERRY_CAPI_CTX_PAIR(void, getmem, (void* dest, const void* source, size_t nelems, int pe),
                    core::get(c, dest, source, nelems, pe, false, call);)
FERRY_CAPI_CTX_PAIR(void, putmem_nbi, (void* dest, const void* source, size_t nelems, int pe),
                    core::put(c, dest, source, nelems, pe, true, call);)
FERRY_CAPI_CTX_PAIR(void, getmem_nbi, (void* dest, const void* source, size_t nelems, int pe),
                    core::get(c, dest, source, nelems, pe, true, call);)

}  // extern "C"
