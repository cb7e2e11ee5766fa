/* What target regions print to stdout appears in program order among rank 0's own output,
 * as with the stock plugin (FERRY_DEVICE_OUTPUT=ordered). Every stdout line is numbered;
 * check_output.py checks that the numbers come in order, once each. Covered: printf from
 * every device between host printf calls, output larger than one message, fprintf(stdout)
 * (the host's FILE* must become the serving rank's), a raw write(1), a nowait region, and
 * stderr, which is not captured. */
#include <unistd.h>

#include "check.h"

enum { BIG_LINES = 300 };  // ~12 KiB in one region: several output messages

int main(void) {
  int n = omp_get_num_devices();
  int seq = 0;
  CHECK(n >= 1, "no device");
  printf("seq %d host: %d devices\n", seq++, n);
  for (int round = 0; round < 2; ++round) {
    for (int d = 0; d < n; ++d) {
      printf("seq %d host: before device %d\n", seq++, d);
      int s = seq++;
#pragma omp target device(d) firstprivate(s)
      printf("seq %d device %d on rank %d\n", s, omp_get_device_num(), current_rank());
    }
  }
  int first = seq;
  seq += BIG_LINES;
#pragma omp target device(n - 1) firstprivate(first)
  for (int i = 0; i < BIG_LINES; ++i) printf("seq %d big line %03d ..............................\n", first + i, i);
  printf("seq %d host: after the big region\n", seq++);

  int s = seq++;
#pragma omp target device(0) firstprivate(s)
  fprintf(stdout, "seq %d fprintf(stdout) on a device\n", s);
  s = seq++;
#pragma omp target device(0) firstprivate(s)
  {
    char line[64];
    int len = snprintf(line, sizeof line, "seq %d raw write(1) on a device\n", s);
    if (write(1, line, (size_t)len) != len) abort();
  }
  s = seq++;
#pragma omp target device(0)
  fprintf(stderr, "stderr line from a device\n");
#pragma omp target device(0) nowait firstprivate(s)
  printf("seq %d nowait region\n", s);
#pragma omp taskwait
  printf("seq %d host: after taskwait\n", seq++);
  printf("lines %d\n", seq);
  /* Again on stderr, whole: in direct mode the launcher may splice the stdout one. */
  fprintf(stderr, "lines %d\n", seq);
  return finish("device_output");
}
