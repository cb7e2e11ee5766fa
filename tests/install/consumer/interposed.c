/* A plain MPI program linked with the installed interposer (Ferry::pmpi): its
 * MPI_Allreduce runs Ferry's algorithm and gives the library's result. */
#include <ferry/ferry_coll.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  enum { n = 1 << 20 };
  long* in = malloc(n * sizeof *in);
  long* out = malloc(n * sizeof *out);
  long* want = malloc(n * sizeof *want);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  for (int i = 0; i < n; ++i) in[i] = 3L * i + rank;
  ferry_coll_stats before = {0}, after = {0};
  ferry_coll_get_stats(&before, sizeof before);
  MPI_Allreduce(in, out, n, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  ferry_coll_get_stats(&after, sizeof after);
  PMPI_Allreduce(in, want, n, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  int same = 1;
  for (int i = 0; i < n; ++i) same = same && out[i] == want[i];
  int ok = same && after.ferry_calls == before.ferry_calls + 1;
  printf("interposed MPI_Allreduce: %s (Ferry's algorithm ran %llu time(s))\n", ok ? "ok" : "WRONG",
         (unsigned long long)(after.ferry_calls - before.ferry_calls));
  free(in);
  free(out);
  free(want);
  MPI_Finalize();
  return ok ? 0 : 1;
}
