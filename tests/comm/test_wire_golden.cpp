// The wire format, byte for byte: one encoded sample of every message type against the bytes
// that Ferry's protocol version 7 puts on the wire. A peer of another architecture or of
// another build of the same version (a DPU daemon, issue 28) reads exactly these bytes, so
// a change here is a protocol change: it bumps kProtocolVersion and updates this table.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "comm/protocol.h"

namespace ferry::comm {
namespace {

std::string hexOf(const std::vector<uint8_t>& bytes) {
  std::string s;
  char b[3];
  for (uint8_t c : bytes) {
    std::snprintf(b, sizeof b, "%02x", c);
    s += b;
  }
  return s;
}

std::vector<std::vector<uint8_t>> samples() {
  DataDesc mpi{DataMode::Mpi, 1 << 20, 2, 77, 65536, 0};
  DataDesc cma{DataMode::Cma, 4096, 1, 78, 0, 0x7f0000001000};
  static const uint8_t bytes[] = {1, 2, 3, 4, 5};
  static const uint8_t text[] = "hello";
  static const uint8_t item[40] = {};
  LaunchMsg launch{0xabc, 4, 8, 1000, 61, {1, 2, 3}, {0, -16, 8}};
  ReplyMsg reply;
  reply.code = Errc::LoadFailed;
  reply.message = "x y";
  reply.values = {10, 20, 30};
  reply.inlineSize = 5;
  BatchMsg batch;
  batch.items.push_back({item, sizeof item});
  ChallengeMsg challenge;
  for (size_t i = 0; i < challenge.nonce.size(); ++i) challenge.nonce[i] = static_cast<uint8_t>(i);
  ResponseMsg response;
  response.nonce.fill(0x11);
  response.mac.fill(0x22);
  static const uint8_t announcement[] = {9, 8, 7};
  WelcomeMsg welcome;
  welcome.mac.fill(0x33);
  welcome.announcement = announcement;
  welcome.len = sizeof announcement;
  return {
      encode(MsgType::InitDevice, 1, 2, InitDeviceMsg{0x8, 99}),
      encode(MsgType::LoadImage, 1, 2, LoadImageMsg{0x1234, 55, 3, DataDesc{DataMode::Inline, 5}, nullptr}, bytes, 5),
      encode(MsgType::LoadImage, 1, 2, LoadImageMsg{0x1234, 55, 3, mpi, nullptr}),
      encode(MsgType::Alloc, 1, 2, AllocMsg{0x1000, 64, 0, 12}),
      encode(MsgType::Free, 1, 2, FreeMsg{0x1000, 64, 3}),
      encode(MsgType::Submit, 1, 2, SubmitMsg{0x2000, DataDesc{DataMode::Inline, 5}, nullptr}, bytes, 5),
      encode(MsgType::Retrieve, 1, 2, RetrieveMsg{0x3000, 41, mpi}),
      encode(MsgType::ExchangeSend, 1, 2, ExchangeMsg{0x4000, mpi}),
      encode(MsgType::ExchangeRecv, 1, 2, ExchangeMsg{0x5000, cma}),
      encode(MsgType::Launch, 1, 2, launch),
      encode(MsgType::Sync, 1, 2, SyncMsg{17}),
      encode(MsgType::Ping, 1, 2, PingMsg{18}),
      encode(MsgType::Shutdown, 1, 2, ShutdownMsg{}),
      encode(MsgType::Reply, 1, 2, reply, bytes, 5),
      encodeOkReply(77, 99),
      encode(MsgType::Rtr, 1, 2, RtrMsg{5, 0x6000, 4096}),
      encode(MsgType::Fin, 1, 2, FinMsg{5, Errc::Unavailable, "peer gone"}),
      encode(MsgType::Rts, 1, 2, RtsMsg{5, 0x7000, 2048, 4096}),
      encode(MsgType::SetInfo, 1, 2, SetInfoMsg{7}),
      encode(MsgType::Output, 1, 2, OutputMsg{9, text, 5}),
      encode(MsgType::Batch, 1, 2, batch),
      encode(MsgType::Baseline, 1, 2, BaselineMsg{3, 1, 1, 4096, 2, 10, 64, 88}),
      encode(MsgType::Challenge, 1, 2, challenge),
      encode(MsgType::Response, 1, 2, response),
      encode(MsgType::Welcome, 1, 2, welcome),
  };
}

struct Golden {
  const char* what;
  const char* hex;
};

// Taken from the encoder before its messages were described by fields() lists (commit
// 0d7e3b6), so that the rewrite provably changed no byte; version 4 (the channel handshake)
// changed only the version field of the header and added the last three; version 5 (device
// announcements name their ELF machine) changed only the version field of these; version 6
// added the job's device numbering to init_device; version 7 (image entries carry their host
// address, inside the load_image payload) changed only the version field of these.
const Golden kGolden[] = {
      {"init_device",
         "4652525907000100010000000000000002000000000000001400000000000000080000000000000063000000ffffffff00000000"},
      {"load_image inline",
         "465252590700020001000000000000000200000000000000320000000000000034120000000000003700000003000000"
         "000500000000000000ffffffff000000000000000000000000000000000102030405"},
      {"load_image mpi",
         "4652525907000200010000000000000002000000000000002d0000000000000034120000000000003700000003000000"
         "010000100000000000020000004d000000000001000000000000000000"},
      {"alloc",
         "465252590700030001000000000000000200000000000000180000000000000000100000000000004000000000000000"
         "000000000c000000"},
      {"free",
         "465252590700040001000000000000000200000000000000140000000000000000100000000000004000000000000000"
         "03000000"},
      {"submit inline",
         "4652525907000500010000000000000002000000000000002a0000000000000000200000000000000005000000000000"
         "00ffffffff000000000000000000000000000000000102030405"},
      {"retrieve",
         "465252590700060001000000000000000200000000000000290000000000000000300000000000002900000001000010"
         "0000000000020000004d000000000001000000000000000000"},
      {"exchange_send",
         "465252590700070001000000000000000200000000000000250000000000000000400000000000000100001000000000"
         "00020000004d000000000001000000000000000000"},
      {"exchange_recv",
         "465252590700080001000000000000000200000000000000250000000000000000500000000000000200100000000000"
         "00010000004e0000000000000000100000007f0000"},
      {"launch",
         "4652525907000900010000000000000002000000000000005000000000000000bc0a0000000000000400000008000000"
         "e8030000000000003d000000030000000100000000000000020000000000000003000000000000000000000000000000"
         "f0ffffffffffffff0800000000000000"},
      {"sync",
         "4652525907000a0001000000000000000200000000000000040000000000000011000000"},
      {"ping",
         "4652525907000b0001000000000000000200000000000000040000000000000012000000"},
      {"shutdown",
         "4652525907000c00010000000000000002000000000000000000000000000000"},
      {"reply",
         "4652525907000d0001000000000000000200000000000000390000000000000009000000000000000003000000782079"
         "030000000a0000000000000014000000000000001e0000000000000005000000000000000102030405"},
      {"ok reply",
         "4652525907000d00ffffffff000000004d00000000000000190000000000000000630000000000000000000000000000"
         "000000000000000000"},
      {"rtr",
         "4652525907000e0001000000000000000200000000000000140000000000000005000000006000000000000000100000"
         "00000000"},
      {"fin",
         "4652525907000f000100000000000000020000000000000012000000000000000500000004090000007065657220676f"
         "6e65"},
      {"rts",
         "4652525907001400010000000000000002000000000000001c0000000000000005000000007000000000000000080000"
         "000000000010000000000000"},
      {"set_info",
         "465252590700120001000000000000000200000000000000040000000000000007000000"},
      {"output",
         "465252590700130001000000000000000200000000000000150000000000000009000000000000000500000000000000"
         "68656c6c6f"},
      {"batch",
         "465252590700110001000000000000000200000000000000300000000000000001000000280000000000000000000000"
         "0000000000000000000000000000000000000000000000000000000000000000"},
      {"baseline",
         "4652525907001000010000000000000002000000000000001e0000000000000003000000010100100000000000000200"
         "00000a0000004000000058000000"},
      {"challenge",
         "4652525907001500010000000000000002000000000000002000000000000000000102030405060708090a0b0c0d0e0f"
         "101112131415161718191a1b1c1d1e1f"},
      {"response",
         "465252590700160001000000000000000200000000000000400000000000000011111111111111111111111111111111"
         "111111111111111111111111111111112222222222222222222222222222222222222222222222222222222222222222"},
      {"welcome",
         "4652525907001700010000000000000002000000000000002b0000000000000033333333333333333333333333333333"
         "333333333333333333333333333333330300000000000000090807"},
};

TEST(WireGolden, EveryMessageEncodesToItsBytes) {
  auto got = samples();
  ASSERT_EQ(got.size(), std::size(kGolden));
  for (size_t i = 0; i < got.size(); ++i) EXPECT_EQ(hexOf(got[i]), kGolden[i].hex) << kGolden[i].what;
}

// And back: each decodes, and re-encoding the decoded body gives the same bytes.
TEST(WireGolden, EveryMessageDecodesAndReencodesToItsBytes) {
  for (const auto& bytes : samples()) {
    auto msg = decode(bytes.data(), bytes.size());
    ASSERT_TRUE(msg.isOk()) << msg.status().message();
    const uint8_t* payload = nullptr;
    size_t payloadLen = 0;
    if (const auto* m = std::get_if<SubmitMsg>(&msg->body); m && m->data.mode == DataMode::Inline)
      payload = m->inlineBytes, payloadLen = m->data.size;
    if (const auto* m = std::get_if<LoadImageMsg>(&msg->body); m && m->data.mode == DataMode::Inline)
      payload = m->inlineBytes, payloadLen = m->data.size;
    if (const auto* m = std::get_if<ReplyMsg>(&msg->body)) payload = m->inlineBytes, payloadLen = m->inlineSize;
    auto again = encode(msg->header.type, msg->header.device, msg->header.seq, msg->body, payload, payloadLen);
    EXPECT_EQ(hexOf(again), hexOf(bytes)) << msgTypeName(msg->header.type);
  }
}

TEST(WireGolden, EveryTypeHasItsName) {
  const std::vector<std::string> names = {"unknown", "init_device", "load_image", "alloc", "free", "submit",
                                          "retrieve", "exchange_send", "exchange_recv", "launch", "sync", "ping",
                                          "shutdown", "reply", "rtr", "fin", "baseline", "batch", "set_info",
                                          "output", "rts", "challenge", "response", "welcome", "unknown"};
  for (size_t t = 0; t < names.size(); ++t) EXPECT_EQ(msgTypeName(static_cast<MsgType>(t)), names[t]) << t;
  EXPECT_EQ(static_cast<size_t>(kLastMsgType), names.size() - 2);
}

}  // namespace
}  // namespace ferry::comm
