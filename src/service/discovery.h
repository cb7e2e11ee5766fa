// Finds the devices this rank serves, in this local order: CPU devices from the stock LLVM
// host plugin (FERRY_DEVICES_PER_RANK of them, each with its share of the node's memory and
// cores), then GPUs from the stock CUDA plugin (FERRY_GPUS_PER_RANK).
#pragma once

#include <memory>
#include <vector>

#include "service/local_device.h"

namespace ferry::service {

// `servingRanksOnNode`: how many ranks of this physical node serve devices (they share the
// node's memory and cores). `memoryPerDevice`, where not 0, is each CPU device's memory
// (a daemon's share per client), in place of FERRY_DEVICE_MEMORY and the node's share.
Result<std::vector<std::unique_ptr<LocalDevice>>> discoverLocalDevices(int servingRanksOnNode,
                                                                       uint64_t memoryPerDevice = 0);

}  // namespace ferry::service
