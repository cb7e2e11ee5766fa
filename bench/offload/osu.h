/* OSU Micro-Benchmarks iteration rules, cut to a time budget, and the timed loop.
 *
 * OSU: small messages (<= 8 KiB) 1,000 warm-up and 10,000 timed iterations for latency,
 * 100 and 1,000 for large ones; bandwidth 10 and 100 iterations of a 64-message window
 * for small, 2 and 20 for large. --quick divides every count by 10. On this 2-core machine
 * a 64 MiB message at OSU's counts would take minutes per figure, so the timed iterations
 * are also cut so that one measurement takes about ctx->budget_s (from a probe of one
 * operation), never below OSU_MIN_LATENCY_ITERS round trips or one window of 64 messages;
 * the count used is reported with each figure. */
#ifndef FERRY_OFFLOAD_BENCH_OSU_H
#define FERRY_OFFLOAD_BENCH_OSU_H

#include "bench.h"

enum {
  OSU_SMALL_LIMIT = 8192,
  OSU_WINDOW = 64,
  OSU_MIN_LATENCY_ITERS = 5,
};

typedef enum { COUNT_LATENCY, COUNT_BANDWIDTH } count_kind;

typedef struct osu_count {
  unsigned long warmup, iters;
} osu_count;

/* The counts for one measurement of `bytes`, given that one iteration took `probe_s`. */
osu_count osu_counts(const bench_ctx* ctx, count_kind kind, size_t bytes, double probe_s);

/* An operation under test; `arg` is whatever the section passes. */
typedef void (*op_fn)(void* arg);

/* Times `op`: one probe, then OSU's warm-up and timed loop cut to the budget. Returns the
 * seconds per operation; *ops_out gets the number of timed operations. For COUNT_BANDWIDTH
 * one iteration is a window of OSU_WINDOW operations followed by `settle` (if not NULL),
 * as osu_bw posts a window of sends and then waits for all of them. */
double time_op(const bench_ctx* ctx, count_kind kind, size_t bytes, op_fn op, op_fn settle, void* arg,
               unsigned long* ops_out);

double now_s(void);

#endif
