/* OMP_NUM_THREADS sizes the parallel regions of kernels on serving ranks, as it does with the
 * stock host plugin; without it each device gets its share of the node (at least 1), which
 * the test compares with the count the serving rank logs (FERRY_LOG=debug,service). */
#include "check.h"

int main(void) {
  int want = env_int("OMP_NUM_THREADS", 0);
  for (int d = 0; d < omp_get_num_devices(); ++d) {
    int got = -1;
#pragma omp target device(d) map(from : got)
#pragma omp parallel
    {
#pragma omp masked
      got = omp_get_num_threads();
    }
    if (want)
      CHECK(got == want, "device %d ran its parallel region with %d thread(s), OMP_NUM_THREADS=%d", d, got, want);
    else
      CHECK(got >= 1, "device %d ran its parallel region with %d thread(s)", d, got);
    printf("kernel_threads: device %d ran with %d thread(s)\n", d, got);
  }
  return finish("kernel_threads");
}
