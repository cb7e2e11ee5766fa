/* soak_allreduce: a long MPI job must not grow. An ordinary MPI program (run with the
 * interposer preloaded) makes CALLS allreduce calls: sizes from 8 B to 1 MiB, the datatypes
 * and operations Ferry takes and some it hands to the library, in place and not, on
 * MPI_COMM_WORLD and on communicators it creates and frees as it goes (every 100th call),
 * each result checked. Every rank measures its memory, descriptors and /dev/shm entries
 * (tests/support/proc_usage.h) after a warm-up, halfway and at the end; it fails if any grew
 * beyond the bounds set there in the second half, or by a descriptor or entry at all.
 *
 * Usage: soak_allreduce CALLS   (docs/robustness.md, "Soak") */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proc_usage.h"

enum { kWarmup = 2000, kMaxBytes = 1 << 20 };

static int64_t in64[kMaxBytes / 8], out64[kMaxBytes / 8];
static double ind[kMaxBytes / 8], outd[kMaxBytes / 8];

/* Call `i`'s size: mostly mid-sized (Ferry's pipeline), some small (the library) and large. */
static size_t elements(long i) {
  static const size_t bytes[] = {8, 4096, 16384, 65536, 8, 262144, 32768, 1048576, 131072, 24};
  return bytes[i % 10] / 8;
}

/* int64 sums: rank r gives r + i + k at element k, so every element has a known sum. */
static int sum_call(long i, MPI_Comm comm, int in_place) {
  int rank, ranks;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &ranks);
  size_t n = elements(i);
  int64_t* src = in_place ? out64 : in64;
  for (size_t k = 0; k < n; ++k) src[k] = rank + i + (int64_t)k;
  MPI_Allreduce(in_place ? MPI_IN_PLACE : in64, out64, (int)n, MPI_INT64_T, MPI_SUM, comm);
  int64_t base = (int64_t)ranks * (ranks - 1) / 2 + (int64_t)ranks * i;
  for (size_t k = 0; k < n; k += 1 + n / 64)
    if (out64[k] != base + (int64_t)ranks * (int64_t)k) {
      fprintf(stderr, "FAIL call %ld: %zu B int64 sum, element %zu is %lld, expected %lld\n", i, n * 8, k,
              (long long)out64[k], (long long)(base + (int64_t)ranks * (int64_t)k));
      return 1;
    }
  return 0;
}

/* Double maxima: the highest rank's value wins everywhere. */
static int max_call(long i, MPI_Comm comm) {
  int rank, ranks;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &ranks);
  size_t n = elements(i);
  for (size_t k = 0; k < n; ++k) ind[k] = (double)rank * 0.5 + (double)k;
  MPI_Allreduce(ind, outd, (int)n, MPI_DOUBLE, MPI_MAX, comm);
  for (size_t k = 0; k < n; k += 1 + n / 64)
    if (outd[k] != (double)(ranks - 1) * 0.5 + (double)k) {
      fprintf(stderr, "FAIL call %ld: %zu B double max, element %zu is %g\n", i, n * 8, k, outd[k]);
      return 1;
    }
  return 0;
}

static int one_call(long i) {
  if (i % 100 == 95) {  // a communicator of the program's own (256 KiB: set up by Ferry), used once and freed
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    int bad = sum_call(i, dup, 0);
    MPI_Comm_free(&dup);
    return bad;
  }
  if (i % 3 == 2) return max_call(i, MPI_COMM_WORLD);
  return sum_call(i, MPI_COMM_WORLD, i % 2);
}

/* Rank 0 prints every rank's figures and what grew beyond the bounds; returns whether any did. */
static int report(int rank, int ranks, struct proc_usage b, struct proc_usage m, struct proc_usage a) {
  char why[160];
  int grew = proc_usage_grew(&m, &a, why, sizeof why);
  if (!grew && (a.fds > b.fds || a.shm_entries > b.shm_entries)) grew = proc_usage_grew(&b, &a, why, sizeof why);
  long mine[7] = {b.rss_kib, a.rss_kib - b.rss_kib, m.malloc_kib - b.malloc_kib, a.malloc_kib - m.malloc_kib,
                  a.fds - b.fds, a.shm_entries - b.shm_entries, grew};
  long* all = rank == 0 ? malloc(sizeof mine * (size_t)ranks) : NULL;
  MPI_Gather(mine, 7, MPI_LONG, all, 7, MPI_LONG, 0, MPI_COMM_WORLD);
  if (grew) fprintf(stderr, "FAIL rank %d: %s\n", rank, why);
  int any = 0;
  if (rank == 0) {
    printf("%-6s %14s %10s %20s %6s %9s\n", "rank", "RSS start KiB", "RSS KiB", "malloc KiB +1st+2nd", "fds",
           "/dev/shm");
    for (int r = 0; r < ranks; ++r) {
      long* g = all + 7 * r;
      printf("%-6d %14ld %+10ld %+10ld %+9ld %+6ld %+9ld\n", r, g[0], g[1], g[2], g[3], g[4], g[5]);
      any |= g[6] != 0;
    }
  }
  free(all);
  return any;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  long calls = argc > 1 ? atol(argv[1]) : 100000;
  int rank, ranks, bad = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  for (long i = 0; i < kWarmup; ++i) bad |= one_call(i);
  struct proc_usage before = proc_usage_now(NULL), mid;
  double t0 = MPI_Wtime();
  for (long i = 0; i < calls; ++i) {
    if (i == calls / 2) mid = proc_usage_now(NULL);
    bad |= one_call(i);
  }
  double seconds = MPI_Wtime() - t0;
  struct proc_usage after = proc_usage_now(NULL);
  int any = 0;
  MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (rank == 0) printf("soak_allreduce: %ld calls on %d ranks in %.1f s\n", calls, ranks, seconds);
  any |= report(rank, ranks, before, mid, after);
  if (rank == 0) printf("soak_allreduce: %s\n", any ? "FAILED" : "all results correct, nothing grew");
  MPI_Finalize();
  return any;
}
