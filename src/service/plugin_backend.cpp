#include "service/plugin_backend.h"

#include <dlfcn.h>
#include <elf.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <atomic>
#include <set>

#include "platform/config.h"
#include "platform/log.h"
#include "platform/parse.h"
#include "platform/ranges.h"
#include "service/client_memory.h"
#include "service/crash_report.h"
#include "service/host_pager.h"
#include "service/image_hooks.h"

namespace ferry::service {
namespace {

// The stock plugin says only that loading failed. For an x86_64 image, dlopen of a private
// copy says why (a missing library, most often).
std::string loadFailureReason(const ImageRecord& image) {
  const std::string generic = "the stock plugin could not load it";
  Elf64_Ehdr h{};
  if (image.elf.size() < sizeof h) return generic;
  std::memcpy(&h, image.elf.data(), sizeof h);
  if (h.e_machine != EM_X86_64) return generic;
  int fd = memfd_create("ferry-image-check", MFD_CLOEXEC);
  if (fd < 0) return generic;
  std::string reason = generic;
  if (::write(fd, image.elf.data(), image.elf.size()) == static_cast<ssize_t>(image.elf.size())) {
    std::string path = "/proc/self/fd/" + std::to_string(fd);
    if (void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL)) dlclose(handle);
    else if (const char* err = dlerror()) reason = err;
  }
  close(fd);
  // The image's own libraries are looked up on the serving rank's machine, with its
  // LD_LIBRARY_PATH and the image's run path.
  if (reason.find("cannot open shared object file") != std::string::npos)
    reason += " on this rank's host: install the library there, or give the serving ranks its directory (link the "
              "device image with -Xoffload-linker -rpath=DIR, or set LD_LIBRARY_PATH, which `ferry run` passes on)";
  return reason;
}

}  // namespace

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

PluginBackend::PluginBackend(VendorPlugin* plugin, int pluginDeviceId, std::string label)
    : plugin_(plugin), id_(pluginDeviceId), label_(std::move(label)), loadActivity_("load_binary on " + label_) {}

namespace {
std::atomic<ClientMemory*> gClientMemory{nullptr};
}  // namespace

void setClientMemory(ClientMemory* memory) { gClientMemory.store(memory); }
ClientMemory* clientMemory() { return gClientMemory.load(); }

Status PluginBackend::init(int64_t requiresFlags, int clientRank, bool canPage) {
  if (initialized_) return {};
  if (requiresFlags & abi::kReqUnifiedSharedMemory) {
    ClientMemory* reach = clientMemory();
    if (!reach)
      return Status(Errc::Unsupported, "'#pragma omp requires unified_shared_memory': " + label_ +
                                           " cannot reach its client's memory (a daemon's clients are on another "
                                           "machine); map the data the regions use instead");
    auto host = reach->unifiedHost(clientRank);
    if (!host) return host.takeStatus();
    if (*host != 0)
      if (Status st = hostpager::enable(*host, hostpager::Mode::Unified); !st) return st;
    pagerHost_ = *host;
    pagerMode_ = hostpager::Mode::Unified;
  } else if (pid_t host = canPage && clientMemory() ? clientMemory()->lenientHost(clientRank) : 0) {
    Status st = hostpager::enable(host, hostpager::Mode::Lenient);
    if (st) pagerHost_ = host;
    else log::info(log::Service, "%s: kernels will not be served unmapped host memory: %s", label_.c_str(),
                   st.message().c_str());
  }
  if (plugin_->initRequires) plugin_->initRequires(requiresFlags);
  if (plugin_->initDevice(id_) != abi::kOffloadSuccess)
    return Status(Errc::Internal, "the stock plugin failed to initialise " + label_);
  initialized_ = true;
  return {};
}

// The plugin's view of the entries. It only tests a kernel's addr for NULL. Under
// unified_shared_memory it also copies each global's bytes from its host address into the
// device's copy (the reference pointer through which kernels reach the host's variable), so
// globals keep their host address there and the load runs with rank 0's pages in reach.
std::vector<__tgt_offload_entry> PluginBackend::pluginEntries(const ImageRecord& image,
                                                              const std::vector<ImageEntry>& extra) const {
  std::vector<__tgt_offload_entry> entries(image.entries.size() + extra.size());
  for (size_t i = 0; i < entries.size(); ++i) {
    bool own = i < image.entries.size();
    const ImageEntry& e = own ? image.entries[i] : extra[i - image.entries.size()];
    bool hostBytes = own && e.size != 0 && e.hostAddr != 0 && pagerMode_ == hostpager::Mode::Unified;
    entries[i].addr = reinterpret_cast<void*>(hostBytes ? e.hostAddr : 1);
    entries[i].name = const_cast<char*>(e.name.c_str());
    entries[i].size = e.size;
    entries[i].flags = e.flags;
  }
  return entries;
}

// The stock plugin's load (nullptr when it failed), or why rank 0's pages could not be
// reached for it.
Result<__tgt_target_table*> PluginBackend::loadInPlugin(__tgt_device_image& img) {
  __tgt_target_table* table = nullptr;
  auto load = [&]() -> Status {
    table = plugin_->loadBinary(id_, &img);
    return {};
  };
  setActivity(loadActivity_.c_str());
  bool unified = pagerHost_ && pagerMode_ == hostpager::Mode::Unified;
  Status paging = unified ? hostpager::run(pagerHost_, pagerMode_, load) : load();
  clearActivity();
  if (!paging) return paging;
  return table;
}

