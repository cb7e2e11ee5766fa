/* Large maps both ways on every device: the pipelined MPI path across nodes, CMA within one.
 * Usage: large_transfers [MiB] */
#include <stdint.h>

#include "check.h"

int main(int argc, char** argv) {
  int n = omp_get_num_devices();
  size_t count = (argc > 1 ? (size_t)atoi(argv[1]) : 64) * (1u << 20) / sizeof(uint64_t);
  uint64_t* a = malloc(count * sizeof(uint64_t));
  for (size_t i = 0; i < count; ++i) a[i] = i * 2654435761u;
  for (int d = 0; d < n; ++d) {
#pragma omp target teams distribute parallel for device(d) map(tofrom : a[0 : count])
    for (size_t i = 0; i < count; ++i) a[i] ^= (uint64_t)(d + 1) << 40;
  }
  size_t bad = 0;
  uint64_t mask = 0;
  for (int d = 0; d < n; ++d) mask ^= (uint64_t)(d + 1) << 40;
  for (size_t i = 0; i < count; ++i) bad += a[i] != ((i * 2654435761u) ^ mask);
  CHECK(bad == 0, "%zu of %zu words wrong after a round trip through every device", bad, count);
  free(a);
  return finish("large_transfers");
}
