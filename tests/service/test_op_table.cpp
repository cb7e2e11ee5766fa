// The server's table of message kinds (service/op_table.cpp): every type on the wire has a
// route, device ops can be ordered and started, and what the issuer waits on is found from
// the messages' own fields.
#include <gtest/gtest.h>

#include <set>

#include "service/server.h"

namespace ferry::service {
namespace {

using comm::MsgType;
using Route = Server::MessageKind::Route;

TEST(OpTable, EveryTypeHasARoute) {
  // Sent by servers to the issuer, or the channel handshake on its own tag, before any
  // control message: never on the control tag, so refused there.
  const std::set<MsgType> toIssuer = {MsgType::Reply,     MsgType::Ping,     MsgType::Output,
                                      MsgType::Challenge, MsgType::Response, MsgType::Welcome};
  for (uint16_t t = 1; t <= static_cast<uint16_t>(comm::kLastMsgType); ++t) {
    auto type = static_cast<MsgType>(t);
    const auto& k = Server::kindOf(type);
    SCOPED_TRACE(comm::msgTypeName(type));
    if (toIssuer.count(type)) {
      EXPECT_EQ(k.route, Route::Refused);
    } else if (k.route == Route::DeviceOp) {
      EXPECT_NE(k.hazards, nullptr);
      EXPECT_NE(k.start, nullptr);
      EXPECT_EQ(k.arrive, nullptr);
    } else {
      EXPECT_EQ(k.route, Route::Control);
      EXPECT_NE(k.arrive, nullptr);
    }
  }
  EXPECT_EQ(Server::kindOf(static_cast<MsgType>(0)).route, Route::Refused);
  EXPECT_EQ(Server::kindOf(static_cast<MsgType>(999)).route, Route::Refused);
}

TEST(OpTable, DeviceOpsAreTheOnesThatTouchADevice) {
  for (MsgType t : {MsgType::InitDevice, MsgType::LoadImage, MsgType::Alloc, MsgType::Free, MsgType::Submit,
                    MsgType::Retrieve, MsgType::ExchangeSend, MsgType::ExchangeRecv, MsgType::Launch, MsgType::Sync})
    EXPECT_EQ(Server::kindOf(t).route, Route::DeviceOp) << comm::msgTypeName(t);
  for (MsgType t : {MsgType::Shutdown, MsgType::Rtr, MsgType::Fin, MsgType::Rts, MsgType::Batch, MsgType::Baseline,
                    MsgType::SetInfo})
    EXPECT_EQ(Server::kindOf(t).route, Route::Control) << comm::msgTypeName(t);
}

TEST(OpTable, ReplyTagsAndDataAreFoundFromTheFields) {
  EXPECT_EQ(replyTagOf(comm::AllocMsg{0x1000, 64, 0, 12}), 12);
  EXPECT_EQ(replyTagOf(comm::RetrieveMsg{0x3000, 41, {}}), 41);
  EXPECT_EQ(replyTagOf(comm::LaunchMsg{0, 0, 0, 0, 61, {}, {}}), 61);
  EXPECT_EQ(replyTagOf(comm::FreeMsg{0x1000, 64, 3}), 0) << "a free is not answered";
  EXPECT_EQ(replyTagOf(comm::SubmitMsg{}), 0) << "a submit is confirmed by a later reply";

  Op op;
  op.type = MsgType::Submit;
  op.body = comm::SubmitMsg{0x2000, comm::DataDesc{comm::DataMode::Mpi, 4096, 2, 77}, nullptr};
  const comm::DataDesc* d = dataOf(op);
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->size, 4096u);
  EXPECT_EQ(d->tag, 77);
  op.type = MsgType::Free;
  op.body = comm::FreeMsg{0x1000, 64, 0};
  EXPECT_EQ(dataOf(op), nullptr);
}

}  // namespace
}  // namespace ferry::service
