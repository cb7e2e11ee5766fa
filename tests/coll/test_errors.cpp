// What the user sees: FERRY_LOG=coll explains each choice; a rank that joins the call late
// is waited for, as MPI requires, with one warning after the timeout that says who is
// missing; ranks whose settings or builds differ do not deadlock but fall back to the
// library, with the reason; ranks of one node that pass different counts, types or ops get an error
// that says so, instead of a wrong result or a read past a buffer.
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <vector>

#include "coll/allreduce.h"
#include "coll/comm_context.h"
#include "coll_test_util.h"
#include "platform/clock.h"
#include "platform/log.h"

namespace ferry::coll::testing {
namespace {

void pairSum(void* in, void* inout, int* len, MPI_Datatype*) {
  for (int i = 0; i < 2 * *len; ++i) static_cast<int*>(inout)[i] += static_cast<int*>(in)[i];
}

TEST(CollErrors, FerryLogCollExplainsEachChoice) {
  LogCapture capture("coll");  // FERRY_LOG=coll: no level given, so info for coll
  MPI_Comm c;
  MPI_Comm_dup(MPI_COMM_WORLD, &c);
  MPI_Comm_set_name(c, "explained");
  Settings s = settings();
  s.mode = Mode::Auto;
  s.minSize = 4 * 1024;  // a crossover to explain (unset with MPICH: none)
  std::vector<int> small(4, 1), big(s.minSize / sizeof(int) * 2, 1), out(big.size());
  ASSERT_EQ(allreduceWith(s, small.data(), out.data(), 4, MPI_INT, MPI_SUM, c), MPI_SUCCESS);
  ASSERT_EQ(allreduceWith(s, big.data(), out.data(), static_cast<int>(big.size()), MPI_INT, MPI_SUM, c), MPI_SUCCESS);
  MPI_Datatype pair;
  MPI_Type_contiguous(2, MPI_INT, &pair);
  MPI_Type_commit(&pair);
  MPI_Op op;  // Open MPI takes only user ops on derived datatypes
  MPI_Op_create(pairSum, 1, &op);
  ASSERT_EQ(allreduceWith(s, big.data(), out.data(), static_cast<int>(big.size() / 2), pair, op, c), MPI_SUCCESS);
  MPI_Op_free(&op);
  MPI_Type_free(&pair);
  std::string log = capture.text();
  EXPECT_NE(log.find("allreduce of 16 B on explained: MPI library (below-crossover): 16 B is below "
                     "FERRY_COLL_MIN_SIZE"),
            std::string::npos)
      << log;
  EXPECT_NE(log.find("on explained: MPI library (unsupported): a derived datatype"), std::string::npos) << log;
  EXPECT_NE(log.find("explained: " + std::to_string(existingContext(c)->shape().size) + " ranks on"), std::string::npos)
      << "the set-up reports the data path: " << log;
  EXPECT_NE(log.find("same-node path"), std::string::npos) << log;
  bool ferry = log.find("on explained: Ferry (chosen)") != std::string::npos;
  bool perNode = log.find("on explained: MPI library (one-rank-per-node)") != std::string::npos;
  EXPECT_TRUE(ferry != perNode) << "the large call is explained either way: " << log;
  EXPECT_NE(log.find("rank=" + std::to_string(rankOf(MPI_COMM_WORLD)) + " host="), std::string::npos);
  MPI_Comm_free(&c);
}

TEST(CollErrors, ALateRankIsWaitedForWithAWarning) {
  // MPI lets a rank reach a collective as late as it likes: the others wait, warn once after
  // the timeout (naming who is missing, in case the program is deadlocked), and succeed.
  // The ranks of `c` run in the reverse order of MPI_COMM_WORLD's, so that the warning must
  // name them as the user knows them, with their world rank, not by node-local numbers.
  LogCapture capture("warn");
  int worldRank = 0, worldSize = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &worldRank);
  MPI_Comm_size(MPI_COMM_WORLD, &worldSize);
  MPI_Comm c;
  MPI_Comm_split(MPI_COMM_WORLD, 0, worldSize - 1 - worldRank, &c);
  MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
  Settings s = forcedSettings();
  s.timeoutSeconds = 0.5;
  std::vector<double> in(1000, 1.0), out(1000);
  ASSERT_EQ(allreduceWith(s, in.data(), out.data(), 1000, MPI_DOUBLE, MPI_SUM, c), MPI_SUCCESS);  // sets up
  int ranks = 0;
  MPI_Comm_size(c, &ranks);
  // With a node peer, rank 0 waits in Ferry's node stage, whose message names the peer;
  // alone on its node it waits in the leaders' stage.
  int withPeer = existingContext(c)->localSize() > 1;
  PMPI_Bcast(&withPeer, 1, MPI_INT, 0, c);
  if (rankOf(c) != 0) usleep(1500 * 1000);  // three timeouts late
  double t0 = nowSeconds();
  int rc = allreduceWith(s, in.data(), out.data(), 1000, MPI_DOUBLE, MPI_SUM, c);
  double waited = nowSeconds() - t0;
  EXPECT_EQ(rc, MPI_SUCCESS) << "a late rank is not an error";
  for (double v : out) ASSERT_EQ(v, static_cast<double>(ranks));
  if (rankOf(c) == 0) {
    EXPECT_GE(waited, 1.0) << "rank 0 waited for the late ranks";
    std::string log = capture.text();
    const CommContext& ctx = *existingContext(c);
    EXPECT_NE(log.find("WARN coll: no progress for"), std::string::npos) << log;
    EXPECT_NE(log.find("keeps waiting, as MPI requires"), std::string::npos) << log;
    EXPECT_EQ(log.find("ERROR"), std::string::npos) << log;
    if (withPeer) {
      int peer = ctx.rankOfLocal(1);
      std::string late = "rank " + std::to_string(peer) + " (world rank " + std::to_string(worldSize - 1 - peer) +
                         "): not in this call yet";
      EXPECT_NE(log.find(late), std::string::npos) << "names the late node peer: " << log;
    }
    if (ctx.numNodes() > 1) {
      // Who the inter-node stage waits on: ranks of the other nodes, by their ranks in c.
      int partner = ctx.interPartners().at(0);
      std::string stage = "the inter-node stage, with rank " + std::to_string(partner) + " (world rank " +
                          std::to_string(worldSize - 1 - partner) + ")";
      EXPECT_NE(log.find(stage), std::string::npos) << log;
    }
  }
  PMPI_Barrier(MPI_COMM_WORLD);
  MPI_Comm_free(&c);
}

// Each differs on rank 1 only, as if set there alone. The same-node path and who leads
// change which set-up steps run, so these hung before set-up compared settings first.
TEST(CollErrors, DifferentSettingsFallBackInsteadOfDeadlocking) {
  struct Variant {
    const char* what;
    void (*change)(Settings&);
  };
  const Variant variants[] = {
      {"FERRY_COLL_CHUNK_SIZE", [](Settings& s) { s.chunkSize = 8192; }},
      {"FERRY_COLL_INTRA", [](Settings& s) { s.intra = s.intra == IntraChoice::Staged ? IntraChoice::Single : IntraChoice::Staged; }},
      {"FERRY_COLL_LEADERS", [](Settings& s) { s.leaders = s.leaders == Leaders::One ? Leaders::All : Leaders::One; }},
  };
  for (const Variant& v : variants) {
    LogCapture capture("warn");
    MPI_Comm c;
    MPI_Comm_dup(MPI_COMM_WORLD, &c);
    Settings s = forcedSettings();
    if (rankOf(c) == 1) v.change(s);
    std::vector<int> in(100000, 1), out(in.size());
    StatsSnapshot before = statsNow();
    ASSERT_EQ(allreduceWith(s, in.data(), out.data(), static_cast<int>(in.size()), MPI_INT, MPI_SUM, c), MPI_SUCCESS)
        << v.what;
    EXPECT_EQ(out, std::vector<int>(in.size(), ranksOf(c))) << v.what;
    EXPECT_EQ(statsNow().ferryCalls, before.ferryCalls) << v.what;
    ASSERT_NE(existingContext(c), nullptr) << v.what;
    EXPECT_FALSE(existingContext(c)->usable()) << v.what;
    EXPECT_NE(existingContext(c)->disabledReason().find("settings differ between the ranks"), std::string::npos)
        << v.what;
    EXPECT_NE(capture.text().find("give every rank the same values"), std::string::npos) << v.what << capture.text();
    MPI_Comm_free(&c);
  }
}

// A rank that loaded another build of Ferry (a stale install on one node): the first step
// of set-up finds it, and every rank hands the communicator to the library, saying why.
TEST(CollErrors, AnotherBuildOnOneRankFallsBackWithTheReason) {
  LogCapture capture("warn");
  MPI_Comm c;
  MPI_Comm_dup(MPI_COMM_WORLD, &c);
  if (rankOf(c) == 1) announceProtocolVersionForTesting(kCollProtocolVersion + 1);
  std::vector<int> in(100000, 1), out(in.size());
  StatsSnapshot before = statsNow();
  int rc = allreduceWith(forcedSettings(), in.data(), out.data(), static_cast<int>(in.size()), MPI_INT, MPI_SUM, c);
  announceProtocolVersionForTesting(kCollProtocolVersion);
  ASSERT_EQ(rc, MPI_SUCCESS);
  EXPECT_EQ(out, std::vector<int>(in.size(), ranksOf(c)));
  EXPECT_EQ(statsNow().ferryCalls, before.ferryCalls);
  ASSERT_NE(existingContext(c), nullptr);
  EXPECT_FALSE(existingContext(c)->usable());
  std::string want = "run different builds of Ferry (collectives protocol versions " +
                     std::to_string(kCollProtocolVersion) + " to " + std::to_string(kCollProtocolVersion + 1);
  EXPECT_NE(existingContext(c)->disabledReason().find(want), std::string::npos) << existingContext(c)->disabledReason();
  EXPECT_NE(capture.text().find("load the same libferry-pmpi or libferry-coll on every node"), std::string::npos)
      << capture.text();
  MPI_Comm_free(&c);
}

// Which ranks pass the other arguments: the odd ones (a peer on the same node, in these
// layouts), those of every node but rank 0's (only the leaders meet each other's), or the
// odd ones of those (only that node meets the mismatch; the leaders of the others wait for
// its leader's messages, which never come, until its notice does).
enum class Who : uint8_t { OddRanks, OtherNodes, OddRanksOfOtherNodes };

struct Mismatch {
  const char* what;
  Who who;
  IntraChoice choice;  // forces the path below
  IntraPath path;
  int count, otherCount;
  MPI_Datatype otherType;
  MPI_Op otherOp;
  const char* rank0Says;  // what rank 0's error says
  const char* inter = "p2p";  // FERRY_COLL_INTER
};

void PrintTo(const Mismatch& m, std::ostream* os) { *os << m.what; }

class CollMismatch : public ::testing::TestWithParam<Mismatch> {};

TEST_P(CollMismatch, IsAnErrorThatNamesThePeerAndWhatItPassed) {
  // Every node of these layouts has an even and an odd rank. Every rank fails the call at
  // once: it meets the mismatch itself, or its node's leader did (or heard of it from
  // another node's leader) and says so; none is left waiting.
  const Mismatch& m = GetParam();
  LogCapture capture("warn");
  MPI_Comm c;
  MPI_Comm_dup(MPI_COMM_WORLD, &c);
  MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
  Settings s = forcedSettings();
  s.intra = m.choice;
  s.inter = m.inter;
  std::vector<int> in(100000, 1), out(in.size(), -7);
  ASSERT_EQ(allreduceWith(s, in.data(), out.data(), 1000, MPI_INT, MPI_SUM, c), MPI_SUCCESS);  // sets up
  CommContext& ctx = *existingContext(c);
  // So that the p2p tags come round to the failed call's within this test (callFailed()).
  constexpr uint64_t kCallsAfterFailure = 5;
  if (std::string(m.inter) != "mpi") ctx.setCallsAfterFailure(kCallsAfterFailure);
  bool acrossNodes = m.who != Who::OddRanks;
  // The same on every rank: so every rank skips, or none.
  bool onePerNode = ctx.numNodes() == ranksOf(c);
  bool needsNodePeers = m.who != Who::OtherNodes;  // odd ranks disagree with their node's even ones
  if (ctx.path() != m.path || (acrossNodes && ctx.numNodes() == 1) || (needsNodePeers && onePerNode)) {
    // Said before the free, which deletes the context (ASan: a use after free).
    std::string why = ctx.numNodes() == 1 ? std::string("one node: no leaders' exchange to test")
                      : onePerNode        ? std::string("one rank per node: no node peer to disagree with")
                                          : "this machine does not allow the same-node path under test: " +
                                                ctx.pathReason();
    MPI_Comm_free(&c);
    GTEST_SKIP() << why;
  }
  ASSERT_EQ(ctx.pathFor(sizeof(int) * static_cast<size_t>(m.otherCount)), m.path);
  bool otherNode = ctx.rankOfLocal(0) != 0;
  bool other = m.who == Who::OddRanks     ? rankOf(c) % 2 == 1
               : m.who == Who::OtherNodes ? otherNode
                                          : otherNode && rankOf(c) % 2 == 1;
  auto mismatched = [&] {
    std::fill(out.begin(), out.end(), -7);
    return other ? allreduceWith(s, in.data(), out.data(), m.otherCount, m.otherType, m.otherOp, c)
                 : allreduceWith(s, in.data(), out.data(), m.count, MPI_INT, MPI_SUM, c);
  };
  double t0 = nowSeconds();
  int rc = mismatched();
  uint64_t failedCall = ctx.callsBegun();
  // The ranks that found the mismatch say MPI_ERR_ARG; their node peers, whose leader did,
  // and the nodes whose leader heard of it, MPI_ERR_OTHER.
  bool found = m.who == Who::OddRanks || (m.who == Who::OtherNodes && ctx.isLeader()) ||
               (m.who == Who::OddRanksOfOtherNodes && otherNode);
  EXPECT_EQ(rc, found ? MPI_ERR_ARG : MPI_ERR_OTHER) << m.what;
  EXPECT_LT(nowSeconds() - t0, s.timeoutSeconds) << "fails at once, without waiting for a timeout";
  std::string log = capture.text();
  auto has = [&log](const std::string& text) { return log.find(text) != std::string::npos; };
  // Where every rank runs the inter-node stage on its share, a rank of node 0 hears of the
  // failure on node 1 from its own counterpart there or from its node peer, whichever first.
  bool either = ctx.shareLeaders() && m.who == Who::OddRanksOfOtherNodes;
  if (rankOf(c) == 0) {
    bool namesPeer = has("node-local rank 1 (rank 1 of comm #");
    EXPECT_TRUE(namesPeer || m.who != Who::OddRanks) << log;
    EXPECT_TRUE(has(m.rank0Says) || (either && namesPeer)) << log;
    EXPECT_TRUE(has("MPI requires") || m.who == Who::OddRanksOfOtherNodes) << log;
  } else if (!ctx.isLeader() && m.who != Who::OddRanks && !(m.who == Who::OddRanksOfOtherNodes && otherNode)) {
    std::string fromLeader = "(rank " + std::to_string(ctx.rankOfLocal(0)) + " of comm #";
    bool heard = has(fromLeader) || (either && has("the leader of node 1 failed this call"));
    EXPECT_TRUE(heard) << log;
    EXPECT_TRUE(has("failed this call, so this rank cannot finish it")) << log;
  }
  // The mpi backend's MPI_Iallreduce cannot be cancelled: every rank turns Ferry off for
  // this communicator, and the library runs its later calls (a mismatched one would then
  // be the library's to report, or not). The p2p backend goes on.
  bool retires = std::string(m.inter) == "mpi" && ctx.numNodes() > 1;
  EXPECT_EQ(ctx.usable(), !retires) << m.what;
  if (retires) {
    EXPECT_NE(ctx.disabledReason().find("MPI_Iallreduce"), std::string::npos) << ctx.disabledReason();
    EXPECT_TRUE(has("Ferry's allreduce is off for this communicator from now on")) << log;
  } else {
    // A second failed call at once: each leader's notices of the two calls are in flight
    // together (each with a buffer of its own), and neither is taken for the other call's.
    EXPECT_EQ(mismatched(), rc) << m.what << ": the same call failed again";
  }
  PMPI_Barrier(MPI_COMM_WORLD);
  StatsSnapshot before = statsNow();
  // The failed calls leave nothing behind that a later call could take for its own: the
  // same communicator's next calls, with the same arguments everywhere, are right.
  // Each call sums other values, so that a message left over from a failed call would
  // show in the result.
  for (int call = 0; call < 3; ++call) {
    std::fill(in.begin(), in.end(), call + 2);
    std::fill(out.begin(), out.end(), -7);
    ASSERT_EQ(allreduceWith(s, in.data(), out.data(), m.count, MPI_INT, MPI_SUM, c), MPI_SUCCESS) << m.what;
    int bad = 0;
    for (int i = 0; i < m.count; ++i) bad += out[static_cast<size_t>(i)] != (call + 2) * ranksOf(c) ? 1 : 0;
    EXPECT_EQ(bad, 0) << m.what << ": elements wrong in call " << call << " after the failed ones";
  }
  EXPECT_EQ(statsNow().ferryCalls - before.ferryCalls, retires ? 0u : 3u) << m.what;
  if (!retires && ctx.numNodes() > 1) {
    // The next call's p2p tags would be the first failed call's, whose messages may still
    // wait unreceived: the library runs it and every later one.
    ASSERT_EQ(ctx.callsBegun(), failedCall + kCallsAfterFailure - 1) << "two failed calls and three right ones";
    EXPECT_TRUE(ctx.usable());
    std::fill(out.begin(), out.end(), -7);
    StatsSnapshot beforeLast = statsNow();
    ASSERT_EQ(allreduceWith(s, in.data(), out.data(), m.count, MPI_INT, MPI_SUM, c), MPI_SUCCESS) << m.what;
    EXPECT_EQ(out[0], 4 * ranksOf(c));
    EXPECT_EQ(statsNow().ferryCalls, beforeLast.ferryCalls) << m.what;
    EXPECT_FALSE(ctx.usable());
    EXPECT_NE(ctx.disabledReason().find("would reuse the p2p tags of call " + std::to_string(failedCall)),
              std::string::npos)
        << ctx.disabledReason();
    EXPECT_NE(capture.text().find("Ferry's allreduce is off for this communicator from now on"), std::string::npos);
  }
  MPI_Comm_free(&c);
}

INSTANTIATE_TEST_SUITE_P(
    Kinds, CollMismatch,
    ::testing::Values(Mismatch{"count, single copy", Who::OddRanks, IntraChoice::Single, IntraPath::Single, 50000,
                               100000, MPI_INT, MPI_SUM, "passed 100000 int32 (390.6 KiB) with MPI_SUM, this rank"},
                      Mismatch{"count, staged", Who::OddRanks, IntraChoice::Staged, IntraPath::Staged, 500, 1000,
                               MPI_INT, MPI_SUM, "passed 1000 int32 (3.9 KiB) with MPI_SUM, this rank"},
                      Mismatch{"type", Who::OddRanks, IntraChoice::Single, IntraPath::Single, 50000, 50000, MPI_FLOAT,
                               MPI_SUM, "passed 50000 float32 (195.3 KiB) with MPI_SUM, this rank"},
                      Mismatch{"op", Who::OddRanks, IntraChoice::Staged, IntraPath::Staged, 1000, 1000, MPI_INT,
                               MPI_MAX, "passed 1000 int32 (3.9 KiB) with MPI_MAX, this rank"},
                      Mismatch{"count, across nodes", Who::OtherNodes, IntraChoice::Single, IntraPath::Single, 50000,
                               100000, MPI_INT, MPI_SUM, "the leader of node 1 sent "},
                      Mismatch{"count, on one node of several", Who::OddRanksOfOtherNodes, IntraChoice::Single,
                               IntraPath::Single, 50000, 100000, MPI_INT, MPI_SUM,
                               "the leader of node 1 failed this call, so this rank cannot finish it"},
                      // The other leaders wait in their MPI_Iallreduce for node 1's, which
                      // never comes, until its leader's notice does.
                      Mismatch{"count, on one node of several, inter mpi", Who::OddRanksOfOtherNodes,
                               IntraChoice::Single, IntraPath::Single, 50000, 100000, MPI_INT, MPI_SUM,
                               "the leader of node 1 failed this call, so this rank cannot finish it", "mpi"}),
    [](const ::testing::TestParamInfo<Mismatch>& info) {
      std::string n = info.param.what;
      for (char& ch : n)
        if (!isalnum(static_cast<unsigned char>(ch))) ch = '_';
      return n;
    });

}  // namespace
}  // namespace ferry::coll::testing
