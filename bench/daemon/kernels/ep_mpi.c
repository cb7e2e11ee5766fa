/* An embarrassingly parallel kernel on the co-processor: MPI, with the co-processor as rank 1. */
#include <mpi.h>
#include <omp.h>
#include "kernel_common.h"
#include "ep_ref.h"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  long n = EP_N;
  int status = 0;
  if (rank == 0) {
    double s = 0, t0 = now_s();
    MPI_Send(&n, 1, MPI_LONG, 1, 0, MPI_COMM_WORLD);
    MPI_Recv(&s, 1, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    double seconds = now_s() - t0;
    status = report("ep", seconds, s, ep_reference(n));
  } else if (rank == 1) {
    MPI_Recv(&n, 1, MPI_LONG, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    double s = 0, h = 1.0 / (double)n;
#pragma omp parallel for reduction(+ : s)
    for (long i = 0; i < n; ++i) {
      double x = ((double)i + 0.5) * h;
      s += 4.0 / (1.0 + x * x);
    }
    s *= h;
    MPI_Send(&s, 1, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD);
  }
  MPI_Finalize();
  return status;
}
