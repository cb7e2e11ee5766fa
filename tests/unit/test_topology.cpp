// kernelThreads(): how many threads a CPU device's kernels get on a serving rank.
#include <gtest/gtest.h>

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

}  // namespace
}  // namespace ferry
