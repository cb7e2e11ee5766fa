/* 2D Jacobi stencil on the co-processor: OpenMP offload to the daemon's device. */
#include <omp.h>
#include "kernel_common.h"
#include "stencil_ref.h"

int main(void) {
  const int n = STENCIL_N, dev = omp_get_num_devices() - 1; /* the daemon's device comes last */
  double* a = malloc(sizeof(double) * n * n);
  double* b = malloc(sizeof(double) * n * n);
  stencil_init(a, n);
  stencil_init(b, n);
  double t0 = now_s();
#pragma omp target data device(dev) map(tofrom : a[0:n * n]) map(to : b[0:n * n])
  for (int it = 0; it < STENCIL_ITERS; ++it) {
#pragma omp target teams distribute parallel for device(dev) collapse(2)
    for (int i = 1; i < n - 1; ++i)
      for (int j = 1; j < n - 1; ++j)
        b[i * n + j] = 0.25 * (a[(i - 1) * n + j] + a[(i + 1) * n + j] + a[i * n + j - 1] + a[i * n + j + 1]);
#pragma omp target teams distribute parallel for device(dev)
    for (int k = 0; k < n * n; ++k) a[k] = b[k];
  }
  double seconds = now_s() - t0, s = 0;
  for (int k = 0; k < n * n; ++k) s += a[k];
  return report("stencil", seconds, s, stencil_reference(n, STENCIL_ITERS));
}
