/* ferry_offload_bench: the measuring program behind `ferry bench offload`.
 *
 * It is plain OpenMP offload code (clang-16, -fopenmp-targets=x86_64-pc-linux-gnu) and runs
 * in one of two modes, chosen by the orchestrator (src/tools/ferry/bench_offload.cpp):
 *   ferry  under `ferry run`: remote devices; it also asks Ferry for raw MPI figures between
 *          the same ranks (ferry_offload_mpi_baseline), next to each Ferry figure;
 *   stock  without Ferry's plugin: libomptarget's stock x86_64 host plugin, in-process.
 * Each figure is one JSON line in the --out file; the orchestrator joins the runs. */
#ifndef FERRY_OFFLOAD_BENCH_H
#define FERRY_OFFLOAD_BENCH_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum { BENCH_MAX_SIZES = 64 };

typedef enum { MODE_FERRY, MODE_STOCK } bench_mode;

/* Which devices each section uses (-1: the layout has no such device or pair). */
typedef struct bench_layout {
  int host_dev;              /* host<->device tests: on another node than rank 0 if any */
  int host_dev_rank;         /* its serving rank (-1 in stock mode) */
  int cross_src, cross_dst;  /* device-to-device, different nodes */
  int same_src, same_dst;    /* device-to-device, same node, different ranks */
  int node_a, node_b;        /* two devices of one node other than rank 0's */
} bench_layout;

typedef struct bench_ctx {
  bench_mode mode;
  int quick;                 /* OSU counts divided by 10 */
  int validate;              /* check the data each measurement moved (OSU's -c) */
  double budget_s;           /* a measurement's timed loop is cut to about this long */
  size_t sizes[BENCH_MAX_SIZES];
  int nsizes;
  size_t max_size;
  FILE* out;                 /* JSON lines */
  unsigned char* host_buf;   /* max_size bytes, page-aligned and touched (4 KiB more behind them) */
  bench_layout layout;
  long checks, failures;     /* validation */
} bench_ctx;

/* ---- report.c: one JSON line per figure ---- */
void emit(const bench_ctx* ctx, const char* test, size_t size, const char* series, double value, const char* unit,
          unsigned long iters);
void emit_counter(const bench_ctx* ctx, const char* test, const char* name, uint64_t value);
void emit_device(const bench_ctx* ctx, int device, int rank, int node, const char* host);

/* ---- layout.c ---- */
int layout_pick(bench_ctx* ctx);
int device_count(void);
/* The MPI rank that serves `device` (-1 in stock mode). */
int device_rank(int device);

/* ---- sections: each runs over ctx->sizes and emits its figures ---- */
void run_empty_region(bench_ctx* ctx);    /* (a) */
void run_region_after_work(bench_ctx* ctx); /* (a) after 1 ms of host work */
void run_map_latency(bench_ctx* ctx);     /* (b) latency */
void run_map_bandwidth(bench_ctx* ctx);   /* (b) bandwidth */
void run_offset_bandwidth(bench_ctx* ctx); /* (b) bandwidth, host data at other page offsets */
void run_device_copies(bench_ctx* ctx);   /* (c) */
void run_nowait_rate(bench_ctx* ctx);     /* (d) */
void run_node_mapping(bench_ctx* ctx);    /* (e) */

#endif
