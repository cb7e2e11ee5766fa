#include "service/cpu_device.h"

#include <dlfcn.h>

#include "platform/copy.h"
#include "service/crash_report.h"

namespace ferry::service {

const char* deviceKindName(DeviceKind k) { return k == DeviceKind::Cpu ? "cpu" : "gpu"; }

CpuDevice::CpuDevice(VendorPlugin* plugin, int pluginDeviceId, uint64_t memoryBytes, int threads)
    : backend_(plugin, pluginDeviceId, "local device " + std::to_string(pluginDeviceId)),
      memory_(memoryBytes), threads_(threads) {}

std::string CpuDevice::description() const {
  return machineName(nativeElfMachine()) + " host plugin device " + std::to_string(backend_.id()) + ", " + std::to_string(threads_) + " thread(s)";
}

// Kernels fork teams and threads with the libomp of this process, using the calling
// thread's ICVs. Each executing thread is sized once to this device's share of the node.
void CpuDevice::configureThreadOnce() {
  thread_local bool done = false;
  if (done) return;
  done = true;
  using SetInt = void (*)(int);
  if (auto set = reinterpret_cast<SetInt>(dlsym(RTLD_DEFAULT, "omp_set_num_threads"))) set(threads_);
  if (auto set = reinterpret_cast<SetInt>(dlsym(RTLD_DEFAULT, "omp_set_teams_thread_limit"))) set(threads_);
}

Status CpuDevice::init(int64_t requiresFlags, int clientRank) {
  // Under unified_shared_memory rank 0 allocates a device's memory in its own (client.h):
  // the heap goes unused, and the gigabytes of addresses it holds are better left free for
  // mirrors of rank 0's pages (host_pager.h).
  if (requiresFlags & abi::kReqUnifiedSharedMemory) heap_.unreserve();
  return backend_.init(requiresFlags, clientRank, /*canPage=*/true);
}

Result<std::vector<uint64_t>> CpuDevice::loadImage(const ImageRecord& image, int /*globalDevice: hooks ask the thread*/) {
  if (Status st = checkElf(image.elf.data(), image.elf.size(), nativeElfMachine()); !st) return st;
  return backend_.loadImage(image);
}

Status CpuDevice::launch(const comm::LaunchMsg& m) {
  configureThreadOnce();
  return backend_.launch(m);
}

Result<uint64_t> CpuDevice::allocate(uint64_t size, int32_t kind) {
  return Status(Errc::Internal, "CPU device memory is laid out by rank 0; the server never picks addresses");
}

Status CpuDevice::release(uint64_t addr, uint64_t size, int32_t kind) {
  if (!heap_.contains(addr, size)) return Status(Errc::InvalidArgument, "free of a range outside device memory");
  return heap_.release(addr, size);
}

Status CpuDevice::write(uint64_t dst, const void* src, uint64_t len) {
  copyBytes(reinterpret_cast<void*>(dst), src, len);
  return {};
}

Status CpuDevice::read(void* dst, uint64_t src, uint64_t len) {
  copyBytes(dst, reinterpret_cast<const void*>(src), len);
  return {};
}

bool CpuDevice::validRange(uint64_t addr, uint64_t len) const {
  return heap_.contains(addr, len) || backend_.validGlobal(addr, len);
}

}  // namespace ferry::service
