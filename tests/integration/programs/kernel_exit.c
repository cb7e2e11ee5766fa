/* A target region that calls exit(STATUS) (usage: kernel_exit [STATUS], default 3): the
 * rank that runs it ends, and the job with it, never with status 0. What the kernel printed
 * first must still arrive, and the report must name the kernel, its device, rank and host,
 * instead of leaving only the launcher's words. */
#include "check.h"

int main(int argc, char** argv) {
  int status = argc > 1 ? atoi(argv[1]) : 3;
  printf("kernel_exit: before the region\n");
  fflush(stdout);
#pragma omp target device(0) firstprivate(status)
  {
    printf("kernel_exit: the kernel's last words\n");
    exit(status);
  }
  printf("kernel_exit: not reached\n");
  return 0;
}
