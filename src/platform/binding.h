// Which cores each rank of a node gets, so that its OpenMP threads spread over cores of its
// own: the plan behind `ferry run` and `ferry bind` (docs/hybrid.md). The most common
// performance bug of hybrid codes is an MPI library that binds each rank to one core while
// OpenMP starts N threads inside it. Planning is free of MPI, so that it is tested on the
// layouts of other machines (hwloc XML files).
#pragma once

#include <string>
#include <vector>

#include "platform/status.h"
#include "platform/topology.h"

namespace ferry {

struct RankCores {
  std::vector<int> cores;        // indices into NodeLayout::cores
  std::vector<int> pus;          // their hardware threads (OS numbers): the rank's affinity
  int threads = 1;               // OpenMP threads
  bool hardwareThreads = false;  // threads go to hardware threads (SMT), not whole cores
  std::string places;            // OMP_PLACES for them, e.g. "{0,1},{2,3}"
};

struct NodePlan {
  std::vector<RankCores> ranks;    // by node-local rank
  std::vector<std::string> notes;  // what the user should know: idle cores, shared cores, NUMA spans
  bool oversubscribed = false;     // threads of this node share cores
};

// `ranks` ranks on this node with `threads` OpenMP threads each; 0 threads: the node's cores
// shared out evenly (at least one each). Ranks get whole cores of one NUMA domain where they
// fit, domains filled in proportion to their cores (memory bandwidth is per domain).
NodePlan planNode(const NodeLayout& node, int ranks, int threads);

// The ranks of this node as the launcher numbers them (Open MPI, MPICH's Hydra, Slurm);
// rank 0 of 1 when no launcher says.
struct LocalRank {
  int rank = 0;
  int size = 1;
  const char* source = "no launcher";
};
LocalRank localRankFromLauncher();

// Binds this process (all its threads, and what it execs) to `pus`.
Status bindProcess(const std::vector<int>& pus);

// "0-3,8": hwloc's list syntax, as Cpus_allowed_list and taskset print it.
std::string cpuList(const std::vector<int>& pus);
// The reverse; an error names what is wrong.
Result<std::vector<int>> parseCpuList(const std::string& text);

}  // namespace ferry
