/* ferry_offload_mpi_baseline between every ordered pair of ranks: rank 0 with a serving
 * rank both ways (rank 0 answers itself when it is rank_b), and two serving ranks. Each
 * measurement must end and report a positive time; a pair of one rank is refused. */
#include "check.h"
#include "ferry/ferry_offload.h"

static void measure(int a, int b, int kind) {
  ferry_offload_baseline spec = {a, b, kind, kind == 0 ? 1024u : 65536u, 2, 20, 8};
  double seconds = -1;
  int rc = ferry_offload_mpi_baseline(&spec, &seconds);
  CHECK(rc == FERRY_OFFLOAD_OK, "baseline %d -> %d (kind %d) returned %d", a, b, kind, rc);
  CHECK(seconds > 0, "baseline %d -> %d (kind %d) took %g s", a, b, kind, seconds);
}

int main(void) {
  int ranks = 1;
  for (int d = 0; d < omp_get_num_devices(); ++d) {
    ferry_offload_device dev;
    if (ferry_offload_get_device(d, &dev) == FERRY_OFFLOAD_OK && dev.rank + 1 > ranks) ranks = dev.rank + 1;
  }
  CHECK(ranks >= 2, "the job has %d ranks with devices; run it on 2 or more", ranks);
  for (int a = 0; a < ranks; ++a)
    for (int b = 0; b < ranks; ++b)
      if (a != b) {
        measure(a, b, 0);
        measure(a, b, 1);
      }
  ferry_offload_baseline self = {1, 1, 0, 8, 0, 1, 1};
  double seconds = 0;
  CHECK(ferry_offload_mpi_baseline(&self, &seconds) != FERRY_OFFLOAD_OK, "a baseline of rank 1 with itself is refused");
  return finish("mpi_baseline");
}
