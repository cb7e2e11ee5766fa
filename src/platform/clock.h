// Monotonic time for timeouts, backoff and benchmarks.
#pragma once

#include <chrono>
#include <cstdint>

namespace ferry {

inline uint64_t nowNs() {
  return static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
          .count());
}
inline double nowSeconds() { return static_cast<double>(nowNs()) * 1e-9; }

}  // namespace ferry
