// Finds the devices this rank serves, in this local order: CPU devices from the stock LLVM
// host plugin (FERRY_DEVICES_PER_RANK of them, each with its share of the node's memory and
// cores), then GPUs from the stock CUDA plugin (FERRY_GPUS_PER_RANK).
#pragma once

#include <memory>
#include <vector>

#include "service/local_device.h"

namespace ferry::service {

// `servingRanksOnNode`: how many ranks of this physical node serve devices (they share the
// node's memory and cores).
Result<std::vector<std::unique_ptr<LocalDevice>>> discoverLocalDevices(int servingRanksOnNode);

}  // namespace ferry::service
