#include "offload/image_router.h"

#include "offload/host_image.h"
#include "offload/wait_report.h"
#include "platform/log.h"
#include "service/image.h"

namespace ferry::offload {
namespace {
std::string buildHint(uint16_t machine) {
  switch (machine) {
    case service::kElfMachineCuda: return "-fopenmp-targets=x86_64-pc-linux-gnu,nvptx64-nvidia-cuda";
    case service::kElfMachineAarch64: return "-fopenmp-targets=x86_64-pc-linux-gnu,aarch64-unknown-linux-gnu";
    default: return "-fopenmp-targets=x86_64-pc-linux-gnu";
  }
}
}  // namespace

bool ImageRouter::offer(const __tgt_device_image* image, const std::set<uint16_t>& machines) {
  uint16_t machine = imageMachine(image);
  bool ours = machine == abi::kElfMachineX86_64 || machine == 0 || machines.count(machine);
  if (!ours) {
    log::info(log::Offload, "%s is for %s, which no device of this job runs: %s", describeImage(image).c_str(),
              service::machineName(machine).c_str(),
              machine == service::kElfMachineCuda ? "its regions run on the CPU devices' image, if the program has one"
                                                  : "it is left to other plugins");
    return false;
  }
  if (machine == service::kElfMachineCuda) return remember(image, machine);  // the serving rank's plugin checks it
  if (Status st = checkCpuImage(image, machine ? machine : abi::kElfMachineX86_64); !st) {
    // A damaged image, or bytes that are no ELF at all, would otherwise send every region to
    // the host unsaid.
    noteOffloadFailure();
    log::error(log::Offload,
               "cannot use %s: %s. Its target regions run on the host instead (OMP_TARGET_OFFLOAD=mandatory "
               "makes that an error). Rebuild the program with clang-16 -fopenmp %s",
               describeImage(image).c_str(), st.message().c_str(), buildHint(machine).c_str());
    return false;
  }
  return remember(image, machine);
}

bool ImageRouter::remember(const __tgt_device_image* image, uint16_t machine) {
  std::lock_guard lock(mutex_);
  byEntries_[image->EntriesBegin][machine] = image;
  return true;
}

Result<const __tgt_device_image*> ImageRouter::select(const __tgt_device_image* image, uint16_t machine) const {
  std::lock_guard lock(mutex_);
  auto it = byEntries_.find(image->EntriesBegin);
  if (it != byEntries_.end())
    if (auto chosen = it->second.find(machine); chosen != it->second.end()) return chosen->second;
  std::string what = "this device runs " + service::machineName(machine) + " code but the program has no " +
                     service::machineName(machine) + " image; build with " + buildHint(machine);
  if (machine == service::kElfMachineCuda)
    return Status(Errc::LoadFailed, what + ", or set FERRY_GPUS_PER_RANK=0 to serve CPU devices only");
  if (machine == abi::kElfMachineX86_64)
    return Status(Errc::LoadFailed, what + ", or set FERRY_DEVICES_PER_RANK=0 to serve GPUs only");
  return Status(Errc::LoadFailed, what + " (a daemon's devices run the image built for its architecture)");
}

}  // namespace ferry::offload
