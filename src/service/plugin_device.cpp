#include "service/plugin_device.h"

#include "platform/parse.h"
#include "platform/ranges.h"

namespace ferry::service {

PluginDevice::PluginDevice(VendorPlugin* plugin, int pluginDeviceId, DeviceKind kind, uint64_t memoryBytes,
                           std::string description)
    : backend_(plugin, pluginDeviceId, "local device " + std::to_string(pluginDeviceId)), kind_(kind),
      memory_(memoryBytes), description_(std::move(description)) {}

Result<uint64_t> PluginDevice::allocate(uint64_t size, int32_t kind) {
  // 64-byte granules, as rank 0's heap allocator gives: libomptarget may touch a whole
  // pointer-sized word of a smaller object (has_device_addr), and both sides agree on extents.
  size = (std::max<uint64_t>(size, 1) + kGranule - 1) / kGranule * kGranule;
  std::lock_guard lock(mutex_);
  if (memory_ && size > memory_ - allocated_)
    return Status(Errc::OutOfMemory, "allocation of " + parse::formatSize(size) + " does not fit: the device has " +
                                         parse::formatSize(memory_) + " of memory, " +
                                         parse::formatSize(memory_ - allocated_) + " free");
  void* p = backend_.plugin().dataAlloc(backend_.id(), static_cast<int64_t>(size), nullptr, kind);
  if (!p) return Status(Errc::OutOfMemory, "the stock plugin could not allocate " + parse::formatSize(size));
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

bool PluginDevice::validRange(uint64_t addr, uint64_t len) const {
  if (backend_.validGlobal(addr, len)) return true;
  std::lock_guard lock(mutex_);
  return insideBlock(allocations_, addr, len);
}

}  // namespace ferry::service
