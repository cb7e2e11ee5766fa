// The C entry points of the signaling operations: put-with-signal in every typed, sized and
// byte form (with shmem_ctx_ twins), and the reads of a signal word.
#include "shmem/c_api_types.h"
#include "shmem/wait_loops.h"

extern "C" {

#define FERRY_CAPI_SIGNAL_PARAMS(T)                                                                                    \
  (T * dest, const T* source, size_t nelems, uint64_t* sig_addr, uint64_t signal, int sig_op, int pe)
#define FERRY_CAPI_SIGNAL(NAME, T, SIZE)                                                                               \
  FERRY_CAPI_CTX_PAIR(void, NAME##_signal, FERRY_CAPI_SIGNAL_PARAMS(T),                                                \
                      core::putSignal(c, dest, source, nelems * (SIZE), sig_addr, signal, sig_op, pe, false, call);)   \
  FERRY_CAPI_CTX_PAIR(void, NAME##_signal_nbi, FERRY_CAPI_SIGNAL_PARAMS(T),                                            \
                      core::putSignal(c, dest, source, nelems * (SIZE), sig_addr, signal, sig_op, pe, true, call);)

#define FERRY_CAPI_SIGNAL_TYPED(T, N) FERRY_CAPI_SIGNAL(N##_put, T, sizeof(T))
FERRY_SHMEM_TYPES_RMA(FERRY_CAPI_SIGNAL_TYPED)
#undef FERRY_CAPI_SIGNAL_TYPED

#define FERRY_CAPI_SIGNAL_SIZED(BITS) FERRY_CAPI_SIGNAL(put##BITS, void, (BITS) / 8)
FERRY_SHMEM_SIZES_RMA(FERRY_CAPI_SIGNAL_SIZED)
#undef FERRY_CAPI_SIGNAL_SIZED

FERRY_CAPI_SIGNAL(putmem, void, 1)

#undef FERRY_CAPI_SIGNAL
#undef FERRY_CAPI_SIGNAL_PARAMS

uint64_t shmem_signal_fetch(const uint64_t* sig_addr) { return core::signalFetch(sig_addr); }

uint64_t shmem_signal_wait_until(uint64_t* sig_addr, int cmp, uint64_t cmp_value) {
  constexpr const char* call = "shmem_signal_wait_until";
  return core::waits::waitUntil<uint64_t>(sig_addr, capi::toCmp(cmp, call), cmp_value, call);
}

}  // extern "C"
