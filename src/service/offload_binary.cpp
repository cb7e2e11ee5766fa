#include "service/offload_binary.h"

#include <cstring>

namespace ferry::service {
namespace {

constexpr uint8_t kMagic[4] = {0x10, 0xff, 0x10, 0xad};
constexpr uint64_t kHeader = 32, kEntry = 40, kStringEntry = 16;

template <typename T>
T load(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

// The NUL-terminated string at `off` of the container, or "" if it runs past the end.
std::string_view stringAt(std::span<const uint8_t> bin, uint64_t off) {
  if (off >= bin.size()) return {};
  auto* s = reinterpret_cast<const char*>(bin.data() + off);
  size_t n = strnlen(s, bin.size() - off);
  return n == bin.size() - off ? std::string_view() : std::string_view(s, n);
}

}  // namespace

bool isOffloadBinary(std::span<const uint8_t> bytes) {
  return bytes.size() >= 4 && std::memcmp(bytes.data(), kMagic, 4) == 0;
}

Result<OffloadBinary> parseOffloadBinary(std::span<const uint8_t> bytes) {
  if (!isOffloadBinary(bytes)) return Status(Errc::LoadFailed, "not an OffloadBinary container");
  if (bytes.size() < kHeader) return Status(Errc::LoadFailed, "OffloadBinary header is truncated");
  OffloadBinary b;
  b.size = load<uint64_t>(bytes.data() + 8);
  uint64_t entry = load<uint64_t>(bytes.data() + 16);
  if (b.size > bytes.size() || b.size < kHeader || entry > b.size || b.size - entry < kEntry)
    return Status(Errc::LoadFailed, "OffloadBinary header points past its end");
  auto bin = bytes.first(b.size);
  const uint8_t* e = bin.data() + entry;
  uint64_t strings = load<uint64_t>(e + 8), count = load<uint64_t>(e + 16);
  uint64_t imageOffset = load<uint64_t>(e + 24), imageSize = load<uint64_t>(e + 32);
  if (imageOffset > b.size || imageSize > b.size - imageOffset)
    return Status(Errc::LoadFailed, "OffloadBinary image lies outside the container");
  b.image = bin.subspan(imageOffset, imageSize);
  for (uint64_t i = 0; i < count && strings <= b.size && (b.size - strings) / kStringEntry > i; ++i) {
    const uint8_t* kv = bin.data() + strings + kStringEntry * i;
    if (stringAt(bin, load<uint64_t>(kv)) == "triple") b.triple = stringAt(bin, load<uint64_t>(kv + 8));
  }
  return b;
}

}  // namespace ferry::service
