// hybrid_bench: the micro-studies of hybrid MPI+OpenMP (docs/hybrid.md, "Micro-studies").
//
//   hybrid_bench bandwidth     [--threads LIST] [--size BYTES] [--reps N]
//   hybrid_bench schedule      [--threads N] [--rows R] [--cols C] [--sweeps S] [--chunk K] [--reps N]
//   hybrid_bench false-sharing [--threads N] [--iters I] [--distances LIST] [--access volatile|atomic] [--reps N]
//   hybrid_bench compute       [--threads LIST] [--elements E] [--work W] [--reps N]
//
// Each prints '#' lines (the study, the OpenMP environment, the binding) and a CSV: a header
// and one row per measurement, the median over the repetitions with min and max. Binding is
// the caller's: OMP_PLACES / OMP_PROC_BIND, taskset or the MPI launcher (run_hybrid.py).
// Exit status 1 when a result is wrong (a checksum or a count), 2 for a bad option.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <stdexcept>

#include "hybrid.h"
#include "platform/parse.h"

namespace {

// Lists and sizes are parsed after CLI11, so that the message can name the option.
struct Raw {
  std::string threads, size, distances, access = "volatile";
};

std::vector<int> threadList(const std::string& text) {
  if (text.empty()) {
    std::vector<int> all;
    for (int t = 1; t <= hybrid::defaultThreads(); ++t) all.push_back(t);
    return all;
  }
  return hybrid::parseList(text, "--threads");
}

// Options → study, or a message and status 2.
int dispatch(CLI::App& app, const Raw& raw, hybrid::BandwidthOptions& bw, hybrid::ScheduleOptions& sc,
             hybrid::FalseSharingOptions& fs, hybrid::ComputeOptions& co) {
  try {
    if (app.got_subcommand("bandwidth")) {
      bw.threads = threadList(raw.threads);
      if (!raw.size.empty()) {
        auto bytes = ferry::parse::size(raw.size);
        if (!bytes || *bytes < sizeof(double)) throw std::invalid_argument("--size: '" + raw.size + "' is no size like 64M");
        bw.arrayBytes = *bytes;
      }
      return hybrid::runBandwidth(bw);
    }
    if (app.got_subcommand("schedule")) return hybrid::runSchedule(sc);
    if (app.got_subcommand("false-sharing")) {
      if (!raw.distances.empty()) fs.distances = hybrid::parseList(raw.distances, "--distances");
      for (int d : fs.distances) {
        // Counters must stay 8-byte aligned: atomic_ref requires it, and a split counter
        // would measure split loads rather than sharing.
        if (d % 8 != 0) throw std::invalid_argument("--distances: " + std::to_string(d) + " is not a multiple of 8");
      }
      fs.access = raw.access == "atomic" ? hybrid::Access::Atomic : hybrid::Access::Volatile;
      return hybrid::runFalseSharing(fs);
    }
    co.threads = threadList(raw.threads);
    return hybrid::runCompute(co);
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "hybrid_bench %s: %s\n", app.get_subcommands().front()->get_name().c_str(), e.what());
    return 2;
  }
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"hybrid_bench: micro-studies for hybrid MPI+OpenMP (bandwidth, schedules, false sharing, binding)"};
  app.require_subcommand(1);
  Raw raw;
  hybrid::BandwidthOptions bw;
  hybrid::ScheduleOptions sc;
  hybrid::FalseSharingOptions fs;
  hybrid::ComputeOptions co;
  auto reps = [](CLI::App* s, int& v) { s->add_option("--reps", v, "repetitions; the median is reported (default 5)")->check(CLI::Range(1, 10000)); };

  auto* b = app.add_subcommand("bandwidth", "STREAM copy and triad GB/s per thread count; the saturation point");
  b->add_option("--threads", raw.threads, "thread counts, like 1,2,4 or 1-16 (default 1..places)");
  b->add_option("--size", raw.size, "bytes per array, like 256M (default 4x the last-level cache, 64M-1G)");
  reps(b, bw.reps);

  auto* s = app.add_subcommand("schedule", "3-row stencil sweeps under static, static,1, dynamic, dynamic,k, guided");
  s->add_option("--threads", sc.threads, "threads (default: one per place)")->check(CLI::Range(1, 4096));
  s->add_option("--rows", sc.rows, "rows of the 2D array (default 4096)")->check(CLI::Range(3, 1 << 24));
  s->add_option("--cols", sc.cols, "columns, doubles per row (default 4096)")->check(CLI::Range(1, 1 << 24));
  s->add_option("--sweeps", sc.sweeps, "sweeps per measurement (default 4)")->check(CLI::Range(1, 100000));
  s->add_option("--chunk", sc.chunk, "k of dynamic,k (default 16)")->check(CLI::Range(1, 1 << 24));
  reps(s, sc.reps);

  auto* f = app.add_subcommand("false-sharing", "per-thread counters at distances 8..256 B, unpadded and padded");
  f->add_option("--threads", fs.threads, "threads, each with its counter (default 2)")->check(CLI::Range(1, 4096));
  f->add_option("--iters", fs.iters, "increments per thread per measurement (default 10000000)")
      ->check(CLI::Range(uint64_t{1}, uint64_t{1} << 40));
  f->add_option("--distances", raw.distances, "bytes between counters, multiples of 8 (default 8,16,32,64,128,256)");
  f->add_option("--access", raw.access, "volatile (load+store, default) or atomic (relaxed fetch_add)")
      ->check(CLI::IsMember({"volatile", "atomic"}));
  reps(f, fs.reps);

  auto* c = app.add_subcommand("compute", "compute-bound kernel, seconds per thread count (the binding study)");
  c->add_option("--threads", raw.threads, "thread counts, like 2 or 1-16 (default 1..places)");
  c->add_option("--elements", co.elements, "elements (default 262144)")->check(CLI::Range(size_t{1}, size_t{1} << 32));
  c->add_option("--work", co.work, "dependent steps per element (default 256)")->check(CLI::Range(1, 1 << 24));
  reps(c, co.reps);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;  // --help is 0; CLI11's own codes are folded into 2
  }
  return dispatch(app, raw, bw, sc, fs, co);
}
