#include "coll/stats.h"

#include <mutex>
#include <vector>

namespace ferry::coll {
namespace {

// One thread's call counters: written by that thread only (a plain load and store, no lock
// prefix), read by snapshot() from any thread. Never freed, so that the counts of threads
// that have ended still add up (16 bytes per thread that ever called allreduce).
struct ThreadCalls {
  std::atomic<uint64_t> ferry{0}, library{0};
};

struct CallRegistry {
  std::mutex mutex;
  std::vector<const ThreadCalls*> threads;
};

CallRegistry& registry() {
  static CallRegistry* r = new CallRegistry();  // never destroyed: threads end after main
  return *r;
}

// A plain pointer, so that the thread-local needs no initialisation guard; initial-exec
// for the reason given at tInside in allreduce.cpp.
__attribute__((tls_model("initial-exec"))) thread_local ThreadCalls* tCalls = nullptr;

ThreadCalls& threadCalls() {
  if (!tCalls) {
    tCalls = new ThreadCalls();
    std::lock_guard lock(registry().mutex);
    registry().threads.push_back(tCalls);
  }
  return *tCalls;
}

void bump(std::atomic<uint64_t>& c) { c.store(c.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed); }

}  // namespace

void countCall(bool ferry) {
  ThreadCalls& calls = threadCalls();
  bump(ferry ? calls.ferry : calls.library);
}

StatsSnapshot Stats::snapshot() const {
  auto r = [](const std::atomic<uint64_t>& a) { return a.load(std::memory_order_relaxed); };
  StatsSnapshot s;
  {
    CallRegistry& reg = registry();
    std::lock_guard lock(reg.mutex);
    for (const ThreadCalls* t : reg.threads) {
      s.ferryCalls += r(t->ferry);
      s.libraryCalls += r(t->library);
    }
  }
  s.bytesCma = r(bytesCma);
  s.bytesMapped = r(bytesMapped);
  s.bytesStaged = r(bytesStaged);
  s.interChunks = r(interChunks);
  s.regHits = r(regHits);
  s.regMisses = r(regMisses);
  s.regInvalidations = r(regInvalidations);
  s.regEvictions = r(regEvictions);
  s.setups = r(setups);
  return s;
}

Stats& stats() {
  static Stats* s = new Stats();  // never destroyed: read from MPI_Finalize callbacks
  return *s;
}

}  // namespace ferry::coll
