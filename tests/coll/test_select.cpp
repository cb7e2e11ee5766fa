// The cost model's rules, each on its own, and the sentence that explains them.
#include <gtest/gtest.h>
#include <mpi.h>

#include "coll/select.h"

namespace ferry::coll {
namespace {

CommShape shape(int size, int nodes, int minLocal, int maxLocal) { return {size, nodes, minLocal, maxLocal}; }

TEST(CollSelect, OffAlwaysGoesToTheLibrary) {
  Settings s;
  s.mode = Mode::Off;
  Decision d = select(s, {64 << 20, ""}, shape(8, 2, 4, 4));
  EXPECT_FALSE(d.ferry);
  EXPECT_EQ(d.rule, Rule::Off);
}

TEST(CollSelect, UnsupportedGoesToTheLibraryEvenWhenForced) {
  Settings s;
  s.mode = Mode::On;
  CallShape call{1 << 20, "a derived datatype"};
  Decision d = preselect(s, call);
  EXPECT_FALSE(d.ferry);
  EXPECT_EQ(d.rule, Rule::Unsupported);
  EXPECT_EQ(explain(d, s, call, nullptr), "a derived datatype");
}

TEST(CollSelect, CrossoverIsTheMinSize) {
  Settings s;
  s.minSize = 64 * 1024;
  EXPECT_EQ(preselect(s, {64 * 1024 - 1, ""}).rule, Rule::BelowCrossover);
  EXPECT_TRUE(preselect(s, {64 * 1024, ""}).ferry);
  Decision d = preselect(s, {100, ""});
  EXPECT_NE(explain(d, s, {100, ""}, nullptr).find("FERRY_COLL_MIN_SIZE=64 KiB"), std::string::npos);
}

TEST(CollSelect, OneRankPerNodeGoesToTheLibraryUnlessForced) {
  Settings s;
  CallShape big{8 << 20, ""};
  EXPECT_EQ(select(s, big, shape(4, 4, 1, 1)).rule, Rule::OneRankPerNode);
  EXPECT_TRUE(select(s, big, shape(3, 2, 1, 2)).ferry) << "uneven: one node has two ranks";
  s.mode = Mode::On;
  Decision d = select(s, big, shape(4, 4, 1, 1));
  EXPECT_TRUE(d.ferry);
  EXPECT_EQ(d.rule, Rule::Forced);
  EXPECT_TRUE(select(s, {8, ""}, shape(2, 1, 2, 2)).ferry) << "forced ignores the crossover";
}

TEST(CollSelect, DefaultCrossoverIsTheMeasuredOne) {
  // docs/collectives.md: against Open MPI, Ferry's algorithm wins from 4 KiB on every
  // measured layout with ranks sharing a node, and at 2 KiB not everywhere; against MPICH
  // it wins at every size. Derivatives of MPICH keep 4 KiB: not measured.
  Settings s;
  EXPECT_EQ(s.minSize, 4u * 1024);
  EXPECT_EQ(defaultMinSize("Open MPI v4.1.4, package: Debian OpenMPI, ident: 4.1.4"), 4u * 1024);
  EXPECT_EQ(defaultMinSize("MPICH Version:\t4.0.2\nMPICH Release date:\tThu Apr  7 2022"), 0u);
  EXPECT_EQ(defaultMinSize("Intel(R) MPI Library 2021.10 for Linux* OS"), 4u * 1024);
  EXPECT_EQ(defaultMinSize("MPI VERSION    : CRAY MPICH version 8.1.26"), 4u * 1024);
  char version[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int len = 0;
  MPI_Get_library_version(version, &len);
  auto cfg = Config::fromEntries(std::vector<std::string>{});
  ASSERT_TRUE(cfg.isOk());
  Settings fromRegistry = Settings::fromConfig(*cfg);
  EXPECT_EQ(fromRegistry.minSize, defaultMinSize(std::string(version, static_cast<size_t>(len))))
      << "unset, the library this was built with decides";
  EXPECT_EQ(fromRegistry.stagedPerRank, s.stagedPerRank) << "registry and struct defaults agree";
  auto set = Config::fromEntries(std::vector<std::string>{"FERRY_COLL_MIN_SIZE=4K"});
  EXPECT_EQ(Settings::fromConfig(*set).minSize, 4u * 1024) << "set, it holds whatever the library";
}

TEST(CollSelect, TwoCopyPathBelowASizeThatGrowsWithTheRanksOnTheNode) {
  Settings s;
  s.stagedPerRank = 16 * 1024;
  s.chunkSize = 512 * 1024;
  EXPECT_EQ(stagedBelow(s, 2), 32u * 1024);
  EXPECT_EQ(stagedBelow(s, 8), 128u * 1024);
  EXPECT_EQ(stagedBelow(s, 64), 512u * 1024) << "never beyond one chunk: the input slots are that large at most";
  s.stagedPerRank = 0;
  EXPECT_EQ(stagedBelow(s, 8), 0u) << "0 turns it off";
}

TEST(CollSelect, ChosenExplainsTheShape) {
  Settings s;
  CallShape call{1 << 20, ""};
  CommShape c = shape(6, 2, 2, 4);
  Decision d = select(s, call, c);
  EXPECT_TRUE(d.ferry);
  std::string why = explain(d, s, call, &c);
  EXPECT_NE(why.find("6 ranks on 2 node(s), 2 to 4 per node"), std::string::npos) << why;
  EXPECT_NE(why.find("overlapped"), std::string::npos) << why;
}

TEST(CollSelect, ChunksAllowOverlapAcrossNodes) {
  Settings s;
  s.chunkSize = 512 * 1024;
  EXPECT_EQ(chunkBytes(s, 1 << 20, shape(4, 1, 4, 4)), 512u * 1024) << "one node: the largest chunk";
  EXPECT_EQ(chunkBytes(s, 1 << 20, shape(4, 2, 2, 2)), 512u * 1024) << "several nodes: at least two chunks";
  EXPECT_EQ(chunkBytes(s, 4 << 20, shape(4, 2, 2, 2)), 512u * 1024) << "and none above FERRY_COLL_CHUNK_SIZE";
  EXPECT_EQ(chunkBytes(s, 256 * 1024, shape(4, 2, 2, 2)), 128u * 1024);
  EXPECT_EQ(chunkBytes(s, 100 * 1024, shape(4, 2, 2, 2)), 64u * 1024) << "but no chunk below 64 KiB";
  EXPECT_EQ(chunkBytes(s, 1000, shape(4, 2, 2, 2)), 1000u);
}

TEST(CollSelect, DirectChunksAreLargerUnlessTheChunkSizeIsSet) {
  auto defaults = Config::fromEntries(std::vector<std::string>{});
  ASSERT_TRUE(defaults.isOk());
  Settings s = Settings::fromConfig(*defaults);
  EXPECT_EQ(s.directChunkSize, 4u << 20);
  EXPECT_EQ(chunkBytes(s, 16 << 20, shape(2, 1, 2, 2), true), 4u << 20) << "straight into the receive buffers";
  EXPECT_EQ(chunkBytes(s, 16 << 20, shape(2, 1, 2, 2), false), 512u * 1024) << "through slots: the slot size";
  EXPECT_EQ(chunkBytes(s, 1000, shape(2, 1, 2, 2), true), 1000u);
  auto set = Config::fromEntries(std::vector<std::string>{"FERRY_COLL_CHUNK_SIZE=16K"});
  ASSERT_TRUE(set.isOk());
  EXPECT_EQ(Settings::fromConfig(*set).directChunkSize, 16u * 1024) << "a chunk size that is set applies to all";
  set = Config::fromEntries(std::vector<std::string>{"FERRY_COLL_CHUNK_SIZE=8M"});
  ASSERT_TRUE(set.isOk());
  EXPECT_EQ(Settings::fromConfig(*set).directChunkSize, 8u << 20);
  Settings other = s;
  other.directChunkSize = 1 << 20;
  EXPECT_NE(s.fingerprint(), other.fingerprint()) << "ranks must agree on it";
}

TEST(CollSettings, FingerprintCoversTheDecisionInputsOnly) {
  Settings a, b;
  EXPECT_EQ(a.fingerprint(), b.fingerprint());
  b.timeoutSeconds = 5;
  b.regCacheBytes = 1;
  EXPECT_EQ(a.fingerprint(), b.fingerprint()) << "may differ per rank";
  b.chunkSize = 4096;
  EXPECT_NE(a.fingerprint(), b.fingerprint());
  Settings d;
  d.stagedPerRank = 1;
  EXPECT_NE(a.fingerprint(), d.fingerprint()) << "decides the path of a call on every rank of a node";
  Settings c;
  c.virtualNodes = 2;
  EXPECT_NE(a.fingerprint(), c.fingerprint());
}

TEST(CollSelect, LeadersAutoSpreadsTheStageWhereEveryRankHasAHardwareThread) {
  Settings s;  // FERRY_COLL_LEADERS=auto
  LeadersChoice even = chooseLeaders(s, 4, 4, false);
  EXPECT_TRUE(even.all);
  EXPECT_NE(even.reason.find("every node has 4 ranks, each with a hardware thread of its own"), std::string::npos)
      << even.reason;
  LeadersChoice shared = chooseLeaders(s, 4, 4, true);
  EXPECT_FALSE(shared.all) << "ranks that share a core take turns: one leader was faster there";
  EXPECT_NE(shared.reason.find("more ranks than hardware threads"), std::string::npos) << shared.reason;
  EXPECT_NE(shared.reason.find("FERRY_COLL_LEADERS=all overrides"), std::string::npos) << shared.reason;
  EXPECT_FALSE(chooseLeaders(s, 1, 1, false).all) << "one rank per node: its share is the whole chunk";
  LeadersChoice uneven = chooseLeaders(s, 3, 4, false);
  EXPECT_FALSE(uneven.all);
  EXPECT_NE(uneven.reason.find("the nodes have 3 to 4 ranks"), std::string::npos) << uneven.reason;
}

TEST(CollSelect, LeadersOneAndAllAreTakenAsAskedWhereSharesLineUp) {
  Settings s;
  s.leaders = Leaders::All;
  EXPECT_TRUE(chooseLeaders(s, 2, 2, true).all) << "asked for, also where ranks share cores";
  EXPECT_FALSE(chooseLeaders(s, 1, 2, false).all) << "uneven nodes: shares do not line up";
  s.leaders = Leaders::One;
  LeadersChoice one = chooseLeaders(s, 4, 4, false);
  EXPECT_FALSE(one.all);
  EXPECT_TRUE(one.reason.empty()) << one.reason;
}

TEST(CollSettings, ReadFromTheRegistry) {
  std::vector<std::string> env = {"FERRY_COLL=on", "FERRY_COLL_MIN_SIZE=1M", "FERRY_COLL_INTRA=staged",
                                  "FERRY_COLL_DEPTH=3", "FERRY_COLL_ALLOC_MEM=0", "FERRY_COLL_LEADERS=one"};
  auto cfg = Config::fromEntries(env);
  ASSERT_TRUE(cfg.isOk()) << cfg.status().message();
  Settings s = Settings::fromConfig(*cfg);
  EXPECT_EQ(s.mode, Mode::On);
  EXPECT_EQ(s.minSize, 1u << 20);
  EXPECT_EQ(s.intra, IntraChoice::Staged);
  EXPECT_EQ(s.depth, 3);
  EXPECT_FALSE(s.allocMem);
  EXPECT_EQ(s.leaders, Leaders::One);
  EXPECT_EQ(Settings::fromConfig(*Config::fromEntries(std::vector<std::string>{})).leaders, Leaders::Auto);
  EXPECT_EQ(Settings::fromConfig(*Config::fromEntries(std::vector<std::string>{"FERRY_COLL_INTRA=copy-in"})).intra,
            IntraChoice::CopyIn);
  auto bad = Config::fromEntries(std::vector<std::string>{"FERRY_COLL=fast"});
  ASSERT_FALSE(bad.isOk());
  EXPECT_NE(bad.status().message().find("FERRY_COLL='fast' is invalid: expected one of auto|on|off"), std::string::npos)
      << bad.status().message();
}

}  // namespace
}  // namespace ferry::coll
