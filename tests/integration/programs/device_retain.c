/* Freed device memory stays resident up to FERRY_DEVICE_RETAIN (no message for the free);
 * beyond it every free of 1 MiB or more sends a Free that gives the pages back. The
 * expected number of those messages for three alloc/free rounds of 4 MiB is argv[1]. The
 * data of a block allocated in a retained block's place must be what the region wrote. */
#include <stdlib.h>

#include "check.h"
#include "ferry/ferry_offload.h"

enum { kBytes = 4 << 20, kRounds = 3 };

int main(int argc, char** argv) {
  int expected = argc > 1 ? atoi(argv[1]) : 0;
  ferry_offload_counters before, after;
  int warm = 0; /* the first region loads the image: its messages are not counted */
#pragma omp target map(from : warm) device(0)
  warm = 1;
  CHECK(warm == 1, "the warm-up region ran");
  CHECK(ferry_offload_get_counters(&before) == FERRY_OFFLOAD_OK, "counters");
  for (int round = 0; round < kRounds; ++round) {
    char* p = omp_target_alloc(kBytes, 0);
    CHECK(p != NULL, "round %d: omp_target_alloc of 4 MiB", round);
    int ok = 0;
#pragma omp target is_device_ptr(p) map(from : ok) device(0)
    {
      for (int i = 0; i < kBytes; i += 4096) p[i] = (char)(round + 1);
      ok = 1;
      for (int i = 0; i < kBytes; i += 4096) ok = ok && p[i] == (char)(round + 1);
    }
    CHECK(ok, "round %d: the block holds what the region wrote", round);
    omp_target_free(p, 0);
  }
  CHECK(ferry_offload_get_counters(&after) == FERRY_OFFLOAD_OK, "counters");
  /* Each round sends one kernel launch besides the possible Free. */
  long frees = (long)(after.control_messages - before.control_messages) - kRounds;
  CHECK(frees == expected, "%ld messages beyond the launches, %d expected (FERRY_DEVICE_RETAIN=%s)", frees, expected,
        getenv("FERRY_DEVICE_RETAIN") ? getenv("FERRY_DEVICE_RETAIN") : "default");
  return finish("device_retain");
}
