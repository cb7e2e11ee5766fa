/* A region on a device the job does not have. */
#include "check.h"

int main(void) {
  int x = 0;
#pragma omp target device(99) map(tofrom : x)
  x = 1;
  printf("unreachable: device 99 ran a region (x=%d)\n", x);
  return 0;
}
