// 64-bit FNV-1a: cheap, stable across builds and machines, so that ranks can compare what
// they hashed (images, settings). Not for hash tables under attack; nothing here is.
#pragma once

#include <cstddef>
#include <cstdint>

namespace ferry {

inline constexpr uint64_t kFnv1aStart = 1469598103934665603ull;

// Folds `len` bytes into `h` (start with kFnv1aStart); chained calls hash the concatenation.
inline uint64_t fnv1a(const void* data, size_t len, uint64_t h = kFnv1aStart) {
  const auto* p = static_cast<const uint8_t*>(data);
  for (size_t i = 0; i < len; ++i) {
    h ^= p[i];
    h *= 1099511628211ull;
  }
  return h;
}

}  // namespace ferry
