/* target data regions with update, and unstructured enter/exit data: data stays on the
 * device across regions and moves only when asked. */
#include "check.h"

int main(void) {
  int n = omp_get_num_devices();
  for (int d = 0; d < n; ++d) {
    int x[256];
    for (int i = 0; i < 256; ++i) x[i] = i;
#pragma omp target data device(d) map(tofrom : x)
    {
#pragma omp target device(d)
      for (int i = 0; i < 256; ++i) x[i] += 1;
      /* The host copy is stale until an update from. */
      CHECK(x[10] == 10, "dev %d host copy changed early: %d", d, x[10]);
#pragma omp target update device(d) from(x)
      CHECK(x[10] == 11, "dev %d update from: %d", d, x[10]);
      for (int i = 0; i < 256; ++i) x[i] *= 10;
#pragma omp target update device(d) to(x)
#pragma omp target device(d)
      for (int i = 0; i < 256; ++i) x[i] += 2;
    }
    for (int i = 0; i < 256; ++i) CHECK(x[i] == (i + 1) * 10 + 2, "dev %d x[%d]=%d", d, i, x[i]);

    double* y = malloc(1000 * sizeof(double));
    for (int i = 0; i < 1000; ++i) y[i] = 1.0;
#pragma omp target enter data device(d) map(to : y[0 : 1000])
    for (int k = 0; k < 5; ++k) {
#pragma omp target device(d)
      for (int i = 0; i < 1000; ++i) y[i] *= 2.0;
    }
    CHECK(y[0] == 1.0, "dev %d host y changed without update", d);
#pragma omp target exit data device(d) map(from : y[0 : 1000])
    for (int i = 0; i < 1000; ++i) CHECK(y[i] == 32.0, "dev %d y[%d]=%g", d, i, y[i]);
    free(y);

    /* always: a present variable is copied again. */
    int z = 1;
#pragma omp target enter data device(d) map(to : z)
    z = 5;
#pragma omp target device(d) map(always, to : z) map(tofrom : z)
    z += 1;
#pragma omp target exit data device(d) map(from : z)
    CHECK(z == 6, "dev %d always-to z=%d", d, z);
  }
  return finish("target_data");
}
