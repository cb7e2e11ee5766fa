#include "mpi_ref.h"

#include "ferry/ferry_offload.h"
#include "osu.h"

void drain_device(int device) {
  int done = 0;
  /* A kernel is a barrier on the device's stream, and its reply confirms everything before. */
#pragma omp target device(device) map(from : done)
  done = 1;
  (void)done;
}

static int run_baseline(ferry_offload_baseline* spec, double* seconds) {
  int rc = ferry_offload_mpi_baseline(spec, seconds);
  if (rc != FERRY_OFFLOAD_OK || *seconds <= 0) {
    fprintf(stderr, "ferry_offload_bench: MPI baseline between ranks %d and %d (%llu B) failed: %d\n", spec->rank_a,
            spec->rank_b, (unsigned long long)spec->bytes, rc);
    return -1;
  }
  return 0;
}

/* One probe sizes the real run to the budget, as time_op does for Ferry. A bandwidth probe
 * sends a single message (window 1) and scales it to a window: a whole window of 64 MiB
 * messages would cost a second on its own. */
static int measure(const bench_ctx* ctx, int kind, int rank_a, int rank_b, size_t bytes, osu_count* used,
                   double* seconds) {
  ferry_offload_baseline spec = {rank_a, rank_b, kind, bytes, 0, 1, kind == 0 ? OSU_WINDOW : 1};
  double probe = 0;
  if (run_baseline(&spec, &probe) != 0) return -1;
  if (kind != 0) probe *= OSU_WINDOW;
  *used = osu_counts(ctx, kind == 0 ? COUNT_LATENCY : COUNT_BANDWIDTH, bytes, probe);
  spec.warmup = (uint32_t)used->warmup;
  spec.iters = (uint32_t)used->iters;
  spec.window = OSU_WINDOW;
  return run_baseline(&spec, seconds);
}

double mpi_round_trip_us(const bench_ctx* ctx, int rank_a, int rank_b, size_t bytes, unsigned long* iters) {
  osu_count c;
  double s = 0;
  if (measure(ctx, 0, rank_a, rank_b, bytes, &c, &s) != 0) return -1;
  *iters = c.iters;
  return s / (double)c.iters * 1e6;
}

double mpi_bandwidth_mbs(const bench_ctx* ctx, int rank_a, int rank_b, size_t bytes, unsigned long* msgs,
                         double* msg_rate) {
  osu_count c;
  double s = 0;
  if (measure(ctx, 1, rank_a, rank_b, bytes, &c, &s) != 0) return -1;
  *msgs = c.iters * OSU_WINDOW;
  if (msg_rate) *msg_rate = (double)*msgs / s;
  return (double)bytes * (double)*msgs / s / 1e6;
}
