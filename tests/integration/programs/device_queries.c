/* OpenMP's device queries inside target regions agree with the host: the same device count
 * and host device number, and omp_get_device_num() names the device running the region
 * (also in threads the region forks). */
#include "check.h"

int main(void) {
  int n = omp_get_num_devices();
  for (int d = 0; d < n; ++d) {
    int dn = -5, nd = -5, init = -5, par = -5, is_init = -5;
#pragma omp target device(d) map(tofrom : dn, nd, init, par, is_init)
    {
      dn = omp_get_device_num();
      nd = omp_get_num_devices();
      init = omp_get_initial_device();
      is_init = omp_is_initial_device();
#pragma omp parallel num_threads(2)
      {
        if (omp_get_thread_num() == omp_get_num_threads() - 1) par = omp_get_device_num();
      }
    }
    CHECK(dn == d, "device %d: omp_get_device_num() says %d", d, dn);
    CHECK(par == d, "device %d: omp_get_device_num() in a forked thread says %d", d, par);
    CHECK(nd == n, "device %d: omp_get_num_devices() says %d, the host says %d", d, nd, n);
    CHECK(init == omp_get_initial_device(), "device %d: omp_get_initial_device() says %d, the host says %d", d, init,
          omp_get_initial_device());
    CHECK(is_init == 0, "device %d: omp_is_initial_device() says %d", d, is_init);
  }
  CHECK(omp_get_device_num() == omp_get_initial_device(), "on the host, omp_get_device_num() is the host");
  return finish("device_queries");
}
