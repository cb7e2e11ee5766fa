/* An embarrassingly parallel kernel on the co-processor: OpenMP offload to the daemon's device. */
#include <omp.h>
#include "kernel_common.h"
#include "ep_ref.h"

int main(void) {
  const long n = EP_N;
  const int dev = omp_get_num_devices() - 1; /* the daemon's device comes last */
  double s = 0, h = 1.0 / (double)n;
  double t0 = now_s();
#pragma omp target teams distribute parallel for device(dev) reduction(+ : s) map(tofrom : s)
  for (long i = 0; i < n; ++i) {
    double x = ((double)i + 0.5) * h;
    s += 4.0 / (1.0 + x * x);
  }
  double seconds = now_s() - t0;
  return report("ep", seconds, s * h, ep_reference(n));
}
