/* unified_shared_memory cannot hold across processes: Ferry refuses it at device init.
 * (The requires directive must come before any target construct, so check.h is not used.) */
#pragma omp requires unified_shared_memory
#include <omp.h>
#include <stdio.h>

int main(void) {
  int x = 0;
#pragma omp target device(0) map(tofrom : x)
  x = 1;
  printf("unreachable: ran with unified shared memory (x=%d)\n", x);
  return 0;
}
