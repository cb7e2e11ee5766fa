// Which image each device runs. libomptarget hands one plugin's devices a single image per
// library (the last one the plugin accepted), so a program built for both x86_64 and
// nvptx64 must be routed here: Ferry accepts both kinds when the job has GPUs, remembers
// the siblings (they share the host's entry table), and gives each device the one built
// for it.
#pragma once

#include <map>
#include <mutex>

#include "platform/status.h"
#include "service/local_device.h"
#include "service/omptarget_abi.h"

namespace ferry::offload {

class ImageRouter {
 public:
  // Records an image libomptarget offers (is_valid_binary); returns whether Ferry takes it:
  // x86_64 images always, CUDA images when the job has GPU devices.
  // A damaged x86_64 image is refused with an error that says so (its regions would run on
  // the host); images for other machines belong to other plugins.
  bool offer(const __tgt_device_image* image, bool jobHasGpus);
  // The image a device of `kind` runs, among the siblings of `image`.
  Result<const __tgt_device_image*> select(const __tgt_device_image* image, service::DeviceKind kind) const;

 private:
  bool remember(const __tgt_device_image* image, bool cpu);

  struct Siblings {
    const __tgt_device_image* cpu = nullptr;
    const __tgt_device_image* gpu = nullptr;
  };
  mutable std::mutex mutex_;
  std::map<const void*, Siblings> byEntries_;  // keyed by the host entry table they share
};

}  // namespace ferry::offload
