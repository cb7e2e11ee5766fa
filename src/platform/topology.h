// What this node looks like, through hwloc: cores, memory, and this process's binding.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "platform/status.h"

namespace ferry {

struct NodeTopology {
  int cores = 1;             // physical cores on the node
  int pus = 1;               // hardware threads on the node
  int numaNodes = 1;
  uint64_t memoryBytes = 0;  // physical memory on the node
  int boundPus = 0;          // hardware threads this process is bound to
  int boundCores = 0;        // cores with at least one of them
  bool bound = false;        // bound to a strict subset of the node
  std::string bindingText;   // e.g. "0-1" (hwloc list syntax)
};

// Loads the topology once per process (hwloc discovery costs milliseconds).
const NodeTopology& nodeTopology();
// Loads it afresh (nodeTopology() keeps the first). Where hwloc fails, the kernel's count of
// online CPUs stands in for the cores, with a warning.
NodeTopology discoverNodeTopology();

// The node's cores as binding plans them: hwloc's logical order (package, then NUMA domain,
// then core), each with its hardware threads by OS number (what affinity masks, /proc and
// OMP_PLACES use) and its NUMA domain.
struct CoreSlot {
  int numa = 0;          // logical NUMA domain
  int package = 0;
  std::vector<int> pus;  // OS indices of its hardware threads
};
struct NodeLayout {
  std::vector<CoreSlot> cores;
  int numaDomains = 1;
  std::string source;    // "this machine", or the XML file it came from
  int pus() const;
};

// This machine's layout, or the one an hwloc XML file describes (lstopo --of xml; how the
// binding planner is tested on machines this is not).
Result<NodeLayout> loadNodeLayout(const std::string& xmlFile = {});

// Threads a kernel should use on a serving rank: the PUs this rank is bound to, or, when it
// is not bound, its fair share of the node's cores among `ranksOnNode` ranks.
int kernelThreads(const NodeTopology& topo, int ranksOnNode, int devicesOnRank);

}  // namespace ferry
