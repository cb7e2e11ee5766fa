/* The executable and a shared library each bring an image; both load on every device. */
#include "check.h"

int lib_scale_on_device(int device, int* data, int count, int factor);

#pragma omp declare target
int exe_global = 5;
#pragma omp end declare target

int main(void) {
  int n = omp_get_num_devices();
  for (int d = 0; d < n; ++d) {
    int data[10];
    for (int i = 0; i < 10; ++i) data[i] = i;
    int g = lib_scale_on_device(d, data, 10, 3);
    for (int i = 0; i < 10; ++i) CHECK(data[i] == 3 * i + 1000, "dev %d data[%d]=%d", d, i, data[i]);
    CHECK(g == 1001, "dev %d library global %d", d, g);
    int e = -1;
#pragma omp target device(d) map(from : e)
    e = exe_global * 2;
    CHECK(e == 10, "dev %d executable global %d", d, e);
    check_region_rank(d);
  }
  return finish("shared_lib");
}
