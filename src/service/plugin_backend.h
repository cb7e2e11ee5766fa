// One device of a stock LLVM plugin, driven from a serving rank: initialisation, image
// loads (with the kernels and globals they bring) and kernel launches. CPU devices and
// plugin-managed devices (GPUs) share it; what differs between them is memory.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "comm/protocol.h"
#include "platform/status.h"
#include "service/host_pager.h"
#include "service/image.h"
#include "service/vendor_plugin.h"

namespace ferry::service {

class PluginBackend {
 public:
  PluginBackend(VendorPlugin* plugin, int pluginDeviceId, std::string label);

  VendorPlugin& plugin() { return *plugin_; }
  int id() const { return id_; }
  const std::string& label() const { return label_; }  // "x86_64 host plugin device 0"

  // Kernels may page in the client's memory (host_pager.h) where `canPage` (a device whose
  // kernels run on this process's CPUs): under unified_shared_memory, and else for memory
  // no map clause gave them (FERRY_UNMAPPED_ACCESS).
  Status init(int64_t requiresFlags, int clientRank, bool canPage);
  // Returns one table address per entry: kernel handles and global addresses. `extra` names
  // globals of the device runtime to resolve as well; their addresses follow the entries'.
  Result<std::vector<uint64_t>> loadImage(const ImageRecord& image, const std::vector<ImageEntry>& extra = {});
  Status launch(const comm::LaunchMsg& m);
  std::string kernelName(uint64_t handle) const;
  bool validGlobal(uint64_t addr, uint64_t len) const;
  void setInfoFlag(uint32_t flags) {
    if (plugin_->setInfoFlag) plugin_->setInfoFlag(flags);
  }

 private:
  struct Kernel {
    std::string name;
    std::string activity;  // "kernel NAME on LABEL", for crash reports
  };
  const Kernel* findKernel(uint64_t handle) const;
  std::vector<__tgt_offload_entry> pluginEntries(const ImageRecord& image, const std::vector<ImageEntry>& extra) const;
  Result<__tgt_target_table*> loadInPlugin(__tgt_device_image& img);
  void warnUnmapped(uint64_t handle, const Kernel& k, const hostpager::RunStats& paged);

  VendorPlugin* plugin_;
  int id_;
  std::string label_;
  std::string loadActivity_;  // "load_binary on LABEL", for crash reports
  bool initialized_ = false;
  pid_t pagerHost_ = 0;  // the client process whose pages kernels may see, or 0
  hostpager::Mode pagerMode_ = hostpager::Mode::Lenient;
  std::set<uint64_t> warnedKernels_;  // kernels already reported for unmapped accesses
  mutable std::mutex mutex_;              // guards the maps below
  std::map<uint64_t, Kernel> kernels_;    // handles this device issued; entries are never erased
  std::map<uint64_t, uint64_t> globals_;  // address -> size of loaded globals
};

// Unlinks the /tmp/tmpfile_* copies that the stock host plugin writes for each image load
// and never removes; they are already mapped, so unlinking them is safe.
void removeStockPluginTempFiles();

}  // namespace ferry::service
