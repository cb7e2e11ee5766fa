/* shmem_bench: see shmem_bench.h. `oshrun -n 2 shmem_bench [--quick] [--validate]` prints
 * one CSV row per figure: test,bytes,ferry_us,baseline_us,ratio,baseline,layout. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "shmem_bench.h"

static int g_failures;

double bench_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* OSU's counts: 10,000 timed iterations of a small message, 1,000 of a large one. */
int bench_iters(const bench_ctx *c, size_t bytes, int window) {
  int n = bytes <= 8192 ? 10000 : 1000;
  if (window > 1) n = bytes <= 8192 ? 100 : 20;
  return c->quick ? (n / 20 > 2 ? n / 20 : 2) : n;
}

void bench_emit(const bench_ctx *c, bench_row r) {
  if (shmem_my_pe() != 0) return;
  printf("%s,%zu,%.4f,%.4f,%.3f,%s,%s\n", r.test, r.bytes, r.ferry_us, r.base_us,
         r.base_us > 0 ? r.ferry_us / r.base_us : 0.0, r.baseline, c->direct ? "intra-node" : "inter-node");
  fflush(stdout);
}

void bench_fail(const char *what, size_t bytes) {
  fprintf(stderr, "shmem_bench: PE %d: %s, %zu B: wrong data\n", shmem_my_pe(), what, bytes);
  ++g_failures;
}

int bench_failures(void) { return g_failures; }

int bench_window(size_t bytes) { return bytes * kWindow <= kBufferBytes ? kWindow : (int)(kBufferBytes / bytes); }

static void parse(bench_ctx *c, int argc, char **argv) {
  c->maxBytes = 1 << 22;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--quick")) c->quick = 1, c->maxBytes = 1 << 20;
    else if (!strcmp(argv[i], "--validate")) c->validate = 1;
    else {
      fprintf(stderr, "usage: %s [--quick] [--validate]\n", argv[0]);
      exit(2);
    }
  }
}

int main(int argc, char **argv) {
  bench_ctx c = {0};
  parse(&c, argc, argv);
  shmem_init();
  if (shmem_n_pes() != 2) {
    if (shmem_my_pe() == 0) fprintf(stderr, "shmem_bench: runs on exactly 2 PEs (oshrun -n 2)\n");
    shmem_finalize();
    return 2;
  }
  c.buf = shmem_malloc(kBufferBytes);
  c.word = shmem_malloc(sizeof(long));
  c.src = malloc(kBufferBytes);
  if (!c.buf || !c.word || !c.src) {
    fprintf(stderr, "shmem_bench: cannot allocate %zu B (raise SHMEM_SYMMETRIC_SIZE)\n", kBufferBytes);
    shmem_global_exit(2);
  }
  for (size_t i = 0; i < kBufferBytes; ++i) c.src[i] = (unsigned char)(i * 7 + 1);
  c.direct = shmem_ptr(c.buf, 1 - shmem_my_pe()) != NULL;
  MPI_Win_create(c.buf, (MPI_Aint)(kBufferBytes), 1, MPI_INFO_NULL, MPI_COMM_WORLD, &c.win);
  MPI_Win_lock_all(MPI_MODE_NOCHECK, c.win);
  if (shmem_my_pe() == 0) printf("test,bytes,ferry_us,baseline_us,ratio,baseline,layout\n");
  bench_rma(&c);
  bench_amo(&c);
  bench_coll(&c);
  MPI_Win_unlock_all(c.win);
  MPI_Win_free(&c.win);
  static int failed, total; /* symmetric, as a reduction's source and dest must be */
  failed = bench_failures();
  shmem_int_sum_reduce(SHMEM_TEAM_WORLD, &total, &failed, 1);
  free(c.src);
  shmem_free(c.word);
  shmem_free(c.buf);
  shmem_finalize();
  return total ? 1 : 0;
}
