#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <string>

#include "service/device_heap.h"

namespace ferry::service {
namespace {

// The process's lazily freed memory (/proc/self/smaps_rollup), in KiB; 0 if not reported.
uint64_t lazyFreeKiB() {
  std::ifstream in("/proc/self/smaps_rollup");
  std::string key;
  uint64_t kib = 0;
  while (in >> key)
    if (key == "LazyFree:" && in >> kib) return kib;
  return 0;
}

TEST(DeviceHeap, ReserveWriteRelease) {
  DeviceHeap heap;
  ASSERT_TRUE(heap.reserve(64ull << 30).isOk()) << "64 GiB of address space with MAP_NORESERVE";
  EXPECT_GE(heap.size(), 64ull << 30);
  auto* p = reinterpret_cast<uint8_t*>(heap.base());
  std::memset(p, 0xab, 1 << 20);
  EXPECT_TRUE(heap.contains(heap.base(), 1 << 20));
  EXPECT_FALSE(heap.contains(heap.base() + heap.size() - 10, 20));
  EXPECT_FALSE(heap.contains(heap.base() - 1, 1));
  uint64_t lazyBefore = lazyFreeKiB();
  ASSERT_TRUE(heap.release(heap.base(), 1 << 20).isOk());
  // Given back lazily (MADV_FREE: counted as LazyFree until the kernel takes them), or at
  // once where the kernel lacks it (then they read as zero).
  bool lazy = lazyFreeKiB() >= lazyBefore + 512;  // most of the MiB (the kernel may keep a few pages)
  EXPECT_TRUE(lazy || p[4096] == 0) << "LazyFree " << lazyBefore << " -> " << lazyFreeKiB() << " KiB";
  // Either way the range stays usable, as a new block in its place.
  std::memset(p, 0x5c, 1 << 20);
  EXPECT_EQ(p[(1 << 20) - 1], 0x5c);
}

TEST(DeviceHeap, ImpossibleReservationSaysWhatToChange) {
  DeviceHeap heap;
  Status st = heap.reserve(uint64_t{1} << 62);
  ASSERT_FALSE(st.isOk());
  EXPECT_NE(st.message().find("FERRY_DEVICE_MEMORY"), std::string::npos);
}

}  // namespace
}  // namespace ferry::service
