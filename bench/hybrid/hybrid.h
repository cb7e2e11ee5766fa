// hybrid_bench: the micro-studies behind hybrid MPI+OpenMP advice (docs/hybrid.md,
// "Micro-studies"), each a subcommand that prints '#' comment lines and then a CSV (header,
// one row per measurement) on stdout. Plain host OpenMP (gcc's libgomp); no Ferry runtime.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "platform/spread.h"

namespace hybrid {

// ---- options of each subcommand (filled by main.cpp's command line) ----
struct BandwidthOptions {
  std::vector<int> threads;  // thread counts to measure, in order
  uint64_t arrayBytes = 0;   // bytes per array; 0: 4x the last-level cache, at least 64 MiB
  int reps = 5;
};
struct ScheduleOptions {
  int threads = 0;  // 0: one per place (core) or per processor
  size_t rows = 4096, cols = 4096;
  int sweeps = 4;  // sweeps per measurement (ping-pong between two arrays)
  int chunk = 16;  // k of dynamic,k
  int reps = 5;
};
enum class Access { Volatile, Atomic };
struct FalseSharingOptions {
  int threads = 2;
  uint64_t iters = 10'000'000;  // increments per thread per measurement
  std::vector<int> distances{8, 16, 32, 64, 128, 256};
  Access access = Access::Volatile;
  int reps = 5;
};
struct ComputeOptions {
  std::vector<int> threads;
  size_t elements = 1 << 18;
  int work = 256;  // dependent iterations per element
  int reps = 5;
};

int runBandwidth(const BandwidthOptions& o);
int runSchedule(const ScheduleOptions& o);
int runFalseSharing(const FalseSharingOptions& o);
int runCompute(const ComputeOptions& o);

// ---- shared helpers (common.cpp) ----
double now();  // seconds, monotonic
// Threads a study uses by default: the OpenMP places (OMP_PLACES=cores: the cores) if a
// place list is set, else the processors this process may run on.
int defaultThreads();
// "1,2,4", "1-8" or a mix; every count from 1 to 4096. Throws std::invalid_argument.
std::vector<int> parseList(const std::string& text, const char* what);
// The CPUs each of `threads` OpenMP threads may run on, "0;1" (thread 0 on CPU 0, thread 1 on
// CPU 1), "0-1;0-1" (both anywhere), "0;0" (piled on one CPU): the proof of the binding.
std::string bindingOf(int threads);
// '#' lines: what the study measures, the OpenMP environment, the binding at `threads`.
void printPreamble(const char* study, const std::string& what, int threads);
// Bytes of last-level cache this process can reach (every distinct instance summed), from
// sysfs; glibc's sysconf misreports it in some VMs (384 MiB for one 32 MiB L3 here).
uint64_t lastLevelCacheBytes();
// FNV-1a over 64-bit words: equal results hash equal, whichever thread wrote which element.
uint64_t hashWords(const double* data, size_t n);

// Page-aligned (2 MiB for large arrays, so that transparent huge pages can back them) and
// uninitialised: the first write decides where a page lives, and the studies make that write
// from the threads that later use the data.
struct FreeDeleter {
  void operator()(void* p) const { std::free(p); }
};
template <typename T>
using Buffer = std::unique_ptr<T[], FreeDeleter>;
template <typename T>
Buffer<T> allocateUninit(size_t n) {
  size_t align = n * sizeof(T) >= (8u << 20) ? (2u << 20) : 4096;
  size_t bytes = (n * sizeof(T) + align - 1) / align * align;
  void* p = std::aligned_alloc(align, bytes == 0 ? align : bytes);
  if (!p) throw std::bad_alloc();
  return Buffer<T>(static_cast<T*>(p));
}

}  // namespace hybrid
