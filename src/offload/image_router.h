// Which image each device runs. libomptarget hands one plugin's devices a single image per
// library (the last one the plugin accepted), so a program built for several machines
// (x86_64, nvptx64, aarch64 for a co-processor's daemon) must be routed here: Ferry accepts
// the images of every machine the job's devices run, remembers the siblings (they share the
// host's entry table), and gives each device the one built for its machine.
#pragma once

#include <map>
#include <mutex>
#include <set>

#include "platform/status.h"
#include "service/local_device.h"
#include "service/omptarget_abi.h"

namespace ferry::offload {

class ImageRouter {
 public:
  // Records an image libomptarget offers (is_valid_binary); returns whether Ferry takes it:
  // x86_64 images always, others when a device of the job runs their ELF machine (`machines`:
  // 190 for GPUs, 183 for an aarch64 daemon's cores). A damaged image Ferry would take is
  // refused with an error that says so (its regions would run on the host); images for other
  // machines belong to other plugins.
  bool offer(const __tgt_device_image* image, const std::set<uint16_t>& machines);
  // The image a device running ELF machine `machine` runs, among the siblings of `image`.
  Result<const __tgt_device_image*> select(const __tgt_device_image* image, uint16_t machine) const;

 private:
  bool remember(const __tgt_device_image* image, uint16_t machine);

  mutable std::mutex mutex_;
  // Keyed by the host entry table they share, then by ELF machine.
  std::map<const void*, std::map<uint16_t, const __tgt_device_image*>> byEntries_;
};

}  // namespace ferry::offload
