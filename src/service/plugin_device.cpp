#include "service/plugin_device.h"

#include "platform/log.h"
#include "platform/parse.h"
#include "platform/ranges.h"
#include "service/image_hooks.h"

namespace ferry::service {

PluginDevice::PluginDevice(VendorPlugin* plugin, int pluginDeviceId, DeviceKind kind, uint64_t memoryBytes,
                           std::string description)
    : backend_(plugin, pluginDeviceId, "local device " + std::to_string(pluginDeviceId)), kind_(kind),
      memory_(memoryBytes), description_(std::move(description)) {}

Status PluginDevice::init(int64_t requiresFlags, int clientRank) {
  // A GPU's kernels cannot fault in another process's pages; a CPU device served this way
  // (FERRY_CPU_STAGING=1) runs its kernels on this process's CPUs and can.
  if (kind_ == DeviceKind::Gpu && (requiresFlags & abi::kReqUnifiedSharedMemory))
    return Status(Errc::Unsupported,
                  "'#pragma omp requires unified_shared_memory' cannot hold for a GPU of another process: its kernels "
                  "cannot reach rank " + std::to_string(clientRank) +
                      "'s memory. Drop the requirement and map the data, or set FERRY_GPUS_PER_RANK=0");
  return backend_.init(requiresFlags, clientRank, /*canPage=*/kind_ == DeviceKind::Cpu);
}

// What a program can do about a full device.
std::string PluginDevice::whatFrees() const {
  if (kind_ == DeviceKind::Cpu)
    return "FERRY_DEVICE_MEMORY sets a CPU device's memory (unset: the node's memory shared among its devices)";
  return "free device memory first (omp_target_free, the end of a target data region), or spread the data over more "
         "devices";
}

Result<uint64_t> PluginDevice::allocate(uint64_t size, int32_t kind) {
  // 64-byte granules, as rank 0's heap allocator gives: libomptarget may touch a whole
  // pointer-sized word of a smaller object (has_device_addr), and both sides agree on extents.
  size = (std::max<uint64_t>(size, 1) + kGranule - 1) / kGranule * kGranule;
  std::lock_guard lock(mutex_);
  if (memory_ && size > memory_ - allocated_)
    return Status(Errc::OutOfMemory, "allocation of " + parse::formatSize(size) + " does not fit: the device has " +
                                         parse::formatSize(memory_) + " of memory, " +
                                         parse::formatSize(memory_ - allocated_) + " free; " + whatFrees());
  void* p = backend_.plugin().dataAlloc(backend_.id(), static_cast<int64_t>(size), nullptr, kind);
  if (!p)
    return Status(Errc::OutOfMemory,
                  "the stock plugin could not allocate " + parse::formatSize(size) +
                      (memory_ ? " (" + parse::formatSize(memory_ - allocated_) + " free by Ferry's count)" : "") +
                      "; " + whatFrees());
  allocations_[reinterpret_cast<uint64_t>(p)] = size;
  allocated_ += size;
  return reinterpret_cast<uint64_t>(p);
}

Status PluginDevice::release(uint64_t addr, uint64_t size, int32_t kind) {
  std::lock_guard lock(mutex_);
  auto it = allocations_.find(addr);
  if (it == allocations_.end()) return Status(Errc::InvalidArgument, "free of " + hex(addr) + ": not an allocation");
  allocated_ -= std::min(allocated_, it->second);
  allocations_.erase(it);
  if (backend_.plugin().dataDelete(backend_.id(), reinterpret_cast<void*>(addr), kind) != abi::kOffloadSuccess)
    return Status(Errc::Internal, "the stock plugin failed to free " + hex(addr));
  return {};
}

Status PluginDevice::write(uint64_t dst, const void* src, uint64_t len) {
  if (backend_.plugin().dataSubmit(backend_.id(), reinterpret_cast<void*>(dst), const_cast<void*>(src),
                                   static_cast<int64_t>(len)) != abi::kOffloadSuccess)
    return Status(Errc::Internal, "the stock plugin failed to copy " + parse::formatSize(len) + " to " + hex(dst));
  return {};
}

Status PluginDevice::read(void* dst, uint64_t src, uint64_t len) {
  if (backend_.plugin().dataRetrieve(backend_.id(), dst, reinterpret_cast<void*>(src), static_cast<int64_t>(len)) !=
      abi::kOffloadSuccess)
    return Status(Errc::Internal, "the stock plugin failed to copy " + parse::formatSize(len) + " from " + hex(src));
  return {};
}

// The plugin's host memory: the CUDA plugin pins it (cuMemAllocHost), the host plugin mallocs.
void* PluginDevice::allocHostBuffer(uint64_t bytes) {
  return backend_.plugin().dataAlloc(backend_.id(), static_cast<int64_t>(bytes), nullptr, abi::kAllocHost);
}

void PluginDevice::freeHostBuffer(void* p) {
  if (backend_.plugin().dataDelete(backend_.id(), p, abi::kAllocHost) != abi::kOffloadSuccess)
    log::warn(log::Service, "%s: the stock plugin failed to free a staging buffer", backend_.label().c_str());
}

namespace {

// LLVM 16's GPU device runtime answers omp_get_num_devices() and omp_get_device_num() inside
// a region from this constant, which the stock plugin fills with its own view (its device
// count, the GPU's index on this rank). The job's view replaces it after each load.
constexpr const char* kDeviceEnvironment = "__omp_rtl_device_environment";
struct DeviceEnvironment {  // openmp/libomptarget/include/DeviceEnvironment.h, LLVM 16
  uint32_t debugKind;
  uint32_t numDevices;
  uint32_t deviceNum;
  uint32_t dynamicMemSize;
};

}  // namespace

Result<std::vector<uint64_t>> PluginDevice::loadImage(const ImageRecord& image, int globalDevice) {
  bool patch = kind_ == DeviceKind::Gpu &&
               elfSymbolSize(image.elf.data(), image.elf.size(), kDeviceEnvironment) == sizeof(DeviceEnvironment);
  if (!patch) return backend_.loadImage(image);
  auto addrs = backend_.loadImage(image, {ImageEntry{kDeviceEnvironment, sizeof(DeviceEnvironment), 0}});
  if (!addrs) return addrs;
  uint64_t at = addrs->back();
  addrs->pop_back();
  DeviceEnvironment env{};
  if (Status st = read(&env, at, sizeof env); !st) return st;
  // Only the layout this was written for: the plugin's own values must be where expected.
  if (env.deviceNum != static_cast<uint32_t>(backend_.id()) ||
      env.numDevices != static_cast<uint32_t>(backend_.plugin().numDevices)) {
    log::info(log::Service, "%s: the image's device environment is not LLVM 16's; device queries in its regions "
                            "answer for this rank", backend_.label().c_str());
    return addrs;
  }
  env.numDevices = static_cast<uint32_t>(jobNumDevices());
  env.deviceNum = static_cast<uint32_t>(globalDevice);
  if (Status st = write(at, &env, sizeof env); !st) return st;
  return addrs;
}

bool PluginDevice::validRange(uint64_t addr, uint64_t len) const {
  if (backend_.validGlobal(addr, len)) return true;
  std::lock_guard lock(mutex_);
  return insideBlock(allocations_, addr, len);
}

}  // namespace ferry::service
