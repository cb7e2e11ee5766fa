// What a transport's baseline measures (Transport::baseline): OSU-style ping-pong latency or
// windowed bandwidth between two peers, which benchmarks report Ferry's figures against.
#pragma once

#include <cstdint>

namespace ferry::comm {

inline constexpr int kBaselineTag = 3;

enum class BaselineKind : uint8_t { PingPong = 0, Bandwidth = 1 };

struct BaselineSpec {
  BaselineKind kind = BaselineKind::PingPong;
  uint64_t bytes = 0;
  uint32_t warmup = 0;
  uint32_t iters = 1;
  uint32_t window = 64;  // bandwidth: messages in flight per iteration
};

}  // namespace ferry::comm
