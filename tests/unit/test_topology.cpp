// kernelThreads(): how many threads a CPU device's kernels get on a serving rank.
#include <gtest/gtest.h>

#include <stdlib.h>
#include <unistd.h>

#include "platform/topology.h"

namespace ferry {
namespace {

NodeTopology unbound(int cores, int pus) {
  NodeTopology t;
  t.cores = cores;
  t.pus = pus;
  return t;
}

NodeTopology boundTo(int pus) {
  NodeTopology t = unbound(16, 32);
  t.bound = true;
  t.boundPus = pus;
  return t;
}

TEST(KernelThreads, UnboundRanksShareTheNodesCores) {
  EXPECT_EQ(kernelThreads(unbound(16, 32), 4, 1), 4);  // cores, not hardware threads
  EXPECT_EQ(kernelThreads(unbound(16, 16), 3, 1), 5);  // rounded down: no core is shared
  EXPECT_EQ(kernelThreads(unbound(16, 16), 2, 2), 4);  // and split among the rank's devices
}

TEST(KernelThreads, BoundRanksUseTheirOwnHardwareThreads) {
  EXPECT_EQ(kernelThreads(boundTo(6), 4, 1), 6);  // whatever the node's share would be
  EXPECT_EQ(kernelThreads(boundTo(6), 4, 2), 3);
}

TEST(KernelThreads, NeverFewerThanOne) {
  EXPECT_EQ(kernelThreads(unbound(2, 2), 3, 1), 1);
  EXPECT_EQ(kernelThreads(boundTo(1), 1, 4), 1);
  EXPECT_EQ(kernelThreads(unbound(4, 4), 0, 0), 4);  // no division by zero
}

// hwloc that cannot discover (HWLOC_COMPONENTS=stop stands for a /sys it cannot read) does
// not leave kernels one core: the online CPUs stand in, and the warning says why.
TEST(Topology, WithoutHwlocTheOnlineCpusStandIn) {
  setenv("HWLOC_COMPONENTS", "stop", 1);
  testing::internal::CaptureStderr();
  NodeTopology t = discoverNodeTopology();
  std::string err = testing::internal::GetCapturedStderr();
  unsetenv("HWLOC_COMPONENTS");
  EXPECT_EQ(t.cores, sysconf(_SC_NPROCESSORS_ONLN));
  EXPECT_EQ(t.boundPus, t.cores);
  EXPECT_FALSE(t.bound);
  EXPECT_GT(t.memoryBytes, 0u);
  EXPECT_NE(err.find("hwloc: hwloc_topology_load failed"), std::string::npos) << err;
  EXPECT_NE(err.find("online CPUs for cores"), std::string::npos) << err;
}

TEST(Topology, DiscoversThisMachine) {
  NodeTopology t = discoverNodeTopology();
  EXPECT_GE(t.pus, t.cores);
  EXPECT_GE(t.cores, 1);
  EXPECT_GE(t.boundPus, 1);
}

}  // namespace
}  // namespace ferry
