/* 2D Jacobi stencil on the co-processor: MPI, with the co-processor as rank 1. */
#include <mpi.h>
#include <omp.h>
#include "kernel_common.h"
#include "stencil_ref.h"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const int n = STENCIL_N;
  double* a = malloc(sizeof(double) * n * n);
  double* b = malloc(sizeof(double) * n * n);
  int status = 0;
  if (rank == 0) {
    stencil_init(a, n);
    double t0 = now_s();
    MPI_Send(a, n * n, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD);
    MPI_Recv(a, n * n, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    double seconds = now_s() - t0, s = 0;
    for (int k = 0; k < n * n; ++k) s += a[k];
    status = report("stencil", seconds, s, stencil_reference(n, STENCIL_ITERS));
  } else if (rank == 1) {
    MPI_Recv(a, n * n, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    for (int k = 0; k < n * n; ++k) b[k] = a[k];
    for (int it = 0; it < STENCIL_ITERS; ++it) {
#pragma omp parallel for collapse(2)
      for (int i = 1; i < n - 1; ++i)
        for (int j = 1; j < n - 1; ++j)
          b[i * n + j] = 0.25 * (a[(i - 1) * n + j] + a[(i + 1) * n + j] + a[i * n + j - 1] + a[i * n + j + 1]);
#pragma omp parallel for
      for (int k = 0; k < n * n; ++k) a[k] = b[k];
    }
    MPI_Send(a, n * n, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD);
  }
  MPI_Finalize();
  return status;
}
