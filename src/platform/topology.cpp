#include "platform/topology.h"

#include <hwloc.h>
#include <unistd.h>

#include <algorithm>
#include <mutex>

namespace ferry {
namespace {

NodeTopology discover() {
  NodeTopology t;
  hwloc_topology_t topo;
  if (hwloc_topology_init(&topo) != 0) return t;
  if (hwloc_topology_load(topo) != 0) {
    hwloc_topology_destroy(topo);
    return t;
  }
  t.cores = std::max(1, hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE));
  t.pus = std::max(1, hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU));
  t.numaNodes = std::max(1, hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE));
  hwloc_obj_t root = hwloc_get_root_obj(topo);
  t.memoryBytes = root ? root->total_memory : 0;
  // Some virtual machines hot-plug memory that hwloc's NUMA view does not show; the
  // kernel's page count is what processes can actually use.
  uint64_t kernelBytes = static_cast<uint64_t>(sysconf(_SC_PHYS_PAGES)) * static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
  t.memoryBytes = std::max<uint64_t>(t.memoryBytes, kernelBytes);

  hwloc_bitmap_t set = hwloc_bitmap_alloc();
  if (hwloc_get_cpubind(topo, set, HWLOC_CPUBIND_PROCESS) == 0) {
    t.boundPus = hwloc_bitmap_weight(set);
    t.boundCores = hwloc_get_nbobjs_inside_cpuset_by_type(topo, set, HWLOC_OBJ_CORE);
    t.bound = t.boundPus > 0 && t.boundPus < t.pus;
    char* text = nullptr;
    hwloc_bitmap_list_asprintf(&text, set);
    if (text) {
      t.bindingText = text;
      free(text);
    }
  }
  if (t.boundPus <= 0) t.boundPus = t.pus;
  if (t.boundCores <= 0) t.boundCores = t.cores;
  hwloc_bitmap_free(set);
  hwloc_topology_destroy(topo);
  return t;
}

}  // namespace

const NodeTopology& nodeTopology() {
  static const NodeTopology* topo = new NodeTopology(discover());
  return *topo;
}

int kernelThreads(const NodeTopology& topo, int ranksOnNode, int devicesOnRank) {
  int pus = topo.bound ? topo.boundPus : std::max(1, topo.cores / std::max(1, ranksOnNode));
  return std::max(1, pus / std::max(1, devicesOnRank));
}

}  // namespace ferry
