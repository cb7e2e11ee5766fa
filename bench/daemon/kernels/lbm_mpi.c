/* A lattice-Boltzmann-style sweep on the co-processor: MPI, with the co-processor as rank 1. */
#include <mpi.h>
#include <omp.h>
#include "kernel_common.h"
#include "lbm_ref.h"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const int n = LBM_N, count = 5 * n * n;
  double* f = malloc(sizeof(double) * count);
  double* g = malloc(sizeof(double) * count);
  int status = 0;
  if (rank == 0) {
    lbm_init(f, n);
    double t0 = now_s();
    MPI_Send(f, count, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD);
    MPI_Recv(f, count, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    double seconds = now_s() - t0;
    status = report("lbm", seconds, lbm_checksum(f, n), lbm_reference(n, LBM_STEPS));
  } else if (rank == 1) {
    MPI_Recv(f, count, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    for (int t = 0; t < LBM_STEPS; ++t) {
      double* src = t % 2 ? g : f;
      double* dst = t % 2 ? f : g;
#pragma omp parallel for collapse(2)
      for (int y = 0; y < n; ++y)
        for (int x = 0; x < n; ++x) {
          double p[5], rho = 0;
          for (int q = 0; q < 5; ++q) {
            int sx = (x - lbm_cx[q] + n) % n, sy = (y - lbm_cy[q] + n) % n;
            p[q] = src[(sy * n + sx) * 5 + q];
            rho += p[q];
          }
          for (int q = 0; q < 5; ++q) dst[(y * n + x) * 5 + q] = p[q] - LBM_OMEGA * (p[q] - lbm_w[q] * rho);
        }
    }
    MPI_Send(f, count, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD);
  }
  MPI_Finalize();
  return status;
}
