/* An ordinary MPI program that knows nothing of Ferry: it checks MPI_Allreduce's results
 * against values it can compute itself, for a few sizes, in and out of place, and prints
 * one line per size. The coll tests run it under `ferry run --pmpi` and LD_PRELOAD. */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int check(const int64_t* got, size_t n, int ranks, int in_place, int rank, size_t bytes) {
  for (size_t i = 0; i < n; ++i) {
    /* Rank r contributes r * 1000 + i; the sum over ranks is known in closed form. */
    int64_t want = (int64_t)ranks * (ranks - 1) / 2 * 1000 + (int64_t)ranks * (int64_t)i;
    if (got[i] != want) {
      fprintf(stderr, "rank %d: %zu B%s: element %zu is %lld, expected %lld\n", rank, bytes,
              in_place ? " in place" : "", i, (long long)got[i], (long long)want);
      return 1;
    }
  }
  return 0;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  const size_t sizes[] = {8, 4096, 256 * 1024, 4 * 1024 * 1024 + 8};
  int bad = 0;
  for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; ++s) {
    size_t n = sizes[s] / sizeof(int64_t);
    int64_t* in = malloc(n * sizeof *in);
    int64_t* out = malloc(n * sizeof *out);
    for (int in_place = 0; in_place < 2; ++in_place) {
      for (size_t i = 0; i < n; ++i) in[i] = (int64_t)rank * 1000 + (int64_t)i;
      if (in_place) {
        memcpy(out, in, n * sizeof *in);
        MPI_Allreduce(MPI_IN_PLACE, out, (int)n, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
      } else {
        MPI_Allreduce(in, out, (int)n, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
      }
      bad |= check(out, n, ranks, in_place, rank, sizes[s]);
    }
    free(in);
    free(out);
  }
  int anyBad = 0;
  MPI_Reduce(&bad, &anyBad, 1, MPI_INT, MPI_MAX, 0, MPI_COMM_WORLD);
  if (rank == 0) printf("plain_allreduce: %d ranks: %s\n", ranks, anyBad ? "WRONG RESULTS" : "all results correct");
  MPI_Finalize();
  return anyBad;
}
