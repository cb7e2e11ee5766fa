// `ferry bench xs`: strong and weak scaling of the XSBench-style proxy app (bench/xs) over
// 1..N remote devices, with its checksum verified against a host reference.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ferry::tools::bench {

struct XsOptions {
  bool quick = false;
  bool plots = true;
  int devices = 3;          // the job has devices + 1 ranks
  int virtualNodes = 0;     // 0: one per rank, so that every device is remote
  int reps = 5;
  uint64_t lookups = 0;     // strong scaling; 0: 1,000,000 (200,000 with --quick)
  uint64_t weakLookups = 0; // per device; 0: 300,000 (60,000 with --quick)
  int gridpoints = 0;       // per nuclide; 0: 11,303 as XSBench's small problem (2,000 with --quick)
  int trials = 0;           // per point inside a run; 0: 3 (1 with --quick)
  double timeout = 900;
  std::string outDir = "ferry-bench-xs";
  std::string python = "/usr/bin/python3";
};

int runXsBench(const XsOptions& opt, const std::vector<std::string>& commandLine);

}  // namespace ferry::tools::bench
