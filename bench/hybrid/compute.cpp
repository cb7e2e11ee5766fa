// compute: a compute-bound kernel for the binding study. Each element runs `work` steps of
// the logistic map x <- r x (1 - x), a dependent chain of multiplies on one value held in a
// register: one 8-byte store per element and thousands of flops, so the time scales with
// the cores the threads really get, not with memory bandwidth. Threads piled on one core
// take turns; threads on distinct cores run side by side.
#include <omp.h>

#include <algorithm>
#include <cstdio>

#include "hybrid.h"

namespace hybrid {
namespace {

double timeKernel(double* out, size_t n, int work) {
  double t0 = now();
#pragma omp parallel for schedule(static)
  for (size_t i = 0; i < n; ++i) {
    double x = 0.1 + 0.8 * static_cast<double>(i % 4096) / 4096.0;  // in (0, 1): the map stays there
    for (int k = 0; k < work; ++k) x = 3.9 * x * (1.0 - x);
    out[i] = x;
  }
  return now() - t0;
}

}  // namespace

int runCompute(const ComputeOptions& o) {
  int most = *std::max_element(o.threads.begin(), o.threads.end());
  printPreamble("compute", "logistic-map kernel, seconds per thread count (median of reps)", most);
  std::printf("# %zu elements x %d dependent steps; speedup and efficiency against the first thread count (%d)\n",
              o.elements, o.work, o.threads.front());
  Buffer<double> out = allocateUninit<double>(o.elements);
  size_t nt = o.threads.size();
  std::vector<std::vector<double>> seconds(nt);
  std::vector<uint64_t> checksum(nt, 0);
  // Repetitions outermost, thread counts inside: a slow spell of the machine hits every count.
  for (int rep = 0; rep <= o.reps; ++rep) {
    for (size_t k = 0; k < nt; ++k) {
      omp_set_num_threads(o.threads[k]);
      double t = timeKernel(out.get(), o.elements, o.work);
      if (rep == 0) continue;  // warm-up: the thread pool of this size, the pages of `out`
      seconds[k].push_back(t);
      checksum[k] = hashWords(out.get(), o.elements);
    }
  }
  std::printf("threads,elements,work,reps,seconds_median,seconds_min,seconds_max,speedup,efficiency,checksum,binding\n");
  double base = ferry::spreadOf(seconds[0]).median;
  bool same = true;
  for (size_t k = 0; k < nt; ++k) {
    ferry::Spread s = ferry::spreadOf(seconds[k]);
    double speedup = base / s.median;
    std::printf("%d,%zu,%d,%d,%.6f,%.6f,%.6f,%.3f,%.3f,%016llx,%s\n", o.threads[k], o.elements, o.work, o.reps, s.median,
                s.min, s.max, speedup, speedup * o.threads[0] / o.threads[k],
                static_cast<unsigned long long>(checksum[k]), bindingOf(o.threads[k]).c_str());
    same = same && checksum[k] == checksum[0];
  }
  if (!same) std::fprintf(stderr, "hybrid_bench compute: the result depends on the thread count (checksum)\n");
  return same ? 0 : 1;
}

}  // namespace hybrid
