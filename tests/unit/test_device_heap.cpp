#include <gtest/gtest.h>

#include <cstring>

#include "service/device_heap.h"

namespace ferry::service {
namespace {

TEST(DeviceHeap, ReserveWriteRelease) {
  DeviceHeap heap;
  ASSERT_TRUE(heap.reserve(64ull << 30).isOk()) << "64 GiB of address space with MAP_NORESERVE";
  EXPECT_GE(heap.size(), 64ull << 30);
  auto* p = reinterpret_cast<uint8_t*>(heap.base());
  std::memset(p, 0xab, 1 << 20);
  EXPECT_TRUE(heap.contains(heap.base(), 1 << 20));
  EXPECT_FALSE(heap.contains(heap.base() + heap.size() - 10, 20));
  EXPECT_FALSE(heap.contains(heap.base() - 1, 1));
  ASSERT_TRUE(heap.release(heap.base(), 1 << 20).isOk());
  EXPECT_EQ(p[4096], 0) << "released pages read back as zero";
}

TEST(DeviceHeap, ImpossibleReservationSaysWhatToChange) {
  DeviceHeap heap;
  Status st = heap.reserve(uint64_t{1} << 62);
  ASSERT_FALSE(st.isOk());
  EXPECT_NE(st.message().find("FERRY_DEVICE_MEMORY"), std::string::npos);
}

}  // namespace
}  // namespace ferry::service
