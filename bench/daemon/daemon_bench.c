/* daemon_bench --out FILE [--quick]
 *
 * OSU-style figures of each device of the job, next to the raw transport between rank 0 and
 * the device's server measured in the same run (docs/daemon.md, "Figures"):
 *   - region latency: an empty `target` region, against a 1-byte ping-pong;
 *   - map bandwidth: `target update to/from` of a mapped buffer, against the transport's
 *     windowed bandwidth test at the same size.
 * A rank's device is measured against MPI between rank 0 and its rank, a daemon's against the
 * channel (ferry_offload_mpi_baseline with rank_b = the daemon's endpoint: the baseline of the
 * transport that reaches that peer). run_daemon_bench.py starts the daemon and this program. */
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ferry/ferry_offload.h"

enum { kReps = 5 };

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int cmp_double(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

static double median(double* v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Seconds per round trip of `bytes` (kind 0) or per message of a window (kind 1) between
 * rank 0 and `peer`; negative when the baseline fails. */
static double raw(int peer, int kind, uint64_t bytes, uint32_t iters, uint32_t window) {
  ferry_offload_baseline spec = {0, peer, kind, bytes, iters / 10 + 1, iters, window};
  double seconds = 0;
  if (ferry_offload_mpi_baseline(&spec, &seconds) != FERRY_OFFLOAD_OK) return -1;
  return seconds / iters / (kind ? window : 1);
}

static double region_latency(int d, int iters) {
  for (int i = 0; i < iters / 10 + 1; ++i) {
#pragma omp target device(d)
    { }
  }
  double t0 = now();
  for (int i = 0; i < iters; ++i) {
#pragma omp target device(d)
    { }
  }
  return (now() - t0) / iters;
}

/* Seconds per `target update` of `bytes` in direction `to` (1) or from (0). */
static double update_time(int d, char* buf, size_t bytes, int to, int iters) {
  double t0 = 0;
  for (int i = -1; i < iters; ++i) { /* i = -1: the warm-up */
    if (i == 0) t0 = now();
    if (to) {
#pragma omp target update device(d) to(buf[0:bytes])
    } else {
#pragma omp target update device(d) from(buf[0:bytes])
    }
  }
  return (now() - t0) / iters;
}

static void row(FILE* out, int d, const char* kind, const char* metric, size_t size, double ferry, double base) {
  fprintf(out, "%d,%s,%s,%zu,%.6g,%.6g,%.4f\n", d, kind, metric, size, ferry, base, base > 0 ? ferry / base : -1.0);
  printf("%-6d %-7s %-12s %10zu %12.3f %12.3f %8.2f\n", d, kind, metric, size, ferry, base, base > 0 ? ferry / base : -1.0);
}

static void measure_latency(FILE* out, int d, const char* kind, int peer, int quick) {
  int iters = quick ? 300 : 2000;
  double f[kReps], b[kReps];
  for (int r = 0; r < kReps; ++r) {
    f[r] = region_latency(d, iters) * 1e6;
    b[r] = raw(peer, 0, 1, (uint32_t)iters, 1) * 1e6;
  }
  row(out, d, kind, "latency_us", 0, median(f, kReps), median(b, kReps));
}

static void measure_bandwidth(FILE* out, int d, const char* kind, int peer, size_t size, char* buf, int quick) {
  int iters = size >= (4u << 20) ? (quick ? 3 : 10) : (quick ? 20 : 100);
  uint32_t window = size >= (1u << 20) ? 4 : 64;
  double to[kReps], from[kReps], base[kReps];
  for (int r = 0; r < kReps; ++r) {
    to[r] = size / update_time(d, buf, size, 1, iters) / 1e9;
    from[r] = size / update_time(d, buf, size, 0, iters) / 1e9;
    double s = raw(peer, 1, size, (uint32_t)iters, window);
    base[r] = s > 0 ? size / s / 1e9 : -1;
  }
  double bw = median(base, kReps);
  row(out, d, kind, "to_GBps", size, median(to, kReps), bw);
  row(out, d, kind, "from_GBps", size, median(from, kReps), bw);
}

int main(int argc, char** argv) {
  const char* path = NULL;
  int quick = 0;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--quick")) quick = 1;
    else if (!strcmp(argv[i], "--out") && i + 1 < argc) path = argv[++i];
    else return fprintf(stderr, "usage: daemon_bench --out FILE [--quick]\n"), 2;
  }
  if (!path) return fprintf(stderr, "usage: daemon_bench --out FILE [--quick]\n"), 2;
  FILE* out = fopen(path, "w");
  if (!out) return fprintf(stderr, "daemon_bench: cannot write %s\n", path), 1;
  const size_t sizes[] = {4096, 65536, 1u << 20, 4u << 20, 16u << 20, 64u << 20};
  const int nsizes = quick ? 4 : 6;
  size_t max = sizes[nsizes - 1];
  char* buf = malloc(max);
  if (!buf) return fprintf(stderr, "daemon_bench: out of memory\n"), 1;
  memset(buf, 1, max);
  fprintf(out, "device,kind,metric,size,ferry,baseline,ratio\n");
  printf("%-6s %-7s %-12s %10s %12s %12s %8s\n", "device", "kind", "metric", "bytes", "ferry", "raw", "ratio");
  int n = omp_get_num_devices();
  for (int d = 0; d < n; ++d) {
    ferry_offload_device dev;
    if (ferry_offload_get_device(d, &dev) != FERRY_OFFLOAD_OK)
      return fprintf(stderr, "daemon_bench: device %d: is Ferry's plugin loaded (ferry env)?\n", d), 1;
    const char* kind = dev.node < 0 ? "daemon" : "rank";
    measure_latency(out, d, kind, dev.rank, quick);
#pragma omp target enter data device(d) map(alloc : buf[0:max])
    for (int s = 0; s < nsizes; ++s) measure_bandwidth(out, d, kind, dev.rank, sizes[s], buf, quick);
#pragma omp target exit data device(d) map(delete : buf[0:max])
  }
  fclose(out);
  free(buf);
  return 0;
}
