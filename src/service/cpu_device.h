// A CPU device: kernels run through the stock LLVM host plugin (dlopen of the image, libffi
// call, teams and threads forked by this process's libomp); memory is a DeviceHeap whose
// layout rank 0 manages.
#pragma once

#include "service/device_heap.h"
#include "service/local_device.h"
#include "service/plugin_backend.h"

namespace ferry::service {

class CpuDevice final : public LocalDevice {
 public:
  CpuDevice(VendorPlugin* plugin, int pluginDeviceId, uint64_t memoryBytes, int threads);

  Status reserve() { return heap_.reserve(memory_); }

  DeviceKind kind() const override { return DeviceKind::Cpu; }
  std::string description() const override;
  uint64_t memoryBytes() const override { return heap_.size() ? heap_.size() : memory_; }
  bool clientManagedHeap() const override { return true; }
  uint64_t heapBase() const override { return heap_.base(); }
  bool hostAccessible() const override { return true; }

  Status init(int64_t requiresFlags, int clientRank) override;
  Result<std::vector<uint64_t>> loadImage(const ImageRecord& image, int globalDevice) override;
  Status launch(const comm::LaunchMsg& launch) override;
  Result<uint64_t> allocate(uint64_t size, int32_t kind) override;
  Status release(uint64_t addr, uint64_t size, int32_t kind) override;
  Status write(uint64_t dst, const void* src, uint64_t len) override;
  Status read(void* dst, uint64_t src, uint64_t len) override;
  bool validRange(uint64_t addr, uint64_t len) const override;
  std::string kernelName(uint64_t handle) const override { return backend_.kernelName(handle); }
  void setInfoFlag(uint32_t flags) override { backend_.setInfoFlag(flags); }

 private:
  void configureThreadOnce();

  PluginBackend backend_;
  uint64_t memory_;
  int threads_;
  DeviceHeap heap_;
};

}  // namespace ferry::service
