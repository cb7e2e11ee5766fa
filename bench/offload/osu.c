#include "osu.h"

#include <omp.h>

double now_s(void) { return omp_get_wtime(); }

osu_count osu_counts(const bench_ctx* ctx, count_kind kind, size_t bytes, double probe_s) {
  int small = bytes <= OSU_SMALL_LIMIT;
  osu_count c;
  if (kind == COUNT_LATENCY) c.iters = small ? 10000 : 1000;
  else c.iters = small ? 100 : 20;
  if (ctx->quick) c.iters /= 10;
  if (probe_s > 0 && ctx->budget_s / probe_s < (double)c.iters) c.iters = (unsigned long)(ctx->budget_s / probe_s);
  unsigned long least = kind == COUNT_LATENCY ? OSU_MIN_LATENCY_ITERS : 1;
  if (c.iters < least) c.iters = least;
  /* OSU warms up for a tenth of its timed iterations (1,000/10,000, 100/1,000, 10/100, 2/20). */
  c.warmup = c.iters / 10 > 0 ? c.iters / 10 : 1;
  return c;
}

static void run_iteration(count_kind kind, op_fn op, op_fn settle, void* arg) {
  int n = kind == COUNT_BANDWIDTH ? OSU_WINDOW : 1;
  for (int i = 0; i < n; ++i) op(arg);
  if (settle) settle(arg);
}

double time_op(const bench_ctx* ctx, count_kind kind, size_t bytes, op_fn op, op_fn settle, void* arg,
               unsigned long* ops_out) {
  double t0 = now_s();
  op(arg);
  if (settle) settle(arg);
  double probe = now_s() - t0;
  if (kind == COUNT_BANDWIDTH) probe *= OSU_WINDOW;
  osu_count c = osu_counts(ctx, kind, bytes, probe);
  for (unsigned long i = 0; i < c.warmup; ++i) run_iteration(kind, op, settle, arg);
  t0 = now_s();
  for (unsigned long i = 0; i < c.iters; ++i) run_iteration(kind, op, settle, arg);
  double elapsed = now_s() - t0;
  unsigned long ops = c.iters * (kind == COUNT_BANDWIDTH ? OSU_WINDOW : 1);
  if (ops_out) *ops_out = ops;
  return elapsed / (double)ops;
}
