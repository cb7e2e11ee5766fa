// copyBytes must equal memcpy at every relative alignment, the 4 KiB-aliasing window it
// copies with its own loop included, and write nothing outside the destination.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "platform/copy.h"

namespace {

constexpr size_t kPage = 4096;

struct PageBuffers {
  // Page-aligned, so that the offsets below are the distances modulo 4 KiB.
  uint8_t* src = static_cast<uint8_t*>(std::aligned_alloc(kPage, 4 * kPage + (1 << 20)));
  uint8_t* dst = static_cast<uint8_t*>(std::aligned_alloc(kPage, 4 * kPage + (1 << 20)));
  ~PageBuffers() {
    std::free(src);
    std::free(dst);
  }
};

TEST(Copy, WindowIsOneToSixtyThreeBytesPastTheSourceModuloAPage) {
  PageBuffers b;
  EXPECT_FALSE(ferry::copyAliases(b.dst, b.src, 8192));           // same page offset
  EXPECT_TRUE(ferry::copyAliases(b.dst + 16, b.src, 8192));       // malloc's 16 against a slot
  EXPECT_TRUE(ferry::copyAliases(b.dst + kPage + 63, b.src, 8192));
  EXPECT_FALSE(ferry::copyAliases(b.dst + 64, b.src, 8192));
  EXPECT_FALSE(ferry::copyAliases(b.dst, b.src + 16, 8192));      // destination before: no stall
  EXPECT_FALSE(ferry::copyAliases(b.dst + 16, b.src, 4095));      // memcpy's vector path anyway
}

// Copies with `copy` at every distance and size, and checks the bytes and both ends.
void expectEqualsMemcpy(const char* what, void (*copy)(uint8_t*, const uint8_t*, size_t)) {
  PageBuffers b;
  const size_t total = 4 * kPage + (1 << 20);
  for (size_t i = 0; i < total; ++i) b.src[i] = static_cast<uint8_t>(i * 131 + 7);
  const std::vector<size_t> sizes = {0, 1, 63, 64, 65, 255, 256, 1023, 4095, 4096, 4097, 4096 + 255, 65536 + 3,
                                     (1 << 20) + 5};
  const std::vector<size_t> offsets = {0, 1, 15, 16, 17, 31, 32, 63, 64, 65, 4095, 4096 + 16};
  for (size_t srcOff : {size_t{0}, size_t{16}, size_t{100}}) {
    for (size_t dstOff : offsets) {
      for (size_t n : sizes) {
        if (dstOff + n + 1 > total || srcOff + n > total) continue;
        std::memset(b.dst, 0xAB, dstOff + n + 64 < total ? dstOff + n + 64 : total);
        copy(b.dst + dstOff, b.src + srcOff, n);
        ASSERT_EQ(0, std::memcmp(b.dst + dstOff, b.src + srcOff, n))
            << what << ": n=" << n << " src+" << srcOff << " dst+" << dstOff;
        if (dstOff > 0) {
          ASSERT_EQ(0xAB, b.dst[dstOff - 1]) << what << " wrote before the destination";
        }
        ASSERT_EQ(0xAB, b.dst[dstOff + n]) << what << " wrote past the destination, n=" << n << " dst+" << dstOff;
      }
    }
  }
}

TEST(Copy, EqualsMemcpyAtEveryOffsetAndSize) {
  expectEqualsMemcpy("copyBytes", [](uint8_t* d, const uint8_t* s, size_t n) { ferry::copyBytes(d, s, n); });
}

// copyBytes takes one loop on this CPU; the other CPUs' loop is checked here too.
TEST(Copy, EveryVectorLoopThisCpuRunsEqualsMemcpy) {
  auto loops = ferry::copyLoopsOfThisCpu();
  if (loops.empty()) GTEST_SKIP() << "not x86_64: copyBytes is memcpy";
  for (const auto& loop : loops) expectEqualsMemcpy(loop.name, loop.fn);
}

}  // namespace
