/* A lattice-Boltzmann-style sweep on the co-processor: OpenMP offload to the daemon's device. */
#include <omp.h>
#include "kernel_common.h"
#include "lbm_ref.h"

int main(void) {
  const int n = LBM_N, dev = omp_get_num_devices() - 1; /* the daemon's device comes last */
  double* f = malloc(sizeof(double) * 5 * n * n);
  double* g = malloc(sizeof(double) * 5 * n * n);
  lbm_init(f, n);
  double t0 = now_s();
#pragma omp target data device(dev) map(tofrom : f[0:5 * n * n]) map(alloc : g[0:5 * n * n])
  for (int t = 0; t < LBM_STEPS; ++t) {
    double* src = t % 2 ? g : f;
    double* dst = t % 2 ? f : g;
#pragma omp target teams distribute parallel for device(dev) collapse(2)
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
  double seconds = now_s() - t0;
  return report("lbm", seconds, lbm_checksum(f, n), lbm_reference(n, LBM_STEPS));
}
