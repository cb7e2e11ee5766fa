/* nowait regions still pending when main returns, with no taskwait: each must still run to
 * its end. The program's image is unregistered at exit, and Ferry used to end MPI under
 * regions still in flight. Each region sleeps, so that main returns while the first runs
 * and the others wait. */
#include <unistd.h>

#include "check.h"

int main(void) {
  int warm = 0;
#pragma omp target device(0) map(tofrom : warm)
  warm = 1; /* a device operation before the nowait regions (see docs/user-guide.md) */
  CHECK(warm == 1, "the first region did not run");
  check_device_table(); /* the regions below print the same on the host */
  int n = omp_get_num_devices();
  for (int r = 0; r < 3; ++r) {
#pragma omp target nowait device(r % n) firstprivate(r)
    {
      usleep(300 * 1000);
      printf("nowait_at_exit: region %d finished\n", r);
    }
  }
  usleep(100 * 1000); /* so that a region runs, not only waits, when main returns */
  printf("nowait_at_exit: main returns without a taskwait\n");
  return failures;
}
