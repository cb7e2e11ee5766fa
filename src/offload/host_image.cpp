#include "offload/host_image.h"

#include <cstring>

namespace ferry::offload {
namespace {

// llvm/include/llvm/Object/OffloadBinary.h (LLVM 16): a 32-byte header, then 40-byte entries.
constexpr uint8_t kOffloadMagic[4] = {0x10, 0xff, 0x10, 0xad};

template <typename T>
T load(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

std::span<const uint8_t> imageBytes(const __tgt_device_image* image) {
  auto* b = static_cast<const uint8_t*>(image->ImageStart);
  auto* e = static_cast<const uint8_t*>(image->ImageEnd);
  return {b, static_cast<size_t>(e - b)};
}

}  // namespace

Result<std::span<const uint8_t>> innerElf(std::span<const uint8_t> bytes) {
  if (bytes.size() < 4 || std::memcmp(bytes.data(), kOffloadMagic, 4) != 0) return bytes;
  if (bytes.size() < 32) return Status(Errc::LoadFailed, "OffloadBinary header is truncated");
  uint64_t size = load<uint64_t>(bytes.data() + 8);
  uint64_t entryOffset = load<uint64_t>(bytes.data() + 16);
  if (size > bytes.size() || entryOffset + 40 > size)
    return Status(Errc::LoadFailed, "OffloadBinary header points past its end");
  const uint8_t* entry = bytes.data() + entryOffset;
  uint64_t imageOffset = load<uint64_t>(entry + 24);
  uint64_t imageSize = load<uint64_t>(entry + 32);
  if (imageOffset > size || imageSize > size - imageOffset)
    return Status(Errc::LoadFailed, "OffloadBinary image lies outside the container");
  return bytes.subspan(imageOffset, imageSize);
}

bool isX86Image(const __tgt_device_image* image) {
  auto elf = innerElf(imageBytes(image));
  return elf && service::checkElf(elf->data(), elf->size()).isOk();
}

Result<service::ImageRecord> recordFromImage(const __tgt_device_image* image) {
  auto elf = innerElf(imageBytes(image));
  if (!elf) return elf.takeStatus();
  // x86_64 images are checked here; others (CUDA) by the serving rank's stock plugin.
  if (service::elfMachine(elf->data(), elf->size()) != service::kElfMachineCuda)
    if (Status st = service::checkElf(elf->data(), elf->size()); !st) return st;
  service::ImageRecord rec;
  rec.elf.assign(elf->begin(), elf->end());
  rec.id = service::imageHash(rec.elf.data(), rec.elf.size());
  for (auto* e = image->EntriesBegin; e != image->EntriesEnd; ++e)
    rec.entries.push_back({e->name ? e->name : "", e->size, e->flags});
  return rec;
}

}  // namespace ferry::offload
