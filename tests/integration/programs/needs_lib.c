/* The device image needs a library that no serving rank can find: its load fails there. */
#include "check.h"

#pragma omp declare target
int needed_function(int x);
#pragma omp end declare target

int main(void) {
  int r = 0;
#pragma omp target device(0) map(from : r)
  r = needed_function(6);
  printf("unreachable: the image loaded (r=%d)\n", r);
  return 0;
}
