#include "service/vendor_plugin.h"

#include <dlfcn.h>

#include <memory>
#include <mutex>
#include <vector>

#include "platform/log.h"
#include "service/image.h"

#ifndef FERRY_LLVM_LIBDIR
#define FERRY_LLVM_LIBDIR "/usr/lib/llvm-16/lib"
#endif

namespace ferry::service {
namespace {

template <typename Fn>
bool bind(void* handle, const char* name, Fn& out) {
  out = reinterpret_cast<Fn>(dlsym(handle, name));
  return out != nullptr;
}

// A plugin opened stays for the process's life (its handle is never closed, and libomptarget
// calls rank 0's own devices after static destructors), so it is owned here, never
// destroyed. The devices only point at it: once they were gone, at a serving rank's end, it
// was a leak (LeakSanitizer, docs/robustness.md "Sanitizers").
void keepForTheProcess(std::unique_ptr<VendorPlugin> p) {
  static std::mutex mutex;
  static auto* opened = new std::vector<std::unique_ptr<VendorPlugin>>();
  std::lock_guard lock(mutex);
  opened->push_back(std::move(p));
}

}  // namespace

std::string llvmLibDir() { return FERRY_LLVM_LIBDIR; }
// The stock plugin for this machine's own cores: a daemon built for an aarch64 co-processor
// drives its cores through Debian's aarch64 host plugin.
std::string stockHostPluginPath() {
  return std::string(FERRY_LLVM_LIBDIR "/libomptarget.rtl.") + machineName(nativeElfMachine()) + ".nextgen.so.16";
}
std::string stockCudaPluginPath() { return FERRY_LLVM_LIBDIR "/libomptarget.rtl.cuda.nextgen.so.16"; }

Result<VendorPlugin*> VendorPlugin::open(const std::string& path) {
  // RTLD_LOCAL keeps the stock plugin's __tgt_rtl_* symbols from interposing Ferry's own.
  void* h = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!h) return Status(Errc::NotFound, "cannot open stock plugin " + path + ": " + dlerror());
  auto owned = std::make_unique<VendorPlugin>();
  VendorPlugin* p = owned.get();
  p->path = path;
  p->handle = h;
  bool ok = bind(h, "__tgt_rtl_number_of_devices", p->numberOfDevices) &&
            bind(h, "__tgt_rtl_init_device", p->initDevice) &&
            bind(h, "__tgt_rtl_is_valid_binary", p->isValidBinary) &&
            bind(h, "__tgt_rtl_load_binary", p->loadBinary) && bind(h, "__tgt_rtl_data_alloc", p->dataAlloc) &&
            bind(h, "__tgt_rtl_data_delete", p->dataDelete) && bind(h, "__tgt_rtl_data_submit", p->dataSubmit) &&
            bind(h, "__tgt_rtl_data_retrieve", p->dataRetrieve) &&
            bind(h, "__tgt_rtl_launch_kernel", p->launchKernel);
  if (!ok)
    return Status(Errc::LoadFailed, "stock plugin " + path + " lacks a required __tgt_rtl_* symbol");
  keepForTheProcess(std::move(owned));
  bind(h, "__tgt_rtl_init_plugin", p->initPlugin);
  bind(h, "__tgt_rtl_init_requires", p->initRequires);
  bind(h, "__tgt_rtl_set_info_flag", p->setInfoFlag);
  if (p->initPlugin && p->initPlugin() != abi::kOffloadSuccess) {
    p->numDevices = 0;
    log::info(log::Service, "stock plugin %s: init_plugin failed; it contributes no device", path.c_str());
    return p;
  }
  p->numDevices = p->numberOfDevices();
  log::debug(log::Service, "stock plugin %s: %d device(s)", path.c_str(), p->numDevices);
  return p;
}

}  // namespace ferry::service
