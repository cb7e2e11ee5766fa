/* Compiles against the installed headers and links the installed collectives library. */
#include <ferry/ferry_coll.h>
#include <ferry/ferry_offload.h>
#include <mpi.h>
#include <stdio.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  ferry_offload_counters c;
  /* No offload plugin in this process: the query must say so rather than crash. */
  int rc = ferry_offload_get_counters(&c);
  double in = 1.0, out = 0.0;
  int arc = ferry_allreduce(&in, &out, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  int size = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  printf("offload query %s; ferry_allreduce %s: %g\n", rc == FERRY_OFFLOAD_UNAVAILABLE ? "unavailable as expected" : "WRONG",
         arc == MPI_SUCCESS && out == size ? "ok" : "WRONG", out);
  MPI_Finalize();
  return rc == FERRY_OFFLOAD_UNAVAILABLE && arc == MPI_SUCCESS && out == size ? 0 : 1;
}
