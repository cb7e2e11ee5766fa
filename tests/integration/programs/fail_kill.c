/* A serving rank dies or stops. Usage: fail_kill inside|between|stop|crash
 *   inside:  the process serving device 0 kills itself during a region;
 *   crash:   a kernel on device 0 dereferences NULL (the serving rank says so as it dies);
 *   between: rank 0 kills it between two regions;
 *   stop:    rank 0 stops it (SIGSTOP): it is alive but unreachable, so only Ferry's
 *            liveness timeout can notice.
 * In every case the job must end with an error, never hang. */
#include <signal.h>
#include <stdint.h>
#include <unistd.h>

#include "check.h"

#pragma omp declare target
static int die_now(void) {
  kill(getpid(), SIGKILL);
  return 0;
}
static int crash_now(void) {
  /* An unmapped address the compiler cannot see through (a literal NULL would be UB that
   * it may fold away). */
  volatile int* nowhere = (volatile int*)(uintptr_t)(8 + (getpid() & 0xff));
  return *nowhere;
}
#pragma omp end declare target

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "inside";
  int pid = -1, x = 0;
#pragma omp target device(0) map(from : pid)
  pid = getpid();
  printf("device 0 is served by pid %d\n", pid);
  fflush(stdout);
  if (strcmp(mode, "inside") == 0) {
#pragma omp target device(0) map(tofrom : x)
    x = die_now();
  } else if (strcmp(mode, "crash") == 0) {
#pragma omp target device(0) map(tofrom : x)
    x = crash_now();
  } else {
    kill(pid, strcmp(mode, "stop") == 0 ? SIGSTOP : SIGKILL);
    usleep(200000);
#pragma omp target device(0) map(tofrom : x)
    x = 1;
  }
  printf("unreachable: the region after the fault completed (x=%d)\n", x);
  return 0;
}
