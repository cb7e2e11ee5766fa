#include <gtest/gtest.h>

#include "comm/node_split.h"

namespace ferry::comm {
namespace {

TEST(NodeSplit, VirtualBlocksAreContiguousAndBalanced) {
  // 4 ranks into 2 virtual nodes: {0,1} {2,3}.
  EXPECT_EQ(virtualBlock(0, 4, 2), 0);
  EXPECT_EQ(virtualBlock(1, 4, 2), 0);
  EXPECT_EQ(virtualBlock(2, 4, 2), 1);
  EXPECT_EQ(virtualBlock(3, 4, 2), 1);
  // 3 ranks into 2: {0,1} {2} - uneven, as tests of uneven nodes need.
  EXPECT_EQ(virtualBlock(0, 3, 2), 0);
  EXPECT_EQ(virtualBlock(1, 3, 2), 0);
  EXPECT_EQ(virtualBlock(2, 3, 2), 1);
  // More virtual nodes than ranks: one rank each.
  for (int r = 0; r < 3; ++r) EXPECT_EQ(virtualBlock(r, 3, 8), r);
  // One virtual node: everyone together.
  for (int r = 0; r < 5; ++r) EXPECT_EQ(virtualBlock(r, 5, 1), 0);
}

}  // namespace
}  // namespace ferry::comm
