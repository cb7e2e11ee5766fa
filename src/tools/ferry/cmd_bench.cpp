// ferry bench: performance you can see. `offload` measures remote target regions against
// raw MPI and the stock in-process plugin; `xs` runs the XSBench-style proxy app's strong
// and weak scaling. Both repeat, report medians and spreads, and write CSV and plots.
#include <fstream>
#include <memory>

#include "tools/ferry/bench_offload.h"
#include "tools/ferry/bench_xs.h"
#include "tools/ferry/commands.h"

namespace ferry::tools {
namespace {

// The command as typed, for the "command:" line that reproduces a figure.
std::vector<std::string> commandLine() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::vector<std::string> args;
  for (std::string a; std::getline(in, a, '\0');) args.push_back(a);
  return args;
}

void addOffloadOptions(CLI::App& sub, bench::OffloadOptions& o) {
  sub.add_flag("--quick", o.quick, "a few sizes and OSU counts / 10: about a minute here, the same columns");
  sub.add_flag("-c,--validate", o.validate, "check the data every measurement moved, as OSU's -c (outside the timing)");
  sub.add_flag("--gpu", o.gpu, "GPUs: the serving ranks' GPUs only (FERRY_DEVICES_PER_RANK=0), next to the stock "
                               "CUDA plugin on rank 0's GPU; needs the build's nvptx64 program (CUDA's ptxas)");
  sub.add_option("-r,--reps", o.reps, "repetitions of (stock run, Ferry run); medians are reported")
      ->check(CLI::Range(1, 100));
  sub.add_option("-n,--np", o.ranks, "ranks of the Ferry runs (rank 0 runs the benchmark)")->check(CLI::Range(2, 64));
  sub.add_option("--virtual-nodes", o.virtualNodes, "FERRY_VIRTUAL_NODES of the Ferry runs (2: a cross-node and a "
                                                    "same-node device pair with -n 4)")
      ->check(CLI::Range(1, 64));
  // At most the benchmark program's 64 sizes (bench/offload/bench.h); 1 GiB is 16 times OSU's
  // largest, and a run holds buffers of the largest size on rank 0 and every device.
  sub.add_option("--sizes", o.sizes, "message sizes, e.g. 1,8K,1M (default: 1 B to 64 MiB in powers of two)")
      ->check(sizeList(uint64_t{1} << 30, 64));
  sub.add_option("--budget", o.budget, "seconds one measurement's timed loop may take (OSU counts are cut to it)")
      ->check(positive());
  sub.add_option("--timeout", o.timeout, "seconds one run may take")->check(positive());
  sub.add_option("-o,--out-dir", o.outDir, "where the CSV files, plots and run logs go");
  sub.add_option("--python", o.python, "Python with matplotlib, for the plots");
  sub.add_flag("!--no-plots", o.plots, "skip the plots");
}

void addXsOptions(CLI::App& sub, bench::XsOptions& o) {
  sub.add_flag("--quick", o.quick, "a smaller problem, 1 trial per point");
  sub.add_option("-d,--devices", o.devices, "scale over 1..N remote devices (the job has N+1 ranks)")
      ->check(CLI::Range(1, 63));
  sub.add_option("--virtual-nodes", o.virtualNodes, "FERRY_VIRTUAL_NODES (default: one per rank)")
      ->check(CLI::Range(1, 64));
  sub.add_option("-r,--reps", o.reps, "repetitions of the whole run; medians are reported")->check(CLI::Range(1, 100));
  sub.add_option("--lookups", o.lookups, "lookups of the strong-scaling series")->check(count(1, 1e12));
  sub.add_option("--weak-lookups", o.weakLookups, "lookups per device of the weak-scaling series")
      ->check(count(1, 1e12));
  sub.add_option("--gridpoints", o.gridpoints, "energy points per nuclide")->check(CLI::Range(2, 1 << 24));
  sub.add_option("--trials", o.trials, "timed trials per point inside a run (their median is taken)")
      ->check(CLI::Range(1, 64));
  sub.add_option("--timeout", o.timeout, "seconds one run may take")->check(positive());
  sub.add_option("-o,--out-dir", o.outDir, "where the CSV file, plot and run logs go");
  sub.add_option("--python", o.python, "Python with matplotlib, for the plot");
  sub.add_flag("!--no-plots", o.plots, "skip the plot");
}

}  // namespace

Command addBenchCommand(CLI::App& app) {
  app.require_subcommand(1);
  auto offloadOpt = std::make_shared<bench::OffloadOptions>();
  auto xsOpt = std::make_shared<bench::XsOptions>();
  CLI::App* offload = app.add_subcommand(
      "offload", "OSU-style latency, bandwidth, device-to-device copies and nowait rate of remote target regions, "
                 "next to raw MPI between the same ranks and the stock in-process plugin");
  addOffloadOptions(*offload, *offloadOpt);
  CLI::App* xs = app.add_subcommand(
      "xs", "strong and weak scaling of the XSBench-style proxy app over 1..N remote devices, checksum verified");
  addXsOptions(*xs, *xsOpt);
  app.footer("The MPI_Allreduce benchmark against the MPI library is bench/coll/run_allreduce.sh "
             "(docs/collectives.md, \"Performance\").");
  return [offload, xs, offloadOpt, xsOpt] {
    // Every Ferry run would stop on an invalid setting, after the stock runs had been made.
    if (refusedForSettings("ferry bench")) return 1;
    if (offload->parsed()) return bench::runOffloadBench(*offloadOpt, commandLine());
    if (xs->parsed()) return bench::runXsBench(*xsOpt, commandLine());
    return 2;
  };
}

}  // namespace ferry::tools
