#include "platform/topology.h"

#include <hwloc.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <mutex>

#include "platform/log.h"

namespace ferry {
namespace {

// Some virtual machines hot-plug memory that hwloc's NUMA view does not show; the kernel's
// page count is what processes can actually use.
uint64_t kernelMemoryBytes() {
  return static_cast<uint64_t>(sysconf(_SC_PHYS_PAGES)) * static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
}

// hwloc fails only when /sys or /proc cannot be read (a container or seccomp filter that
// hides them). Kernels then take the kernel's count of online CPUs for cores, so that they
// still use the node, and the warning says that binding and NUMA are unknown.
NodeTopology withoutHwloc(const char* call) {
  int err = errno;
  NodeTopology t;
  long online = sysconf(_SC_NPROCESSORS_ONLN);
  t.cores = t.pus = t.boundPus = t.boundCores = online > 0 ? static_cast<int>(online) : 1;
  t.memoryBytes = kernelMemoryBytes();
  log::warn(log::Init, "hwloc: %s failed (%s); taking the %d online CPUs for cores, with the binding and NUMA "
                       "layout unknown (check that /sys/devices/system and /proc are readable here)",
            call, std::strerror(err), t.cores);
  return t;
}

}  // namespace

NodeTopology discoverNodeTopology() {
  NodeTopology t;
  hwloc_topology_t topo;
  if (hwloc_topology_init(&topo) != 0) return withoutHwloc("hwloc_topology_init");
  if (hwloc_topology_load(topo) != 0) {
    NodeTopology fallback = withoutHwloc("hwloc_topology_load");
    hwloc_topology_destroy(topo);
    return fallback;
  }
  t.cores = std::max(1, hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE));
  t.pus = std::max(1, hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU));
  t.numaNodes = std::max(1, hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE));
  hwloc_obj_t root = hwloc_get_root_obj(topo);
  t.memoryBytes = std::max<uint64_t>(root ? root->total_memory : 0, kernelMemoryBytes());

  hwloc_bitmap_t set = hwloc_bitmap_alloc();
  // Without the binding (a kernel that refuses sched_getaffinity), the process counts as
  // unbound: kernels take a fair share of the node's cores.
  if (hwloc_get_cpubind(topo, set, HWLOC_CPUBIND_PROCESS) != 0) {
    log::info(log::Init, "hwloc: this process's CPU binding is unknown (%s); kernels take a share of the node's cores",
              std::strerror(errno));
  } else {
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

const NodeTopology& nodeTopology() {
  static const NodeTopology* topo = new NodeTopology(discoverNodeTopology());
  return *topo;
}

int kernelThreads(const NodeTopology& topo, int ranksOnNode, int devicesOnRank) {
  int pus = topo.bound ? topo.boundPus : std::max(1, topo.cores / std::max(1, ranksOnNode));
  return std::max(1, pus / std::max(1, devicesOnRank));
}

}  // namespace ferry
