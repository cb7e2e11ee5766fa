// The set-up measurement behind copy-in (coll/copy_probe.h): what it times, and the rule
// that turns the node's figures into the choice.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>

#include "coll/copy_probe.h"
#include "platform/copy.h"

namespace ferry::coll {
namespace {

TEST(CollCopyProbe, CopyingInWinsWhereTheKernelCopiesFarSlower) {
  // This machine's figures (docs/collectives.md): memcpy about 4x process_vm_readv.
  EXPECT_TRUE(copyInCheaper({38, 9}, 2));
  EXPECT_TRUE(copyInCheaper({38, 9}, 4));
}

TEST(CollCopyProbe, ReadingInPlaceStaysWhereTheKernelIsHalfAsFast) {
  // Two ranks: copy-in copies a whole chunk where each reads half of one.
  EXPECT_FALSE(copyInCheaper({20, 10}, 2));
  // Eight ranks read 7/8 of a chunk each through the kernel: copying it in is cheaper.
  EXPECT_TRUE(copyInCheaper({20, 10}, 8));
}

TEST(CollCopyProbe, TheMarginKeepsCloseCallsOnSingleCopy) {
  // copy (k-1) against margin * cma * k, at the edge on either side.
  EXPECT_FALSE(copyInCheaper({kCopyInMargin * 2 * 10, 10}, 2));
  EXPECT_TRUE(copyInCheaper({kCopyInMargin * 2 * 10 * 1.01, 10}, 2));
}

TEST(CollCopyProbe, NoPeersNoCopyIn) { EXPECT_FALSE(copyInCheaper({100, 1}, 1)); }

TEST(CollCopyProbe, AFailedReadCountsAsTheSlowestKernelCopy) { EXPECT_TRUE(copyInCheaper({10, 0}, 2)); }

TEST(CollCopyProbe, TimesBothCopies) {
  // process_vm_readv from this very process works wherever the kernel allows it at all.
  PageBytes lent = allocatePages(kCopyProbeBytes + kCopyPage);
  std::memset(lent.get(), 7, kCopyProbeBytes + kCopyPage);
  CopySpeeds s = timeCopies(lent.get(), getpid(), reinterpret_cast<uint64_t>(lent.get()));
  EXPECT_GT(s.copyGBs, 0.1);
  EXPECT_GT(s.cmaGBs, 0.01) << "process_vm_readv of this process's own memory";
  EXPECT_NE(describeSpeeds(s).find("process_vm_readv"), std::string::npos);
}

TEST(CollCopyProbe, AReadThatFailsIsSpeedZero) {
  PageBytes lent = allocatePages(kCopyProbeBytes + kCopyPage);
  std::memset(lent.get(), 7, kCopyProbeBytes + kCopyPage);
  // Address 4096 is never mapped: the read fails, and the copy is still timed.
  CopySpeeds s = timeCopies(lent.get(), getpid(), 4096);
  EXPECT_GT(s.copyGBs, 0.1);
  EXPECT_EQ(s.cmaGBs, 0.0);
}

}  // namespace
}  // namespace ferry::coll
