// The targets of issues 3 and 31, checked against the medians of one `ferry bench offload` run.
// They are benchmark figures, reported (and explained in docs/performance.md), never a
// pass/fail test: the exit status does not depend on them.
#pragma once

#include <string>
#include <vector>

#include "tools/ferry/bench_offload_rows.h"

namespace ferry::tools::bench {

struct TargetResult {
  std::string name;      // "empty region round trip <= 1.2x the MPI round trip"
  std::string measured;  // "2.31x (min-max over repetitions 2.20-2.52); Ferry/floor 1.45x"
  bool measuredAtAll = false;
  bool met = false;
};

std::vector<TargetResult> evaluateTargets(const std::vector<DerivedRow>& rows, const std::vector<Pair>& reps);

// Bytes that passed through rank 0 during the timed device-to-device copies of `test`,
// summed over repetitions; -1 when no repetition counted them.
long long bytesThroughRank0(const std::vector<Pair>& reps, const std::string& test);

// Section (e), summed over repetitions: bytes that crossed the network during one counted
// update of each size >= 1 MiB to both devices of a remote node, and the bytes so mapped.
struct NodeTraffic {
  uint64_t network = 0, mapped = 0;
};
NodeTraffic nodeTraffic(const std::vector<Pair>& reps);

}  // namespace ferry::tools::bench
