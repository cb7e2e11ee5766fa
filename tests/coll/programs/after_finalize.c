/* An erroneous MPI program: MPI_Allreduce after MPI_Finalize. Under Ferry's interposer the
 * call must reach the MPI library, so that its error names MPI_Allreduce, the call the user
 * made, rather than some call of Ferry's own. The size is above every crossover. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int n = 1 << 17;
  double* in = calloc(n, sizeof *in);
  double* out = calloc(n, sizeof *out);
  MPI_Allreduce(in, out, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  MPI_Finalize();
  fprintf(stderr, "after_finalize: calling MPI_Allreduce after MPI_Finalize\n");
  MPI_Allreduce(in, out, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  fprintf(stderr, "after_finalize: the MPI library returned\n");
  return 0;
}
