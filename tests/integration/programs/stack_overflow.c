/* A kernel that recurses without end and overflows its thread's stack. The crash report must
 * still appear, naming the kernel and the overflow: without a stack of its own for the
 * signal handler, the serving rank died without a word. */
#include <string.h>

#include "check.h"

#pragma omp declare target
static int descend(long depth, long end) {
  volatile char frame[4096];
  memset((char*)frame, (int)depth, sizeof frame);
  return depth == end ? 0 : descend(depth + 1, end) + frame[depth % sizeof frame];
}
#pragma omp end declare target

int main(void) {
  int r = 0;
  long end = -1; /* never reached: the stack ends first */
#pragma omp target device(omp_get_num_devices() - 1) map(from : r) firstprivate(end)
  r = descend(0, end);
  printf("stack_overflow: not reached (%d)\n", r);
  return 0;
}
