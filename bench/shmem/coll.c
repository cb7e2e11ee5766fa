/* Collectives on SHMEM_TEAM_WORLD against the MPI library's on MPI_COMM_WORLD. */
#include <string.h>

#include "shmem_bench.h"

static const size_t kSizes[] = {8, 1024, 65536, 1 << 20};

static double avg_us(double t0, int iters) { return (bench_now() - t0) * 1e6 / iters; }

static void barrier_rows(bench_ctx *c) {
  int iters = bench_iters(c, 8, 1);
  shmem_barrier_all();
  double t0 = bench_now();
  for (int i = 0; i < iters; ++i) shmem_barrier_all();
  double f = avg_us(t0, iters);
  MPI_Barrier(MPI_COMM_WORLD);
  t0 = bench_now();
  for (int i = 0; i < iters; ++i) MPI_Barrier(MPI_COMM_WORLD);
  bench_emit(c, (bench_row){"barrier", 0, f, avg_us(t0, iters), "MPI_Barrier"});
}

static void broadcast_rows(bench_ctx *c) {
  for (size_t i = 0; i < sizeof kSizes / sizeof *kSizes && kSizes[i] <= c->maxBytes; ++i) {
    size_t n = kSizes[i];
    int iters = bench_iters(c, n, 1);
    shmem_barrier_all();
    double t0 = bench_now();
    for (int k = 0; k < iters; ++k) shmem_broadcastmem(SHMEM_TEAM_WORLD, c->buf, c->src, n, 0);
    double f = avg_us(t0, iters);
    if (c->validate && shmem_my_pe() == 1 && memcmp(c->buf, c->src, n) != 0) bench_fail("broadcast", n);
    MPI_Barrier(MPI_COMM_WORLD);
    t0 = bench_now();
    for (int k = 0; k < iters; ++k) MPI_Bcast(shmem_my_pe() == 0 ? c->src : c->buf, (int)n, MPI_BYTE, 0, MPI_COMM_WORLD);
    bench_emit(c, (bench_row){"broadcast", n, f, avg_us(t0, iters), "MPI_Bcast"});
  }
}

static void reduce_rows(bench_ctx *c) {
  for (size_t i = 0; i < sizeof kSizes / sizeof *kSizes && kSizes[i] <= c->maxBytes; ++i) {
    size_t n = kSizes[i], count = n / sizeof(long);
    int iters = bench_iters(c, n, 1);
    long *dst = (long *)c->buf, *src = (long *)(c->buf + n);
    for (size_t k = 0; k < count; ++k) src[k] = (long)k + shmem_my_pe();
    shmem_barrier_all();
    double t0 = bench_now();
    for (int k = 0; k < iters; ++k) shmem_long_sum_reduce(SHMEM_TEAM_WORLD, dst, src, count);
    double f = avg_us(t0, iters);
    if (c->validate && dst[count - 1] != 2 * (long)(count - 1) + 1) bench_fail("sum reduce", n);
    MPI_Barrier(MPI_COMM_WORLD);
    t0 = bench_now();
    for (int k = 0; k < iters; ++k) MPI_Allreduce(src, dst, (int)count, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    bench_emit(c, (bench_row){"sum_reduce", n, f, avg_us(t0, iters), "MPI_Allreduce"});
  }
}

void bench_coll(bench_ctx *c) {
  barrier_rows(c);
  broadcast_rows(c);
  reduce_rows(c);
}
