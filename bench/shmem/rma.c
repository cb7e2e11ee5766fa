/* Put and get: latency (one operation, completed) and bandwidth (kWindow in flight). */
#include <string.h>

#include "shmem_bench.h"

static const size_t kSizes[] = {8, 64, 512, 4096, 32768, 262144, 1 << 20, 1 << 22};

typedef void (*op_fn)(bench_ctx *c, size_t bytes, int window);

static void put_op(bench_ctx *c, size_t bytes, int window) {
  for (int w = 0; w < window; ++w)
    if (window == 1) shmem_putmem(c->buf + (size_t)w * bytes, c->src + (size_t)w * bytes, bytes, 1);
    else shmem_putmem_nbi(c->buf + (size_t)w * bytes, c->src + (size_t)w * bytes, bytes, 1);
  shmem_quiet();
}

static void get_op(bench_ctx *c, size_t bytes, int window) {
  for (int w = 0; w < window; ++w)
    if (window == 1) shmem_getmem(c->src + (size_t)w * bytes, c->buf + (size_t)w * bytes, bytes, 1);
    else shmem_getmem_nbi(c->src + (size_t)w * bytes, c->buf + (size_t)w * bytes, bytes, 1);
  shmem_quiet();
}

/* Same node: the copy a load/store path cannot beat. */
static void memcpy_put_op(bench_ctx *c, size_t bytes, int window) {
  unsigned char *peer = shmem_ptr(c->buf, 1);
  for (int w = 0; w < window; ++w) memcpy(peer + (size_t)w * bytes, c->src + (size_t)w * bytes, bytes);
}

static void memcpy_get_op(bench_ctx *c, size_t bytes, int window) {
  unsigned char *peer = shmem_ptr(c->buf, 1);
  for (int w = 0; w < window; ++w) memcpy(c->src + (size_t)w * bytes, peer + (size_t)w * bytes, bytes);
}

/* Across nodes: raw MPI-3 RMA on a window over the same symmetric buffer. */
static void mpi_put_op(bench_ctx *c, size_t bytes, int window) {
  for (int w = 0; w < window; ++w)
    MPI_Put(c->src + (size_t)w * bytes, (int)bytes, MPI_BYTE, 1, (MPI_Aint)((size_t)w * bytes), (int)bytes, MPI_BYTE,
            c->win);
  MPI_Win_flush(1, c->win);
}

static void mpi_get_op(bench_ctx *c, size_t bytes, int window) {
  for (int w = 0; w < window; ++w)
    MPI_Get(c->src + (size_t)w * bytes, (int)bytes, MPI_BYTE, 1, (MPI_Aint)((size_t)w * bytes), (int)bytes, MPI_BYTE,
            c->win);
  MPI_Win_flush(1, c->win);
}

/* Microseconds per operation, PE 0 timing; PE 1 waits in the barrier (which progresses MPI). */
static double time_op(bench_ctx *c, op_fn op, size_t bytes, int window) {
  int iters = bench_iters(c, bytes, window), warm = iters / 10 + 1;
  double t = 0;
  shmem_barrier_all();
  if (shmem_my_pe() == 0) {
    for (int i = 0; i < warm; ++i) op(c, bytes, window);
    double t0 = bench_now();
    for (int i = 0; i < iters; ++i) op(c, bytes, window);
    t = (bench_now() - t0) * 1e6 / iters / window;
  }
  shmem_barrier_all();
  return t;
}

static void check_put(bench_ctx *c, size_t bytes, int window) {
  memset(c->buf, 0, bytes * (size_t)window);
  shmem_barrier_all();
  if (shmem_my_pe() == 0) put_op(c, bytes, window);
  shmem_barrier_all();
  if (shmem_my_pe() == 1 && memcmp(c->buf, c->src, bytes * (size_t)window) != 0) bench_fail("put", bytes);
}

/* window 0: a bandwidth figure, as many in flight as bench_window allows. */
static void run(bench_ctx *c, const char *test, op_fn ferry, op_fn direct, op_fn mpi, int bandwidth) {
  for (size_t i = 0; i < sizeof kSizes / sizeof *kSizes && kSizes[i] <= c->maxBytes; ++i) {
    size_t n = kSizes[i];
    int window = bandwidth == 0 ? bench_window(n) : 1;
    if (c->validate && ferry == put_op) check_put(c, n, window);
    double f = time_op(c, ferry, n, window);
    double b = time_op(c, c->direct ? direct : mpi, n, window);
    bench_row row = {test, n, f, b, c->direct ? "memcpy" : (ferry == put_op ? "MPI_Put+flush" : "MPI_Get+flush")};
    bench_emit(c, row);
  }
}

void bench_rma(bench_ctx *c) {
  run(c, "put_latency", put_op, memcpy_put_op, mpi_put_op, 1);
  run(c, "get_latency", get_op, memcpy_get_op, mpi_get_op, 1);
  run(c, "put_bandwidth", put_op, memcpy_put_op, mpi_put_op, 0);
  run(c, "get_bandwidth", get_op, memcpy_get_op, mpi_get_op, 0);
}
