// One measuring run of `ferry bench`: start the program, wait for it, read its records, and
// refuse a run that failed or whose data checks failed: a median over broken runs means
// nothing.
#pragma once

#include <string>

#include "tools/ferry/bench_proc.h"
#include "tools/ferry/bench_records.h"

namespace ferry::tools::bench {

struct RunPlan {
  std::string label;        // "ferry 2/5"
  ChildSpec child;
  std::string recordsPath;  // the --out file the program writes
  std::string progressPath; // if set, the progress line (time, exit, load) is appended here too
};

// Prints one progress line; on failure the error carries the tail of the run's log.
Result<RunRecords> runMeasurement(const RunPlan& plan);

}  // namespace ferry::tools::bench
