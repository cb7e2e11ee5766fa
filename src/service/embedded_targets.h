// Which offload targets a program was built for, read from the `.llvm.offloading` sections of
// its loaded objects: clang 16's linker wrapper keeps each device image there, in an
// OffloadBinary container (offload_binary.h) that names the image's triple. Device discovery
// uses it to leave GPUs out for a program with no nvptx64 image, as the stock runtime does.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace ferry::service {

struct EmbeddedTargets {
  int images = 0;  // OffloadBinary containers found
  int nvptx = 0;   // ... whose triple is nvptx64-*
  int x86 = 0;     // ... whose triple is x86_64-*
  void add(const EmbeddedTargets& o) { images += o.images, nvptx += o.nvptx, x86 += o.x86; }
};

// The containers in the bytes of one `.llvm.offloading` section (malformed ones are skipped).
EmbeddedTargets targetsInSection(const uint8_t* data, size_t len);
// The `.llvm.offloading` section of one ELF file; nothing when it has none or is unreadable.
EmbeddedTargets targetsInFile(const std::string& path);
// Of this process: the executable and every shared object loaded so far.
EmbeddedTargets loadedTargets();

}  // namespace ferry::service
