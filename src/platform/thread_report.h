// Where a rank's threads really ran: the binding report (FERRY_BINDING_REPORT, ferry doctor
// --binding; docs/hybrid.md). A sampler reads /proc/PID/task/TID/{stat,status} over a short
// window, so that a report shows what happened, not only what was asked: the allowed CPUs
// of each thread, the CPUs it was seen on, and how busy it was.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "platform/topology.h"

namespace ferry {

struct ThreadRecord {
  int tid = 0;
  std::string name;
  std::vector<int> allowed;  // Cpus_allowed_list at the end of the window
  std::vector<int> ranOn;    // CPUs the samples found it on (the last CPU it ran on, each time)
  double busy = 0;           // share of the samples that found it runnable (running or waiting for a CPU)
};

// Samples every thread of `pid` every `interval` seconds for `seconds`. Threads that start
// during the window are included; a process that ends early ends the window.
std::vector<ThreadRecord> sampleThreads(pid_t pid, double seconds, double interval);

// A thread counts as busy, for the warnings, when at least this share of the samples found
// it runnable.
inline constexpr double kBusyShare = 0.5;

struct RankThreads {
  int rank = -1;
  std::string host;
  std::vector<int> allowed;  // the process's own (its main thread's) allowed CPUs
  std::vector<ThreadRecord> threads;
};

// What is wrong with the ranks of one node, with the fix: busy threads of a rank that share
// a core while cores of the node stay idle (the library bound the rank to fewer cores than
// it runs threads), ranks whose bindings overlap, and a rank bound across NUMA domains.
std::vector<std::string> bindingWarnings(const std::vector<RankThreads>& ranks, const NodeLayout& node);

// One report line per thread, as ferry doctor --binding reads them back:
// "binding: rank R thread TID (NAME) allowed LIST ran on LIST busy N%".
std::string reportLine(int rank, const ThreadRecord& t);
// The reverse; false when `line` holds no such report.
bool parseReportLine(const std::string& line, int& rank, ThreadRecord& t);

}  // namespace ferry
