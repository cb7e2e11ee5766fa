/* nowait regions with depend: many in flight per device, chains that must keep order. */
#include "check.h"

#define CHAIN 24

int main(void) {
  int n = omp_get_num_devices();
  /* One chain that hops across devices: x = 3x + k in order. Out of order, the result differs. */
  long x = 1, want = 1;
  for (int k = 0; k < CHAIN; ++k) {
    int d = k % n;
#pragma omp target device(d) map(tofrom : x) nowait depend(inout : x)
    x = (x * 3 + k) % 1000003;
    want = (want * 3 + k) % 1000003;
  }
  /* Independent regions, many per device, all in flight together. */
  enum { M = 64 };
  int r[M];
  for (int k = 0; k < M; ++k) r[k] = -1;
  for (int k = 0; k < M; ++k) {
#pragma omp target device(k % n) map(from : r[k : 1]) nowait depend(out : r[k])
    r[k] = k * k + current_rank();
  }
#pragma omp taskwait
  CHECK(x == want, "chain result %ld, want %ld (regions ran out of order)", x, want);
  for (int k = 0; k < M; ++k)
    CHECK(r[k] == k * k + expected_rank(k % n), "r[%d]=%d want %d", k, r[k], k * k + expected_rank(k % n));

  /* nowait with an unstructured data region and a final update. */
  double* big = malloc((1 << 20) * sizeof(double));
  for (int i = 0; i < (1 << 20); ++i) big[i] = 1.0;
#pragma omp target enter data device(0) map(to : big[0 : 1 << 20]) nowait depend(out : big)
#pragma omp target device(0) nowait depend(inout : big)
  for (int i = 0; i < (1 << 20); ++i) big[i] += 2.0;
#pragma omp target exit data device(0) map(from : big[0 : 1 << 20]) nowait depend(in : big)
#pragma omp taskwait
  for (int i = 0; i < (1 << 20); i += 4097) CHECK(big[i] == 3.0, "big[%d]=%g", i, big[i]);
  free(big);
  return finish("nowait_depend");
}
