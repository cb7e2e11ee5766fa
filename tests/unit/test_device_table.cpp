#include <gtest/gtest.h>

#include <regex>

#include "offload/device_table.h"

namespace ferry::offload {
namespace {

TEST(DeviceTable, LocalAnnouncementRoundTrips) {
  std::vector<DeviceEntry> local(2);
  local[0].localIndex = 0;
  local[0].memoryBytes = 1ull << 33;
  local[0].heapBase = 0x7f0000000000;
  local[0].clientHeap = true;
  local[0].description = "x86_64 host plugin device 0, 2 thread(s)";
  local[0].machine = 183;  // an aarch64 daemon's cores
  local[1].localIndex = 1;
  local[1].kind = service::DeviceKind::Gpu;
  local[1].machine = 190;
  auto bytes = DeviceTable::encodeLocal(local);
  auto back = DeviceTable::decodeLocal(bytes.data(), bytes.size());
  ASSERT_TRUE(back.isOk()) << back.status().message();
  ASSERT_EQ(back->size(), 2u);
  EXPECT_EQ((*back)[0].memoryBytes, 1ull << 33);
  EXPECT_EQ((*back)[0].heapBase, 0x7f0000000000u);
  EXPECT_TRUE((*back)[0].clientHeap);
  EXPECT_EQ((*back)[0].description, local[0].description);
  EXPECT_EQ((*back)[1].kind, service::DeviceKind::Gpu);
  EXPECT_FALSE((*back)[1].clientHeap);
  EXPECT_EQ((*back)[0].machine, 183) << "the machine picks the image a daemon's device runs";
  EXPECT_EQ(machineOf((*back)[1]), 190);
}

TEST(DeviceTable, MalformedAnnouncementsAreRejected) {
  std::vector<DeviceEntry> local(1);
  auto bytes = DeviceTable::encodeLocal(local);
  for (size_t len = 0; len < bytes.size(); ++len)
    EXPECT_FALSE(DeviceTable::decodeLocal(bytes.data(), len).isOk()) << len;
  auto bad = bytes;
  bad[0] = 200;  // 200 devices on one rank
  EXPECT_FALSE(DeviceTable::decodeLocal(bad.data(), bad.size()).isOk());
  bytes.push_back(1);
  EXPECT_FALSE(DeviceTable::decodeLocal(bytes.data(), bytes.size()).isOk());
}

TEST(DeviceTable, RowsShowRankHostNodeKindMemory) {
  DeviceEntry e;
  e.index = 3;
  e.rank = 2;
  e.node = 1;
  e.host = "node17";
  e.memoryBytes = 12ull << 30;
  auto t = DeviceTable::fromEntries({e});
  std::string row = t.row(0);
  // Each value in its own column, in the header's order (a substring test would let "2"
  // match "12 GiB" and "1" match "node17").
  EXPECT_TRUE(std::regex_search(row, std::regex("^3 +2 +node17 +1 +cpu +12 GiB( |$)"))) << row;
  for (const char* col : {"device", "rank", "host", "node", "kind", "memory"})
    EXPECT_NE(DeviceTable::header().find(col), std::string::npos);
}

}  // namespace
}  // namespace ferry::offload
