/* Compiles against the installed headers and links the installed collectives library. */
#include <ferry/ferry_coll.h>
#include <ferry/ferry_offload.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  ferry_offload_counters c;
  /* No offload plugin in this process: the query must say so rather than crash. */
  int rc = ferry_offload_get_counters(&c);
  /* Large enough for Ferry's own algorithm, not the hand-over to the library. */
  enum { n = 1 << 20 };
  double* in = malloc(n * sizeof *in);
  double* out = malloc(n * sizeof *out);
  for (int i = 0; i < n; ++i) in[i] = 1.0;
  ferry_coll_stats before = {0}, after = {0};
  ferry_coll_get_stats(&before, sizeof before);
  int arc = ferry_allreduce(in, out, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  ferry_coll_get_stats(&after, sizeof after);
  int size = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int ok = rc == FERRY_OFFLOAD_UNAVAILABLE && arc == MPI_SUCCESS && out[0] == size && out[n - 1] == size &&
           after.ferry_calls == before.ferry_calls + 1;
  printf("offload query %s; ferry_allreduce of 8 MiB %s: %g (Ferry's algorithm ran %llu time(s))\n",
         rc == FERRY_OFFLOAD_UNAVAILABLE ? "unavailable as expected" : "WRONG", ok ? "ok" : "WRONG", out[0],
         (unsigned long long)(after.ferry_calls - before.ferry_calls));
  free(in);
  free(out);
  MPI_Finalize();
  return ok ? 0 : 1;
}
