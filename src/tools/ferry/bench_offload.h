// `ferry bench offload`: OSU-style figures of remote target regions, each next to raw MPI
// between the same ranks and to the stock in-process host plugin (docs/performance.md).
#pragma once

#include <string>
#include <vector>

namespace ferry::tools::bench {

struct OffloadOptions {
  bool quick = false;
  bool validate = false;
  bool plots = true;
  bool gpu = false;         // the nvptx64 build: GPUs of the serving ranks against the stock CUDA plugin
  int reps = 5;
  int ranks = 4;
  int virtualNodes = 2;
  std::string sizes;        // empty: OSU's 1 B..64 MiB (fewer with --quick)
  double budget = 0;        // seconds per measurement; 0: 0.1 (0.03 with --quick)
  double timeout = 0;       // per run; 0: 900 s (180 s with --quick)
  std::string outDir = "ferry-bench-offload";
  std::string python = "/usr/bin/python3";
};

int runOffloadBench(const OffloadOptions& opt, const std::vector<std::string>& commandLine);

}  // namespace ferry::tools::bench
