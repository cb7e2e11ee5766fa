/* Atomics: latency of a fetching atomic (fetch-add, completed) and the rate of non-fetching
 * ones (kWindow adds, then quiet). */
#include "shmem_bench.h"

typedef void (*amo_fn)(bench_ctx *c, int count);

static void amo_fetch_add(bench_ctx *c, int count) {
  for (int i = 0; i < count; ++i) (void)shmem_long_atomic_fetch_add(c->word, 1, 1);
}
static void amo_add(bench_ctx *c, int count) {
  for (int i = 0; i < count; ++i) shmem_long_atomic_add(c->word, 1, 1);
  shmem_quiet();
}
static void cpu_fadd(bench_ctx *c, int count) {
  long *peer = shmem_ptr(c->word, 1);
  for (int i = 0; i < count; ++i) (void)__atomic_fetch_add(peer, 1, __ATOMIC_SEQ_CST);
}
static void cpu_add(bench_ctx *c, int count) {
  long *peer = shmem_ptr(c->word, 1);
  for (int i = 0; i < count; ++i) __atomic_fetch_add(peer, 1, __ATOMIC_RELAXED);
  __atomic_thread_fence(__ATOMIC_SEQ_CST);
}
static void mpi_fadd(bench_ctx *c, int count) {
  long one = 1, old;
  MPI_Aint disp = (MPI_Aint)((unsigned char *)c->word - c->buf);
  for (int i = 0; i < count; ++i) {
    MPI_Fetch_and_op(&one, &old, MPI_LONG, 1, disp, MPI_SUM, c->win);
    MPI_Win_flush(1, c->win);
  }
}
static void mpi_add(bench_ctx *c, int count) {
  long one = 1;
  MPI_Aint disp = (MPI_Aint)((unsigned char *)c->word - c->buf);
  for (int i = 0; i < count; ++i) MPI_Accumulate(&one, 1, MPI_LONG, 1, disp, 1, MPI_LONG, MPI_SUM, c->win);
  MPI_Win_flush(1, c->win);
}

static double time_amo(bench_ctx *c, amo_fn op, int count) {
  int iters = bench_iters(c, 8, count);
  double t = 0;
  shmem_barrier_all();
  if (shmem_my_pe() == 0) {
    op(c, count);
    double t0 = bench_now();
    for (int i = 0; i < iters; ++i) op(c, count);
    t = (bench_now() - t0) * 1e6 / iters / count;
  }
  shmem_barrier_all();
  return t;
}

void bench_amo(bench_ctx *c) {
  /* The window's baseline needs the word inside the window: the symmetric buffer's first long. */
  long *word = c->word;
  if (!c->direct) c->word = (long *)c->buf;
  *c->word = 0;
  shmem_barrier_all();
  double f = time_amo(c, amo_fetch_add, 1), b = time_amo(c, c->direct ? cpu_fadd : mpi_fadd, 1);
  bench_emit(c, (bench_row){"atomic_fetch_add_latency", 8, f, b, c->direct ? "CPU atomic" : "MPI_Fetch_and_op+flush"});
  f = time_amo(c, amo_add, kWindow);
  b = time_amo(c, c->direct ? cpu_add : mpi_add, kWindow);
  bench_emit(c, (bench_row){"atomic_add_rate", 8, f, b, c->direct ? "CPU atomic" : "MPI_Accumulate+flush"});
  if (c->validate) {
    shmem_barrier_all();
    /* Every add of the runs above landed: PE 1's word counts them (warm-ups included). */
    long expect = 0;
    for (int pass = 0; pass < 2; ++pass) {
      int count = pass ? kWindow : 1, iters = bench_iters(c, 8, count);
      expect += 2L * (long)(iters + 1) * count;
    }
    if (shmem_my_pe() == 1 && *c->word != expect) bench_fail("atomic counts", 8);
  }
  c->word = word;
}
