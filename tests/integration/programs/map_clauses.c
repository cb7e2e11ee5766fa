/* Map types, array sections with offsets, pointer members (pointer attach), and the
 * reference-count rules of map(release)/map(delete). */
#include "check.h"

struct Vec {
  int n;
  double* data;
};

int main(void) {
  int n = omp_get_num_devices();
  for (int d = 0; d < n; ++d) {
    /* to / from / tofrom / alloc */
    int in[100], out[100], both[100];
    for (int i = 0; i < 100; ++i) { in[i] = i; out[i] = -1; both[i] = 2 * i; }
#pragma omp target device(d) map(to : in) map(from : out) map(tofrom : both)
    for (int i = 0; i < 100; ++i) { out[i] = in[i] * 3; both[i] += 1; }
    for (int i = 0; i < 100; ++i) {
      CHECK(out[i] == 3 * i, "dev %d out[%d]=%d", d, i, out[i]);
      CHECK(both[i] == 2 * i + 1, "dev %d both[%d]=%d", d, i, both[i]);
    }
    int scratch[50], res = 0;
#pragma omp target device(d) map(alloc : scratch) map(from : res)
    {
      res = 0; /* map(from:) does not copy the host value in */
      for (int i = 0; i < 50; ++i) scratch[i] = i;
      for (int i = 0; i < 50; ++i) res += scratch[i];
    }
    CHECK(res == 1225, "dev %d alloc scratch sum %d", d, res);

    /* Array sections that start inside the array: non-zero offsets reach the kernel. */
    long a[1000];
    for (int i = 0; i < 1000; ++i) a[i] = i;
#pragma omp target device(d) map(tofrom : a[300 : 200])
    for (int i = 300; i < 500; ++i) a[i] = -a[i];
    for (int i = 0; i < 1000; ++i) {
      long want = (i >= 300 && i < 500) ? -i : i;
      CHECK(a[i] == want, "dev %d section a[%d]=%ld", d, i, a[i]);
    }

    /* A struct with a pointer member: the device copy's pointer is translated. */
    struct Vec v;
    v.n = 256;
    v.data = malloc(v.n * sizeof(double));
    for (int i = 0; i < v.n; ++i) v.data[i] = i * 0.5;
#pragma omp target device(d) map(tofrom : v, v.data[0 : v.n])
    for (int i = 0; i < v.n; ++i) v.data[i] *= 2;
    for (int i = 0; i < v.n; ++i) CHECK(v.data[i] == i, "dev %d v.data[%d]=%g", d, i, v.data[i]);
    free(v.data);

    /* Heap arrays through pointers. */
    float* p = malloc(4096 * sizeof(float));
    for (int i = 0; i < 4096; ++i) p[i] = (float)i;
#pragma omp target device(d) map(tofrom : p[0 : 4096])
    for (int i = 0; i < 4096; ++i) p[i] += 1.0f;
    for (int i = 0; i < 4096; ++i) CHECK(p[i] == i + 1.0f, "dev %d p[%d]=%g", d, i, p[i]);

    /* Reference counts: release keeps data while another reference holds it; delete ends it. */
#pragma omp target enter data device(d) map(to : p[0 : 4096])
#pragma omp target enter data device(d) map(to : p[0 : 4096])
#pragma omp target exit data device(d) map(release : p[0 : 4096])
    CHECK(omp_target_is_present(p, d), "dev %d: released once, still referenced", d);
#pragma omp target exit data device(d) map(delete : p[0 : 4096])
    CHECK(!omp_target_is_present(p, d), "dev %d: deleted but still present", d);
    free(p);
  }
  return finish("map_clauses");
}
