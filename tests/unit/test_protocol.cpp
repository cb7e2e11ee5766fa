// Wire protocol: every message type survives encode/decode; truncated, corrupt, foreign
// and other-version input is reported as such and never read out of bounds.
#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "comm/protocol.h"

namespace ferry::comm {
namespace {

struct Sample {
  MsgType type;
  Body body;
  std::vector<uint8_t> payload;
};

std::vector<Sample> samples() {
  DataDesc mpi{DataMode::Mpi, 1 << 20, 2, 77, 65536, 0};
  DataDesc cma{DataMode::Cma, 4096, 1, 78, 0, 0x7f0000001000};
  std::vector<uint8_t> bytes = {1, 2, 3, 4, 5};
  LaunchMsg launch{0xabc, 4, 8, 1000, 61, {1, 2, 3}, {0, -16, 8}};
  ReplyMsg reply;
  reply.code = Errc::LoadFailed;
  reply.message = "libfoo.so: cannot open shared object file";
  reply.values = {10, 20, 30};
  reply.inlineSize = bytes.size();
  return {
      {MsgType::InitDevice, InitDeviceMsg{0x8, 99}, {}},
      {MsgType::LoadImage, LoadImageMsg{0x1234, 55, 3, DataDesc{DataMode::Inline, 5}, nullptr}, bytes},
      {MsgType::LoadImage, LoadImageMsg{0x1234, 55, 3, mpi, nullptr}, {}},
      {MsgType::Alloc, AllocMsg{0x1000, 64, 0, 12}, {}},
      {MsgType::Free, FreeMsg{0x1000, 64, 3}, {}},
      {MsgType::Submit, SubmitMsg{0x2000, DataDesc{DataMode::Inline, 5}, nullptr}, bytes},
      {MsgType::Submit, SubmitMsg{0x2000, cma, nullptr}, {}},
      {MsgType::Retrieve, RetrieveMsg{0x3000, 41, mpi}, {}},
      {MsgType::ExchangeSend, ExchangeMsg{0x4000, mpi}, {}},
      {MsgType::ExchangeRecv, ExchangeMsg{0x5000, cma}, {}},
      {MsgType::Launch, launch, {}},
      {MsgType::Sync, SyncMsg{17}, {}},
      {MsgType::Ping, PingMsg{18}, {}},
      {MsgType::Shutdown, ShutdownMsg{}, {}},
      {MsgType::Reply, reply, bytes},
      {MsgType::Rtr, RtrMsg{5, 0x6000, 4096}, {}},
      {MsgType::Fin, FinMsg{5, Errc::Unavailable, "peer gone"}, {}},
      {MsgType::Rts, RtsMsg{5, 0x7000, 2048, 4096}, {}},
  };
}

std::vector<uint8_t> encodeSample(const Sample& s) {
  return encode(s.type, 3, 42, s.body, s.payload.empty() ? nullptr : s.payload.data(), s.payload.size());
}

TEST(Protocol, EveryTypeRoundTrips) {
  for (const Sample& s : samples()) {
    auto bytes = encodeSample(s);
    ASSERT_LE(bytes.size(), kMaxControlMessage);
    auto msg = decode(bytes.data(), bytes.size());
    ASSERT_TRUE(msg.isOk()) << msgTypeName(s.type) << ": " << msg.status().message();
    EXPECT_EQ(msg->header.type, s.type);
    EXPECT_EQ(msg->header.device, 3u);
    EXPECT_EQ(msg->header.seq, 42u);
    EXPECT_EQ(msg->body.index(), s.body.index()) << msgTypeName(s.type);
  }
}

// The format on the wire, byte by byte: little-endian whatever the host (comm/wire.h).
TEST(Protocol, HeaderBytesAreLittleEndian) {
  auto bytes = encode(MsgType::Ping, 0x0a0b0c0d, 0x0102030405060708ull, PingMsg{0x11223344});
  ASSERT_EQ(bytes.size(), kHeaderSize + 4);
  const std::vector<uint8_t> expected = {
      'F', 'R', 'R', 'Y',                      // magic
      kProtocolVersion & 0xff, kProtocolVersion >> 8,
      static_cast<uint8_t>(MsgType::Ping), 0,  // type
      0x0d, 0x0c, 0x0b, 0x0a,                  // device
      0, 0, 0, 0,                              // flags
      0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01,  // seq
      4, 0, 0, 0,                              // body length
      0, 0, 0, 0,                              // reserved
      0x44, 0x33, 0x22, 0x11};                 // the ping's reply tag
  EXPECT_EQ(bytes, expected);
}

TEST(Protocol, FieldsSurvive) {
  auto all = samples();
  auto launchBytes = encodeSample(all[10]);
  auto launch = decode(launchBytes.data(), launchBytes.size());
  ASSERT_TRUE(launch.isOk());
  const auto& l = std::get<LaunchMsg>(launch->body);
  EXPECT_EQ(l.kernel, 0xabcu);
  EXPECT_EQ(l.numTeams, 4u);
  EXPECT_EQ(l.threadLimit, 8u);
  EXPECT_EQ(l.tripCount, 1000u);
  EXPECT_EQ(l.replyTag, 61);
  EXPECT_EQ(l.args, (std::vector<uint64_t>{1, 2, 3}));
  EXPECT_EQ(l.offsets, (std::vector<int64_t>{0, -16, 8}));

  auto replyBytes = encodeSample(all[14]);
  auto reply = decode(replyBytes.data(), replyBytes.size());
  ASSERT_TRUE(reply.isOk());
  const auto& r = std::get<ReplyMsg>(reply->body);
  EXPECT_EQ(r.code, Errc::LoadFailed);
  EXPECT_EQ(r.message, "libfoo.so: cannot open shared object file");
  EXPECT_EQ(r.values, (std::vector<uint64_t>{10, 20, 30}));
  ASSERT_EQ(r.inlineSize, 5u);
  EXPECT_EQ(std::memcmp(r.inlineBytes, "\1\2\3\4\5", 5), 0);

  auto submitBytes = encodeSample(all[6]);
  auto submit = decode(submitBytes.data(), submitBytes.size());
  ASSERT_TRUE(submit.isOk());
  const auto& sm = std::get<SubmitMsg>(submit->body);
  EXPECT_EQ(sm.dst, 0x2000u);
  EXPECT_EQ(sm.data.mode, DataMode::Cma);
  EXPECT_EQ(sm.data.remoteAddr, 0x7f0000001000u);
  EXPECT_EQ(sm.data.peer, 1);
}

TEST(Protocol, RtsFieldsSurviveAndASplitBeyondTheSizeIsRejected) {
  auto bytes = encode(MsgType::Rts, kNoDevice, 0, RtsMsg{9, 0x7000, 2048, 4096});
  auto msg = decode(bytes.data(), bytes.size());
  ASSERT_TRUE(msg.isOk()) << msg.status().message();
  const auto& m = std::get<RtsMsg>(msg->body);
  EXPECT_EQ(m.xfer, 9);
  EXPECT_EQ(m.srcAddr, 0x7000u);
  EXPECT_EQ(m.split, 2048u);
  EXPECT_EQ(m.size, 4096u);
  bytes = encode(MsgType::Rts, kNoDevice, 0, RtsMsg{9, 0x7000, 4097, 4096});
  msg = decode(bytes.data(), bytes.size());
  ASSERT_FALSE(msg.isOk()) << "a split beyond the size would have the receiver read past the buffer";
  EXPECT_EQ(msg.status().code(), Errc::Protocol);
}

TEST(Protocol, EveryTruncationIsRejected) {
  for (const Sample& s : samples()) {
    auto bytes = encodeSample(s);
    for (size_t len = 0; len < bytes.size(); ++len) {
      // Fix up the header's length so that the body parser itself meets the short input.
      std::vector<uint8_t> cut(bytes.begin(), bytes.begin() + static_cast<long>(len));
      if (len >= kHeaderSize) {
        uint32_t body = static_cast<uint32_t>(len - kHeaderSize);
        std::memcpy(cut.data() + 24, &body, sizeof body);
      }
      auto msg = decode(cut.data(), cut.size());
      if (s.type == MsgType::Shutdown && len == kHeaderSize) continue;  // an empty body is complete
      EXPECT_FALSE(msg.isOk()) << msgTypeName(s.type) << " truncated to " << len;
      if (!msg.isOk()) {
        EXPECT_EQ(msg.status().code(), Errc::Protocol);
      }
    }
  }
}

TEST(Protocol, LengthMismatchAndTrailingBytes) {
  auto bytes = encodeSample(samples()[0]);
  bytes.push_back(0);
  auto msg = decode(bytes.data(), bytes.size());
  ASSERT_FALSE(msg.isOk());
  EXPECT_NE(msg.status().message().find("body length"), std::string::npos);
  uint32_t body = static_cast<uint32_t>(bytes.size() - kHeaderSize);
  std::memcpy(bytes.data() + 24, &body, sizeof body);
  msg = decode(bytes.data(), bytes.size());
  ASSERT_FALSE(msg.isOk());
  EXPECT_NE(msg.status().message().find("trailing"), std::string::npos);
}

TEST(Protocol, ForeignAndOtherVersionMessages) {
  auto bytes = encodeSample(samples()[11]);
  auto bad = bytes;
  bad[0] ^= 0xff;
  auto msg = decode(bad.data(), bad.size());
  ASSERT_FALSE(msg.isOk());
  EXPECT_NE(msg.status().message().find("magic"), std::string::npos);

  bad = bytes;
  uint16_t v = kProtocolVersion + 1;
  std::memcpy(bad.data() + 4, &v, sizeof v);
  msg = decode(bad.data(), bad.size());
  ASSERT_FALSE(msg.isOk());
  EXPECT_EQ(msg.status().code(), Errc::VersionMismatch);
  EXPECT_NE(msg.status().message().find("version " + std::to_string(kProtocolVersion + 1)), std::string::npos);

  bad = bytes;
  uint16_t t = 999;
  std::memcpy(bad.data() + 6, &t, sizeof t);
  msg = decode(bad.data(), bad.size());
  ASSERT_FALSE(msg.isOk());
  EXPECT_NE(msg.status().message().find("unknown message type"), std::string::npos);
}

TEST(Protocol, HostileLengthsAreBounded) {
  // A launch that claims more arguments than allowed, and an inline payload longer than a
  // control message, must be refused before anything is read or allocated.
  LaunchMsg huge{1, 1, 1, 1, 0, {}, {}};
  auto bytes = encode(MsgType::Launch, 0, 1, huge);
  uint32_t n = kMaxKernelArgs + 1;
  std::memcpy(bytes.data() + kHeaderSize + 28, &n, sizeof n);
  EXPECT_FALSE(decode(bytes.data(), bytes.size()).isOk());

  SubmitMsg s{0x10, DataDesc{DataMode::Inline, 4}, nullptr};
  uint8_t four[4] = {};
  bytes = encode(MsgType::Submit, 0, 1, s, four, 4);
  uint64_t claimed = uint64_t{1} << 40;
  std::memcpy(bytes.data() + kHeaderSize + 8 + 1, &claimed, sizeof claimed);
  EXPECT_FALSE(decode(bytes.data(), bytes.size()).isOk());
}

TEST(Protocol, RandomCorruptionNeverCrashes) {
  std::mt19937 rng(7);
  for (const Sample& s : samples()) {
    auto bytes = encodeSample(s);
    for (int trial = 0; trial < 300; ++trial) {
      auto bad = bytes;
      int flips = 1 + static_cast<int>(rng() % 4);
      for (int f = 0; f < flips; ++f) bad[rng() % bad.size()] ^= static_cast<uint8_t>(1 + rng() % 255);
      (void)decode(bad.data(), bad.size());  // either decodes or reports; must not crash
    }
  }
}

TEST(Protocol, AnnouncementFraming) {
  std::vector<uint8_t> payload = {9, 8, 7};
  auto slot = frameAnnouncement(payload, 256);
  ASSERT_EQ(slot.size(), 256u);
  auto back = unframeAnnouncement(slot.data(), slot.size(), 2);
  ASSERT_TRUE(back.isOk());
  EXPECT_EQ(*back, payload);

  auto other = slot;
  uint16_t v = kProtocolVersion + 3;
  std::memcpy(other.data() + 4, &v, sizeof v);
  auto res = unframeAnnouncement(other.data(), other.size(), 2);
  ASSERT_FALSE(res.isOk());
  EXPECT_EQ(res.status().code(), Errc::VersionMismatch);
  EXPECT_NE(res.status().message().find("rank 2"), std::string::npos);

  std::vector<uint8_t> zeros(256, 0);
  res = unframeAnnouncement(zeros.data(), zeros.size(), 5);
  ASSERT_FALSE(res.isOk());
  EXPECT_NE(res.status().message().find("rank 5"), std::string::npos);
}

}  // namespace
}  // namespace ferry::comm

