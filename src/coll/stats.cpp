#include "coll/stats.h"

namespace ferry::coll {

StatsSnapshot Stats::snapshot() const {
  auto r = [](const std::atomic<uint64_t>& a) { return a.load(std::memory_order_relaxed); };
  return {r(ferryCalls), r(libraryCalls), r(bytesCma),    r(bytesMapped),      r(bytesStaged), r(interChunks),
          r(regHits),    r(regMisses),    r(regInvalidations), r(regEvictions), r(setups)};
}

Stats& stats() {
  static Stats* s = new Stats();  // never destroyed: read from MPI_Finalize callbacks
  return *s;
}

}  // namespace ferry::coll
