/* A kernel that runs much longer than FERRY_TIMEOUT: only silence counts, not work.
 * Usage: long_kernel SECONDS (one kernel, on the last device) */
#include <unistd.h>

#include "check.h"

int main(int argc, char** argv) {
  int seconds = argc > 1 ? atoi(argv[1]) : 3;
  int n = omp_get_num_devices();
  for (int d = n - 1; d < n; ++d) {
    double t0 = omp_get_wtime();
    int done = 0;
#pragma omp target device(d) map(tofrom : done)
    {
      sleep(seconds);
      done = 1;
    }
    CHECK(done == 1, "device %d: the long kernel did not finish", d);
    CHECK(omp_get_wtime() - t0 >= seconds, "device %d: the kernel took less than %d s", d, seconds);
  }
  return finish("long_kernel");
}