namespace ferry::comm {
namespace {
TEST(Protocol, PrebuiltOkReplyEqualsTheGeneralEncoding) {
  auto fast = encodeOkReply(1234);
  auto slow = encode(MsgType::Reply, kNoDevice, 1234, ReplyMsg{});
  EXPECT_EQ(fast, slow);
  auto msg = decode(fast.data(), fast.size());
  ASSERT_TRUE(msg.isOk());
  EXPECT_EQ(msg->header.seq, 1234u);
  EXPECT_EQ(std::get<ReplyMsg>(msg->body).code, Errc::Ok);
}
}  // namespace
}  // namespace ferry::comm

namespace ferry::comm {
namespace {
TEST(Protocol, BatchCarriesMessagesInOrder) {
  auto a = encode(MsgType::Sync, 1, 10, SyncMsg{5});
  auto b = encode(MsgType::Launch, 1, 11, LaunchMsg{7, 1, 1, 0, 0, {1}, {0}});
  BatchMsg batch;
  batch.items = {{a.data(), a.size()}, {b.data(), b.size()}};
  auto bytes = encode(MsgType::Batch, kNoDevice, 12, batch);
  auto msg = decode(bytes.data(), bytes.size());
  ASSERT_TRUE(msg.isOk()) << msg.status().message();
  const auto& items = std::get<BatchMsg>(msg->body).items;
  ASSERT_EQ(items.size(), 2u);
  auto first = decode(items[0].first, items[0].second);
  auto second = decode(items[1].first, items[1].second);
  ASSERT_TRUE(first.isOk() && second.isOk());
  EXPECT_EQ(first->header.seq, 10u);
  EXPECT_EQ(std::get<LaunchMsg>(second->body).kernel, 7u);
  // An item claiming more bytes than the batch holds is refused.
  uint32_t lie = 1000;
  std::memcpy(bytes.data() + kHeaderSize + 4, &lie, sizeof lie);
  EXPECT_FALSE(decode(bytes.data(), bytes.size()).isOk());
}
}  // namespace
}  // namespace ferry::comm

