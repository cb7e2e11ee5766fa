/* Device-to-device copies in both directions between two devices while other host threads
 * launch kernels on them: each device's stream holds exchanges and kernels, and a kernel
 * that landed between the two halves of an exchange on both devices made the two streams
 * wait for each other for ever (one run in four of 3000 rounds, before the halves were
 * sent together). Checks the copied bytes and the kernels' counts. Usage: exchange_race [iters] */
#include "check.h"

enum { N = 1 << 16 }; /* 64 KiB: a rendezvous copy, not an eager one */

int main(int argc, char** argv) {
  int iters = argc > 1 ? atoi(argv[1]) : 1500;
  int host = omp_get_initial_device();
  CHECK(omp_get_num_devices() >= 2, "needs 2 devices, the job has %d", omp_get_num_devices());
  unsigned char *a = omp_target_alloc(4 * N, 0), *b = omp_target_alloc(4 * N, 1);
  CHECK(a && b, "omp_target_alloc");
  unsigned char* h = malloc(4 * N);
  for (int i = 0; i < 4 * N; ++i) h[i] = (unsigned char)(i * 7 + 1);
  CHECK(omp_target_memcpy(a, h, 4 * N, 0, 0, 0, host) == 0, "fill a");
  for (int i = 0; i < 4 * N; ++i) h[i] = (unsigned char)(i * 5 + 3);
  CHECK(omp_target_memcpy(b, h, 4 * N, 0, 0, 1, host) == 0, "fill b");
  long counts[2] = {0, 0};
  CHECK(omp_target_memcpy(a + 3 * N, &counts[0], sizeof(long), 0, 0, 0, host) == 0, "counter a");
  CHECK(omp_target_memcpy(b + 3 * N, &counts[1], sizeof(long), 0, 0, 1, host) == 0, "counter b");
  int failed = 0;
#pragma omp parallel num_threads(4) reduction(+ : failed)
  {
    int t = omp_get_thread_num();
    for (int it = 0; it < iters; ++it) {
      if (t == 0) failed += omp_target_memcpy(b, a, N, 0, 0, 1, 0) != 0;                /* a[0,N) -> b[0,N) */
      else if (t == 1) failed += omp_target_memcpy(a, b, N, 2 * N, 2 * N, 0, 1) != 0;  /* b[2N,3N) -> a[2N,3N) */
      else if (t == 2) {
#pragma omp target device(0) is_device_ptr(a)
        { ++*(long*)(a + 3 * N); }
      } else {
#pragma omp target device(1) is_device_ptr(b)
        { ++*(long*)(b + 3 * N); }
      }
    }
  }
  CHECK(failed == 0, "%d copies failed", failed);
  CHECK(omp_target_memcpy(h, b, N, 0, 0, host, 1) == 0, "read b");
  for (int i = 0; i < N; ++i) CHECK(h[i] == (unsigned char)(i * 7 + 1), "b[%d] is %d", i, h[i]);
  CHECK(omp_target_memcpy(h, a, N, 0, 2 * N, host, 0) == 0, "read a");
  for (int i = 0; i < N; ++i) CHECK(h[i] == (unsigned char)((2 * N + i) * 5 + 3), "a[%d] is %d", 2 * N + i, h[i]);
  CHECK(omp_target_memcpy(&counts[0], a + 3 * N, sizeof(long), 0, 0, host, 0) == 0, "counter a back");
  CHECK(omp_target_memcpy(&counts[1], b + 3 * N, sizeof(long), 0, 0, host, 1) == 0, "counter b back");
  CHECK(counts[0] == iters && counts[1] == iters, "kernel counts %ld and %ld, expected %d", counts[0], counts[1], iters);
  omp_target_free(a, 0);
  omp_target_free(b, 1);
  free(h);
  printf("exchange_race: %d rounds of 4 threads: OK\n", iters);
  return finish("exchange_race");
}
