/* A shared library with its own device image: its own kernel and declare-target global. */
#include <omp.h>

#pragma omp declare target
int lib_global = 1000;
#pragma omp end declare target

int lib_scale_on_device(int device, int* data, int count, int factor) {
#pragma omp target device(device) map(tofrom : data[0 : count])
  for (int i = 0; i < count; ++i) data[i] = data[i] * factor + lib_global;
  int g = -1;
#pragma omp target device(device) map(from : g)
  {
    lib_global += 1;
    g = lib_global;
  }
  return g;
}
