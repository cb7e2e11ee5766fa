/* Section (c): omp_target_memcpy between two devices, on different nodes and on one node,
 * next to raw MPI bandwidth between the two serving ranks. Ferry's counters bracket the
 * timed copies only: the bytes that passed through rank 0 meanwhile must be zero. */
#include <omp.h>

#include "bench.h"
#include "ferry/ferry_offload.h"
#include "mpi_ref.h"
#include "osu.h"
#include "verify.h"

typedef struct copy_arg {
  void *dst_ptr, *src_ptr;
  int dst, src;
  size_t n;
} copy_arg;

static void copy_op(void* p) {
  copy_arg* a = p;
  if (omp_target_memcpy(a->dst_ptr, a->src_ptr, a->n, 0, 0, a->dst, a->src) != 0)
    fprintf(stderr, "ferry_offload_bench: omp_target_memcpy from device %d to %d failed\n", a->src, a->dst);
}

static uint64_t rank0_bytes(void) {
  ferry_offload_counters c;
  if (ferry_offload_get_counters(&c) != FERRY_OFFLOAD_OK) return 0;
  return c.host_to_device_bytes + c.device_to_host_bytes;
}

static uint64_t d2d_bytes(void) {
  ferry_offload_counters c;
  return ferry_offload_get_counters(&c) == FERRY_OFFLOAD_OK ? c.device_to_device_bytes : 0;
}

typedef struct pair_spec {
  const char* test;     /* Ferry's (or the stock plugin's) figure */
  const char* mpi_test; /* raw MPI between the same ranks */
  int src, dst;
} pair_spec;

static void copy_one_size(bench_ctx* ctx, const pair_spec* p, copy_arg* a, uint64_t* relayed, uint64_t* moved) {
  int ferry = ctx->mode == MODE_FERRY;
  unsigned long ops = 0;
  if (ferry) {
    drain_device(p->src);
    drain_device(p->dst);
    double mbs = mpi_bandwidth_mbs(ctx, device_rank(p->src), device_rank(p->dst), a->n, &ops, NULL);
    emit(ctx, p->mpi_test, a->n, "mpi", mbs, "MB/s", ops);
  }
  uint64_t relayed0 = rank0_bytes(), moved0 = d2d_bytes();
  double s = time_op(ctx, COUNT_BANDWIDTH, a->n, copy_op, NULL, a, &ops);
  *relayed += rank0_bytes() - relayed0;
  *moved += d2d_bytes() - moved0;
  emit(ctx, p->test, a->n, ferry ? "ferry" : "stock", (double)a->n / s / 1e6, "MB/s", ops);
  if (ctx->validate) verify_copy(ctx, a->dst_ptr, a->dst, a->src_ptr, a->src, a->n, p->test);
}

static void copy_pair(bench_ctx* ctx, const pair_spec* p) {
  if (p->src < 0) {
    fprintf(stderr, "ferry_offload_bench: %s skipped: this layout has no such pair of devices (use -n 4 with "
                    "FERRY_VIRTUAL_NODES=2)\n", p->test);
    return;
  }
  copy_arg a = {omp_target_alloc(ctx->max_size, p->dst), omp_target_alloc(ctx->max_size, p->src), p->dst, p->src, 0};
  if (!a.dst_ptr || !a.src_ptr) {
    fprintf(stderr, "ferry_offload_bench: %s: omp_target_alloc of %zu bytes failed\n", p->test, ctx->max_size);
    ++ctx->failures;
    return;
  }
  /* Both blocks hold data before the copies are timed, as an application's do: a block
   * nobody wrote reads as the kernel's one zero page, which stays in cache and made copies
   * out of it look faster than memory allows. */
  if (omp_target_memcpy(a.src_ptr, ctx->host_buf, ctx->max_size, 0, 0, p->src, omp_get_initial_device()) != 0 ||
      omp_target_memcpy(a.dst_ptr, ctx->host_buf, ctx->max_size, 0, 0, p->dst, omp_get_initial_device()) != 0) {
    fprintf(stderr, "ferry_offload_bench: %s: filling the blocks failed\n", p->test);
    ++ctx->failures;
  }
  uint64_t relayed = 0, moved = 0;
  for (int i = 0; i < ctx->nsizes; ++i) {
    a.n = ctx->sizes[i];
    copy_one_size(ctx, p, &a, &relayed, &moved);
  }
  if (ctx->mode == MODE_FERRY) {
    emit_counter(ctx, p->test, "bytes_through_rank0", relayed);
    emit_counter(ctx, p->test, "device_to_device_bytes", moved);
    if (ctx->validate) verify_no_relay(ctx, relayed, p->test);
  }
  omp_target_free(a.dst_ptr, p->dst);
  omp_target_free(a.src_ptr, p->src);
}

void run_device_copies(bench_ctx* ctx) {
  const bench_layout* l = &ctx->layout;
  pair_spec cross = {"d2d_cross_bw", "mpi_bw_cross", l->cross_src, l->cross_dst};
  pair_spec same = {"d2d_same_bw", "mpi_bw_same", l->same_src, l->same_dst};
  copy_pair(ctx, &cross);
  copy_pair(ctx, &same);
}
