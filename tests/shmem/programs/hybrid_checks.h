/* The checks both hybrid programs run while MPI and OpenSHMEM are both up: each library on
 * its own, MPI on symmetric memory, and the two views of the job agreeing. Returns non-zero
 * on every process if any check failed anywhere (decided with MPI_Allreduce). */
#ifndef FERRY_TESTS_SHMEM_HYBRID_CHECKS_H
#define FERRY_TESTS_SHMEM_HYBRID_CHECKS_H

#include <mpi.h>
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>

static long hybridSlots[64]; /* symmetric: static data */

static int hybridChecks(const char* order) {
  int me = shmem_my_pe(), n = shmem_n_pes(), rank = -1, size = -1, bad = 0, anyBad = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size != n || n > 64) {
    fprintf(stderr, "[%s] PE %d: MPI has %d ranks, SHMEM %d PEs\n", order, me, size, n);
    bad = 1;
  }
  /* MPI alone. */
  long one = rank + 1, sum = 0;
  MPI_Allreduce(&one, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  if (sum != (long)size * (size + 1) / 2) {
    fprintf(stderr, "[%s] rank %d: MPI_Allreduce gave %ld\n", order, rank, sum);
    bad = 1;
  }
  /* SHMEM alone: a put into the right neighbour, completed by the barrier. */
  const int right = (me + 1) % n, left = (me + n - 1) % n;
  shmem_long_p(&hybridSlots[me % 64], 1000 + me, right);
  shmem_barrier_all();
  if (hybridSlots[left % 64] != 1000 + left) {
    fprintf(stderr, "[%s] PE %d: the put of PE %d is missing (%ld)\n", order, me, left, hybridSlots[left % 64]);
    bad = 1;
  }
  /* The PE numbers, gathered by MPI, are 0..n-1 once each. */
  int* pes = calloc((size_t)size, sizeof(int));
  int* seen = calloc((size_t)n + 1, sizeof(int));
  MPI_Allgather(&me, 1, MPI_INT, pes, 1, MPI_INT, MPI_COMM_WORLD);
  for (int i = 0; i < size; ++i) {
    if (pes[i] < 0 || pes[i] >= n || seen[pes[i]]++) {
      fprintf(stderr, "[%s] rank %d: PE numbers gathered by MPI are not 0..%d once each\n", order, rank, n - 1);
      bad = 1;
      break;
    }
  }
  free(seen);
  free(pes);
  /* MPI writes symmetric memory; SHMEM reads it on another PE. */
  long* buf = shmem_malloc(2 * sizeof(long));
  if (!buf) {
    fprintf(stderr, "[%s] PE %d: shmem_malloc failed\n", order, me);
    bad = 1;
  } else {
    buf[0] = me;
    MPI_Allreduce(&buf[0], &buf[1], 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    shmem_barrier_all();
    long theirs = shmem_long_g(&buf[1], right);
    if (buf[1] != (long)n * (n - 1) / 2 || theirs != buf[1]) {
      fprintf(stderr, "[%s] PE %d: MPI result in symmetric memory %ld, PE %d's %ld\n", order, me, buf[1], right, theirs);
      bad = 1;
    }
    shmem_barrier_all();
    shmem_free(buf);
  }
  MPI_Allreduce(&bad, &anyBad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  return anyBad;
}

#endif
