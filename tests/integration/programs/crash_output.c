/* A kernel that prints and then crashes its serving rank: what it printed must still reach
 * the terminal (the serving rank captures kernels' stdout to keep it in program order, and
 * its crash handler writes out what was not yet sent), next to the crash report. */
#include "check.h"

int main(void) {
  printf("crash_output: before the region\n");
  fflush(stdout);
#pragma omp target device(0)
  {
    printf("crash_output: the kernel's last words\n");
    *(volatile int*)16 = 1;
  }
  printf("crash_output: not reached\n");
  return 0;
}
