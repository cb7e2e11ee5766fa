// The MPI Transport (comm/mpi_transport.h) between real ranks, through the interface the
// service and the client use: control messages in each sender's order, replies into
// receives posted before their request, withdrawn receives, unsolicited messages, streams
// and the transport's own baseline.
#include <gtest/gtest.h>
#include <mpi.h>

#include <string>
#include <vector>

#include "comm/mpi_baseline.h"
#include "comm/mpi_transport.h"
#include "comm/protocol.h"
#include "comm/tag_pool.h"
#include "platform/backoff.h"
#include "world_fixture.h"

namespace ferry::comm {
namespace {

using Role = MpiTransport::Role;

std::vector<uint8_t> bytesOf(int salt, size_t n) {
  std::vector<uint8_t> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<uint8_t>(i * 7 + salt);
  return v;
}

// Waits for a posted receive; returns the length that arrived.
size_t awaitReceive(PostedReceive& r) {
  Backoff backoff(0);
  while (true) {
    auto got = r.test();
    EXPECT_TRUE(got.isOk()) << got.status().message();
    if (!got.isOk()) return 0;
    if (got->has_value()) return **got;
    backoff.idle();
  }
}

void drainSends(Transport& t) {
  while (t.pendingSends() > 0) ASSERT_TRUE(t.reap().isOk());
}

TEST(MpiTransport, SaysWhereItIs) {
  World& w = testWorld();
  MpiTransport t(w, Role::Issuer);
  EXPECT_EQ(t.self(), w.rank());
  EXPECT_EQ(t.size(), w.size());
  EXPECT_EQ(t.where(), "rank " + std::to_string(w.rank()) + " on host " + w.self().host);
  for (int r = 0; r < w.size(); ++r) EXPECT_EQ(t.pathTo(r), w.pathTo(r)) << "rank " << r;
}

// Every rank but 0 serves: rank 0 sends each of them requests; each answers every request
// on the tag the request names, into receives rank 0 posted before sending.
TEST(MpiTransport, RequestsArriveInOrderAndRepliesFindTheirReceives) {
  World& w = testWorld();
  const int perServer = 200;
  if (w.rank() == 0) {
    MpiTransport t(w, Role::Issuer);
    TagPool tags;
    tags.setUpperBound(t.tagUpperBound());
    for (int i = 0; i < perServer; ++i)
      for (int r = 1; r < w.size(); ++r) {
        int tag = tags.next();
        auto recv = t.expect(r, tag, 64);
        ASSERT_TRUE(recv.isOk()) << recv.status().message();
        PingMsg ping{tag};
        ASSERT_TRUE(t.send(r, kControlTag, encode(MsgType::Ping, 0, static_cast<uint64_t>(i), ping)).isOk());
        size_t n = awaitReceive(**recv);
        auto reply = decode((*recv)->data(), n);
        ASSERT_TRUE(reply.isOk()) << reply.status().message();
        EXPECT_EQ(reply->header.seq, static_cast<uint64_t>(i) * 1000 + static_cast<uint64_t>(r));
      }
    for (int r = 1; r < w.size(); ++r) ASSERT_TRUE(t.send(r, kControlTag, encode(MsgType::Shutdown, 0, 0, ShutdownMsg{})).isOk());
    drainSends(t);
  } else {
    MpiTransport t(w, Role::Server);
    uint64_t expected = 0;
    Backoff backoff(0);
    for (bool done = false; !done;) {
      auto in = t.poll();
      ASSERT_TRUE(in.isOk()) << in.status().message();
      if (!in->has_value()) {
        backoff.idle();
        continue;
      }
      auto msg = decode((*in)->data, (*in)->len);
      ASSERT_TRUE(msg.isOk()) << msg.status().message();
      EXPECT_EQ((*in)->source, 0);
      if (msg->header.type == MsgType::Shutdown) {
        done = true;
      } else {
        EXPECT_EQ(msg->header.seq, expected++) << "out of order";
        int tag = std::get<PingMsg>(msg->body).replyTag;
        ASSERT_TRUE(t.send(0, tag, encodeOkReply(msg->header.seq * 1000 + static_cast<uint64_t>(w.rank()))).isOk());
      }
      ASSERT_TRUE(t.release(**in).isOk());
    }
    EXPECT_EQ(expected, static_cast<uint64_t>(perServer));
    drainSends(t);
  }
  MPI_Barrier(w.comm());
}

// An abandoned reply (its request failed) withdraws its receive: a later receive on the same
// tag gets the next message, not nothing.
TEST(MpiTransport, WithdrawnReceiveLeavesTheTagFree) {
  World& w = testWorld();
  const int tag = 4321;
  MpiTransport t(w, Role::Issuer);
  if (w.rank() == 0) {
    {
      auto abandoned = t.expect(1, tag, 64);
      ASSERT_TRUE(abandoned.isOk());
    }
    auto recv = t.expect(1, tag, 64);
    ASSERT_TRUE(recv.isOk());
    MPI_Barrier(w.comm());  // rank 1 sends only now
    size_t n = awaitReceive(**recv);
    ASSERT_EQ(n, 5u);
    EXPECT_EQ(std::string(reinterpret_cast<const char*>((*recv)->data()), n), "hello");
  } else {
    MPI_Barrier(w.comm());
    if (w.rank() == 1) {
      ASSERT_TRUE(t.send(0, tag, {'h', 'e', 'l', 'l', 'o'}).isOk());
    }
    drainSends(t);
  }
  MPI_Barrier(w.comm());
}

// Device output travels unsolicited: take() finds it when it is there, and only then.
TEST(MpiTransport, TakeReturnsUnsolicitedMessages) {
  World& w = testWorld();
  const int tag = 4322;
  MpiTransport t(w, Role::Issuer);
  if (w.rank() == 0) {
    auto none = t.take(1, tag);
    ASSERT_TRUE(none.isOk());
    EXPECT_FALSE(none->has_value());
    MPI_Barrier(w.comm());
    std::optional<std::vector<uint8_t>> got;
    Backoff backoff(0);
    while (!got) {
      auto r = t.take(1, tag);
      ASSERT_TRUE(r.isOk()) << r.status().message();
      got = std::move(*r);
      backoff.idle();
    }
    EXPECT_EQ(*got, bytesOf(3, 1000));
  } else {
    MPI_Barrier(w.comm());
    if (w.rank() == 1) {
      ASSERT_TRUE(t.send(0, tag, bytesOf(3, 1000)).isOk());
    }
    drainSends(t);
  }
  MPI_Barrier(w.comm());
}

TEST(MpiTransport, StreamsMoveEveryByte) {
  World& w = testWorld();
  const int tag = 4323;
  const size_t len = (3 << 20) + 11;
  MpiTransport t(w, Role::Issuer);
  std::vector<uint8_t> buf = w.rank() == 0 ? bytesOf(9, len) : std::vector<uint8_t>(len, 0);
  if (w.rank() == 0 || w.rank() == 1) {
    auto dir = w.rank() == 0 ? Stream::Dir::Send : Stream::Dir::Recv;
    auto s = t.openStream(dir, 1 - w.rank(), tag, buf.data(), len, 1 << 20, 4);
    EXPECT_EQ(s->direction(), dir);
    EXPECT_EQ(s->peer(), 1 - w.rank());
    while (true) {
      auto done = s->progress();
      ASSERT_TRUE(done.isOk()) << done.status().message();
      if (*done) break;
    }
    EXPECT_EQ(s->bytesDone(), len);
    if (w.rank() == 1) {
      EXPECT_EQ(buf, bytesOf(9, len));
    }
  }
  MPI_Barrier(w.comm());
}

TEST(MpiTransport, BaselineTimesTheInitiatorsLoop) {
  World& w = testWorld();
  MpiTransport t(w, Role::Issuer);
  BaselineSpec spec;
  spec.bytes = 8;
  spec.iters = 50;
  if (w.rank() <= 1) {
    auto s = t.baseline(1 - w.rank(), w.rank() == 0, spec);
    ASSERT_TRUE(s.isOk()) << s.status().message();
    if (w.rank() == 0) {
      EXPECT_GT(*s, 0.0);
    } else {
      EXPECT_EQ(*s, 0.0);
    }
  }
  MPI_Barrier(w.comm());
}

}  // namespace
}  // namespace ferry::comm
