// schedule: one loop, five OpenMP schedules. A sweep over a 2D array reads rows i-1, i and
// i+1 and writes row i (a 3-point vertical stencil: the access pattern of the wave equation's
// update). With schedule(static) a thread owns a block of rows, and the two rows it read for
// row i are still in its cache for row i+1: each row comes from memory once. static,1 and
// dynamic hand neighbouring rows to different threads, so each thread fetches three rows per
// row it writes, and dynamic adds a shared counter per chunk: the loop is the same, the
// memory traffic is not. The result must not depend on the schedule: its hash is compared.
#include <omp.h>

#include <cstdio>

#include "hybrid.h"

namespace hybrid {
namespace {

struct Kind {
  const char* name;
  omp_sched_t kind;
  int chunk;  // 0: the kind's default (static: one block per thread; guided: minimum 1)
};

void initialise(double* a, double* b, size_t rows, size_t cols) {
#pragma omp parallel for schedule(static)  // first touch as the static sweep reads it
  for (size_t i = 0; i < rows; ++i) {
    for (size_t j = 0; j < cols; ++j) {
      a[i * cols + j] = b[i * cols + j] = static_cast<double>((i * 31 + j * 17) % 1024) / 1024.0;
    }
  }
}

void sweepRow(const double* up, const double* mid, const double* down, double* out, size_t cols) {
  for (size_t j = 0; j < cols; ++j) out[j] = 0.25 * up[j] + 0.5 * mid[j] + 0.25 * down[j];
}

// `sweeps` sweeps, ping-pong between a and b; the boundary rows stay fixed. One parallel
// region around all sweeps, so that the threads fork once; the implicit barrier of each
// `omp for` orders the sweeps. Returns the array holding the result.
const double* runSweeps(double* a, double* b, size_t rows, size_t cols, int sweeps) {
#pragma omp parallel
  for (int s = 0; s < sweeps; ++s) {
    const double* in = s % 2 ? b : a;
    double* out = s % 2 ? a : b;
#pragma omp for schedule(runtime)  // the kind set by omp_set_schedule
    for (size_t i = 1; i < rows - 1; ++i) {
      sweepRow(in + (i - 1) * cols, in + i * cols, in + (i + 1) * cols, out + i * cols, cols);
    }
  }
  return sweeps % 2 ? b : a;
}

struct Result {
  std::vector<double> seconds, ratio;
  uint64_t checksum = 0;
  bool stable = true;  // every repetition gave the same checksum
};

void printRow(const Kind& k, const Result& r, const ScheduleOptions& o, int threads) {
  ferry::Spread t = ferry::spreadOf(r.seconds), q = ferry::spreadOf(r.ratio);
  // Ideal traffic: each row read once and written once per sweep (what static achieves).
  double gbs = 2.0 * sizeof(double) * static_cast<double>(o.rows * o.cols) * o.sweeps / t.median * 1e-9;
  std::printf("%s,%d,%d,%zu,%zu,%d,%d,%.6f,%.6f,%.6f,%.4f,%.4f,%.4f,%.3f,%016llx,%d,%s\n", k.name, k.chunk, threads,
              o.rows, o.cols, o.sweeps, o.reps, t.median, t.min, t.max, q.median, q.min, q.max, gbs,
              static_cast<unsigned long long>(r.checksum), r.stable ? 1 : 0, bindingOf(threads).c_str());
}

}  // namespace

int runSchedule(const ScheduleOptions& o) {
  int threads = o.threads ? o.threads : defaultThreads();
  const Kind kinds[] = {{"static", omp_sched_static, 0},
                        {"static", omp_sched_static, 1},
                        {"dynamic", omp_sched_dynamic, 1},
                        {"dynamic", omp_sched_dynamic, o.chunk},
                        {"guided", omp_sched_guided, 0}};
  constexpr int kKinds = sizeof kinds / sizeof kinds[0];
  omp_set_num_threads(threads);
  printPreamble("schedule", "3-row stencil sweeps per OpenMP schedule: seconds, ratio to static (median of reps)",
                threads);
  size_t n = o.rows * o.cols;
  Buffer<double> a = allocateUninit<double>(n), b = allocateUninit<double>(n);
  Result res[kKinds];
  omp_set_schedule(omp_sched_static, 0);  // warm-up, untimed: pages first touched, thread pool up
  initialise(a.get(), b.get(), o.rows, o.cols);
  runSweeps(a.get(), b.get(), o.rows, o.cols, 1);
  // Repetitions outermost: every schedule sees the machine in the same state as static did
  // in the same repetition, and the ratio is taken within the repetition.
  for (int rep = 0; rep < o.reps; ++rep) {
    for (int k = 0; k < kKinds; ++k) {
      omp_set_schedule(kinds[k].kind, kinds[k].chunk);
      initialise(a.get(), b.get(), o.rows, o.cols);
      double t0 = now();
      const double* out = runSweeps(a.get(), b.get(), o.rows, o.cols, o.sweeps);
      res[k].seconds.push_back(now() - t0);
      res[k].ratio.push_back(res[k].seconds.back() / res[0].seconds.back());
      uint64_t h = hashWords(out, n);
      if (rep > 0 && h != res[k].checksum) res[k].stable = false;
      res[k].checksum = h;
    }
  }
  std::printf("kind,chunk,threads,rows,cols,sweeps,reps,seconds_median,seconds_min,seconds_max,"
              "ratio_to_static,ratio_min,ratio_max,gbs,checksum,checksum_stable,binding\n");
  bool same = true;
  for (int k = 0; k < kKinds; ++k) {
    printRow(kinds[k], res[k], o, threads);
    same = same && res[k].stable && res[k].checksum == res[0].checksum;
  }
  if (!same) std::fprintf(stderr, "hybrid_bench schedule: a schedule's result differs from static's (checksum)\n");
  return same ? 0 : 1;
}

}  // namespace hybrid
