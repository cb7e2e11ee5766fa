#include "tools/ferry/bench_xs.h"

#include <cstdio>
#include <filesystem>
#include <memory>
#include <set>

#include "platform/topology.h"
#include "tools/ferry/bench_report.h"
#include "tools/ferry/bench_runs.h"
#include "tools/ferry/launcher.h"

namespace ferry::tools::bench {
namespace fs = std::filesystem;
namespace {

void applyDefaults(XsOptions& o) {
  if (o.lookups == 0) o.lookups = o.quick ? 200000 : 1000000;
  if (o.weakLookups == 0) o.weakLookups = o.quick ? 60000 : 300000;
  if (o.gridpoints == 0) o.gridpoints = o.quick ? 2000 : 11303;
  if (o.trials == 0) o.trials = o.quick ? 1 : 3;
  if (o.virtualNodes == 0) o.virtualNodes = o.devices + 1;
}

Result<RunPlan> planOf(const XsOptions& o, const std::string& program, const std::string& runsDir, int rep) {
  RunPlan plan;
  std::string base = runsDir + "/xs." + std::to_string(rep);
  plan.label = "xs " + std::to_string(rep) + "/" + std::to_string(o.reps);
  plan.recordsPath = base + ".jsonl";
  plan.progressPath = o.outDir + "/progress.txt";
  LaunchSpec spec;
  spec.ranks = o.devices + 1;
  spec.program = {program, "--out", plan.recordsPath, "--lookups", std::to_string(o.lookups), "--weak-lookups",
                  std::to_string(o.weakLookups), "--gridpoints", std::to_string(o.gridpoints), "--trials",
                  std::to_string(o.trials), "--max-devices", std::to_string(o.devices)};
  auto argv = launcherCommand(spec);
  if (!argv) return argv.takeStatus();
  plan.child.argv = *argv;
  plan.child.logPath = base + ".log";
  plan.child.timeoutSeconds = o.timeout;
  return plan;
}

// One scaling series at k devices, over the repetitions.
struct Point {
  Spread seconds, rate, scaled;  // scaled: strong speed-up t1/tk, or weak efficiency t1/tk
  uint64_t lookups = 0;
  std::set<uint64_t> checksums;  // one value when every repetition agrees
};

Point pointOf(const std::vector<const RunRecords*>& reps, const std::string& series, int k) {
  std::vector<double> seconds, rate, scaled;
  Point p;
  for (const RunRecords* r : reps) {
    const Figure* f = r->find(series, k);
    const Figure* one = r->find(series, 1);
    if (!f || !one) continue;
    seconds.push_back(f->value);
    rate.push_back(static_cast<double>(f->iters) / f->value);
    scaled.push_back(one->value / f->value);
    p.lookups = f->iters;
    auto c = r->counters.find({series + "." + std::to_string(k), "checksum"});
    if (c != r->counters.end()) p.checksums.insert(c->second);
  }
  p.seconds = spreadOf(seconds);
  p.rate = spreadOf(rate);
  p.scaled = spreadOf(scaled);
  return p;
}

std::string checksumText(const Point& p) {
  if (p.checksums.size() != 1) return p.checksums.empty() ? "-" : "DIFFERS across repetitions";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(*p.checksums.begin()));
  return buf;
}

// What one remote device is worth: the same lookups on one thread of rank 0 (the host
// reference, timed in the same run), and the time to place the problem on each device.
void printContext(const std::vector<const RunRecords*>& reps) {
  std::vector<double> host, ratio, setup;
  for (const RunRecords* r : reps) {
    host.push_back(r->value("host", 1));
    ratio.push_back(r->value("strong", 1) / r->value("host", 1));
    for (const auto& [key, f] : r->figures)
      if (key.first == "setup") setup.push_back(f.value);
  }
  Spread h = spreadOf(host);
  std::printf("\nHost reference (the same lookups on one thread of rank 0): %s s (%s); one remote device takes "
              "%sx that time\n", number(h.median).c_str(), spreadLabel(h).c_str(), number(spreadOf(ratio).median).c_str());
  std::printf("Placing the problem on a device (omp_target_alloc + omp_target_memcpy): median %s s per device\n",
              number(spreadOf(setup).median).c_str());
}

void printAndWrite(const XsOptions& o, const std::vector<const RunRecords*>& reps, CsvWriter& csv) {
  TextTable strong({"devices", "lookups", "time s", "min-max", "lookups/s", "speed-up", "efficiency", "checksum"});
  TextTable weak({"devices", "lookups", "time s", "min-max", "lookups/s", "efficiency", "checksum"});
  for (int k = 1; k <= o.devices; ++k) {
    Point s = pointOf(reps, "strong", k), w = pointOf(reps, "weak", k);
    strong.add({std::to_string(k), std::to_string(s.lookups), number(s.seconds.median), spreadLabel(s.seconds),
                number(s.rate.median), number(s.scaled.median), number(s.scaled.median / k), checksumText(s)});
    weak.add({std::to_string(k), std::to_string(w.lookups), number(w.seconds.median), spreadLabel(w.seconds),
              number(w.rate.median), number(w.scaled.median), checksumText(w)});
    csv.row({std::to_string(k), std::to_string(s.lookups), csvNumber(s.seconds.median), csvNumber(s.seconds.min),
             csvNumber(s.seconds.max), csvNumber(s.rate.median), csvNumber(s.scaled.median),
             csvNumber(s.scaled.median / k), checksumText(s), std::to_string(w.lookups), csvNumber(w.seconds.median),
             csvNumber(w.seconds.min), csvNumber(w.seconds.max), csvNumber(w.rate.median), csvNumber(w.scaled.median),
             checksumText(w), std::to_string(s.seconds.n)});
  }
  std::printf("\nStrong scaling: %llu lookups over 1..%d devices (medians of %zu repetitions; speed-up = t(1)/t(k) "
              "within a repetition)\n", static_cast<unsigned long long>(o.lookups), o.devices, reps.size());
  strong.print(stdout);
  std::printf("\nWeak scaling: %llu lookups per device (efficiency = t(1)/t(k) within a repetition)\n",
              static_cast<unsigned long long>(o.weakLookups));
  weak.print(stdout);
  printContext(reps);
}

// Every figure of every run (host reference and placement times included).
Status writeRawCsv(const std::string& path, const std::vector<const RunRecords*>& reps) {
  auto csv = CsvWriter::open(path, {"rep", "test", "devices_or_device", "seconds", "lookups"});
  if (!csv) return csv.takeStatus();
  for (size_t i = 0; i < reps.size(); ++i)
    for (const auto& [key, f] : reps[i]->figures)
      csv->row({std::to_string(i + 1), key.first, std::to_string(key.second), csvNumber(f.value),
                std::to_string(f.iters)});
  return {};
}

Result<std::vector<std::unique_ptr<RunRecords>>> runAll(const XsOptions& o, const std::string& program,
                                                        const std::string& runsDir) {
  std::vector<std::unique_ptr<RunRecords>> runs;
  setenv("FERRY_VIRTUAL_NODES", std::to_string(o.virtualNodes).c_str(), 1);  // passed on by the launcher
  for (int rep = 1; rep <= o.reps; ++rep) {
    auto plan = planOf(o, program, runsDir, rep);
    if (!plan) return plan.takeStatus();
    auto rec = runMeasurement(*plan);
    if (!rec) return rec.takeStatus();
    runs.push_back(std::make_unique<RunRecords>(std::move(*rec)));
  }
  return runs;
}

}  // namespace

