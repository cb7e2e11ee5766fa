/* printf inside regions on GPUs (and, in the mixed layout, CPU devices) appears in program
 * order among rank 0's own output (FERRY_DEVICE_OUTPUT=ordered): the CUDA printf buffer the
 * driver flushes to the serving rank's stdout is captured like C stdio. Every stdout line is
 * numbered; check_output.py checks that the numbers come in order, once each. Built for both
 * targets; only printf is used on the device, the one output call a GPU has. */
#include "check.h"

enum { BIG_LINES = 200 };  // one region printing more than one output message

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
      printf("seq %d device %d, on the device: %d\n", s, d, omp_is_initial_device() ? -1 : omp_get_device_num());
    }
  }
  int first = seq;
  seq += BIG_LINES;
#pragma omp target device(n - 1) firstprivate(first)
  for (int i = 0; i < BIG_LINES; ++i) printf("seq %d big line %03d ..............................\n", first + i, i);
  printf("seq %d host: after the big region\n", seq++);
  int s = seq++;
#pragma omp target device(0) nowait firstprivate(s)
  printf("seq %d nowait region\n", s);
#pragma omp taskwait
  printf("seq %d host: after taskwait\n", seq++);
  printf("lines %d\n", seq);
  return finish("gpu_output");
}
