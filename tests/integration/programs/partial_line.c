/* A kernel whose last output has no newline: it must still appear, in both output modes
 * (FERRY_DEVICE_OUTPUT=ordered and direct), when the serving rank ends. */
#include "check.h"

int main(void) {
#pragma omp target device(0)
  printf("partial line from a device");
  return finish("partial_line");
}
