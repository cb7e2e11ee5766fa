// NodeCopies: which device of a node still holds bytes rank 0 sent there (one transfer per
// node). A stale record would make a device copy wrong bytes, so every way a record must go
// is tested.
#include "offload/node_copies.h"

#include <gtest/gtest.h>

#include <vector>

namespace ferry::offload {
namespace {

Digest digestOfValue(uint8_t v, size_t n = 4096) {
  std::vector<uint8_t> bytes(n, v);
  return digestOf(bytes.data(), bytes.size());
}

NodeCopy copyOn(int node, int device, uint64_t addr, uint64_t size, Digest d) { return {node, device, addr, size, d}; }

TEST(Digest, EqualBytesEqualDigestsAndOneByteChangesIt) {
  std::vector<uint8_t> a(1 << 20, 7), b = a;
  EXPECT_EQ(digestOf(a.data(), a.size()), digestOf(b.data(), b.size()));
  b[123457] ^= 1;
  EXPECT_NE(digestOf(a.data(), a.size()), digestOf(b.data(), b.size()));
  // Length is part of the digest: a prefix is not the whole.
  EXPECT_NE(digestOf(a.data(), a.size()), digestOf(a.data(), a.size() - 1));
}

TEST(NodeCopies, FindsAnotherDeviceOfTheNodeWithTheSameBytes) {
  NodeCopies c;
  Digest d = digestOfValue(1);
  c.add(copyOn(1, 2, 0x1000, 4096, d));
  auto found = c.find(1, 4096, d, 3);
  ASSERT_TRUE(found);
  EXPECT_EQ(found->device, 2);
  EXPECT_EQ(found->address, 0x1000u);
  EXPECT_TRUE(c.holdsSize(1, 4096, 3));
}

TEST(NodeCopies, IgnoresOtherNodesSizesDigestsAndTheAskingDevice) {
  NodeCopies c;
  Digest d = digestOfValue(1);
  c.add(copyOn(1, 2, 0x1000, 4096, d));
  EXPECT_FALSE(c.find(0, 4096, d, 3));                   // another node
  EXPECT_FALSE(c.find(1, 8192, d, 3));                   // another size
  EXPECT_FALSE(c.find(1, 4096, digestOfValue(2), 3));    // other bytes
  EXPECT_FALSE(c.find(1, 4096, d, 2));                   // the device itself
  EXPECT_FALSE(c.holdsSize(1, 4096, 2));
  EXPECT_FALSE(c.holdsSize(1, 100, 3));
}

TEST(NodeCopies, AWriteIntoTheRangeForgetsItAndOneBesideItDoesNot) {
  NodeCopies c;
  Digest d = digestOfValue(1);
  c.add(copyOn(1, 2, 0x10000, 4096, d));
  c.forget(2, 0x10000 + 4096, 100);  // just after
  c.forget(2, 0x10000 - 100, 100);   // just before
  c.forget(3, 0x10000, 4096);        // the same addresses on another device
  EXPECT_TRUE(c.find(1, 4096, d, 3));
  c.forget(2, 0x10000 + 4095, 1);    // the last byte
  EXPECT_FALSE(c.find(1, 4096, d, 3));
}

TEST(NodeCopies, AKernelOnTheDeviceForgetsAllOfItsRecordsOnly) {
  NodeCopies c;
  Digest d = digestOfValue(1), e = digestOfValue(2);
  c.add(copyOn(1, 2, 0x1000, 4096, d));
  c.add(copyOn(1, 2, 0x9000, 4096, e));
  c.add(copyOn(1, 4, 0x1000, 4096, e));
  c.forgetDevice(2);
  EXPECT_FALSE(c.find(1, 4096, d, 3));
  auto found = c.find(1, 4096, e, 3);
  ASSERT_TRUE(found);
  EXPECT_EQ(found->device, 4);
  EXPECT_EQ(c.size(), 1u);
}

TEST(NodeCopies, NewBytesAtAnAddressReplaceTheOldRecordThere) {
  NodeCopies c;
  Digest d = digestOfValue(1), e = digestOfValue(2);
  c.add(copyOn(1, 2, 0x1000, 4096, d));
  c.add(copyOn(1, 2, 0x1800, 4096, e));  // overlaps the first
  EXPECT_FALSE(c.find(1, 4096, d, 3));
  EXPECT_TRUE(c.find(1, 4096, e, 3));
  EXPECT_EQ(c.size(), 1u);
}

TEST(NodeCopies, TheNewestRecordIsFoundAndTheOldestGoesAtCapacity) {
  NodeCopies c(2);
  Digest d = digestOfValue(1), e = digestOfValue(2);
  c.add(copyOn(1, 2, 0x1000, 4096, d));
  c.add(copyOn(1, 3, 0x1000, 4096, d));
  auto found = c.find(1, 4096, d, 4);
  ASSERT_TRUE(found);
  EXPECT_EQ(found->device, 3);
  c.add(copyOn(1, 5, 0x1000, 4096, e));  // device 2's record goes
  EXPECT_EQ(c.size(), 2u);
  EXPECT_FALSE(c.find(1, 4096, d, 3));   // device 3's is the only one left with d
  EXPECT_TRUE(c.find(1, 4096, d, 4));
}

TEST(NodeCopies, ZeroCapacityKeepsNothing) {
  NodeCopies c(0);
  c.add(copyOn(1, 2, 0x1000, 4096, digestOfValue(1)));
  EXPECT_EQ(c.size(), 0u);
}

}  // namespace
}  // namespace ferry::offload
