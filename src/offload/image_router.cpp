#include "offload/image_router.h"

#include "offload/host_image.h"
#include "offload/wait_report.h"
#include "platform/log.h"
#include "service/image.h"

namespace ferry::offload {
bool ImageRouter::offer(const __tgt_device_image* image, bool jobHasGpus) {
  uint16_t machine = imageMachine(image);
  if (machine == service::kElfMachineCuda) {
    if (!jobHasGpus) {
      log::info(log::Offload, "%s is for nvptx64, and this job has no GPU device: its regions run on the CPU "
                "devices' x86_64 image, if the program has one", describeImage(image).c_str());
      return false;
    }
    return remember(image, false);
  }
  if (Status st = checkX86Image(image); !st) {
    // An image for another machine belongs to another plugin; a damaged x86_64 image, or
    // bytes that are no ELF at all, would otherwise send every region to the host unsaid.
    if (machine != abi::kElfMachineX86_64 && machine != 0) {
      log::info(log::Offload, "%s is for ELF machine %u, which Ferry's devices do not run (x86_64 CPU devices, "
                "nvptx64 GPUs): %s", describeImage(image).c_str(), machine, st.message().c_str());
      return false;
    }
    noteOffloadFailure();
    log::error(log::Offload,
               "cannot use %s: %s. Its target regions run on the host instead (OMP_TARGET_OFFLOAD=mandatory "
               "makes that an error). Rebuild the program with clang-16 -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu",
               describeImage(image).c_str(), st.message().c_str());
    return false;
  }
  return remember(image, true);
}

bool ImageRouter::remember(const __tgt_device_image* image, bool cpu) {
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
