// copy_bench: Ferry's copyBytes against memcpy, per size and per distance between the
// destination and the source modulo 4 KiB (platform/copy.h says why that distance matters).
// Both run in this process, back to back, in every repetition; the figure is the median of
// memcpy's time / copyBytes' time over the repetitions. Every copy is checked once.
//
//   copy_bench [-r REPS] [-b SECONDS] [--csv FILE] [--min SIZE] [--max SIZE]
#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "platform/copy.h"
#include "platform/parse.h"
#include "platform/spread.h"

namespace {

using Clock = std::chrono::steady_clock;

// The distances: the same page offset; 16 bytes past it (a malloc'd buffer of 128 KiB or
// more against a page-aligned slot); 64 bytes past it, just outside the stall's window.
constexpr size_t kDistances[] = {0, 16, 64};

struct Options {
  int reps = 5;
  double budget = 0.02;  // seconds per measurement
  std::string csv;
  std::string minSize = "1K", maxSize = "16M";
};

template <typename Copy>
double secondsPerCopy(Copy copy, uint8_t* dst, const uint8_t* src, size_t n, double budget) {
  copy(dst, src, n);  // warm: pages touched, caches as in the loop
  long iters = 1;
  for (;;) {
    auto t0 = Clock::now();
    for (long i = 0; i < iters; ++i) {
      copy(dst, src, n);
      asm volatile("" : : "r"(dst) : "memory");  // every copy happens
    }
    double t = std::chrono::duration<double>(Clock::now() - t0).count();
    if (t >= budget || iters >= (1L << 30)) return t / static_cast<double>(iters);
    iters *= 2;
  }
}

int run(const Options& o) {
  auto lo = ferry::parse::size(o.minSize), hi = ferry::parse::size(o.maxSize);
  if (!lo || !hi || *lo == 0 || *lo > *hi) {
    std::fprintf(stderr, "copy_bench: bad --min/--max '%s'/'%s' (sizes like 1K, 16M; min <= max)\n",
                 o.minSize.c_str(), o.maxSize.c_str());
    return 2;
  }
  ferry::PageBytes src = ferry::allocatePages(*hi + ferry::kCopyPage);
  ferry::PageBytes dst = ferry::allocatePages(*hi + ferry::kCopyPage);
  for (size_t i = 0; i < *hi; ++i) src[i] = static_cast<uint8_t>(i * 37 + 11);
  auto viaMemcpy = [](uint8_t* d, const uint8_t* s, size_t n) { std::memcpy(d, s, n); };
  auto viaFerry = [](uint8_t* d, const uint8_t* s, size_t n) { ferry::copyBytes(d, s, n); };

  FILE* csv = o.csv.empty() ? nullptr : std::fopen(o.csv.c_str(), "w");
  if (!o.csv.empty() && !csv) {
    std::perror(o.csv.c_str());
    return 2;
  }
  if (csv) std::fprintf(csv, "bytes,distance,memcpy_gbs,ferry_gbs,speedup,speedup_min,speedup_max\n");
  std::printf("# copyBytes (Ferry) against memcpy, one core; GB/s are medians over %d repetitions;\n"
              "# speed-up = memcpy time / copyBytes time, the median of the ratios within each repetition\n",
              o.reps);
  std::printf("%10s %9s %12s %12s %9s\n", "bytes", "distance", "memcpy GB/s", "Ferry GB/s", "speed-up");
  for (size_t n = *lo; n <= *hi; n *= 2) {
    for (size_t distance : kDistances) {
      uint8_t* d = dst.get() + distance;
      std::vector<double> tm, tf, ratio;
      for (int r = 0; r < o.reps; ++r) {
        bool ferryFirst = r % 2 == 1;  // neither always runs on the other's warm caches
        double a = ferryFirst ? 0 : secondsPerCopy(viaMemcpy, d, src.get(), n, o.budget);
        double f = secondsPerCopy(viaFerry, d, src.get(), n, o.budget);
        if (ferryFirst) a = secondsPerCopy(viaMemcpy, d, src.get(), n, o.budget);
        tm.push_back(a);
        tf.push_back(f);
        ratio.push_back(a / f);
      }
      std::memset(d, 0, n);
      ferry::copyBytes(d, src.get(), n);
      if (std::memcmp(d, src.get(), n) != 0) {
        std::fprintf(stderr, "copy_bench: copyBytes of %zu bytes at distance %zu copied wrong bytes\n", n, distance);
        return 1;
      }
      double gm = static_cast<double>(n) / ferry::spreadOf(tm).median * 1e-9, gf = static_cast<double>(n) / ferry::spreadOf(tf).median * 1e-9;
      double sp = ferry::spreadOf(ratio).median;
      std::printf("%10zu %9zu %12.1f %12.1f %9.2f\n", n, distance, gm, gf, sp);
      // Significant digits, not fixed decimals: a copy that a busy machine slowed 500x still
      // keeps its ratio to the other figures (0.0019 at four decimals was 3% off).
      if (csv)
        std::fprintf(csv, "%zu,%zu,%.6g,%.6g,%.6g,%.6g,%.6g\n", n, distance, gm, gf, sp,
                     *std::min_element(ratio.begin(), ratio.end()), *std::max_element(ratio.begin(), ratio.end()));
    }
  }
  if (csv) std::fclose(csv);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  CLI::App app{"copy_bench: Ferry's copyBytes against memcpy at the distances that matter (platform/copy.h)"};
  app.add_option("-r,--reps", o.reps, "repetitions (the median is reported)")->check(CLI::Range(1, 1000));
  app.add_option("-b,--budget", o.budget, "seconds per measurement")->check(CLI::Range(0.0001, 10.0));
  app.add_option("--csv", o.csv, "write the figures to this CSV file");
  app.add_option("--min", o.minSize, "smallest copy (default 1K)");
  app.add_option("--max", o.maxSize, "largest copy (default 16M)");
  CLI11_PARSE(app, argc, argv);
  return run(o);
}
