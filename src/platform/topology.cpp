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

int NodeLayout::pus() const {
  size_t n = 0;
  for (const CoreSlot& c : cores) n += c.pus.size();
  return static_cast<int>(n);
}

namespace {

// The logical index of the first ancestor (or the core itself) of `type` holding `core`;
// NUMA domains are memory children in hwloc 2, found through the core's cpuset.
int indexOfContaining(hwloc_topology_t topo, hwloc_obj_t core, hwloc_obj_type_t type) {
  hwloc_obj_t o = hwloc_get_next_obj_covering_cpuset_by_type(topo, core->cpuset, type, nullptr);
  return o ? static_cast<int>(o->logical_index) : 0;
}

NodeLayout layoutOf(hwloc_topology_t topo, const std::string& source) {
  NodeLayout layout;
  layout.source = source;
  layout.numaDomains = std::max(1, hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE));
  int n = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE);
  for (int i = 0; i < n; ++i) {
    hwloc_obj_t core = hwloc_get_obj_by_type(topo, HWLOC_OBJ_CORE, static_cast<unsigned>(i));
    CoreSlot slot;
    slot.numa = indexOfContaining(topo, core, HWLOC_OBJ_NUMANODE);
    slot.package = indexOfContaining(topo, core, HWLOC_OBJ_PACKAGE);
    for (int pu = hwloc_bitmap_first(core->cpuset); pu >= 0; pu = hwloc_bitmap_next(core->cpuset, pu))
      slot.pus.push_back(pu);
    layout.cores.push_back(std::move(slot));
  }
  return layout;
}

}  // namespace

Result<NodeLayout> loadNodeLayout(const std::string& xmlFile) {
  hwloc_topology_t topo;
  if (hwloc_topology_init(&topo) != 0)
    return Status(Errc::Unavailable, std::string("hwloc_topology_init failed: ") + std::strerror(errno));
  if (!xmlFile.empty() && hwloc_topology_set_xml(topo, xmlFile.c_str()) != 0) {
    hwloc_topology_destroy(topo);
    return Status(Errc::InvalidArgument, "hwloc cannot read the topology file " + xmlFile + ": " + std::strerror(errno));
  }
  if (hwloc_topology_load(topo) != 0) {
    hwloc_topology_destroy(topo);
    return Status(Errc::Unavailable, std::string("hwloc_topology_load failed: ") + std::strerror(errno) +
                                         " (check that /sys/devices/system and /proc are readable here)");
  }
  NodeLayout layout = layoutOf(topo, xmlFile.empty() ? "this machine" : xmlFile);
  hwloc_topology_destroy(topo);
  if (layout.cores.empty()) return Status(Errc::Unavailable, "hwloc found no core in " + layout.source);
  return layout;
}

int kernelThreads(const NodeTopology& topo, int ranksOnNode, int devicesOnRank) {
  int pus = topo.bound ? topo.boundPus : std::max(1, topo.cores / std::max(1, ranksOnNode));
  return std::max(1, pus / std::max(1, devicesOnRank));
}

}  // namespace ferry
