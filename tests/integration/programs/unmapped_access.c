/* Kernels that dereference rank 0's memory which no map clause gave them: only a pointer is
 * mapped, not what it points to. That is a bug in the program, which the stock host plugin
 * hides (its devices share the host's memory). On a CPU device of rank 0's node Ferry serves
 * it the same way and warns (FERRY_UNMAPPED_ACCESS=serve), and runs a function of rank 0
 * called through a pointer as its own copy; with =fault, or on another node, the serving rank
 * crashes there, as a GPU would. */
#include "check.h"

#define N 5000 /* several pages */

/* Not declared for the device: kernels reach it only through a pointer of rank 0, which the
 * serving rank runs as its own copy of the same function. */
static int triple(int x) { return 3 * x; }
typedef int (*fn_t)(int);

int main(void) {
  int n = omp_get_num_devices();
  for (int d = 0; d < n; ++d) {
    check_region_rank(d);
    int* data = malloc(N * sizeof(int));
    for (int i = 0; i < N; ++i) data[i] = i;
    /* map(to: data) copies the pointer's value, a host address, and nothing it points to. */
#pragma omp target device(d) map(to : data)
    for (int i = 0; i < N; ++i) data[i] = 2 * data[i] + d;
    for (int i = 0; i < N; ++i) {
      CHECK(data[i] == 2 * i + d, "device %d: data[%d]=%d", d, i, data[i]);
      if (failures) break;
    }
    free(data);
    fn_t f = triple;
    int r = 0;
#pragma omp target device(d) map(from : r)
    r = f(14);
    CHECK(r == 42, "device %d: a function of rank 0 called through a pointer returned %d", d, r);
  }
  /* All devices at once on one array, each on its own elements. */
  long* shared = calloc(N, sizeof(long));
#pragma omp parallel for
  for (int d = 0; d < n; ++d) {
#pragma omp target device(d) map(to : shared) nowait
    for (int i = d; i < N; i += n) shared[i] = i + 1;
  }
#pragma omp taskwait
  for (int i = 0; i < N; ++i) CHECK(shared[i] == i + 1, "shared[%d]=%ld", i, shared[i]);
  free(shared);
  return finish("unmapped_access");
}