Result<std::vector<uint64_t>> PluginBackend::loadImage(const ImageRecord& image, const std::vector<ImageEntry>& extra) {
  std::vector<__tgt_offload_entry> entries = pluginEntries(image, extra);
  auto* bytes = const_cast<uint8_t*>(image.elf.data());
  __tgt_device_image img{bytes, bytes + image.elf.size(), entries.data(), entries.data() + entries.size()};
  if (!plugin_->isValidBinary(&img))
    return Status(Errc::LoadFailed, "the image is not one " + label_ + " can run");
  std::set<std::string> before = loadedImagePaths();
  auto loaded = loadInPlugin(img);
  __tgt_target_table* table = loaded ? *loaded : nullptr;
  if (table) (void)hookNewImages(before);  // device-query routines answer for the job (image_hooks.h)
  removeStockPluginTempFiles();
  if (!loaded) return loaded.takeStatus();
  if (!table) return Status(Errc::LoadFailed, loadFailureReason(image));
  size_t n = static_cast<size_t>(table->EntriesEnd - table->EntriesBegin);
  if (n != entries.size())
    return Status(Errc::LoadFailed, "the loaded image has " + std::to_string(n) + " entries, the host expects " +
                                        std::to_string(entries.size()));
  std::vector<uint64_t> addrs(n);
  std::lock_guard lock(mutex_);
  for (size_t i = 0; i < n; ++i) {
    addrs[i] = reinterpret_cast<uint64_t>(table->EntriesBegin[i].addr);
    if (i >= image.entries.size()) continue;  // the device runtime's own, not the program's
    const std::string& name = image.entries[i].name;
    if (image.entries[i].size == 0) kernels_[addrs[i]] = Kernel{name, "kernel " + name + " on " + label_};
    else globals_[addrs[i]] = image.entries[i].size;
  }
  return addrs;
}

const PluginBackend::Kernel* PluginBackend::findKernel(uint64_t handle) const {
  std::lock_guard lock(mutex_);
  auto it = kernels_.find(handle);
  return it == kernels_.end() ? nullptr : &it->second;  // map nodes are stable
}

std::string PluginBackend::kernelName(uint64_t handle) const {
  const Kernel* k = findKernel(handle);
  return k ? k->name : std::string();
}

// The arguments arrive as 64-bit words, which is what the plugin ABI's void* and ptrdiff_t
// are on x86_64: they are passed in place, without a copy.
static_assert(sizeof(void*) == sizeof(uint64_t) && sizeof(ptrdiff_t) == sizeof(int64_t));

Status PluginBackend::launch(const comm::LaunchMsg& m) {
  const Kernel* k = findKernel(m.kernel);
  if (!k) return Status(Errc::NotFound, "kernel handle " + hex(m.kernel) + " was not issued by " + label_);
  setActivity(k->activity.c_str());
  auto* args = reinterpret_cast<void**>(const_cast<uint64_t*>(m.args.data()));
  // Stream tokens (comm::kStdoutToken) become this process's streams; copied only if any.
  std::vector<void*> translated;
  for (size_t i = 0; i < m.args.size(); ++i) {
    void* stream = m.args[i] == comm::kStdoutToken   ? static_cast<void*>(stdout)
                   : m.args[i] == comm::kStderrToken ? static_cast<void*>(stderr)
                   : m.args[i] == comm::kStdinToken  ? static_cast<void*>(stdin)
                                                     : nullptr;
    if (!stream) continue;
    if (translated.empty()) {
      translated.assign(args, args + m.args.size());
      args = translated.data();
    }
    args[i] = stream;
  }
  auto* offsets = reinterpret_cast<ptrdiff_t*>(const_cast<int64_t*>(m.offsets.data()));
  KernelArgsTy ka{};
  ka.Version = 2;
  ka.NumArgs = static_cast<uint32_t>(m.args.size());
  ka.Tripcount = m.tripCount;
  ka.NumTeams[0] = m.numTeams;
  ka.ThreadLimit[0] = m.threadLimit;
  auto run = [&]() -> Status {
    int32_t rc = plugin_->launchKernel(id_, reinterpret_cast<void*>(m.kernel), args, offsets, &ka, nullptr);
    if (rc != abi::kOffloadSuccess) return Status(Errc::Internal, "the stock plugin failed to launch " + k->name);
    return {};
  };
  hostpager::RunStats paged;
  Status st = pagerHost_ ? hostpager::run(pagerHost_, pagerMode_, run, &paged) : run();
  clearActivity();
  if (pagerMode_ == hostpager::Mode::Lenient && paged.pagesIn) warnUnmapped(m.kernel, *k, paged);
  return st;
}

// A kernel used rank 0's memory that no map clause gave it: it works here as with the stock
// host plugin, and would fault on a GPU or on another node. Said once per kernel.
void PluginBackend::warnUnmapped(uint64_t handle, const Kernel& k, const hostpager::RunStats& paged) {
  {
    std::lock_guard lock(mutex_);
    if (!warnedKernels_.insert(handle).second) return;
  }
  log::warn(log::Service,
            "%s on %s used %llu page(s) of rank 0's memory that no map clause gave the device (the first at %s). "
            "Ferry served them from rank 0, as the stock host plugin shares the host's memory, but a GPU or a device "
            "on another node would fault there: map the data, or set FERRY_UNMAPPED_ACCESS=fault to stop at such "
            "an access",
            k.name.c_str(), label_.c_str(), static_cast<unsigned long long>(paged.pagesIn), hex(paged.firstPage).c_str());
}

bool PluginBackend::validGlobal(uint64_t addr, uint64_t len) const {
  std::lock_guard lock(mutex_);
  return insideBlock(globals_, addr, len);
}

}  // namespace ferry::service
