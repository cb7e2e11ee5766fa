/* A region on a device the job does not have, or (`own_abort`) a program that aborts by
 * itself after a region that worked: libomptarget's abort and the program's own must be
 * told apart in rank 0's last words. */
#include <string.h>

#include "check.h"

int main(int argc, char** argv) {
  int x = 0;
  if (argc > 1 && strcmp(argv[1], "own_abort") == 0) {
#pragma omp target device(0) map(tofrom : x)
    x = 42;
    printf("region on device 0 gave x=%d; now the program aborts by itself\n", x);
    fflush(stdout);
    abort();
  }
#pragma omp target device(99) map(tofrom : x)
  x = 1;
  printf("unreachable: device 99 ran a region (x=%d)\n", x);
  return 0;
}
