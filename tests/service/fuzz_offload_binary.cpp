// Input: LLVM OffloadBinary containers, as clang-16's linker wrapper writes them. They come
// from the program Ferry serves, which anyone may have built (or damaged): libomptarget
// hands each image still wrapped (offload/host_image.cpp unwraps it), and every rank reads
// the `.llvm.offloading` section of each loaded ELF file, where containers follow one
// another (service/embedded_targets.cpp), to learn which targets the program has.
//
// Properties: the container's image and triple lie inside the bytes given; the section
// walker counts no more targets than containers, and never more containers than 8-byte
// steps fit in the section.
#include <cstddef>
#include <cstdint>
#include <span>

#include "fuzz_check.h"
#include "service/embedded_targets.h"
#include "service/offload_binary.h"

namespace {
using namespace ferry::service;

bool inside(std::span<const uint8_t> all, const void* p, size_t len) {
  auto* b = static_cast<const uint8_t*>(p);
  return len == 0 || (b >= all.data() && len <= all.size() && b - all.data() <= static_cast<ptrdiff_t>(all.size() - len));
}

void checkContainer(std::span<const uint8_t> bytes) {
  auto bin = parseOffloadBinary(bytes);
  if (!bin) {
    FUZZ_CHECK(bin.status().code() == ferry::Errc::LoadFailed, "a refused container has an odd error code");
    return;
  }
  FUZZ_CHECK(isOffloadBinary(bytes), "a container without the magic was accepted");
  FUZZ_CHECK(bin->size <= bytes.size(), "the container is larger than its bytes");
  FUZZ_CHECK(inside(bytes.first(bin->size), bin->image.data(), bin->image.size()), "the image lies outside");
  FUZZ_CHECK(inside(bytes.first(bin->size), bin->triple.data(), bin->triple.size()), "the triple lies outside");
}

void checkSection(std::span<const uint8_t> bytes) {
  EmbeddedTargets t = targetsInSection(bytes.data(), bytes.size());
  FUZZ_CHECK(t.nvptx + t.x86 <= t.images, "more targets than containers");
  FUZZ_CHECK(static_cast<size_t>(t.images) <= (bytes.size() + 7) / 8, "more containers than fit");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::span<const uint8_t> bytes(data, size);
  checkContainer(bytes);
  checkSection(bytes);
  return 0;
}
