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

// Whether the image is an x86_64 ELF that the stock host plugin on a serving rank can load.
bool isX86Image(const __tgt_device_image* image);

// The image's ELF, entries and identity (hash of the ELF).
Result<service::ImageRecord> recordFromImage(const __tgt_device_image* image);

}  // namespace ferry::offload
