/* Sections (a), (b) and (d): target regions between rank 0 and one device, each figure next
 * to the raw MPI figure between the same two ranks, measured just before it. */
#include <omp.h>

#include "bench.h"
#include "mpi_ref.h"
#include "osu.h"
#include "verify.h"

typedef struct region_arg {
  int dev;
  unsigned char* buf;
  size_t n;
} region_arg;

/* ---- the operations under test (one pragma each: the map type is part of the code) ----
 * Each region lives in its own function, called once per operation. clang-16 allocates a
 * region's kernel-argument struct (112 B) with an alloca inside the enclosing loop, which
 * only returns when the function does: a loop of ~75,000 regions inside one function
 * overflows an 8 MiB stack, with or without Ferry. */

static void empty_region(void* p) {
  region_arg* a = p;
#pragma omp target device(a->dev)
  {}
}

/* A whole region on data that is not yet on the device: allocate, copy, launch, free. */
static void map_to_region(void* p) {
  region_arg* a = p;
  unsigned char* b = a->buf;
#pragma omp target device(a->dev) map(to : b[0 : a->n])
  {}
}
static void map_from_region(void* p) {
  region_arg* a = p;
  unsigned char* b = a->buf;
#pragma omp target device(a->dev) map(from : b[0 : a->n])
  {}
}
static void map_tofrom_region(void* p) {
  region_arg* a = p;
  unsigned char* b = a->buf;
#pragma omp target device(a->dev) map(tofrom : b[0 : a->n])
  {}
}

/* The same regions on data kept present by an enclosing `target data`: `always` makes each
 * one move the bytes, so the loop measures the data movement, as osu_bw does. */
static void always_to_region(void* p) {
  region_arg* a = p;
  unsigned char* b = a->buf;
#pragma omp target device(a->dev) map(always, to : b[0 : a->n])
  {}
}
static void always_from_region(void* p) {
  region_arg* a = p;
  unsigned char* b = a->buf;
#pragma omp target device(a->dev) map(always, from : b[0 : a->n])
  {}
}
static void always_tofrom_region(void* p) {
  region_arg* a = p;
  unsigned char* b = a->buf;
#pragma omp target device(a->dev) map(always, tofrom : b[0 : a->n])
  {}
}

static void nowait_region(void* p) {
  region_arg* a = p;
#pragma omp target device(a->dev) nowait
  {}
}
static void wait_for_tasks(void* p) {
  (void)p;
#pragma omp taskwait
}

/* ---- the three map kinds, as data ---- */

typedef void (*verify_fn)(bench_ctx*, int, size_t, const char*);

typedef struct map_kind {
  const char* latency_test;
  const char* bandwidth_test;
  op_fn fresh, present;
  verify_fn verify;
  int directions; /* bytes move this many times per region */
} map_kind;

static const map_kind kMapKinds[] = {
    {"map_to_lat", "map_to_bw", map_to_region, always_to_region, verify_map_to, 1},
    {"map_from_lat", "map_from_bw", map_from_region, always_from_region, verify_map_from, 1},
    {"map_tofrom_lat", "map_tofrom_bw", map_tofrom_region, always_tofrom_region, verify_map_tofrom, 2},
};

static const char* series(const bench_ctx* ctx) { return ctx->mode == MODE_FERRY ? "ferry" : "stock"; }
static int ferry_mode(const bench_ctx* ctx) { return ctx->mode == MODE_FERRY; }

/* ---- (a) the round trip of an empty region ---- */

void run_empty_region(bench_ctx* ctx) {
  region_arg a = {ctx->layout.host_dev, NULL, 0};
  unsigned long iters = 0;
  if (ferry_mode(ctx)) {
    drain_device(a.dev);
    double us = mpi_round_trip_us(ctx, 0, ctx->layout.host_dev_rank, 1, &iters);
    emit(ctx, "mpi_rtt", 1, "mpi", us, "us", iters);
  }
  double s = time_op(ctx, COUNT_LATENCY, 0, empty_region, NULL, &a, &iters);
  emit(ctx, "empty", 0, series(ctx), s * 1e6, "us", iters);
  if (ctx->validate) verify_rank(ctx, "empty region");
}

/* ---- (a) the same region after the host has worked for a while ----
 * Programs do host work between regions. A serving rank (or rank 0) that sleeps while it
 * waits answers late: a region after 2 ms of host work once took 820 us under Ferry. Each
 * sample busy-waits 1 ms, then times one empty region; the median is reported. */

enum { IDLE_SAMPLES = 200, IDLE_SAMPLES_QUICK = 40 };

