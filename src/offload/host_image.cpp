#include "offload/host_image.h"

#include "service/offload_binary.h"

namespace ferry::offload {
namespace {

std::span<const uint8_t> imageBytes(const __tgt_device_image* image) {
  auto* b = static_cast<const uint8_t*>(image->ImageStart);
  auto* e = static_cast<const uint8_t*>(image->ImageEnd);
  return {b, static_cast<size_t>(e - b)};
}

}  // namespace

Result<std::span<const uint8_t>> innerElf(std::span<const uint8_t> bytes) {
  if (!service::isOffloadBinary(bytes)) return bytes;
  auto bin = service::parseOffloadBinary(bytes);
  if (!bin) return bin.takeStatus();
  return bin->image;
}

Status checkCpuImage(const __tgt_device_image* image, uint16_t machine) {
  auto elf = innerElf(imageBytes(image));
  if (!elf) return elf.takeStatus();
  return service::checkElf(elf->data(), elf->size(), machine);
}

Status checkX86Image(const __tgt_device_image* image) { return checkCpuImage(image, abi::kElfMachineX86_64); }

bool isX86Image(const __tgt_device_image* image) { return checkX86Image(image).isOk(); }

uint16_t imageMachine(const __tgt_device_image* image) {
  auto elf = innerElf(imageBytes(image));
  return elf ? service::elfMachine(elf->data(), elf->size()) : 0;
}

std::string describeImage(const __tgt_device_image* image) {
  size_t count = static_cast<size_t>(image->EntriesEnd - image->EntriesBegin);
  std::string text = "the program's device image (" + std::to_string(count);
  text += count == 1 ? " offload entry" : " offload entries";
  if (count && image->EntriesBegin->name) text += std::string(": ") + image->EntriesBegin->name;
  if (count > 1) text += ", ...";
  return text + ")";
}

Result<service::ImageRecord> recordFromImage(const __tgt_device_image* image) {
  auto elf = innerElf(imageBytes(image));
  if (!elf) return elf.takeStatus();
  // CPU images (x86_64, aarch64) are checked here; CUDA images by the serving rank's plugin.
  uint16_t machine = service::elfMachine(elf->data(), elf->size());
  if (machine != service::kElfMachineCuda)
    if (Status st = service::checkElf(elf->data(), elf->size(), machine ? machine : abi::kElfMachineX86_64); !st)
      return st;
  service::ImageRecord rec;
  rec.elf.assign(elf->begin(), elf->end());
  rec.id = service::imageHash(rec.elf.data(), rec.elf.size());
  for (auto* e = image->EntriesBegin; e != image->EntriesEnd; ++e)
    rec.entries.push_back({e->name ? e->name : "", e->size, e->flags, reinterpret_cast<uint64_t>(e->addr)});
  return rec;
}

}  // namespace ferry::offload
