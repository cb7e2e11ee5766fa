/* teams distribute parallel for, reductions, collapse, num_teams/thread_limit, and the
 * ways scalars reach a kernel: by value (literal), firstprivate, private. */
#include "check.h"

int main(void) {
  int n = omp_get_num_devices();
  for (int d = 0; d < n; ++d) {
    enum { N = 100000 };
    double* a = malloc(N * sizeof(double));
    for (int i = 0; i < N; ++i) a[i] = 1.0 / (1 + i % 7);
    double sum = 0;
#pragma omp target teams distribute parallel for device(d) map(to : a[0 : N]) reduction(+ : sum)
    for (int i = 0; i < N; ++i) sum += a[i];
    double want = 0;
    for (int i = 0; i < N; ++i) want += a[i];
    CHECK(sum > want * (1 - 1e-12) && sum < want * (1 + 1e-12), "dev %d sum %.15g want %.15g", d, sum, want);

    long m[32][32];
#pragma omp target teams distribute parallel for collapse(2) device(d) map(from : m) num_teams(4) thread_limit(2)
    for (int i = 0; i < 32; ++i)
      for (int j = 0; j < 32; ++j) m[i][j] = (long)i * j;
    for (int i = 0; i < 32; ++i)
      for (int j = 0; j < 32; ++j) CHECK(m[i][j] == (long)i * j, "dev %d m[%d][%d]", d, i, j);

    int maxv = -1;
#pragma omp target teams distribute parallel for device(d) reduction(max : maxv) map(tofrom : maxv)
    for (int i = 0; i < 1000; ++i) maxv = i % 977 > maxv ? i % 977 : maxv;
    CHECK(maxv == 976, "dev %d max %d", d, maxv);

    /* literal (by value), firstprivate array, private */
    double scale = 2.5;
    int fp[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    int priv = 99;
    double outv[8];
#pragma omp target device(d) firstprivate(fp) private(priv) map(from : outv)
    {
      priv = 0;
      for (int i = 0; i < 8; ++i) {
        fp[i] *= 2;
        priv += fp[i];
      }
      for (int i = 0; i < 8; ++i) outv[i] = fp[i] * scale + priv;
    }
    for (int i = 0; i < 8; ++i) CHECK(outv[i] == 2 * (i + 1) * 2.5 + 72, "dev %d outv[%d]=%g", d, i, outv[i]);
    CHECK(fp[0] == 1 && priv == 99, "firstprivate/private leaked back to the host");
    free(a);
  }
  return finish("teams");
}
