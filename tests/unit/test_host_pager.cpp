// The unified-shared-memory pager's address-layout check: which of rank 0's mappings a
// serving rank could not mirror because it maps those addresses itself. (Paging itself runs
// in the offload.usm.* integration tests, between real ranks.)
#include <gtest/gtest.h>
#include <unistd.h>

#include "service/host_pager.h"

namespace ferry::service::hostpager {
namespace {

const char* kHost =
    "55d0c0000000-55d0c0001000 r--p 00000000 08:01 1234 /usr/bin/app\n"
    "55d0c2000000-55d0c2100000 rw-p 00000000 00:00 0 [heap]\n"
    "7f0000000000-7f0000200000 ---p 00000000 00:00 0 \n"
    "7f0000200000-7f0000400000 rw-p 00000000 00:00 0 \n"
    "7ffd00000000-7ffd00021000 rw-p 00000000 00:00 0 [stack]\n"
    "7ffd00100000-7ffd00104000 r--p 00000000 00:00 0 [vvar]\n"
    "ffffffffff600000-ffffffffff601000 --xp 00000000 00:00 0 [vsyscall]\n";

TEST(HostPager, ParsesProcMaps) {
  auto maps = parseMaps(kHost);
  ASSERT_EQ(maps.size(), 7u);
  EXPECT_EQ(maps[0].start, 0x55d0c0000000u);
  EXPECT_EQ(maps[0].end, 0x55d0c0001000u);
  EXPECT_EQ(maps[0].perms, "r--p");
  EXPECT_EQ(maps[0].path, "/usr/bin/app");
  EXPECT_EQ(maps[1].path, "[heap]");
  EXPECT_EQ(maps[3].path, "");  // anonymous
  EXPECT_EQ(maps[6].start, 0xffffffffff600000u);
}

TEST(HostPager, SeparateLayoutsDoNotCollide) {
  auto self = parseMaps(
      "5600aa000000-5600aa001000 r--p 00000000 08:01 1234 /usr/bin/app\n"
      "7f1000000000-7f1000100000 rw-p 00000000 00:00 0 \n"
      "7ffc00000000-7ffc00021000 rw-p 00000000 00:00 0 [stack]\n"
      "ffffffffff600000-ffffffffff601000 --xp 00000000 00:00 0 [vsyscall]\n");
  EXPECT_EQ(firstCollision(parseMaps(kHost), self), nullptr);
}

TEST(HostPager, AServingRankMappingOverTheHostsDataCollides) {
  auto host = parseMaps(kHost);
  // Inside the host's heap, with other contents.
  auto self = parseMaps("55d0c2080000-55d0c2081000 rw-p 00000000 00:00 0 \n");
  const MapRange* c = firstCollision(host, self);
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->path, "[heap]");
  // Reaching into the host's anonymous data from below.
  self = parseMaps("7f00001ff000-7f0000201000 rw-p 00000000 00:00 0 \n");
  c = firstCollision(host, self);
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->start, 0x7f0000200000u);
}

TEST(HostPager, TheSameReadOnlyFileMappingIsNoCollision) {
  auto host = parseMaps(kHost);
  auto self = parseMaps("55d0c0000000-55d0c0001000 r--p 00000000 08:01 1234 /usr/bin/app\n");
  EXPECT_EQ(firstCollision(host, self), nullptr);
  // The same file at the same address but another offset holds other bytes.
  self = parseMaps("55d0c0000000-55d0c0001000 r--p 00001000 08:01 1234 /usr/bin/app\n");
  EXPECT_NE(firstCollision(host, self), nullptr);
}

TEST(HostPager, InaccessibleAndKernelPagesOfTheHostAreNeverRead) {
  auto host = parseMaps(kHost);
  // Over the host's PROT_NONE reservation and its [vvar] page only.
  auto self = parseMaps(
      "7f0000000000-7f0000100000 rw-p 00000000 00:00 0 \n"
      "7ffd00100000-7ffd00101000 rw-p 00000000 00:00 0 \n");
  EXPECT_EQ(firstCollision(host, self), nullptr);
}

TEST(HostPager, RefusesToMirrorItsOwnProcess) {
  Status st = enable(getpid(), Mode::Unified);
  EXPECT_FALSE(st.isOk());
  EXPECT_NE(st.message().find("pid"), std::string::npos) << st.message();
}

}  // namespace
}  // namespace ferry::service::hostpager
