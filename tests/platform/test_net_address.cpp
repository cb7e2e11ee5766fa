// Daemon addresses (platform/net_address.h): what FERRY_REMOTE and `ferry serve --listen` take.
#include <gtest/gtest.h>

#include "platform/config.h"
#include "platform/net_address.h"

namespace ferry {
namespace {

TEST(NetAddress, TcpUnixAndIpv6) {
  auto tcp = parseNetAddress("dpu0:7010");
  ASSERT_TRUE(tcp.isOk());
  EXPECT_EQ(tcp->kind, NetAddress::Kind::Tcp);
  EXPECT_EQ(tcp->host, "dpu0");
  EXPECT_EQ(tcp->port, 7010);
  auto v6 = parseNetAddress("[::1]:9");
  ASSERT_TRUE(v6.isOk());
  EXPECT_EQ(v6->host, "::1");
  auto unix = parseNetAddress("unix:/run/ferry.sock");
  ASSERT_TRUE(unix.isOk());
  EXPECT_EQ(unix->kind, NetAddress::Kind::Unix);
  EXPECT_EQ(unix->path, "/run/ferry.sock");
}

TEST(NetAddress, BadAddressesSayWhatIsWrong) {
  for (const char* bad : {"dpu0", ":7010", "dpu0:0", "dpu0:65536", "dpu0:70x", "::1:7010", "[::1:7010", "unix:", ""}) {
    auto a = parseNetAddress(bad);
    ASSERT_FALSE(a.isOk()) << bad;
    EXPECT_NE(a.status().message().find("HOST:PORT, [IPv6]:PORT or unix:PATH"), std::string::npos) << bad;
  }
  auto list = parseNetAddressList("a:1,unix:/x,[::1]:2");
  ASSERT_TRUE(list.isOk());
  EXPECT_EQ(list->size(), 3u);
  EXPECT_FALSE(parseNetAddressList("a:1,,b:2").isOk()) << "an empty item";
}

// The registry refuses a bad FERRY_REMOTE when it is read, not when rank 0 connects.
TEST(NetAddress, TheRegistryChecksFerryRemote) {
  std::vector<std::string> env = {"FERRY_REMOTE=dpu0:7010,dpu1"};
  auto c = Config::fromEntries(env);
  ASSERT_FALSE(c.isOk());
  EXPECT_NE(c.status().message().find("FERRY_REMOTE"), std::string::npos) << c.status().message();
  std::vector<std::string> ok = {"FERRY_REMOTE=dpu0:7010,unix:/tmp/s"};
  EXPECT_TRUE(Config::fromEntries(ok).isOk());
}

}  // namespace
}  // namespace ferry