namespace ferry::comm {
namespace {
TEST(Protocol, PrebuiltOkReplyCarriesTheOutputMark) {
  ReplyMsg r;
  r.outputMark = 0x1122334455ull;
  EXPECT_EQ(encodeOkReply(7, r.outputMark), encode(MsgType::Reply, kNoDevice, 7, r));
  auto bytes = encodeOkReply(7, 99);
  auto msg = decode(bytes.data(), bytes.size());
  ASSERT_TRUE(msg.isOk()) << msg.status().message();
  EXPECT_EQ(std::get<ReplyMsg>(msg->body).outputMark, 99u);
}

TEST(Protocol, OutputChunkRoundTripsAndOversizeIsRejected) {
  std::string text = "hello from device 3\n";
  OutputMsg m{123, reinterpret_cast<const uint8_t*>(text.data()), text.size()};
  auto bytes = encode(MsgType::Output, kNoDevice, 0, m);
  auto msg = decode(bytes.data(), bytes.size());
  ASSERT_TRUE(msg.isOk()) << msg.status().message();
  const auto& out = std::get<OutputMsg>(msg->body);
  EXPECT_EQ(out.mark, 123u);
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(out.text), out.len), text);

  std::string big(kMaxOutputChunk + 1, 'x');
  OutputMsg tooBig{1, reinterpret_cast<const uint8_t*>(big.data()), big.size()};
  bytes = encode(MsgType::Output, kNoDevice, 0, tooBig);
  EXPECT_FALSE(decode(bytes.data(), bytes.size()).isOk());
}
}  // namespace
}  // namespace ferry::comm
