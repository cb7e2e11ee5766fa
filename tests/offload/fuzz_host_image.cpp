// Input: the bytes of one device image as libomptarget hands it to Ferry's plugin on rank 0
// (__tgt_device_image: ImageStart..ImageEnd), which is whatever the user's program carries:
// an x86_64 or nvptx64 ELF wrapped in an OffloadBinary container by clang-16, or a damaged,
// foreign or hand-made one. The plugin unwraps it (innerElf), checks it (checkX86Image,
// imageMachine) when libomptarget offers it (ImageRouter::offer, is_valid_binary), routes it
// (ImageRouter::select) and turns it into what a serving rank loads (recordFromImage).
//
// Properties: nothing reads outside the image; an image the router takes is the one it
// selects for its kind of device; a record made from an image travels (packImage,
// unpackImage) to a serving rank unchanged.
#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "fuzz_check.h"
#include "offload/host_image.h"
#include "offload/image_router.h"
#include "platform/log.h"
#include "service/image.h"

namespace {
using namespace ferry;

// The host's entry table that libomptarget passes beside the image: the program's own, not
// part of the untrusted bytes.
char kKernel[] = "__omp_offloading_10302_2a1b3c_main_l12";
char kGlobal[] = "global_counter";
__tgt_offload_entry kEntries[] = {{nullptr, kKernel, 0, 0, 0}, {nullptr, kGlobal, 8, 0, 0}};

void checkRecord(const __tgt_device_image& image) {
  auto rec = offload::recordFromImage(&image);
  if (!rec) return;
  auto elf = offload::innerElf({static_cast<const uint8_t*>(image.ImageStart),
                                static_cast<const uint8_t*>(image.ImageEnd)});
  FUZZ_CHECK(elf.isOk() && rec->elf.size() == elf->size(), "the record's ELF is not the image's");
  FUZZ_CHECK(rec->entries.size() == std::size(kEntries), "the record lost entries");
  std::vector<uint8_t> packed = service::packImage(*rec);
  auto unpacked = service::unpackImage(rec->id, packed.data(), packed.size());
  FUZZ_CHECK(unpacked.isOk() && unpacked->elf == rec->elf, "a packed image does not unpack to itself");
}

// With GPUs and an aarch64 daemon in the job, or CPUs only: an image is taken only for a
// machine some device runs, and one that is taken is a well-formed image of its machine.
void checkRouting(const __tgt_device_image& image, bool jobHasGpus) {
  const std::set<uint16_t> machines = jobHasGpus ? std::set<uint16_t>{62, service::kElfMachineCuda,
                                                                      service::kElfMachineAarch64}
                                                 : std::set<uint16_t>{62};
  offload::ImageRouter router;
  if (!router.offer(&image, machines)) return;
  uint16_t machine = offload::imageMachine(&image);
  FUZZ_CHECK(machines.count(machine), "an image was taken for a machine no device of the job runs");
  auto chosen = router.select(&image, machine);
  FUZZ_CHECK(chosen.isOk() && *chosen == &image, "the router lost an image it took");
  FUZZ_CHECK(machine == service::kElfMachineCuda || offload::checkCpuImage(&image, machine).isOk(),
             "the router took a damaged image for CPU devices");
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  // A damaged image is reported with an error line each time: keep the fuzzer's output clean.
  (void)log::setFile("/dev/null");
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto* start = const_cast<uint8_t*>(data);
  __tgt_device_image image{start, start + size, kEntries, kEntries + std::size(kEntries)};
  (void)offload::checkX86Image(&image);
  (void)offload::imageMachine(&image);
  (void)offload::describeImage(&image);
  checkRecord(image);
  checkRouting(image, false);
  checkRouting(image, true);
  return 0;
}
