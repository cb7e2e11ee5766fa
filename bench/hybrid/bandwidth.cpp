// bandwidth: STREAM's copy (c = a) and triad (a = b + s*c) over arrays several times the
// last-level cache, at each thread count. Memory bandwidth per socket saturates after a few
// cores: the saturation point says how many threads per rank a memory-bound loop can use.
//
// Counting follows STREAM: copy moves 2 arrays, triad 3 (write-allocate traffic not counted).
#include <omp.h>

#include <algorithm>
#include <cstdio>

#include "hybrid.h"

namespace hybrid {
namespace {

// s = 0.5 keeps the values bounded (a -> 2 + a/2 converges to 4) and exact in binary, so
// the check below can compare for equality whatever the compiler contracts into FMAs.
constexpr double kScalar = 0.5;

struct Arrays {
  Buffer<double> a, b, c;
  size_t n;
};

// Each thread first touches the part it will stream (the same static schedule as the kernels):
// on a multi-socket node its pages are then local to it.
Arrays firstTouch(size_t n) {
  Arrays s{allocateUninit<double>(n), allocateUninit<double>(n), allocateUninit<double>(n), n};
  double *a = s.a.get(), *b = s.b.get(), *c = s.c.get();
#pragma omp parallel for schedule(static)
  for (size_t i = 0; i < n; ++i) {
    a[i] = 1.0;
    b[i] = 2.0;
    c[i] = 0.0;
  }
  return s;
}

double timeCopy(Arrays& s) {
  const double* a = s.a.get();
  double* c = s.c.get();
  double t0 = now();
#pragma omp parallel for schedule(static)
  for (size_t i = 0; i < s.n; ++i) c[i] = a[i];
  return now() - t0;
}

double timeTriad(Arrays& s) {
  double* a = s.a.get();
  const double *b = s.b.get(), *c = s.c.get();
  double t0 = now();
#pragma omp parallel for schedule(static)
  for (size_t i = 0; i < s.n; ++i) a[i] = b[i] + kScalar * c[i];
  return now() - t0;
}

// Every element went through `rounds` copy+triad rounds: a kernel that skipped or repeated
// a chunk (a wrong schedule, a lost thread) leaves a different value somewhere.
bool verify(const Arrays& s, int rounds) {
  double a = 1.0, c = 0.0;
  for (int r = 0; r < rounds; ++r) c = a, a = 2.0 + kScalar * c;
  size_t wrong = 0;
  const double *pa = s.a.get(), *pc = s.c.get();
#pragma omp parallel for schedule(static) reduction(+ : wrong)
  for (size_t i = 0; i < s.n; ++i) wrong += (pa[i] != a) + (pc[i] != c);
  return wrong == 0;
}

struct Row {
  ferry::Spread copy, triad;  // GB/s
  bool verified;
};

Row measure(int threads, size_t n, int reps) {
  omp_set_num_threads(threads);
  Arrays s = firstTouch(n);
  timeCopy(s);  // warm-up round: page tables, thread pool, clock frequency
  timeTriad(s);
  std::vector<double> copy, triad;
  for (int r = 0; r < reps; ++r) {
    copy.push_back(2.0 * sizeof(double) * static_cast<double>(n) / timeCopy(s) * 1e-9);
    triad.push_back(3.0 * sizeof(double) * static_cast<double>(n) / timeTriad(s) * 1e-9);
  }
  return {ferry::spreadOf(copy), ferry::spreadOf(triad), verify(s, reps + 1)};
}

}  // namespace

int runBandwidth(const BandwidthOptions& o) {
  uint64_t llc = lastLevelCacheBytes();
  uint64_t bytes = o.arrayBytes ? o.arrayBytes : std::clamp<uint64_t>(4 * llc, 64ull << 20, 1ull << 30);
  size_t n = std::max<size_t>(bytes / sizeof(double), 1);
  int most = *std::max_element(o.threads.begin(), o.threads.end());
  printPreamble("bandwidth", "STREAM copy and triad, GB/s (median of reps, min, max) per thread count", most);
  std::printf("# 3 arrays of %zu bytes; last-level cache %llu bytes%s\n", n * sizeof(double),
              static_cast<unsigned long long>(llc),
              n * sizeof(double) < 4 * llc ? " (arrays NOT 4x the cache: figures include cache hits)" : "");
  std::printf("kernel,threads,array_bytes,reps,gbs_median,gbs_min,gbs_max,verified,binding\n");
  double best = 0;
  std::vector<std::pair<int, double>> triads;
  bool allVerified = true;
  for (int t : o.threads) {
    Row r = measure(t, n, o.reps);
    std::string binding = bindingOf(t);
    for (auto [name, s] : {std::pair{"copy", r.copy}, std::pair{"triad", r.triad}})
      std::printf("%s,%d,%zu,%d,%.3f,%.3f,%.3f,%d,%s\n", name, t, n * sizeof(double), o.reps, s.median, s.min, s.max,
                  r.verified ? 1 : 0, binding.c_str());
    std::fflush(stdout);
    triads.emplace_back(t, r.triad.median);
    best = std::max(best, r.triad.median);
    allVerified = allVerified && r.verified;
  }
  // The saturation point: the fewest threads that reach 90% of the best triad bandwidth.
  for (auto [t, gbs] : triads) {
    if (gbs >= 0.9 * best) {
      std::printf("# saturation: triad reaches 90%% of its best median (%.2f GB/s) at %d thread%s\n", best, t,
                  t == 1 ? "" : "s");
      break;
    }
  }
  if (!allVerified) std::fprintf(stderr, "hybrid_bench bandwidth: wrong values in the arrays (verified=0)\n");
  return allVerified ? 0 : 1;
}

}  // namespace hybrid
