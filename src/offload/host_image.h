// Device images as libomptarget hands them to the plugin: possibly still wrapped in an
// LLVM OffloadBinary container, with the offload entries alongside. This turns one into
// what a serving rank needs (service::ImageRecord) and checks that it is ours to run.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "platform/status.h"
#include "service/image.h"
#include "service/omptarget_abi.h"

namespace ferry::offload {

// The inner ELF of an OffloadBinary, or the bytes themselves when they are not wrapped.
Result<std::span<const uint8_t>> innerElf(std::span<const uint8_t> bytes);

// Whether the image is an x86_64 ELF that the stock host plugin on a serving rank can load;
// checkX86Image says why not. checkCpuImage is the same for another CPU's machine (an aarch64
// daemon's).
Status checkX86Image(const __tgt_device_image* image);
Status checkCpuImage(const __tgt_device_image* image, uint16_t machine);
bool isX86Image(const __tgt_device_image* image);
// The image's ELF machine (62 x86_64, 183 aarch64, 190 CUDA), 0 when it is no ELF64 at all.
uint16_t imageMachine(const __tgt_device_image* image);
// "the program's device image (3 offload entries: __omp_offloading_..._main_l12, ...)".
std::string describeImage(const __tgt_device_image* image);

// The image's ELF, entries and identity (hash of the ELF).
Result<service::ImageRecord> recordFromImage(const __tgt_device_image* image);

}  // namespace ferry::offload
