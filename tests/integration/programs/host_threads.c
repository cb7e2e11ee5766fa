/* Many host threads offload at once: each OpenMP thread of rank 0 drives its own device
 * (and some share one), with maps, kernels and device-to-device copies in flight together. */
#include "check.h"

int main(void) {
  int n = omp_get_num_devices();
  int threads = 2 * n;
  int bad = 0;
#pragma omp parallel num_threads(threads) reduction(+ : bad)
  {
    int t = omp_get_thread_num();
    int d = t % n;
    enum { N = 4096 };
    double* v = malloc(N * sizeof(double));
    for (int round = 0; round < 50; ++round) {
      for (int i = 0; i < N; ++i) v[i] = t * 1000 + round + i;
#pragma omp target teams distribute parallel for device(d) map(tofrom : v[0 : N])
      for (int i = 0; i < N; ++i) v[i] = 2 * v[i] + 1;
      for (int i = 0; i < N; ++i) bad += v[i] != 2.0 * (t * 1000 + round + i) + 1;
      int r = -1;
#pragma omp target device(d) map(from : r)
      r = current_rank();
      bad += r != expected_rank(d);
    }
    /* A device-to-device copy per thread, to the next device. */
    if (n > 1) {
      int next = (d + 1) % n;
      double* src = omp_target_alloc(N * sizeof(double), d);
      double* dst = omp_target_alloc(N * sizeof(double), next);
      omp_target_memcpy(src, v, N * sizeof(double), 0, 0, d, omp_get_initial_device());
      omp_target_memcpy(dst, src, N * sizeof(double), 0, 0, next, d);
      double* back = malloc(N * sizeof(double));
      omp_target_memcpy(back, dst, N * sizeof(double), 0, 0, omp_get_initial_device(), next);
      for (int i = 0; i < N; ++i) bad += back[i] != v[i];
      free(back);
      omp_target_free(src, d);
      omp_target_free(dst, next);
    }
    free(v);
  }
  CHECK(bad == 0, "%d wrong results across %d threads", bad, threads);
  return finish("host_threads");
}
