// A CPU device: kernels run through the stock LLVM host plugin (dlopen of the image, libffi
// call, teams and threads forked by this process's libomp); memory is a DeviceHeap whose
// layout rank 0 manages.
#pragma once

#include <map>
#include <mutex>
#include <set>

#include "service/device_heap.h"
#include "service/local_device.h"
#include "service/vendor_plugin.h"

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

  Status init(int64_t requiresFlags) override;
  Result<std::vector<uint64_t>> loadImage(const ImageRecord& image) override;
  Status launch(const comm::LaunchMsg& launch) override;
  Result<uint64_t> allocate(uint64_t size, int32_t kind) override;
  Status release(uint64_t addr, uint64_t size, int32_t kind) override;
  Status write(uint64_t dst, const void* src, uint64_t len) override;
  Status read(void* dst, uint64_t src, uint64_t len) override;
  bool validRange(uint64_t addr, uint64_t len) const override;
  std::string kernelName(uint64_t handle) const override;

 private:
  void configureThreadOnce();
  std::string loadFailureReason(const ImageRecord& image) const;

  VendorPlugin* plugin_;
  int pluginId_;
  uint64_t memory_;
  int threads_;
  bool initialized_ = false;
  DeviceHeap heap_;
  mutable std::mutex mutex_;              // guards the two sets below
  struct Kernel {
    std::string name;
    std::string activity;  // "kernel NAME on local device N", for crash reports
  };
  std::map<uint64_t, Kernel> kernels_;    // handles this device issued; entries are never erased
  const Kernel* findKernel(uint64_t handle) const;
  std::map<uint64_t, uint64_t> globals_;  // address -> size of loaded globals
};

// Unlinks the /tmp/tmpfile_* copies that the stock host plugin writes for each image load
// and never removes; they are already mapped, so unlinking them is safe.
void removeStockPluginTempFiles();

}  // namespace ferry::service
