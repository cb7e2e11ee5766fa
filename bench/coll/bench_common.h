// The shared driver of Ferry's collective benchmarks: OSU iteration rules cut to a time
// budget, latency statistics across ranks, the printed table and its CSV, and the preamble
// (command, versions) and counters that make a figure reproducible and prove its data path.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

namespace ferry::bench {

struct LatencyStats {
  double avgUs = 0, minUs = 0, maxUs = 0;  // across ranks, of each rank's mean latency
  long iterations = 0;
};

std::vector<size_t> powersOfTwo(size_t lo, size_t hi);

// Times `op` the OSU way: warm-up, MPI_Barrier, a timed loop, per-rank mean. Iterations
// fill `budgetSeconds` (at least 10, at most 10x OSU's counts: small <= 8 KiB 10,000 timed,
// large 1,000); warm-up is a tenth of them, at most OSU's (1,000 / 100). Every rank runs
// the same count.
LatencyStats timeCollective(size_t bytes, double budgetSeconds, const std::function<void()>& op);

// base / variant, repetition by repetition (each repetition ran the variants back to back):
// the median and the extremes over the repetitions.
struct Ratio {
  double median = 0, lowest = 0, highest = 0;
};
Ratio pairedRatio(const std::vector<LatencyStats>& base, const std::vector<LatencyStats>& variant);

// Rank 0 prints the table and writes the CSV; the other ranks only take part.
class Table {
 public:
  Table(bool print, const std::string& csvPath);
  ~Table();
  // Variant 0 is the baseline; every other variant gets a speed-up column (baseline / it).
  // A variant with no samples at a size was not timed there: "-", empty CSV fields.
  void header(int ranks, const std::vector<std::string>& variants);
  void row(size_t bytes, const std::vector<std::vector<LatencyStats>>& samples);

 private:
  bool print_;
  FILE* csv_ = nullptr;
  std::vector<std::string> variants_;
};

void printPreamble(int argc, char** argv, const std::string& buffers);
// The machine's copy speeds, which set how far Ferry's data paths can go (docs/performance.md,
// "Copies"): rank 0's memcpy of 256 KiB at the same page offset and 16 bytes past it, and its
// process_vm_readv from a rank of the same host. Collective over MPI_COMM_WORLD.
void printCopySpeeds();
// The data-path counters summed over ranks, and how the communicator was set up.
void printCounters(MPI_Comm comm);

}  // namespace ferry::bench
