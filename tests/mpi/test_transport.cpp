// Transports between real ranks: chunked MPI pipes, the control inbox's ordering, CMA,
// and liveness probes.
#include <gtest/gtest.h>
#include <mpi.h>
#include <unistd.h>

#include <numeric>
#include <vector>

#include "comm/cma.h"
#include "comm/liveness.h"
#include "comm/mailbox.h"
#include "comm/mpi_pipe.h"
#include "comm/protocol.h"
#include "comm/world.h"
#include "world_fixture.h"
#include "platform/backoff.h"
#include "platform/init.h"

namespace ferry::comm {
namespace {

World& world() { return testWorld(); }

void runPipe(MpiPipe& p) {
  while (true) {
    auto done = p.progress();
    ASSERT_TRUE(done.isOk()) << done.status().message();
    if (*done) return;
  }
}

std::vector<uint8_t> pattern(size_t n, int salt) {
  std::vector<uint8_t> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<uint8_t>((i * 131 + salt) ^ (i >> 9));
  return v;
}

struct PipeCase {
  size_t len, chunk;
  int depth;
};

// Rank 0 sends to every other rank; sizes hit the edges of the chunking.
TEST(MpiPipe, MovesEveryByteForAnyChunking) {
  World& w = world();
  const PipeCase cases[] = {{0, 1024, 4},        {1, 1024, 4},          {1023, 1024, 1}, {1024, 1024, 2},
                            {1025, 1024, 2},     {5 << 20, 1 << 20, 2}, {(5 << 20) + 7, 65536, 64},
                            {3 << 20, 4096, 1}};
  int tag = 100;
  for (const auto& c : cases) {
    for (int peer = 1; peer < w.size(); ++peer) {
      ++tag;
      if (w.rank() == 0) {
        auto data = pattern(c.len, peer);
        MpiPipe p(MpiPipe::Dir::Send, w.comm(), peer, tag, data.data(), c.len, c.chunk, c.depth);
        runPipe(p);
        EXPECT_EQ(p.bytesDone(), c.len);
      } else if (w.rank() == peer) {
        std::vector<uint8_t> got(c.len, 0);
        MpiPipe p(MpiPipe::Dir::Recv, w.comm(), 0, tag, got.data(), c.len, c.chunk, c.depth);
        runPipe(p);
        EXPECT_EQ(got, pattern(c.len, peer)) << "len " << c.len << " chunk " << c.chunk;
      }
    }
  }
  MPI_Barrier(w.comm());
}

TEST(MpiPipe, DiscardModeDrainsWithoutABuffer) {
  World& w = world();
  if (w.rank() == 0) {
    auto data = pattern(3 << 20, 1);
    for (int peer = 1; peer < w.size(); ++peer) {
      MpiPipe p(MpiPipe::Dir::Send, w.comm(), peer, 999, data.data(), data.size(), 1 << 20, 8);
      runPipe(p);
    }
  } else {
    MpiPipe p(MpiPipe::Dir::Recv, w.comm(), 0, 999, nullptr, 3 << 20, 1 << 20, 8);
    runPipe(p);
    EXPECT_EQ(p.bytesDone(), 3u << 20);
  }
  MPI_Barrier(w.comm());
}

// Regression: the inbox must hand out each sender's messages in the order they were sent,
// even after its receive slots have been re-posted many times.
TEST(Inbox, KeepsEachSendersOrder) {
  World& w = world();
  const int perSender = 500;
  const int tag = 77;
  if (w.rank() == 0) {
    Inbox inbox(w.comm(), 8, kMaxControlMessage, tag);
    std::vector<uint64_t> next(w.size(), 0);
    int remaining = perSender * (w.size() - 1);
    Backoff backoff(0);
    while (remaining > 0) {
      auto in = inbox.poll();
      ASSERT_TRUE(in.isOk());
      if (!in->has_value()) {
        backoff.idle();
        continue;
      }
      auto msg = decode((*in)->data, (*in)->len);
      ASSERT_TRUE(msg.isOk()) << msg.status().message();
      int src = (*in)->source;
      EXPECT_EQ(msg->header.seq, next[src]) << "from rank " << src;
      next[src] = msg->header.seq + 1;
      ASSERT_TRUE(inbox.release(**in).isOk());
      --remaining;
    }
  } else {
    Outbox out(w.comm());
    std::vector<uint8_t> payload(100 + 37 * w.rank(), 1);
    for (uint64_t i = 0; i < perSender; ++i) {
      // Mixed sizes, so that some messages complete faster than others.
      SubmitMsg m{i, DataDesc{DataMode::Inline, i % 7 == 0 ? payload.size() : 8}, nullptr};
      ASSERT_TRUE(out.send(0, tag, encode(MsgType::Submit, 0, i, m, payload.data(), m.data.size)).isOk());
      ASSERT_TRUE(out.reap().isOk());
    }
    while (out.pending() > 0) ASSERT_TRUE(out.reap().isOk());
  }
  MPI_Barrier(w.comm());
}

TEST(Cma, ReadsAndWritesAPeersMemory) {
  World& w = world();
  if (!w.cmaEnabled()) GTEST_SKIP() << "CMA disabled: " << w.cmaReason();
  // Every rank exposes a buffer; rank 1 reads rank 0's and writes into it.
  std::vector<uint8_t> buf = pattern(1 << 20, w.rank());
  uint64_t addr = reinterpret_cast<uint64_t>(buf.data());
  std::vector<uint64_t> addrs(w.size());
  MPI_Allgather(&addr, 1, MPI_UINT64_T, addrs.data(), 1, MPI_UINT64_T, w.comm());
  if (w.rank() == 1) {
    std::vector<uint8_t> got(buf.size());
    ASSERT_TRUE(cmaRead(w.peer(0).pid, addrs[0], got.data(), got.size()).isOk());
    EXPECT_EQ(got, pattern(1 << 20, 0));
    auto mine = pattern(4096, 42);
    ASSERT_TRUE(cmaWrite(w.peer(0).pid, addrs[0] + 4096, mine.data(), mine.size()).isOk());
  }
  MPI_Barrier(w.comm());
  if (w.rank() == 0) {
    EXPECT_EQ(std::vector<uint8_t>(buf.begin() + 4096, buf.begin() + 8192), pattern(4096, 42));
  }
  // A bad address is an error with the address and pid in it, not a crash.
  Status st = cmaRead(w.peer(0).pid, 8, buf.data(), 16);
  EXPECT_FALSE(st.isOk());
  EXPECT_NE(st.message().find("pid"), std::string::npos);
  MPI_Barrier(w.comm());
}

// FERRY_HEARTBEAT and FERRY_TIMEOUT are short in this test's environment (CMakeLists.txt).
TEST(Liveness, SilentPeerIsDeclaredDead) {
  World& w = world();
  if (w.rank() == 0) {
    TagPool tags;
    tags.setUpperBound(w.tagUpperBound());
    PeerWatch watch(w.comm(), 1, tags);
    Status st;
    double start = MPI_Wtime();
    while (st.isOk() && MPI_Wtime() - start < 10) {
      st = watch.poll("a test wait");
      usleep(5000);
    }
    ASSERT_FALSE(st.isOk()) << "nobody answers probes on rank 1, so the wait must fail";
    EXPECT_EQ(st.code(), Errc::Timeout);
    EXPECT_LT(MPI_Wtime() - start, 3.0) << "declared dead within about FERRY_TIMEOUT";
    for (const char* part : {"rank 1", "a test wait", "FERRY_TIMEOUT"})
      EXPECT_NE(st.message().find(part), std::string::npos) << st.message();
  }
  MPI_Barrier(w.comm());
}

TEST(Liveness, TimeBeforeTheFirstPollIsNotSilence) {
  // A serving rank may first poll long after it set up its watch (busy from the start, then
  // a kernel longer than FERRY_TIMEOUT on the polling thread); that was not listening.
  World& w = world();
  if (w.rank() == 0) {
    TagPool tags;
    tags.setUpperBound(w.tagUpperBound());
    PeerWatch watch(w.comm(), 1, tags);
    usleep(1500000);  // longer than FERRY_TIMEOUT (1 s here)
    Status st = watch.poll("a test wait");
    EXPECT_TRUE(st.isOk()) << st.message();
  }
  MPI_Barrier(w.comm());
}

TEST(Liveness, ResponderAnswersProbes) {
  World& w = world();
  LivenessResponder responder(w.comm());
  MPI_Barrier(w.comm());
  if (w.rank() == 0) {
    TagPool tags;
    tags.setUpperBound(w.tagUpperBound());
    // Probe each peer with a tiny heartbeat: the watch must see an answer and not time out.
    for (int peer = 1; peer < w.size(); ++peer) {
      PeerWatch watch(w.comm(), peer, tags);
      for (int i = 0; i < 200; ++i) {
        ASSERT_TRUE(watch.poll("a test wait").isOk());
        usleep(10000);
      }
    }
  }
  MPI_Barrier(w.comm());
  responder.stop();
}

}  // namespace
}  // namespace ferry::comm
