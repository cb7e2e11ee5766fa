// The channel handshake (comm/channel_auth.h): both ends prove they hold the token; a wrong
// token, a replayed answer, an impostor daemon, another version, garbage and silence are all
// refused with a reason, and the token file must be its owner's alone.
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <thread>

#include "comm/channel_auth.h"
#include "comm/protocol.h"

namespace ferry::comm {
namespace {

ChannelToken token(const char* s) { return ChannelToken{std::vector<uint8_t>(s, s + std::strlen(s)), "test"}; }
const ChannelToken kGood = token("0123456789abcdef0123456789abcdef");
const ChannelToken kOther = token("fedcba9876543210fedcba9876543210");

struct Ends {
  std::unique_ptr<ChannelTransport> client, server;
  Ends() {
    int fds[2];
    EXPECT_EQ(::socketpair(AF_UNIX, SOCK_STREAM, 0, fds), 0);
    client = std::make_unique<ChannelTransport>(fds[0], 0, "client test", "daemon test");
    server = std::make_unique<ChannelTransport>(fds[1], 1, "daemon test", "client test");
  }
};

// Runs the server's side on a thread; the transport closes when it fails, as the daemon does.
struct ServerSide {
  Status result;
  std::thread thread;
  ServerSide(Ends& e, const ChannelToken& tok, std::vector<uint8_t> announcement, double timeout = 5) {
    thread = std::thread([&e, &tok, announcement, timeout, this] {
      result = authenticateClient(*e.server, tok, announcement, timeout);
      if (!result.isOk()) e.server.reset();
    });
  }
  ~ServerSide() {
    if (thread.joinable()) thread.join();
  }
};

TEST(ChannelAuth, TheSameTokenOnBothEndsLetsTheAnnouncementThrough) {
  Ends e;
  ServerSide server(e, kGood, {1, 2, 3, 4});
  auto got = authenticateServer(*e.client, kGood, 5);
  server.thread.join();
  ASSERT_TRUE(server.result.isOk()) << server.result.message();
  ASSERT_TRUE(got.isOk()) << got.status().message();
  EXPECT_EQ(*got, (std::vector<uint8_t>{1, 2, 3, 4}));
}

TEST(ChannelAuth, AWrongTokenIsRefusedAndTheClientToldWhy) {
  Ends e;
  ServerSide server(e, kGood, {1});
  auto got = authenticateServer(*e.client, kOther, 5);
  server.thread.join();
  EXPECT_EQ(server.result.code(), Errc::PermissionDenied);
  EXPECT_NE(server.result.message().find("does not hold this daemon's token"), std::string::npos);
  ASSERT_FALSE(got.isOk());
  EXPECT_NE(got.status().message().find("is the token the daemon's?"), std::string::npos) << got.status().message();
}

// A client's answer to one challenge is worthless for another: the server's nonce is fresh.
TEST(ChannelAuth, AReplayedResponseIsRefused) {
  Ends e;
  ServerSide server(e, kGood, {1});
  std::vector<uint8_t> storage;
  auto recv = e.client->expect(1, kHandshakeTag, 1024);
  ASSERT_TRUE(recv.isOk());
  for (int i = 0; i < 1000000; ++i)
    if (auto n = (*recv)->test(); n.isOk() && n->has_value()) break;
  ResponseMsg recorded;  // as a recording of another session would hold: a MAC over another nonce
  recorded.nonce.fill(7);
  recorded.mac.fill(0x42);
  ASSERT_TRUE(e.client->send(1, kHandshakeTag, encode(MsgType::Response, kNoDevice, 0, recorded)).isOk());
  server.thread.join();
  EXPECT_EQ(server.result.code(), Errc::PermissionDenied) << server.result.message();
}

// A daemon that does not hold the token cannot pass itself off as the real one.
TEST(ChannelAuth, AnImpostorDaemonIsRefusedByTheClient) {
  Ends e;
  std::thread impostor([&] {
    ChallengeMsg c;
    c.nonce.fill(1);
    (void)e.server->send(0, kHandshakeTag, encode(MsgType::Challenge, kNoDevice, 0, c));
    auto recv = e.server->expect(0, kHandshakeTag, 1024);
    for (int i = 0; i < 1000000; ++i)
      if (auto n = (*recv)->test(); n.isOk() && n->has_value()) break;
    WelcomeMsg w;  // without the token, any MAC is a guess
    w.mac.fill(9);
    (void)e.server->send(0, kHandshakeTag, encode(MsgType::Welcome, kNoDevice, 0, w));
  });
  auto got = authenticateServer(*e.client, kGood, 5);
  impostor.join();
  ASSERT_FALSE(got.isOk());
  EXPECT_EQ(got.status().code(), Errc::PermissionDenied);
  EXPECT_NE(got.status().message().find("could not prove it holds the token"), std::string::npos);
}

TEST(ChannelAuth, APeerOfAnotherVersionIsToldSo) {
  Ends e;
  auto old = encode(MsgType::Challenge, kNoDevice, 0, ChallengeMsg{});
  uint16_t v = kProtocolVersion - 1;
  std::memcpy(old.data() + 4, &v, 2);
  ASSERT_TRUE(e.server->send(0, kHandshakeTag, old).isOk());
  auto got = authenticateServer(*e.client, kGood, 5);
  ASSERT_FALSE(got.isOk());
  EXPECT_EQ(got.status().code(), Errc::VersionMismatch);
  EXPECT_NE(got.status().message().find("peer speaks Ferry protocol version " + std::to_string(v)), std::string::npos)
      << got.status().message();
}

TEST(ChannelAuth, GarbageAndSilenceEndTheHandshake) {
  {
    Ends e;
    ServerSide server(e, kGood, {});
    ASSERT_TRUE(e.client->send(1, kHandshakeTag, {0xde, 0xad, 0xbe, 0xef}).isOk());
    server.thread.join();
    EXPECT_EQ(server.result.code(), Errc::Protocol) << server.result.message();
  }
  {
    Ends e;
    ServerSide server(e, kGood, {}, 0.2);
    server.thread.join();  // the client never answers
    EXPECT_EQ(server.result.code(), Errc::Timeout) << server.result.message();
    EXPECT_NE(server.result.message().find("no response within the handshake's time"), std::string::npos);
  }
}

TEST(ChannelAuth, TokenFilesMustBeTheOwnersAlone) {
  std::string path = ::testing::TempDir() + "ferry_token_" + std::to_string(getpid());
  {
    std::ofstream(path) << "0123456789abcdef0123456789abcdef\n";
  }
  ASSERT_EQ(chmod(path.c_str(), 0644), 0);
  auto open = readTokenFile(path);
  ASSERT_FALSE(open.isOk());
  EXPECT_NE(open.status().message().find("mode 644"), std::string::npos) << open.status().message();
  EXPECT_NE(open.status().message().find("chmod 600 " + path), std::string::npos);
  ASSERT_EQ(chmod(path.c_str(), 0600), 0);
  auto ok = readTokenFile(path);
  ASSERT_TRUE(ok.isOk()) << ok.status().message();
  EXPECT_EQ(ok->secret.size(), 32u) << "the trailing newline is not part of the token";
  {
    std::ofstream(path) << "short\n";
  }
  auto tooShort = readTokenFile(path);
  ASSERT_FALSE(tooShort.isOk());
  EXPECT_NE(tooShort.status().message().find("at least 16"), std::string::npos);
  std::remove(path.c_str());
  EXPECT_FALSE(readTokenFile(path).isOk());
}

}  // namespace
}  // namespace ferry::comm
