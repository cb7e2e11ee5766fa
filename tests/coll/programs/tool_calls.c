/* An MPI program whose calls count_tool.c recognises: 7 small allreduces (below Ferry's
 * crossover: Ferry hands them to the library), 2 large ones (Ferry runs them where ranks
 * share a node), a small MPI_Alloc_mem (the library serves it) and a large one (Ferry's
 * shared heap serves it, unless FERRY_COLL=off), each freed; with an MPI-4 library, 3 small
 * MPI_Allreduce_c. Checks the results.
 * `tool_calls thread` starts MPI with MPI_Init_thread. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char** argv) {
  if (argc > 1 && strcmp(argv[1], "thread") == 0) {
    int provided = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  } else {
    MPI_Init(&argc, &argv);
  }
  int rank = 0, ranks = 1, bad = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  for (int call = 0; call < 7; ++call) {
    short in[5] = {1, 2, 1, 1, 1}, out[5];
    MPI_Allreduce(in, out, 5, MPI_SHORT, MPI_PROD, MPI_COMM_WORLD);
    if (out[1] != (short)(1 << ranks)) bad = 1;
  }
#if MPI_VERSION >= 4
  /* MPI-4's large-count binding, with small counts: Ferry hands these on as they came. */
  for (int call = 0; call < 3; ++call) {
    short in[5] = {1, 2, 1, 1, 1}, out[5];
    MPI_Allreduce_c(in, out, 5, MPI_SHORT, MPI_PROD, MPI_COMM_WORLD);
    if (out[1] != (short)(1 << ranks)) bad = 1;
  }
#endif
  const int n = 256 * 1024;
  float* in = malloc(n * sizeof *in);
  float* out = malloc(n * sizeof *out);
  for (int i = 0; i < n; ++i) in[i] = (float)(rank + 1);
  for (int call = 0; call < 2; ++call) {
    MPI_Allreduce(in, out, n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    if (out[0] != (float)(ranks * (ranks + 1) / 2) || out[n - 1] != out[0]) bad = 1;
  }
  const MPI_Aint blocks[2] = {64, 1 << 20};
  for (int b = 0; b < 2; ++b) {
    char* block = NULL;
    if (MPI_Alloc_mem(blocks[b], MPI_INFO_NULL, &block) != MPI_SUCCESS || !block) bad = 1;
    else memset(block, 1, (size_t)blocks[b]);
    MPI_Free_mem(block);
  }
  free(in);
  free(out);
  int anyBad = 0;
  MPI_Reduce(&bad, &anyBad, 1, MPI_INT, MPI_MAX, 0, MPI_COMM_WORLD);
  if (rank == 0) printf("tool_calls: %d ranks: %s\n", ranks, anyBad ? "WRONG RESULTS" : "all results correct");
  MPI_Finalize();
  return anyBad;
}
