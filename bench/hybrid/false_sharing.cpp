// false-sharing: T threads, each incrementing its own counter; no data is shared, yet when
// two counters sit in one 64-byte cache line every increment takes the line away from the
// other core. Measured at counter distances of 8..256 bytes, and as arrays of per-thread
// state: unpadded (8 bytes each, the usual `struct { long count; } state[T]`), alignas(64)
// (one line each) and alignas(128) (two lines each: the adjacent-line prefetcher of Intel
// cores fetches lines in pairs, so 64 bytes apart can still interfere there). The reference,
// ratio 1, is alignas(128).
//
// How the loop is kept honest: by default each increment is a volatile load and store. The
// standard makes every volatile access observable, so the compiler may neither keep the
// count in a register nor fold the loop into one addition, and the loop is exactly one load
// and one store to the line per increment, as in code whose counter lives in memory. Relaxed
// atomics (--access atomic: fetch_add) are kept in memory too, but compile to a locked
// read-modify-write (lock add on x86) that costs tens of cycles even with no sharing, which
// hides part of the effect being measured; they show what a shared counter would cost.
#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstring>

#include "hybrid.h"

namespace hybrid {
namespace {

struct Unpadded {
  uint64_t count;
};
struct alignas(64) Padded64 {
  uint64_t count;
};
struct alignas(128) Padded128 {
  uint64_t count;
};

[[gnu::noinline]] void bumpVolatile(uint64_t* counter, uint64_t n) {
  volatile uint64_t* c = counter;
  for (uint64_t i = 0; i < n; ++i) *c = *c + 1;  // not ++*c: C++20 deprecates ++ on volatile
}

[[gnu::noinline]] void bumpAtomic(uint64_t* counter, uint64_t n) {
  std::atomic_ref<uint64_t> c(*counter);
  for (uint64_t i = 0; i < n; ++i) c.fetch_add(1, std::memory_order_relaxed);
}

// Wall time of T threads each bumping its own counter `iters` times, from a common start
// (the barrier) to the last thread's end (the second barrier). -1: the team was smaller.
double timeCounters(const std::vector<uint64_t*>& counters, uint64_t iters, Access access) {
  int threads = static_cast<int>(counters.size());
  double t0 = 0, t1 = 0;
  bool fullTeam = true;
#pragma omp parallel num_threads(threads)
  {
    if (omp_get_num_threads() != threads) fullTeam = false;  // benign race: all write false
    uint64_t* mine = counters[omp_get_thread_num()];
#pragma omp barrier
#pragma omp master
    t0 = now();
    if (access == Access::Volatile) bumpVolatile(mine, iters);
    else bumpAtomic(mine, iters);
#pragma omp barrier
#pragma omp master
    t1 = now();
  }
  return fullTeam ? t1 - t0 : -1;
}

// One way of laying out the counters: a label, the distance between them, and where they are.
struct Layout {
  std::string variant;
  int distance;
  std::vector<uint64_t*> counters;
};

template <typename State>
Layout stateArray(const char* name, int threads, std::vector<std::shared_ptr<void>>& keep) {
  std::shared_ptr<State[]> states(new State[threads]());  // aligned new honours alignas
  keep.push_back(states);
  Layout l{name, static_cast<int>(sizeof(State)), {}};
  for (int t = 0; t < threads; ++t) l.counters.push_back(&states[t].count);
  return l;
}

std::vector<Layout> layouts(const FalseSharingOptions& o, std::vector<std::shared_ptr<void>>& keep) {
  std::vector<Layout> out;
  for (int d : o.distances) {
    // Page-aligned, so that distance 8 puts every counter in the first line (T <= 8).
    std::shared_ptr<uint8_t[]> bytes(allocateUninit<uint8_t>(static_cast<size_t>(d) * o.threads + 64).release(),
                                     FreeDeleter{});
    keep.push_back(bytes);
    Layout l{"distance", d, {}};
    for (int t = 0; t < o.threads; ++t) l.counters.push_back(reinterpret_cast<uint64_t*>(bytes.get() + t * d));
    out.push_back(l);
  }
  out.push_back(stateArray<Unpadded>("unpadded", o.threads, keep));
  out.push_back(stateArray<Padded64>("padded64", o.threads, keep));
  out.push_back(stateArray<Padded128>("padded128", o.threads, keep));  // the reference: last
  return out;
}

}  // namespace

int runFalseSharing(const FalseSharingOptions& o) {
  const char* access = o.access == Access::Volatile ? "volatile" : "atomic";
  printPreamble("false-sharing", "ns per increment per thread, each thread its own counter (median of reps)",
                o.threads);
  std::vector<std::shared_ptr<void>> keep;
  std::vector<Layout> all = layouts(o, keep);
  std::vector<std::vector<double>> ns(all.size()), ratio(all.size());
  std::vector<char> ok(all.size(), 1);  // every counter reached iters in every repetition
  for (int rep = 0; rep < o.reps; ++rep) {
    std::vector<double> t(all.size());
    for (size_t v = 0; v < all.size(); ++v) {
      for (uint64_t* c : all[v].counters) *c = 0;
      t[v] = timeCounters(all[v].counters, o.iters, o.access);
      for (uint64_t* c : all[v].counters) ok[v] = ok[v] && *c == o.iters && t[v] > 0;
      ns[v].push_back(t[v] / static_cast<double>(o.iters) * 1e9);
    }
    for (size_t v = 0; v < all.size(); ++v) ratio[v].push_back(t[v] / t.back());
  }
  std::printf("variant,distance_bytes,threads,iters,access,reps,ns_median,ns_min,ns_max,ratio_to_padded,ratio_min,"
              "ratio_max,counts_ok,binding\n");
  std::string binding = bindingOf(o.threads);
  for (size_t v = 0; v < all.size(); ++v) {
    ferry::Spread s = ferry::spreadOf(ns[v]), q = ferry::spreadOf(ratio[v]);
    std::printf("%s,%d,%d,%llu,%s,%d,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%d,%s\n", all[v].variant.c_str(), all[v].distance,
                o.threads, static_cast<unsigned long long>(o.iters), access, o.reps, s.median, s.min, s.max, q.median,
                q.min, q.max, ok[v], binding.c_str());
  }
  bool countsOk = std::all_of(ok.begin(), ok.end(), [](char c) { return c != 0; });
  if (!countsOk) std::fprintf(stderr, "hybrid_bench false-sharing: a counter missed increments (or the team was short)\n");
  return countsOk ? 0 : 1;
}

}  // namespace hybrid
