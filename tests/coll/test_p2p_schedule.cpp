// The p2p inter-node backend's schedules (p2p_schedule.h), run for every leader in one
// process: messages go through FIFO queues per (sender, receiver) pair, as MPI matches them
// on one tag. Every leader must end with the documented tree's bits, with either algorithm,
// and no schedule may deadlock, mismatch a message's size or receive into bytes it is sending.
#include <gtest/gtest.h>

#include <cstring>
#include <deque>
#include <random>
#include <vector>

#include "coll/p2p_schedule.h"
#include "inter_tree.h"

namespace ferry::coll {
namespace {

using Bytes = std::vector<uint8_t>;

struct Leader {
  std::vector<double> buf;
  std::vector<P2pStep> steps;
  size_t step = 0;
  bool posted = false;
};

bool overlap(size_t a, size_t alen, size_t b, size_t blen) { return alen && blen && a < b + blen && b < a + alen; }

// Runs one step of leader `r` as far as it can go; true if anything happened.
bool advance(std::vector<Leader>& leaders, std::vector<std::vector<std::deque<Bytes>>>& queues, int r) {
  Leader& me = leaders[static_cast<size_t>(r)];
  if (me.step == me.steps.size()) return false;
  const P2pStep& s = me.steps[me.step];
  auto* bytes = reinterpret_cast<uint8_t*>(me.buf.data());
  bool moved = false;
  if (!me.posted) {
    if (s.sendLen) queues[static_cast<size_t>(r)][static_cast<size_t>(s.peer)].emplace_back(bytes + s.sendOff, bytes + s.sendOff + s.sendLen);
    me.posted = moved = true;
  }
  if (s.recvLen) {
    auto& q = queues[static_cast<size_t>(s.peer)][static_cast<size_t>(r)];
    if (q.empty()) return moved;
    Bytes msg = std::move(q.front());
    q.pop_front();
    EXPECT_EQ(msg.size(), s.recvLen) << "leader " << r << " step " << me.step;
    if (msg.size() != s.recvLen) return false;
    auto* mine = reinterpret_cast<double*>(bytes + s.recvOff);
    const auto* theirs = reinterpret_cast<const double*>(msg.data());
    size_t n = s.recvLen / sizeof(double);
    if (!s.reduce) std::memcpy(mine, theirs, s.recvLen);
    else if (s.peer < r) for (size_t i = 0; i < n; ++i) mine[i] = theirs[i] + mine[i];
    else for (size_t i = 0; i < n; ++i) mine[i] = mine[i] + theirs[i];
  }
  ++me.step;
  me.posted = false;
  return true;
}

void runSchedules(int size, size_t count, P2pAlgorithm algorithm) {
  std::mt19937_64 rng(static_cast<uint64_t>(size) * 1000003 + count);
  std::uniform_real_distribution<double> dist(-1e3, 1e3);
  std::vector<Leader> leaders(static_cast<size_t>(size));
  std::vector<std::vector<double>> inputs;
  for (int r = 0; r < size; ++r) {
    Leader& l = leaders[static_cast<size_t>(r)];
    l.buf.resize(count);
    for (double& v : l.buf) v = dist(rng) / 3;  // not exact in binary: the order shows
    inputs.push_back(l.buf);
    l.steps = planP2pSteps(r, size, count, sizeof(double), algorithm);
    for (const P2pStep& s : l.steps) {
      ASSERT_NE(s.peer, r);
      ASSERT_TRUE(s.peer >= 0 && s.peer < size);
      ASSERT_LE(s.sendOff + s.sendLen, count * sizeof(double));
      ASSERT_LE(s.recvOff + s.recvLen, count * sizeof(double));
      if (!s.reduce) {
        ASSERT_FALSE(overlap(s.sendOff, s.sendLen, s.recvOff, s.recvLen)) << "receives into what it sends";
      }
    }
  }
  std::vector<std::vector<std::deque<Bytes>>> queues(static_cast<size_t>(size),
                                                     std::vector<std::deque<Bytes>>(static_cast<size_t>(size)));
  for (bool moved = true; moved;) {
    moved = false;
    for (int r = 0; r < size; ++r) moved = advance(leaders, queues, r) || moved;
  }
  std::vector<double> want = testing::interTree(inputs);
  for (int r = 0; r < size; ++r) {
    const Leader& l = leaders[static_cast<size_t>(r)];
    ASSERT_EQ(l.step, l.steps.size()) << "leader " << r << " of " << size << " is stuck";
    for (size_t i = 0; i < count; ++i)
      ASSERT_EQ(l.buf[i], want[i]) << "leader " << r << " of " << size << ", element " << i << " of " << count;
  }
  for (const auto& row : queues)
    for (const auto& q : row) ASSERT_TRUE(q.empty()) << "a message nobody received";
}

TEST(CollP2pSchedule, BothAlgorithmsGiveTheTreesBitsOnEveryLeader) {
  for (int size = 1; size <= 9; ++size)
    for (size_t count : {1, 2, 3, 7, 8, 1000, 1001})
      for (P2pAlgorithm a : {P2pAlgorithm::Doubling, P2pAlgorithm::Halving}) {
        SCOPED_TRACE(::testing::Message() << size << " leaders, " << count << " elements, "
                                        << (a == P2pAlgorithm::Halving ? "halving" : "doubling"));
        runSchedules(size, count, a);
        if (HasFatalFailure()) return;
      }
}

TEST(CollP2pSchedule, HalvingSendsUnderTwoChunksAndReducesUnderOne) {
  // Per leader of a power-of-two group: doubling moves and reduces log2(L) chunks; halving
  // moves 2(L-1)/L and reduces (L-1)/L of one.
  const size_t count = 1 << 16, bytes = count * 4;
  for (int size : {2, 4, 8}) {
    size_t sentD = 0, sentH = 0, reducedD = 0, reducedH = 0;
    for (const P2pStep& s : planP2pSteps(0, size, count, 4, P2pAlgorithm::Doubling)) {
      sentD += s.sendLen;
      reducedD += s.reduce ? s.recvLen : 0;
    }
    for (const P2pStep& s : planP2pSteps(0, size, count, 4, P2pAlgorithm::Halving)) {
      sentH += s.sendLen;
      reducedH += s.reduce ? s.recvLen : 0;
    }
    int log2 = size == 2 ? 1 : size == 4 ? 2 : 3;
    EXPECT_EQ(sentD, bytes * static_cast<size_t>(log2));
    EXPECT_EQ(reducedD, bytes * static_cast<size_t>(log2));
    EXPECT_EQ(sentH, 2 * bytes * static_cast<size_t>(size - 1) / static_cast<size_t>(size));
    EXPECT_EQ(reducedH, bytes * static_cast<size_t>(size - 1) / static_cast<size_t>(size));
  }
}

TEST(CollP2pSchedule, TooFewElementsForHalvingFallBackToDoubling) {
  auto d = planP2pSteps(1, 8, 7, 8, P2pAlgorithm::Doubling);
  auto h = planP2pSteps(1, 8, 7, 8, P2pAlgorithm::Halving);
  ASSERT_EQ(h.size(), d.size());
  for (size_t i = 0; i < h.size(); ++i) EXPECT_EQ(h[i].recvLen, d[i].recvLen);
}

}  // namespace
}  // namespace ferry::coll
