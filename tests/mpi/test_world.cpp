// The job's layout: ranks, virtual nodes, the path chosen per peer, the CMA probe.
#include <gtest/gtest.h>
#include <mpi.h>
#include <unistd.h>

#include "comm/node_split.h"
#include "comm/protocol.h"
#include "comm/world.h"
#include "world_fixture.h"
#include "platform/config.h"
#include "platform/init.h"

namespace ferry::comm {
namespace {

World& world() { return testWorld(); }

// One per test program (test_world.cpp is in each that uses testWorld()).
[[maybe_unused]] ::testing::Environment* const kEndTestWorld = ::testing::AddGlobalTestEnvironment(new EndTestWorld);

TEST(World, KnowsEveryRank) {
  World& w = world();
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  EXPECT_EQ(w.rank(), rank);
  EXPECT_EQ(w.size(), size);
  EXPECT_FALSE(w.ownsMpi()) << "the test's main initialised MPI";
  EXPECT_EQ(w.threadLevel(), MPI_THREAD_MULTIPLE);
  EXPECT_EQ(w.self().pid, getpid());
  EXPECT_GE(w.tagUpperBound(), 32767);
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  EXPECT_EQ(w.self().host, host);
}

// A rank of another Ferry build is told apart in the first exchange, on every rank, each
// saying its own version.
TEST(World, RanksOfAnotherBuildAreToldApartFirst) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  EXPECT_TRUE(agreeOnProtocolVersion(MPI_COMM_WORLD, kProtocolVersion).isOk());
  int mine = rank == 1 ? kProtocolVersion + 1 : kProtocolVersion;
  Status st = agreeOnProtocolVersion(MPI_COMM_WORLD, mine);
  ASSERT_FALSE(st.isOk());
  EXPECT_EQ(st.code(), Errc::VersionMismatch);
  std::string versions = "(protocol versions " + std::to_string(kProtocolVersion) + " to " +
                         std::to_string(kProtocolVersion + 1) + "), this rank version " + std::to_string(mine);
  EXPECT_NE(st.message().find(versions), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("install the same Ferry build on every node"), std::string::npos) << st.message();
}

TEST(World, VirtualNodesSplitAsConfigured) {
  World& w = world();
  int k = static_cast<int>(config().integer(Knob::VirtualNodes));
  // One machine: all ranks share the physical node; virtual blocks are contiguous.
  EXPECT_EQ(w.nodes().numNodes, std::min(k, w.size()));
  for (int r = 0; r < w.size(); ++r) {
    EXPECT_EQ(w.peer(r).physNode, 0);
    EXPECT_EQ(w.peer(r).node, virtualBlock(r, w.size(), k));
  }
  int nodeSize = 0;
  MPI_Comm_size(w.nodes().nodeComm, &nodeSize);
  int expected = 0;
  for (int r = 0; r < w.size(); ++r) expected += w.peer(r).node == w.self().node;
  EXPECT_EQ(nodeSize, expected);
  EXPECT_EQ(w.nodes().leaderComm != MPI_COMM_NULL, w.nodes().localRank == 0);
}

TEST(World, PathPerPeerFollowsPlacement) {
  World& w = world();
  EXPECT_EQ(w.pathTo(w.rank()), Path::Self);
  for (int r = 0; r < w.size(); ++r) {
    if (r == w.rank()) continue;
    bool sameNode = w.peer(r).node == w.self().node;
    Path expect = sameNode && w.cmaEnabled() ? Path::Cma : Path::Mpi;
    EXPECT_EQ(w.pathTo(r), expect) << "peer " << r;
  }
  if (config().text(Knob::Shm) == "off") {
    EXPECT_FALSE(w.cmaEnabled());
    EXPECT_NE(w.cmaReason().find("FERRY_SHM=off"), std::string::npos);
  } else {
    EXPECT_TRUE(w.cmaEnabled()) << "CMA works between a user's processes here: " << w.cmaReason();
  }
}

}  // namespace
}  // namespace ferry::comm
