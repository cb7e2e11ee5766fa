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

void checkRouting(const __tgt_device_image& image, bool jobHasGpus) {
  offload::ImageRouter router;
  if (!router.offer(&image, jobHasGpus)) return;
  bool gpu = offload::imageMachine(&image) == service::kElfMachineCuda;
  FUZZ_CHECK(!gpu || jobHasGpus, "a GPU image was taken by a job without GPUs");
  auto chosen = router.select(&image, gpu ? service::DeviceKind::Gpu : service::DeviceKind::Cpu);
  FUZZ_CHECK(chosen.isOk() && *chosen == &image, "the router lost an image it took");
  FUZZ_CHECK(gpu || offload::isX86Image(&image), "the router took a damaged image for CPU devices");
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
