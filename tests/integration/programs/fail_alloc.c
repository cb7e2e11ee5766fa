/* Allocations too large for a remote device. Usage: fail_alloc api|map
 *   api: omp_target_alloc of 1 PiB and of SIZE_MAX return NULL with a clear message, and
 *        nothing is lost: the device keeps working (exit 0).
 *   map: a map(to:) larger than the device (FERRY_DEVICE_MEMORY) ends the program with the
 *        message (exit non-zero). */
#include <stdint.h>

#include "check.h"

int main(int argc, char** argv) {
  int map = argc > 1 && strcmp(argv[1], "map") == 0;
  if (!map) {
    void* p = omp_target_alloc((size_t)1 << 50, 0);
    CHECK(p == NULL, "a 1 PiB allocation succeeded");
    /* A negative size converted to size_t, which libomptarget passes on as -1. */
    void* huge = omp_target_alloc(SIZE_MAX, 0);
    CHECK(huge == NULL, "a SIZE_MAX allocation succeeded");
    void* q = omp_target_alloc(4096, 0);
    CHECK(q != NULL, "a small allocation after the failed one");
    omp_target_free(q, 0);
    int x = 1;
#pragma omp target device(0) map(tofrom : x)
    x += 1;
    CHECK(x == 2, "the device still works: x=%d", x);
    return finish("fail_alloc api");
  }
  size_t n = (size_t)64 << 20;
  char* big = malloc(n);
  memset(big, 1, n);
#pragma omp target device(0) map(to : big[0 : n])
  big[0] = 2;
  printf("unreachable: a 64 MiB map fit in the device\n");
  return 0;
}
