/* device(k) over every device: each region runs on its documented rank, with its data. */
#include "check.h"

int main(void) {
  int n = omp_get_num_devices();
  CHECK(n >= 1, "no devices");
  CHECK(omp_get_initial_device() == n, "initial device is %d", omp_get_initial_device());
  for (int d = 0; d < n; ++d) {
    check_region_rank(d);
    int on_host = 1, dev_num = -1;
    long sum = 0;
    int v[64];
    for (int i = 0; i < 64; ++i) v[i] = i + d;
#pragma omp target device(d) map(to : v) map(from : on_host, dev_num) map(tofrom : sum)
    {
      on_host = omp_is_initial_device();
      for (int i = 0; i < 64; ++i) sum += v[i];
    }
    CHECK(!on_host, "device %d says it is the host", d);
    CHECK(sum == 64 * 63 / 2 + 64 * d, "device %d sum %ld", d, sum);
  }
  return finish("all_devices");
}
