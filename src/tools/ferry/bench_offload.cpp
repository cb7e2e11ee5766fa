#include "tools/ferry/bench_offload.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>

#include "platform/parse.h"
#include "service/vendor_plugin.h"
#include "tools/ferry/bench_offload_rows.h"
#include "tools/ferry/bench_offload_targets.h"
#include "tools/ferry/bench_report.h"
#include "tools/ferry/bench_runs.h"
#include "tools/ferry/launcher.h"

namespace ferry::tools::bench {
namespace fs = std::filesystem;
namespace {

// OSU's range, 1 B to 64 MiB in powers of two; --quick keeps a few that span it.
std::string defaultSizes(bool quick) {
  if (quick) return "1,64,8K,64K,1M,4M";
  std::string out;
  for (uint64_t s = 1; s <= (64u << 20); s *= 2) out += (out.empty() ? "" : ",") + std::to_string(s);
  return out;
}

struct Paths {
  std::string program, plotScript, pluginDir, runsDir;
};

std::vector<std::string> programArgs(const OffloadOptions& opt, const Paths& p, const char* mode,
                                     const std::string& out) {
  std::vector<std::string> a = {p.program, "--mode", mode, "--out", out, "--budget", std::to_string(opt.budget),
                                "--sizes", opt.sizes};
  if (opt.quick) a.push_back("--quick");
  if (opt.validate) a.push_back("--validate");
  return a;
}

// The stock run: the same program without Ferry's plugin directory on LD_LIBRARY_PATH, so
// that libomptarget loads Debian's x86_64 host plugin (CUDA plugin with --gpu) in this process.
// LLVM's own directory goes first instead: libomptarget dlopens its plugins by name from
// libLLVM-16, whose RUNPATH finds them only when libLLVM-16.so.1 was loaded through
// /usr/lib/llvm-16/lib, and that link comes with llvm-16-dev; without it the stock run found
// no device at all (observed on a bookworm machine with clang-16 and libomp-16-dev only).
RunPlan stockPlan(const OffloadOptions& opt, const Paths& p, const std::string& originalLdPath, int rep) {
  RunPlan plan;
  std::string base = p.runsDir + "/stock." + std::to_string(rep);
  plan.label = "stock " + std::to_string(rep) + "/" + std::to_string(opt.reps);
  plan.recordsPath = base + ".jsonl";
  plan.progressPath = opt.outDir + "/progress.txt";
  plan.child.argv = programArgs(opt, p, "stock", plan.recordsPath);
  std::string rest = withoutPathEntry(withoutPathEntry(originalLdPath, p.pluginDir), service::llvmLibDir());
  plan.child.env["LD_LIBRARY_PATH"] = service::llvmLibDir() + (rest.empty() ? "" : ":" + rest);
  plan.child.logPath = base + ".log";
  plan.child.timeoutSeconds = opt.timeout;
  return plan;
}

Result<RunPlan> ferryPlan(const OffloadOptions& opt, const Paths& p, int rep) {
  RunPlan plan;
  std::string base = p.runsDir + "/ferry." + std::to_string(rep);
  plan.label = "ferry " + std::to_string(rep) + "/" + std::to_string(opt.reps);
  plan.recordsPath = base + ".jsonl";
  plan.progressPath = opt.outDir + "/progress.txt";
  LaunchSpec spec;
  spec.ranks = opt.ranks;
  spec.program = programArgs(opt, p, "ferry", plan.recordsPath);
  auto argv = launcherCommand(spec);  // also puts the plugin first on this process's LD_LIBRARY_PATH
  if (!argv) return argv.takeStatus();
  plan.child.argv = *argv;
  plan.child.logPath = base + ".log";
  plan.child.timeoutSeconds = opt.timeout;
  return plan;
}

// ---- the report ----

std::string headingOf(const RowSpec& s) {
  switch (s.kind) {
    case Kind::Latency: return std::string(s.title) + " [us, lower is better]";
    case Kind::Bandwidth: return std::string(s.title) + " [MB/s, higher is better]";
    case Kind::Rate: return std::string(s.title) + " [regions/s, higher is better]";
  }
  return s.title;
}

void printSection(const RowSpec& spec, const std::vector<DerivedRow>& rows) {
  TextTable t({"size", "Ferry", "min-max", "MPI", "Ferry/MPI", "min-max", "stock", "Ferry/stock", "floor",
               "Ferry/floor"});
  int n = 0;
  for (const auto& r : rows) {
    if (r.spec != &spec) continue;
    ++n;
    t.add({r.size ? bytesLabel(r.size) : "-", number(r.ferry.median), spreadLabel(r.ferry), number(r.mpi.median),
           number(r.ratioMpi.median), spreadLabel(r.ratioMpi), number(r.stock.median), number(r.ratioStock.median),
           number(r.floor.median), number(r.ratioFloor.median)});
  }
  if (n == 0) return;
  std::printf("\n%s\n  %s%s\n", headingOf(spec).c_str(), spec.refText,
              spec.kind == Kind::Latency ? "; floor = stock + MPI" : "");
  t.print(stdout);
}

// A disturbed raw-MPI figure would make every ratio against it wrong without a word.
void printSuspectBaselines(const std::vector<Pair>& reps) {
  std::vector<SuspectBaseline> suspects = suspectBaselines(reps);
  if (suspects.empty()) return;
  std::printf("\nSuspect raw-MPI baselines: the Ferry/MPI ratios of the latency rows that use them mean nothing\n");
  for (const auto& b : suspects)
    std::printf("  repetition %d: a ping-pong of %s took %s us, more than twice the %s us of one of %s\n", b.rep,
                bytesLabel(b.bytes).c_str(), number(b.us).c_str(), number(b.largerUs).c_str(),
                bytesLabel(b.largerBytes).c_str());
  std::printf("  %s\n", reps.size() < 3 ? "rerun on an idle machine, or with --reps 3 or more, whose medians outvote "
                                          "one disturbed figure"
                                        : "the medians above outvote a figure disturbed in one repetition");
}

void printLayout(const RunRecords& ferry) {
  std::printf("\nLayout of the Ferry runs (rank 0 runs main, on node 0):\n");
  TextTable t({"device", "rank", "node", "host"});
  for (const auto& d : ferry.devices)
    t.add({std::to_string(d.device), std::to_string(d.rank), std::to_string(d.node), d.host});
  t.print(stdout);
  const auto& r = ferry.run;
  std::printf("  host<->device tests use device %d; device-to-device pairs: different nodes %s, same node %s\n",
              r.value("host_dev", -1), r.value("cross", nlohmann::json::array()).dump().c_str(),
              r.value("same", nlohmann::json::array()).dump().c_str());
}

void printCounters(const std::vector<Pair>& reps) {
  for (const char* test : {"d2d_cross_bw", "d2d_same_bw"}) {
    long long relayed = bytesThroughRank0(reps, test);
    uint64_t moved = 0;
    for (const auto& p : reps) {
      auto it = p.ferry->counters.find({test, "device_to_device_bytes"});
      if (it != p.ferry->counters.end()) moved += it->second;
    }
    std::printf("  %s: bytes through rank 0 during the timed copies: %s (device-to-device bytes moved: %s), "
                "%zu repetitions\n", test, relayed < 0 ? "not counted" : std::to_string(relayed).c_str(),
                parse::formatSize(moved).c_str(), reps.size());
  }
  NodeTraffic t = nodeTraffic(reps);
  if (t.mapped > 0)
    std::printf("  map_node_bw: bytes over the network per byte mapped to the node (>= 1 MiB): %s (one transfer "
                "per node: 0.5 with two devices; 1 where each device gets its own)\n",
                number(static_cast<double>(t.network) / static_cast<double>(t.mapped)).c_str());
}

void printTargets(const std::vector<TargetResult>& targets) {
  std::printf("\nTargets (issues 3 and 31; benchmark figures, not tests: medians of per-repetition ratios)\n");
  for (const auto& t : targets)
    std::printf("  %-8s %s\n           %s\n", t.measuredAtAll ? (t.met ? "met" : "NOT MET") : "-", t.name.c_str(),
                t.measured.c_str());
}

Status writeSummaryCsv(const std::string& path, const std::vector<DerivedRow>& rows) {
  auto csv = CsvWriter::open(path, {"test", "title", "size_bytes", "unit", "reps", "ferry_median", "ferry_min",
                                    "ferry_max", "mpi_median", "ratio_mpi_median", "ratio_mpi_min", "ratio_mpi_max",
                                    "stock_median", "ratio_stock_median", "floor_median", "ratio_floor_median",
                                    "ferry_timed_ops"});
  if (!csv) return csv.takeStatus();
  for (const auto& r : rows)
    csv->row({r.spec->test, r.spec->title, std::to_string(r.size), unitOf(r.spec->kind), std::to_string(r.ferry.n),
              csvNumber(r.ferry.median), csvNumber(r.ferry.min), csvNumber(r.ferry.max), csvNumber(r.mpi.median),
              csvNumber(r.ratioMpi.median), csvNumber(r.ratioMpi.min), csvNumber(r.ratioMpi.max),
              csvNumber(r.stock.median), csvNumber(r.ratioStock.median), csvNumber(r.floor.median),
              csvNumber(r.ratioFloor.median), std::to_string(r.ferryOps)});
  return {};
}

// Every figure of every run, so that any summary can be recomputed.
Status writeRawCsv(const std::string& path, const std::vector<Pair>& reps) {
  auto csv = CsvWriter::open(path, {"rep", "mode", "test", "size_bytes", "value", "unit", "timed_ops"});
  if (!csv) return csv.takeStatus();
  for (size_t i = 0; i < reps.size(); ++i)
    for (const auto& [mode, rec] : {std::pair{"stock", reps[i].stock}, std::pair{"ferry", reps[i].ferry}}) {
      for (const auto& [key, f] : rec->figures)
        csv->row({std::to_string(i + 1), mode, key.first, std::to_string(key.second), csvNumber(f.value), f.unit,
                  std::to_string(f.iters)});
      for (const auto& [key, v] : rec->counters)
        csv->row({std::to_string(i + 1), mode, key.first + "." + key.second, "", std::to_string(v), "bytes", ""});
    }
  return {};
}

Status writeTargetsCsv(const std::string& path, const std::vector<TargetResult>& targets) {
  auto csv = CsvWriter::open(path, {"target", "measured", "status"});
  if (!csv) return csv.takeStatus();
  for (const auto& t : targets) csv->row({t.name, t.measured, t.measuredAtAll ? (t.met ? "met" : "not met") : ""});
  return {};
}

// ---- the run ----

Result<Paths> findPaths(const OffloadOptions& opt) {
  Paths p;
  auto program = findBenchFile(opt.gpu ? "ferry_offload_bench_gpu" : "ferry_offload_bench");
  if (!program) {
    if (!opt.gpu) return program.takeStatus();
    return Status(Errc::NotFound, program.status().message() +
                                      "; it is built only where CMake found CUDA's ptxas (FERRY_PTXAS)");
  }
  auto plot = findBenchFile("plot_offload.py");
  if (!plot) return plot.takeStatus();
  auto plugin = pluginDir();
  if (!plugin) return plugin.takeStatus();
  p.program = *program;
  p.plotScript = *plot;
  p.pluginDir = *plugin;
  p.runsDir = opt.outDir + "/runs";
  std::error_code ec;
  fs::create_directories(p.runsDir, ec);
  fs::remove(opt.outDir + "/progress.txt", ec);  // each run appends its line
  if (ec) return Status(Errc::InvalidArgument, "cannot create " + p.runsDir + ": " + ec.message());
  return p;
}

// Stock and Ferry runs alternate, so that a slow spell of this shared machine hits both.
Status runRepetitions(const OffloadOptions& opt, const Paths& p, std::vector<std::unique_ptr<RunRecords>>& store,
                      std::vector<Pair>& reps) {
  const char* ld = std::getenv("LD_LIBRARY_PATH");
  std::string originalLd = ld ? ld : "";
  setenv("FERRY_VIRTUAL_NODES", std::to_string(opt.virtualNodes).c_str(), 1);  // passed on by the launcher
  // The GPU program has an nvptx64 image only, the CPU one an x86_64 image only.
  setenv(opt.gpu ? "FERRY_DEVICES_PER_RANK" : "FERRY_GPUS_PER_RANK", "0", 1);
  for (int rep = 1; rep <= opt.reps; ++rep) {
    auto stock = runMeasurement(stockPlan(opt, p, originalLd, rep));
    if (!stock) return stock.takeStatus();
    auto plan = ferryPlan(opt, p, rep);
    if (!plan) return plan.takeStatus();
    auto ferry = runMeasurement(*plan);
    if (!ferry) return ferry.takeStatus();
    store.push_back(std::make_unique<RunRecords>(std::move(*stock)));
    store.push_back(std::make_unique<RunRecords>(std::move(*ferry)));
    reps.push_back({store[store.size() - 2].get(), store.back().get()});
  }
  return {};
}

void reportValidation(const std::vector<Pair>& reps) {
  long checks = 0;
  for (const auto& p : reps) checks += p.stock->checks + p.ferry->checks;
  std::printf("\nValidation: %ld data checks in %zu runs, all passed\n", checks, 2 * reps.size());
}

Status writeOutputs(const OffloadOptions& opt, const Paths& p, const std::vector<DerivedRow>& rows,
                    const std::vector<Pair>& reps, const std::vector<TargetResult>& targets,
                    const std::string& title) {
  const std::string csv = opt.outDir + "/offload.csv";
  for (Status st : {writeSummaryCsv(csv, rows), writeRawCsv(opt.outDir + "/offload_raw.csv", reps),
                    writeTargetsCsv(opt.outDir + "/offload_targets.csv", targets)})
    if (!st) return st;
  std::printf("\nWrote %s (medians), %s/offload_raw.csv (every figure), %s/offload_targets.csv, %s/environment.txt\n",
              csv.c_str(), opt.outDir.c_str(), opt.outDir.c_str(), opt.outDir.c_str());
  if (!opt.plots) return {};
  Status st = runPlot(opt.python, p.plotScript, {"--csv", csv, "--out-dir", opt.outDir, "--title", title},
                      p.runsDir + "/plot.log");
  if (!st) std::fprintf(stderr, "ferry bench offload: plots skipped: %s\n", st.message().c_str());
  else std::printf("Plots: %s/offload_latency.png, offload_bandwidth.png, offload_d2d.png, offload_ratios.png\n",
                   opt.outDir.c_str());
  return {};
}

}  // namespace

int runOffloadBench(const OffloadOptions& optIn, const std::vector<std::string>& commandLine) {
  OffloadOptions opt = optIn;
  if (opt.sizes.empty()) opt.sizes = defaultSizes(opt.quick);
  if (opt.budget <= 0) opt.budget = opt.quick ? 0.03 : 0.1;
  if (opt.timeout <= 0) opt.timeout = opt.quick ? 180 : 900;
  auto paths = findPaths(opt);
  if (!paths) {
    std::fprintf(stderr, "ferry bench offload: %s\n", paths.status().message().c_str());
    return 1;
  }
  std::vector<std::string> env = preamble(commandLine);
  std::printf("ferry bench offload: %d repetitions of (stock run, Ferry run on %d ranks, %d virtual nodes)%s%s\n",
              opt.reps, opt.ranks, opt.virtualNodes, opt.gpu ? " on GPUs" : "", opt.validate ? ", validating data" : "");
  for (const auto& l : env) std::printf("  %s\n", l.c_str());
  if (Status st = writeLines(opt.outDir + "/environment.txt", env); !st)
    std::fprintf(stderr, "ferry bench offload: %s\n", st.message().c_str());
  std::vector<std::unique_ptr<RunRecords>> store;
  std::vector<Pair> reps;
  if (Status st = runRepetitions(opt, *paths, store, reps); !st) {
    std::fprintf(stderr, "ferry bench offload: %s\n", st.message().c_str());
    return 1;
  }
  std::vector<DerivedRow> rows = deriveRows(reps);
  printLayout(*reps.front().ferry);
  for (const auto& spec : offloadRows()) printSection(spec, rows);
  printSuspectBaselines(reps);
  std::printf("\nData path of the device-to-device copies\n");
  printCounters(reps);
  std::vector<TargetResult> targets = evaluateTargets(rows, reps);
  printTargets(targets);
  if (opt.validate) reportValidation(reps);
  std::printf("\nload at the end: %s\n", loadLine().c_str());
  if (Status st = writeOutputs(opt, *paths, rows, reps, targets, (opt.gpu ? "GPUs, " : "") + plotTitle()); !st) {
    std::fprintf(stderr, "ferry bench offload: %s\n", st.message().c_str());
    return 1;
  }
  return 0;
}

}  // namespace ferry::tools::bench
