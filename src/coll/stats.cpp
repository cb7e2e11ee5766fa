#include "coll/stats.h"

#include <mutex>
#include <vector>

namespace ferry::coll {
namespace {

// One thread's call counters: written by that thread only (a plain load and store, no lock
// prefix), read by snapshot() from any thread.
struct ThreadCalls {
  std::atomic<uint64_t> ferry{0}, library{0};
};

// Counts of threads that have ended, and the live threads' counters.
struct CallRegistry {
  std::mutex mutex;
  uint64_t endedFerry = 0, endedLibrary = 0;
  std::vector<const ThreadCalls*> threads;
};

CallRegistry& registry() {
  static CallRegistry* r = new CallRegistry();  // never destroyed: threads end after main
  return *r;
}

// In the static TLS block (initial-exec, constant-initialised: no guard, no
// __tls_get_addr), next to Ferry's other per-thread state. As a heap object behind a
// thread-local pointer the counters were one more cache line to miss on every small call,
// half of what the fast path to the library cost with 2 ranks.
__attribute__((tls_model("initial-exec"))) thread_local ThreadCalls tCalls;
__attribute__((tls_model("initial-exec"))) thread_local bool tRegistered = false;

// Built on a thread's first call: lists its counters and, when the thread ends, adds them
// to the ended threads' counts before its TLS goes away.
class Enlisted {
 public:
  Enlisted() {
    std::lock_guard lock(registry().mutex);
    registry().threads.push_back(&tCalls);
  }
  ~Enlisted() {
    CallRegistry& reg = registry();
    std::lock_guard lock(reg.mutex);
    reg.endedFerry += tCalls.ferry.load(std::memory_order_relaxed);
    reg.endedLibrary += tCalls.library.load(std::memory_order_relaxed);
    std::erase(reg.threads, &tCalls);
  }
  Enlisted(const Enlisted&) = delete;
  Enlisted& operator=(const Enlisted&) = delete;
};

[[gnu::noinline]] void enlist() {
  static thread_local Enlisted enlisted;
  tRegistered = true;
}

void bump(std::atomic<uint64_t>& c) { c.store(c.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed); }

}  // namespace

void countCall(bool ferry) {
  if (!tRegistered) enlist();
  bump(ferry ? tCalls.ferry : tCalls.library);
}

StatsSnapshot Stats::snapshot() const {
  auto r = [](const std::atomic<uint64_t>& a) { return a.load(std::memory_order_relaxed); };
  StatsSnapshot s;
  {
    CallRegistry& reg = registry();
    std::lock_guard lock(reg.mutex);
    s.ferryCalls = reg.endedFerry;
    s.libraryCalls = reg.endedLibrary;
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
