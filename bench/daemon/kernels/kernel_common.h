/* Shared by the kernels' two listings (offload to a daemon; MPI with the co-processor as a
 * rank): the clock, the problem sizes and the check against the serial reference. Not
 * counted in their lines of code (run_kernels.py counts the listings only). */
#ifndef FERRY_KERNEL_COMMON_H
#define FERRY_KERNEL_COMMON_H
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Prints "KERNEL seconds=S verified=1" for run_kernels.py; returns the exit status. */
static int report(const char* kernel, double seconds, double got, double want) {
  int ok = fabs(got - want) <= 1e-9 * fmax(1.0, fabs(want));
  printf("%s seconds=%.6f checksum=%.12g reference=%.12g verified=%d\n", kernel, seconds, got, want, ok);
  return ok ? 0 : 1;
}
#endif
