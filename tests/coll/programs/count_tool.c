/* A minimal PMPI profiling tool, as mpiP or Score-P are: it replaces MPI functions, counts
 * the calls and passes each to PMPI_. At MPI_Finalize every rank prints what it saw. The
 * coll tests preload it after Ferry's interposer, which must hand it every call it does not
 * run itself, and none of Ferry's own. The shapes it sorts calls by are tool_calls.c's. */
#include <mpi.h>
#include <stdio.h>

static int inits, allreduces, small_allreduces, large_allreduces, alloc_mems, free_mems, large_count_allreduces;

int MPI_Init(int* argc, char*** argv) {
  ++inits;
  return PMPI_Init(argc, argv);
}

int MPI_Init_thread(int* argc, char*** argv, int required, int* provided) {
  ++inits;
  return PMPI_Init_thread(argc, argv, required, provided);
}

int MPI_Allreduce(const void* send, void* recv, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  ++allreduces;
  /* tool_calls.c's shapes: 5 shorts multiplied, 256 Ki floats added. */
  if (type == MPI_SHORT && op == MPI_PROD && count == 5) ++small_allreduces;
  if (type == MPI_FLOAT && op == MPI_SUM && count == 256 * 1024) ++large_allreduces;
  return PMPI_Allreduce(send, recv, count, type, op, comm);
}

#if MPI_VERSION >= 4
int MPI_Allreduce_c(const void* send, void* recv, MPI_Count count, MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  ++large_count_allreduces;
  return PMPI_Allreduce_c(send, recv, count, type, op, comm);
}
#endif

int MPI_Alloc_mem(MPI_Aint size, MPI_Info info, void* baseptr) {
  ++alloc_mems;
  return PMPI_Alloc_mem(size, info, baseptr);
}

int MPI_Free_mem(void* base) {
  ++free_mems;
  return PMPI_Free_mem(base);
}

int MPI_Finalize(void) {
  int rank = -1;
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  /* One write: a launcher may forward each write of a rank on its own, between other ranks'. */
  char line[256];
  int len = snprintf(line, sizeof line,
                     "count_tool: rank %d saw MPI_Init %d, MPI_Allreduce %d (small %d, large %d), MPI_Alloc_mem %d, "
                     "MPI_Free_mem %d",
                     rank, inits, allreduces, small_allreduces, large_allreduces, alloc_mems, free_mems);
#if MPI_VERSION >= 4
  snprintf(line + len, sizeof line - (size_t)len, ", MPI_Allreduce_c %d", large_count_allreduces);
#endif
  printf("%s\n", line);
  fflush(stdout);
  return PMPI_Finalize();
}
