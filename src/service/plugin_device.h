// A device served entirely through its stock plugin, as a GPU is: the plugin allocates its
// memory on request (one round trip per allocation) and every transfer is staged through
// this process's memory with the plugin's copies. The CUDA plugin's devices are served this
// way; FERRY_CPU_STAGING=1 serves CPU devices so too, which runs this path without a GPU.
#pragma once

#include <map>
#include <mutex>

#include "service/local_device.h"
#include "service/plugin_backend.h"

namespace ferry::service {

class PluginDevice final : public LocalDevice {
 public:
  static constexpr uint64_t kGranule = 64;  // allocations are whole granules
  PluginDevice(VendorPlugin* plugin, int pluginDeviceId, DeviceKind kind, uint64_t memoryBytes,
               std::string description);

  DeviceKind kind() const override { return kind_; }
  std::string description() const override { return description_; }
  uint64_t memoryBytes() const override { return memory_; }
  bool clientManagedHeap() const override { return false; }
  uint64_t heapBase() const override { return 0; }
  bool hostAccessible() const override { return false; }

  Status init(int64_t requiresFlags, int clientRank) override;
  Result<std::vector<uint64_t>> loadImage(const ImageRecord& image, int globalDevice) override;
  Status launch(const comm::LaunchMsg& launch) override { return backend_.launch(launch); }
  Result<uint64_t> allocate(uint64_t size, int32_t kind) override;
  Status release(uint64_t addr, uint64_t size, int32_t kind) override;
  Status write(uint64_t dst, const void* src, uint64_t len) override;
  Status read(void* dst, uint64_t src, uint64_t len) override;
  void* allocHostBuffer(uint64_t bytes) override;
  void freeHostBuffer(void* p) override;
  bool validRange(uint64_t addr, uint64_t len) const override;
  std::string kernelName(uint64_t handle) const override { return backend_.kernelName(handle); }
  void setInfoFlag(uint32_t flags) override { backend_.setInfoFlag(flags); }

 private:
  PluginBackend backend_;
  std::string whatFrees() const;

  DeviceKind kind_;
  uint64_t memory_;
  std::string description_;
  mutable std::mutex mutex_;
  std::map<uint64_t, uint64_t> allocations_;  // address -> size
  uint64_t allocated_ = 0;
};

}  // namespace ferry::service
