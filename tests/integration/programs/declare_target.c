/* declare target globals: every device holds its own copy; target update moves them. */
#include "check.h"

#pragma omp declare target
int counter = 100;
double table[4] = {1, 2, 3, 4}; /* fully initialised: clang-16 rejects partial initialisers here */
static int square(int v) { return v * v; }
#pragma omp end declare target

int main(void) {
  int n = omp_get_num_devices();
  for (int d = 0; d < n; ++d) {
#pragma omp target device(d)
    {
      counter += d + 1;
      table[3] = square(d + 2);
    }
  }
  for (int d = 0; d < n; ++d) {
    int c = -1;
    double t3 = -1, t2 = -1;
#pragma omp target device(d) map(from : c, t3, t2)
    {
      c = counter;
      t3 = table[3];
      t2 = table[2];
    }
    CHECK(c == 100 + d + 1, "device %d counter %d (copies must be per device)", d, c);
    CHECK(t3 == (d + 2) * (d + 2), "device %d table[3] %g", d, t3);
    CHECK(t2 == 3, "device %d initialiser table[2] %g", d, t2);
  }
  CHECK(counter == 100, "the host copy changed: %d", counter);
  /* target update on a global */
  counter = 7;
  for (int d = 0; d < n; ++d) {
#pragma omp target update device(d) to(counter)
#pragma omp target device(d)
    counter *= 3;
  }
#pragma omp target update device(0) from(counter)
  CHECK(counter == 21, "update from device 0: %d", counter);
  return finish("declare_target");
}
