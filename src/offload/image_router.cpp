#include "offload/image_router.h"

#include "offload/host_image.h"
#include "service/image.h"

namespace ferry::offload {
namespace {

uint16_t machineOf(const __tgt_device_image* image) {
  auto* b = static_cast<const uint8_t*>(image->ImageStart);
  auto* e = static_cast<const uint8_t*>(image->ImageEnd);
  auto elf = innerElf({b, static_cast<size_t>(e - b)});
  return elf ? service::elfMachine(elf->data(), elf->size()) : 0;
}

}  // namespace

bool ImageRouter::offer(const __tgt_device_image* image, bool jobHasGpus) {
  uint16_t machine = machineOf(image);
  bool cpu = machine == abi::kElfMachineX86_64 && isX86Image(image);
  bool gpu = machine == service::kElfMachineCuda && jobHasGpus;
  if (!cpu && !gpu) return false;
  std::lock_guard lock(mutex_);
  Siblings& s = byEntries_[image->EntriesBegin];
  (cpu ? s.cpu : s.gpu) = image;
  return true;
}

Result<const __tgt_device_image*> ImageRouter::select(const __tgt_device_image* image,
                                                      service::DeviceKind kind) const {
  std::lock_guard lock(mutex_);
  auto it = byEntries_.find(image->EntriesBegin);
  const __tgt_device_image* chosen = nullptr;
  if (it != byEntries_.end()) chosen = kind == service::DeviceKind::Gpu ? it->second.gpu : it->second.cpu;
  if (chosen) return chosen;
  if (kind == service::DeviceKind::Gpu)
    return Status(Errc::LoadFailed, "this device is a GPU but the program has no nvptx64 image; build with "
                                    "-fopenmp-targets=x86_64-pc-linux-gnu,nvptx64-nvidia-cuda, or set "
                                    "FERRY_GPUS_PER_RANK=0 to serve CPU devices only");
  return Status(Errc::LoadFailed, "this device is a CPU but the program has no x86_64 image; build with "
                                  "-fopenmp-targets=x86_64-pc-linux-gnu, or set FERRY_DEVICES_PER_RANK=0 to "
                                  "serve GPUs only");
}

}  // namespace ferry::offload