static int cmp_double(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

void run_region_after_work(bench_ctx* ctx) {
  region_arg a = {ctx->layout.host_dev, NULL, 0};
  double samples[IDLE_SAMPLES];
  int n = ctx->quick ? IDLE_SAMPLES_QUICK : IDLE_SAMPLES;
  for (int i = 0; i < n; ++i) {
    double t = omp_get_wtime();
    while (omp_get_wtime() - t < 1e-3) {
    }
    t = omp_get_wtime();
    empty_region(&a);
    samples[i] = omp_get_wtime() - t;
  }
  qsort(samples, (size_t)n, sizeof samples[0], cmp_double);
  emit(ctx, "empty_after_work", 0, series(ctx), samples[n / 2] * 1e6, "us", (unsigned long)n);
}

/* ---- (b) map(to/from/tofrom): latency of whole regions, bandwidth of the data movement ---- */

void run_map_latency(bench_ctx* ctx) {
  for (int i = 0; i < ctx->nsizes; ++i) {
    region_arg a = {ctx->layout.host_dev, ctx->host_buf, ctx->sizes[i]};
    unsigned long iters = 0;
    if (ferry_mode(ctx)) {
      drain_device(a.dev);
      double us = mpi_round_trip_us(ctx, 0, ctx->layout.host_dev_rank, a.n, &iters);
      emit(ctx, "mpi_pingpong", a.n, "mpi", us, "us", iters);
    }
    for (size_t k = 0; k < sizeof kMapKinds / sizeof kMapKinds[0]; ++k) {
      double s = time_op(ctx, COUNT_LATENCY, a.n, kMapKinds[k].fresh, NULL, &a, &iters);
      emit(ctx, kMapKinds[k].latency_test, a.n, series(ctx), s * 1e6, "us", iters);
      if (ctx->validate) kMapKinds[k].verify(ctx, a.dev, a.n, kMapKinds[k].latency_test);
    }
  }
}

/* map(always) bandwidth of the first `kinds` map kinds on data kept present, each figure
 * recorded under tests[k]. */
static void present_bandwidth(bench_ctx* ctx, region_arg* a, const char* const* tests, size_t kinds) {
  unsigned char* b = a->buf;
  size_t n = a->n;
#pragma omp target data device(a->dev) map(alloc : b[0 : n])
  for (size_t k = 0; k < kinds; ++k) {
    unsigned long ops = 0;
    double s = time_op(ctx, COUNT_BANDWIDTH, n, kMapKinds[k].present, NULL, a, &ops);
    emit(ctx, tests[k], n, series(ctx), (double)n * kMapKinds[k].directions / s / 1e6, "MB/s", ops);
    if (ctx->validate) kMapKinds[k].verify(ctx, a->dev, n, tests[k]);
  }
}

static void map_bandwidth_one_size(bench_ctx* ctx, region_arg* a) {
  _Static_assert(sizeof kMapKinds / sizeof kMapKinds[0] == 3, "one test name per map kind");
  const char* tests[] = {kMapKinds[0].bandwidth_test, kMapKinds[1].bandwidth_test, kMapKinds[2].bandwidth_test};
  present_bandwidth(ctx, a, tests, sizeof tests / sizeof tests[0]);
}

void run_map_bandwidth(bench_ctx* ctx) {
  for (int i = 0; i < ctx->nsizes; ++i) {
    region_arg a = {ctx->layout.host_dev, ctx->host_buf, ctx->sizes[i]};
    if (ferry_mode(ctx)) {
      unsigned long msgs = 0;
      drain_device(a.dev);
      double mbs = mpi_bandwidth_mbs(ctx, 0, ctx->layout.host_dev_rank, a.n, &msgs, NULL);
      emit(ctx, "mpi_bw_host", a.n, "mpi", mbs, "MB/s", msgs);
    }
    map_bandwidth_one_size(ctx, &a);
  }
}

/* ---- (b) the same bandwidth with the host data elsewhere in its page ----
 * Users' arrays are rarely page-aligned: glibc's malloc puts a block of 128 KiB or more 16
 * bytes into a page, and a section of an array starts anywhere. Copies between two buffers
 * at different offsets in their pages can stall (docs/performance.md, "Copies"), so each
 * offset is measured on its own, from 4 KiB on (below that, copies do not stall). */

typedef struct offset_case {
  size_t offset;
  const char* to_test;
  const char* from_test;
} offset_case;

static const offset_case kOffsets[] = {
    {16, "map_to_bw_at16", "map_from_bw_at16"},       /* a malloc'd block */
    {1001, "map_to_bw_at1001", "map_from_bw_at1001"}, /* an odd place inside an array */
};

static void offset_one_size(bench_ctx* ctx, region_arg* a, const offset_case* c) {
  const char* tests[2] = {c->to_test, c->from_test}; /* kMapKinds[0] is map(to), [1] map(from) */
  present_bandwidth(ctx, a, tests, 2);
}

void run_offset_bandwidth(bench_ctx* ctx) {
  unsigned char* aligned = ctx->host_buf;
  for (size_t c = 0; c < sizeof kOffsets / sizeof kOffsets[0]; ++c) {
    ctx->host_buf = aligned + kOffsets[c].offset; /* the verifiers use it too */
    for (int i = 0; i < ctx->nsizes; ++i) {
      if (ctx->sizes[i] < 4096) continue;
      region_arg a = {ctx->layout.host_dev, ctx->host_buf, ctx->sizes[i]};
      offset_one_size(ctx, &a, &kOffsets[c]);
    }
  }
  ctx->host_buf = aligned;
}

/* ---- (d) many small nowait regions in flight ---- */

void run_nowait_rate(bench_ctx* ctx) {
  region_arg a = {ctx->layout.host_dev, NULL, 0};
  unsigned long ops = 0;
  if (ferry_mode(ctx)) {
    double rate = 0;
    drain_device(a.dev);
    (void)mpi_bandwidth_mbs(ctx, 0, ctx->layout.host_dev_rank, 1, &ops, &rate);
    emit(ctx, "mpi_msg_rate", 1, "mpi", rate, "1/s", ops);
  }
  /* A window of OSU_WINDOW regions in flight, then one taskwait: osu_bw's window. */
  double s = time_op(ctx, COUNT_BANDWIDTH, 0, nowait_region, wait_for_tasks, &a, &ops);
  emit(ctx, "nowait_rate", 0, series(ctx), 1.0 / s, "1/s", ops);
  if (ctx->validate) verify_nowait(ctx, a.dev, "nowait regions");
}
