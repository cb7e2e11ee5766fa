/* is_device_ptr, use_device_ptr and use_device_addr. */
#include "check.h"

int main(void) {
  int n = omp_get_num_devices();
  for (int d = 0; d < n; ++d) {
    double* dp = omp_target_alloc(512 * sizeof(double), d);
    CHECK(dp != NULL, "alloc on %d", d);
#pragma omp target device(d) is_device_ptr(dp)
    for (int i = 0; i < 512; ++i) dp[i] = i * 2.0;
    double out[512];
    CHECK(omp_target_memcpy(out, dp, sizeof out, 0, 0, omp_get_initial_device(), d) == 0, "copy back");
    for (int i = 0; i < 512; ++i) CHECK(out[i] == i * 2.0, "dev %d out[%d]=%g", d, i, out[i]);

    int* a = malloc(128 * sizeof(int));
    for (int i = 0; i < 128; ++i) a[i] = i;
    int* devAddr = NULL;
#pragma omp target data device(d) map(tofrom : a[0 : 128])
    {
#pragma omp target data device(d) use_device_ptr(a)
      devAddr = a;
      CHECK(devAddr != NULL && devAddr != a, "use_device_ptr gave %p for host %p", (void*)devAddr, (void*)a);
      CHECK(omp_target_is_present(a, d), "a present");
#pragma omp target device(d) is_device_ptr(devAddr)
      for (int i = 0; i < 128; ++i) devAddr[i] *= 5;
    }
    for (int i = 0; i < 128; ++i) CHECK(a[i] == 5 * i, "dev %d a[%d]=%d", d, i, a[i]);

    int scalar = 3;
    int* scalarDev = NULL;
#pragma omp target data device(d) map(tofrom : scalar)
    {
#pragma omp target data device(d) use_device_addr(scalar)
      scalarDev = &scalar;
#pragma omp target device(d) is_device_ptr(scalarDev)
      *scalarDev = 44;
    }
    CHECK(scalar == 44, "dev %d use_device_addr scalar %d", d, scalar);
    free(a);
    omp_target_free(dp, d);
  }
  return finish("device_ptrs");
}