int runXsBench(const XsOptions& optIn, const std::vector<std::string>& commandLine) {
  XsOptions o = optIn;
  applyDefaults(o);
  auto program = findBenchFile("ferry_xs");
  auto plot = findBenchFile("plot_xs.py");
  std::string runsDir = o.outDir + "/runs";
  std::error_code ec;
  fs::create_directories(runsDir, ec);
  if (!ec) fs::remove(o.outDir + "/progress.txt", ec);  // each run appends its line
  if (!program || !plot || ec) {
    std::fprintf(stderr, "ferry bench xs: %s\n",
                 !program ? program.status().message().c_str()
                          : !plot ? plot.status().message().c_str() : ("cannot create " + runsDir).c_str());
    return 1;
  }
  std::vector<std::string> env = preamble(commandLine);
  std::printf("ferry bench xs: %d repetitions on %d devices (%d ranks, %d virtual nodes); %d gridpoints x 68 "
              "nuclides, %d trial(s) per point\n", o.reps, o.devices, o.devices + 1, o.virtualNodes, o.gridpoints,
              o.trials);
  for (const auto& l : env) std::printf("  %s\n", l.c_str());
  if (Status st = writeLines(o.outDir + "/environment.txt", env); !st)
    std::fprintf(stderr, "ferry bench xs: %s\n", st.message().c_str());
  auto runs = runAll(o, *program, runsDir);
  if (!runs) {
    std::fprintf(stderr, "ferry bench xs: %s\n", runs.status().message().c_str());
    return 1;
  }
  std::vector<const RunRecords*> reps;
  long checks = 0;
  for (const auto& r : *runs) reps.push_back(r.get()), checks += r->checks;
  const std::string csvPath = o.outDir + "/xs_scaling.csv";
  {  // closed before the plot reads it
    auto csv = CsvWriter::open(csvPath, {"devices", "strong_lookups", "strong_s_median", "strong_s_min",
                                         "strong_s_max", "strong_lookups_per_s", "strong_speedup", "strong_efficiency",
                                         "strong_checksum", "weak_lookups", "weak_s_median", "weak_s_min",
                                         "weak_s_max", "weak_lookups_per_s", "weak_efficiency", "weak_checksum",
                                         "reps"});
    if (!csv) {
      std::fprintf(stderr, "ferry bench xs: %s\n", csv.status().message().c_str());
      return 1;
    }
    printAndWrite(o, reps, *csv);
  }
  if (Status st = writeRawCsv(o.outDir + "/xs_raw.csv", reps); !st)
    std::fprintf(stderr, "ferry bench xs: %s\n", st.message().c_str());
  std::printf("\nVerification: %ld checksum checks passed (host reference, and weak runs against their slices)\n",
              checks);
  std::printf("load at the end: %s\nWrote %s and %s/xs_raw.csv (every figure)\n", loadLine().c_str(), csvPath.c_str(),
              o.outDir.c_str());
  if (o.plots) {
    Status st = runPlot(o.python, *plot,
                        {"--csv", csvPath, "--out-dir", o.outDir, "--title", plotTitle(), "--cores",
                         std::to_string(nodeTopology().cores)},
                        runsDir + "/plot.log");
    if (!st) std::fprintf(stderr, "ferry bench xs: plot skipped: %s\n", st.message().c_str());
    else std::printf("Plot: %s/xs_scaling.png\n", o.outDir.c_str());
  }
  return 0;
}

}  // namespace ferry::tools::bench
