/* OSU-style OpenSHMEM micro-benchmarks, each next to its native baseline in the same run
 * (docs/shmem.md, "Figures"): PE 0 issues, PE 1 is the target. On one node the baseline is
 * the hardware's: memcpy into PE 1's memory through shmem_ptr, and CPU atomics on it.
 * Across (virtual) nodes it is raw MPI-3 RMA on a window over the same symmetric buffer:
 * MPI_Put + MPI_Win_flush, MPI_Get + MPI_Win_flush, MPI_Fetch_and_op. */
#pragma once

#include <mpi.h>
#include <shmem.h>
#include <stddef.h>

typedef struct {
  int quick;          /* fewer iterations and sizes: for the test suite */
  int validate;       /* check the bytes that arrived, as OSU's -c */
  size_t maxBytes;
  MPI_Win win;        /* over `buf`, for the cross-node baselines */
  unsigned char *buf; /* symmetric, kBufferBytes */
  unsigned char *src; /* private source of the same size */
  long *word;         /* symmetric, for the atomics */
  int direct;         /* PE 1's memory can be loaded and stored (same node) */
} bench_ctx;

enum { kWindow = 64 };
#define kBufferBytes ((size_t)16 << 20)
/* Messages in flight for a bandwidth figure: kWindow, fewer where they would not fit. */
int bench_window(size_t bytes);

/* One figure: Ferry's time and its baseline's, in microseconds per operation. */
typedef struct {
  const char *test;
  size_t bytes;
  double ferry_us, base_us;
  const char *baseline;
} bench_row;

void bench_emit(const bench_ctx *c, bench_row row);
double bench_now(void);
int bench_iters(const bench_ctx *c, size_t bytes, int window);

void bench_rma(bench_ctx *c);
void bench_amo(bench_ctx *c);
void bench_coll(bench_ctx *c);
int bench_failures(void);
void bench_fail(const char *what, size_t bytes);
