// ferry bench offload: which raw-MPI latency baselines a report must call suspect.
#include <gtest/gtest.h>

#include "tools/ferry/bench_offload_rows.h"

namespace ferry::tools::bench {
namespace {

RunRecords pingPongs(std::initializer_list<std::pair<uint64_t, double>> sizesUs, double rttUs) {
  RunRecords r;
  for (auto [bytes, us] : sizesUs) r.figures[{"mpi_pingpong", bytes}] = Figure{us, "us", 100};
  r.figures[{"mpi_rtt", 1}] = Figure{rttUs, "us", 100};
  r.figures[{"empty", 0}] = Figure{900, "us", 100};  // Ferry's own figures are not baselines
  return r;
}

TEST(SuspectBaselines, ConsistentRunHasNone) {
  RunRecords ferry = pingPongs({{1, 2.0}, {8192, 6.0}, {1 << 20, 180.0}}, 2.1), stock;
  EXPECT_TRUE(suspectBaselines({{&stock, &ferry}}).empty());
}

// The case seen in a loaded run: 728 us for a 1 B ping-pong, 20 us at 8 KiB.
TEST(SuspectBaselines, SmallMessageSlowerThanLargerOneIsNamed) {
  RunRecords good = pingPongs({{1, 2.0}, {8192, 20.0}}, 2.1), bad = pingPongs({{1, 728.0}, {8192, 20.0}}, 2.2),
             stock;
  auto s = suspectBaselines({{&stock, &good}, {&stock, &bad}});
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s[0].rep, 2);
  EXPECT_EQ(s[0].bytes, 1u);
  EXPECT_DOUBLE_EQ(s[0].us, 728.0);
  EXPECT_EQ(s[0].largerBytes, 8192u);
  EXPECT_DOUBLE_EQ(s[0].largerUs, 20.0);
}

// The 1 B round trip is a ping-pong too, compared with the larger sizes.
TEST(SuspectBaselines, RoundTripCountsAsOneBytePingPong) {
  RunRecords ferry = pingPongs({{8192, 6.0}}, 40.0), stock;
  auto s = suspectBaselines({{&stock, &ferry}});
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s[0].bytes, 1u);
  EXPECT_DOUBLE_EQ(s[0].us, 40.0);
}

// Noise on microsecond figures is not a disturbance: twice as slow but under 5 us apart.
TEST(SuspectBaselines, SmallAbsoluteDifferenceIsNoise) {
  RunRecords ferry = pingPongs({{1, 4.5}, {64, 1.9}}, 2.0), stock;
  EXPECT_TRUE(suspectBaselines({{&stock, &ferry}}).empty());
}

}  // namespace
}  // namespace ferry::tools::bench
