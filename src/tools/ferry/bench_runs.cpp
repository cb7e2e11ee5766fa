#include "tools/ferry/bench_runs.h"

#include <cstdio>

#include "tools/ferry/bench_report.h"

namespace ferry::tools::bench {

Result<RunRecords> runMeasurement(const RunPlan& plan) {
  std::printf("  %-12s ", plan.label.c_str());
  std::fflush(stdout);
  auto r = runChild(plan.child);
  if (!r) return r.takeStatus();
  char line[256];
  std::snprintf(line, sizeof line, "%6.1f s, exit %d, load %s", r->seconds, r->exitCode, loadLine().c_str());
  std::printf("%s\n", line);
  std::fflush(stdout);
  if (!plan.progressPath.empty())
    if (FILE* f = std::fopen(plan.progressPath.c_str(), "a")) {
      std::fprintf(f, "%-12s %s\n", plan.label.c_str(), line);
      std::fclose(f);
    }
  std::string log = "\n  last lines of " + plan.child.logPath + ":\n" + tailOf(plan.child.logPath, 15);
  if (r->timedOut)
    return Status(Errc::Timeout, plan.label + " did not finish within " + std::to_string(int(plan.child.timeoutSeconds)) +
                                     " s (raise --timeout)" + log);
  auto records = readRecords(plan.recordsPath);
  if (!records && r->exitCode != 0)
    return Status(Errc::Internal, plan.label + " failed (exit " + std::to_string(r->exitCode) + ")" + log);
  if (!records) return Status(records.status().code(), plan.label + ": " + records.status().message() + log);
  if (records->failures > 0)
    return Status(Errc::Internal, plan.label + ": " + std::to_string(records->failures) + " of " +
                                      std::to_string(records->checks) + " data checks failed" + log);
  if (r->exitCode != 0 || records->checks < 0)
    return Status(Errc::Internal, plan.label + " failed (exit " + std::to_string(r->exitCode) + ")" + log);
  return records;
}

}  // namespace ferry::tools::bench
