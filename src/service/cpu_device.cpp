#include "service/cpu_device.h"

#include <dlfcn.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <string>

#include "platform/log.h"
#include "platform/parse.h"
#include "service/crash_report.h"

namespace ferry::service {

const char* deviceKindName(DeviceKind k) { return k == DeviceKind::Cpu ? "cpu" : "gpu"; }

CpuDevice::CpuDevice(VendorPlugin* plugin, int pluginDeviceId, uint64_t memoryBytes, int threads)
    : plugin_(plugin), pluginId_(pluginDeviceId), memory_(memoryBytes), threads_(threads) {}

std::string CpuDevice::description() const {
  return "x86_64 host plugin device " + std::to_string(pluginId_) + ", " + std::to_string(threads_) + " thread(s)";
}

Status CpuDevice::init(int64_t requiresFlags) {
  if (initialized_) return {};
  if (requiresFlags & abi::kReqUnifiedSharedMemory)
    return Status(Errc::Unsupported,
                  "'#pragma omp requires unified_shared_memory' cannot hold for a device in another process; "
                  "remove the requirement or run without Ferry");
  if (plugin_->initRequires) plugin_->initRequires(requiresFlags);
  if (plugin_->initDevice(pluginId_) != abi::kOffloadSuccess)
    return Status(Errc::Internal, "the stock host plugin failed to initialise its device " + std::to_string(pluginId_));
  initialized_ = true;
  return {};
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

void removeStockPluginTempFiles() {
  std::ifstream maps("/proc/self/maps");
  std::string line;
  std::set<std::string> paths;
  while (std::getline(maps, line)) {
    size_t at = line.find("/tmp/tmpfile_");
    if (at == std::string::npos || line.find("(deleted)") != std::string::npos) continue;
    paths.insert(line.substr(at));
  }
  for (const auto& p : paths) unlink(p.c_str());
}

// The stock plugin says only that loading failed; dlopen of a private copy says why.
std::string CpuDevice::loadFailureReason(const ImageRecord& image) const {
  int fd = memfd_create("ferry-image-check", MFD_CLOEXEC);
  if (fd < 0) return "the stock host plugin could not load it";
  std::string reason = "the stock host plugin could not load it";
  if (::write(fd, image.elf.data(), image.elf.size()) == static_cast<ssize_t>(image.elf.size())) {
    std::string path = "/proc/self/fd/" + std::to_string(fd);
    if (void* h = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL)) {
      dlclose(h);
    } else if (const char* err = dlerror()) {
      reason = err;
    }
  }
  close(fd);
  return reason;
}

Result<std::vector<uint64_t>> CpuDevice::loadImage(const ImageRecord& image) {
  if (Status st = checkElf(image.elf.data(), image.elf.size()); !st) return st;
  // The stock plugin needs a non-NULL addr on each entry (it only tests it).
  std::vector<__tgt_offload_entry> entries(image.entries.size());
  for (size_t i = 0; i < entries.size(); ++i) {
    entries[i].addr = reinterpret_cast<void*>(1);
    entries[i].name = const_cast<char*>(image.entries[i].name.c_str());
    entries[i].size = image.entries[i].size;
    entries[i].flags = image.entries[i].flags;
  }
  __tgt_device_image img{const_cast<uint8_t*>(image.elf.data()), const_cast<uint8_t*>(image.elf.data()) + image.elf.size(),
                         entries.data(), entries.data() + entries.size()};
  __tgt_target_table* table = plugin_->loadBinary(pluginId_, &img);
  removeStockPluginTempFiles();
  if (!table) return Status(Errc::LoadFailed, loadFailureReason(image));
  size_t n = static_cast<size_t>(table->EntriesEnd - table->EntriesBegin);
  if (n != entries.size())
    return Status(Errc::LoadFailed, "the loaded image has " + std::to_string(n) + " entries, the host expects " +
                                        std::to_string(entries.size()));
  std::vector<uint64_t> addrs(n);
  std::lock_guard lock(mutex_);
  for (size_t i = 0; i < n; ++i) {
    addrs[i] = reinterpret_cast<uint64_t>(table->EntriesBegin[i].addr);
    if (image.entries[i].size == 0)
      kernels_[addrs[i]] = Kernel{image.entries[i].name,
                                  "kernel " + image.entries[i].name + " on local device " + std::to_string(pluginId_)};
    else globals_[addrs[i]] = image.entries[i].size;
  }
  return addrs;
}

const CpuDevice::Kernel* CpuDevice::findKernel(uint64_t handle) const {
  std::lock_guard lock(mutex_);
  auto it = kernels_.find(handle);
  return it == kernels_.end() ? nullptr : &it->second;  // map nodes are stable
}

std::string CpuDevice::kernelName(uint64_t handle) const {
  const Kernel* k = findKernel(handle);
  return k ? k->name : std::string();
}

// The arguments arrive as 64-bit words, which is what the plugin ABI's void* and ptrdiff_t
// are on x86_64: they are passed in place, without a copy.
static_assert(sizeof(void*) == sizeof(uint64_t) && sizeof(ptrdiff_t) == sizeof(int64_t));

Status CpuDevice::launch(const comm::LaunchMsg& m) {
  const Kernel* k = findKernel(m.kernel);
  if (!k) return Status(Errc::NotFound, "kernel handle " + hex(m.kernel) + " was not issued by this device");
  configureThreadOnce();
  setActivity(k->activity.c_str());
  auto* args = reinterpret_cast<void**>(const_cast<uint64_t*>(m.args.data()));
  auto* offsets = reinterpret_cast<ptrdiff_t*>(const_cast<int64_t*>(m.offsets.data()));
  KernelArgsTy ka{};
  ka.Version = 2;
  ka.NumArgs = static_cast<uint32_t>(m.args.size());
  ka.Tripcount = m.tripCount;
  ka.NumTeams[0] = m.numTeams;
  ka.ThreadLimit[0] = m.threadLimit;
  int32_t rc = plugin_->launchKernel(pluginId_, reinterpret_cast<void*>(m.kernel), args, offsets, &ka, nullptr);
  clearActivity();
  if (rc != abi::kOffloadSuccess) return Status(Errc::Internal, "the stock host plugin failed to launch the kernel");
  return {};
}

Result<uint64_t> CpuDevice::allocate(uint64_t size, int32_t kind) {
  return Status(Errc::Internal, "CPU device memory is laid out by rank 0; the server never picks addresses");
}

Status CpuDevice::release(uint64_t addr, uint64_t size, int32_t kind) {
  if (!heap_.contains(addr, size)) return Status(Errc::InvalidArgument, "free of a range outside device memory");
  return heap_.release(addr, size);
}

Status CpuDevice::write(uint64_t dst, const void* src, uint64_t len) {
  std::memcpy(reinterpret_cast<void*>(dst), src, len);
  return {};
}

Status CpuDevice::read(void* dst, uint64_t src, uint64_t len) {
  std::memcpy(dst, reinterpret_cast<const void*>(src), len);
  return {};
}

bool CpuDevice::validRange(uint64_t addr, uint64_t len) const {
  if (heap_.contains(addr, len)) return true;
  std::lock_guard lock(mutex_);
  auto it = globals_.upper_bound(addr);
  if (it == globals_.begin()) return false;
  --it;
  return addr >= it->first && addr - it->first + len <= it->second;
}

}  // namespace ferry::service
