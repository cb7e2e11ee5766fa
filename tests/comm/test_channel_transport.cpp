// The channel Transport (comm/channel_transport.h) over a socketpair in one process: its calls
// never block, so one thread can play both ends. Order per tag, replies, streams into place
// (also when their bytes come first), a peer that goes, and bytes that are no frame.
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>
#include <thread>

#include "comm/baseline_spec.h"
#include "comm/channel_transport.h"
#include "comm/protocol.h"
#include "comm/tag_pool.h"

namespace ferry::comm {
namespace {

struct Pair {
  std::unique_ptr<ChannelTransport> issuer, server;
  Pair() {
    int fds[2];
    EXPECT_EQ(::socketpair(AF_UNIX, SOCK_STREAM, 0, fds), 0);
    issuer = std::make_unique<ChannelTransport>(fds[0], 0, "client test", "daemon test");
    server = std::make_unique<ChannelTransport>(fds[1], 1, "daemon test", "client test");
  }
};

std::vector<uint8_t> pattern(size_t n, int salt) {
  std::vector<uint8_t> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<uint8_t>((i * 131 + salt) ^ (i >> 9));
  return v;
}

// Pumps both ends until `done` or 10 s.
template <class F>
void until(Pair& p, F done) {
  bool finished = false;
  for (int i = 0; i < 1000000 && !(finished = done()); ++i) {
    ASSERT_TRUE(p.issuer->reap().isOk());
    ASSERT_TRUE(p.server->reap().isOk());
  }
  ASSERT_TRUE(finished);
}

TEST(ChannelTransport, ControlMessagesArriveInOrderWithTheirSource) {
  Pair p;
  for (uint64_t i = 0; i < 300; ++i)
    ASSERT_TRUE(p.issuer->send(1, kControlTag, encode(MsgType::Sync, 0, i, SyncMsg{static_cast<int32_t>(i)})).isOk());
  uint64_t next = 0;
  until(p, [&] {
    auto in = p.server->poll();
    EXPECT_TRUE(in.isOk());
    if (!in.isOk() || !in->has_value()) return next == 300;
    EXPECT_EQ((*in)->source, 0);
    auto msg = decode((*in)->data, (*in)->len);
    EXPECT_TRUE(msg.isOk());
    if (msg.isOk()) {
      EXPECT_EQ(msg->header.seq, next++);
    }
    EXPECT_TRUE(p.server->release(**in).isOk());
    return next == 300;
  });
  EXPECT_EQ(p.issuer->pendingSends(), 0u);
}

TEST(ChannelTransport, RepliesLandInTheirReceiveAndOversizeIsAnError) {
  Pair p;
  auto small = p.issuer->expect(1, 40, 8);
  auto reply = p.issuer->expect(1, 41, 1024);
  ASSERT_TRUE(small.isOk() && reply.isOk());
  ASSERT_TRUE(p.server->send(0, 41, pattern(100, 1)).isOk());
  ASSERT_TRUE(p.server->send(0, 40, pattern(9, 2)).isOk());
  std::optional<size_t> n;
  until(p, [&] {
    auto got = (*reply)->test();
    EXPECT_TRUE(got.isOk());
    if (got.isOk()) n = *got;
    return n.has_value();
  });
  EXPECT_EQ(*n, 100u);
  EXPECT_EQ(std::vector<uint8_t>((*reply)->data(), (*reply)->data() + 100), pattern(100, 1));
  Result<std::optional<size_t>> tooBig = std::optional<size_t>{};
  until(p, [&] { return !(tooBig = (*small)->test()).isOk() || tooBig->has_value(); });
  ASSERT_FALSE(tooBig.isOk());
  EXPECT_NE(tooBig.status().message().find("at most 8"), std::string::npos) << tooBig.status().message();
}

// Chunks sent before the receiving stream opens are kept and copied in; the rest are read
// straight into place. A sender that fills its buffer as it goes (setReady) is honoured.
TEST(ChannelTransport, StreamsMoveEveryByteWhicheverEndOpensFirst) {
  Pair p;
  const size_t len = (3 << 20) + 11;
  auto data = pattern(len, 5);
  std::vector<uint8_t> got(len, 0);
  auto send = p.issuer->openStream(Stream::Dir::Send, 1, 77, data.data(), len, 256 << 10, 4);
  send->setReady(len / 3);
  until(p, [&] { return send->bytesDone() >= (len / 3) / (256 << 10) * (256 << 10); });
  auto recv = p.server->openStream(Stream::Dir::Recv, 0, 77, got.data(), len, 256 << 10, 4);
  send->setReady(len);
  until(p, [&] {
    auto a = send->progress(), b = recv->progress();
    EXPECT_TRUE(a.isOk() && b.isOk());
    return a.isOk() && b.isOk() && *a && *b;
  });
  EXPECT_EQ(recv->bytesDone(), len);
  EXPECT_TRUE(got == data) << "the bytes differ";
}

// A retrieve's reply and its chunks travel on one tag: the receive posted first gets the
// first frame, the stream opened after it the rest, as MPI matches in posting order.
TEST(ChannelTransport, ClaimsOnATagAreServedInPostingOrder) {
  Pair p;
  auto data = pattern(1 << 20, 7);
  std::vector<uint8_t> got(data.size(), 0);
  auto reply = p.issuer->expect(1, 90, 64);
  auto recv = p.issuer->openStream(Stream::Dir::Recv, 1, 90, got.data(), got.size(), 128 << 10, 4);
  ASSERT_TRUE(p.server->send(0, 90, {1, 2, 3}).isOk());
  auto send = p.server->openStream(Stream::Dir::Send, 0, 90, data.data(), data.size(), 128 << 10, 4);
  until(p, [&] { return *send->progress() && *recv->progress(); });
  auto n = (*reply)->test();
  ASSERT_TRUE(n.isOk() && n->has_value());
  EXPECT_EQ(**n, 3u);
  EXPECT_TRUE(got == data);
}

TEST(ChannelTransport, DiscardingStreamTakesTheBytesAndKeepsNone) {
  Pair p;
  auto data = pattern(1 << 20, 6);
  auto send = p.issuer->openStream(Stream::Dir::Send, 1, 78, data.data(), data.size(), 64 << 10, 4);
  auto drain = p.server->openStream(Stream::Dir::Recv, 0, 78, nullptr, data.size(), 64 << 10, 1);
  until(p, [&] { return *send->progress() && *drain->progress(); });
  auto after = p.server->take(0, 78);
  ASSERT_TRUE(after.isOk());
  EXPECT_FALSE(after->has_value()) << "no chunk was left behind";
}

TEST(ChannelTransport, APeerThatGoesFailsTheWaitWithItsName) {
  Pair p;
  TagPool tags;
  auto watch = p.issuer->watch(1, tags);
  EXPECT_TRUE(watch->poll("a reply").isOk());
  p.server.reset();  // closes its end
  Status st;
  for (int i = 0; i < 1000000 && st.isOk(); ++i) st = watch->poll("a reply");
  EXPECT_EQ(st.code(), Errc::Unavailable);
  EXPECT_NE(st.message().find("daemon test closed the connection"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("waited for a reply"), std::string::npos) << st.message();
  EXPECT_FALSE(p.issuer->send(1, kControlTag, {1, 2, 3}).isOk()) << "a broken channel fails every later call";
}

TEST(ChannelTransport, BytesThatAreNoFrameCloseTheConnection) {
  int fds[2];
  ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM, 0, fds), 0);
  ChannelTransport server(fds[1], 1, "daemon test", "client test");
  const char garbage[] = "GET / HTTP/1.1\r\nHost: x\r\n\r\n";
  ASSERT_EQ(::write(fds[0], garbage, sizeof garbage), static_cast<ssize_t>(sizeof garbage));
  auto in = server.poll();
  ASSERT_FALSE(in.isOk());
  EXPECT_EQ(in.status().code(), Errc::Protocol);
  EXPECT_NE(in.status().message().find("no Ferry channel frame"), std::string::npos) << in.status().message();
  ::close(fds[0]);
}

TEST(ChannelTransport, AHugeFrameIsRefusedBeforeAnyAllocation) {
  int fds[2];
  ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM, 0, fds), 0);
  ChannelTransport server(fds[1], 1, "daemon test", "client test");
  uint8_t header[kChannelFrameHeader];
  uint32_t magic = kChannelFrameMagic, tag = kControlTag;
  uint64_t len = 1ull << 40;
  std::memcpy(header, &magic, 4);
  std::memcpy(header + 4, &tag, 4);
  std::memcpy(header + 8, &len, 8);
  ASSERT_EQ(::write(fds[0], header, sizeof header), static_cast<ssize_t>(sizeof header));
  auto in = server.poll();
  ASSERT_FALSE(in.isOk());
  EXPECT_NE(in.status().message().find("a frame of 1099511627776 bytes"), std::string::npos) << in.status().message();
  ::close(fds[0]);
}

TEST(ChannelTransport, BaselineRunsBetweenTwoThreads) {
  Pair p;
  for (auto kind : {BaselineKind::PingPong, BaselineKind::Bandwidth}) {
    BaselineSpec spec{kind, 4096, 2, 20, 8};
    Result<double> responder = 0.0;
    std::thread t([&] { responder = p.server->baseline(0, false, spec); });
    auto seconds = p.issuer->baseline(1, true, spec);
    t.join();
    ASSERT_TRUE(seconds.isOk()) << seconds.status().message();
    ASSERT_TRUE(responder.isOk()) << responder.status().message();
    EXPECT_GT(*seconds, 0.0);
  }
}

}  // namespace
}  // namespace ferry::comm
