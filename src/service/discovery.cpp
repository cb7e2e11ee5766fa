#include "service/discovery.h"

#include <algorithm>

#include "platform/config.h"
#include "platform/log.h"
#include "platform/parse.h"
#include "platform/topology.h"
#include "service/cpu_device.h"
#include "service/vendor_plugin.h"

namespace ferry::service {

Result<std::vector<std::unique_ptr<LocalDevice>>> discoverLocalDevices(int servingRanksOnNode) {
  std::vector<std::unique_ptr<LocalDevice>> devices;
  int wanted = static_cast<int>(config().integer(Knob::DevicesPerRank));
  if (wanted == 0) return devices;

  auto plugin = VendorPlugin::open(stockHostPluginPath());
  if (!plugin)
    return Status(Errc::NotFound, plugin.status().message() + " (install libomp-16-dev, or set FERRY_DEVICES_PER_RANK=0)");
  int n = std::min(wanted, (*plugin)->numDevices);
  if (n < wanted)
    log::warn(log::Service, "FERRY_DEVICES_PER_RANK=%d but the stock host plugin offers %d device(s); serving %d", wanted,
              (*plugin)->numDevices, n);

  const NodeTopology& topo = nodeTopology();
  uint64_t memory = config().size(Knob::DeviceMemory);
  if (memory == 0) memory = topo.memoryBytes / static_cast<uint64_t>(std::max(1, servingRanksOnNode * n));
  int threads = kernelThreads(topo, servingRanksOnNode, n);
  for (int i = 0; i < n; ++i) {
    auto dev = std::make_unique<CpuDevice>(*plugin, i, memory, threads);
    if (Status st = dev->reserve(); !st) return st;
    log::debug(log::Service, "CPU device %d: %s memory at %s, %d kernel thread(s)", i,
               parse::formatSize(memory).c_str(), hex(dev->heapBase()).c_str(), threads);
    devices.push_back(std::move(dev));
  }
  return devices;
}

}  // namespace ferry::service
