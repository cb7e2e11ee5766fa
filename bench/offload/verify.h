/* Validation (OSU's -c): after a measurement, one more operation of the same kind moves a
 * fresh byte pattern, and its result is checked; this is never inside a timed loop. A
 * failure is reported on stderr as "FAIL validation: ..." and counted in ctx. */
#ifndef FERRY_OFFLOAD_BENCH_VERIFY_H
#define FERRY_OFFLOAD_BENCH_VERIFY_H

#include "bench.h"

/* A region on the host<->device device ran on its serving rank (-1, no MPI rank, in stock
 * mode); in the GPU build, on that device (GPU kernels cannot see their rank). */
void verify_rank(bench_ctx* ctx, const char* what);
/* map(always, to|from|tofrom) of n bytes of ctx->host_buf; works whether or not the buffer
 * is already present on the device. */
void verify_map_to(bench_ctx* ctx, int dev, size_t n, const char* what);
/* The same n bytes of ctx->host_buf updated to devices a and b (present on both), each
 * device's copy checked by a kernel on it. */
void verify_node_map(bench_ctx* ctx, int a, int b, size_t n, const char* what);
void verify_map_from(bench_ctx* ctx, int dev, size_t n, const char* what);
void verify_map_tofrom(bench_ctx* ctx, int dev, size_t n, const char* what);
/* omp_target_memcpy of n bytes from src_ptr on device src to dst_ptr on device dst. */
void verify_copy(bench_ctx* ctx, void* dst_ptr, int dst, void* src_ptr, int src, size_t n, const char* what);
/* No byte of a device-to-device copy passed through rank 0 (Ferry's counters). */
void verify_no_relay(bench_ctx* ctx, uint64_t bytes_through_rank0, const char* what);
/* A window of nowait regions each left its mark on the device. */
void verify_nowait(bench_ctx* ctx, int dev, const char* what);

#endif
