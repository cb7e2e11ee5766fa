// LLVM's OffloadBinary container, in which clang 16 wraps every device image, both where
// libomptarget hands images to a plugin and in a program's `.llvm.offloading` section
// (llvm/include/llvm/Object/OffloadBinary.h, LLVM 16): a 32-byte header (magic, version,
// size, entry offset, entry size), a 40-byte entry (image kind, offload kind, flags, string
// offset, string count, image offset, image size), and a string table of (key, value)
// offsets whose "triple" names the image's target.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "platform/status.h"

namespace ferry::service {

struct OffloadBinary {
  uint64_t size = 0;                // of the whole container
  std::span<const uint8_t> image;   // the device image it holds
  std::string_view triple;          // "" when the container names none
};

// Whether `bytes` start with the container's magic.
bool isOffloadBinary(std::span<const uint8_t> bytes);
// The container at the start of `bytes`, checked to lie within them.
Result<OffloadBinary> parseOffloadBinary(std::span<const uint8_t> bytes);

}  // namespace ferry::service
