/* A const global used in a region without 'declare target' is mapped tofrom by default (as
 * clang 16 does), so the end of the region copies it back into read-only memory. The stock
 * runtime refuses that with an error; Ferry must too, naming the object, not crash in the
 * plugin when the bytes arrive. Expected to fail. */
#include "check.h"

static const int weights[5] = {1, 2, 3, 4, 5};

int main(void) {
  int sum = 0;
#pragma omp target device(0) map(tofrom : sum)
  for (int i = 0; i < 5; ++i) sum += weights[i];
  CHECK(sum == 15, "sum=%d", sum);
  return finish("fail_const_global");
}
