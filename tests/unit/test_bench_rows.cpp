// ferry bench offload: which raw-MPI latency baselines a report must call suspect, and what
// reading a records file refuses.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>

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

// A records file as a measuring program left it, in a file of its own.
Result<RunRecords> readLines(const std::string& lines) {
  char path[] = "/tmp/ferry_records_XXXXXX";
  int fd = mkstemp(path);
  EXPECT_GE(fd, 0);
  close(fd);
  std::ofstream(path) << lines;
  auto r = readRecords(path);
  unlink(path);
  return r;
}

// A whole-number field that holds a float or a number out of its type's range is a malformed
// line: it was cast (undefined behaviour beyond the range; found by fuzz.bench_records).
TEST(ReadRecords, WholeNumbersOutOfRangeAreMalformedLines) {
  for (const char* line : {"{\"device\":7777777777777777777770,\"rank\":1,\"node\":0}",
                           "{\"device\":0,\"rank\":4294967296,\"node\":0}",
                           "{\"test\":\"empty\",\"size\":1e30,\"value\":1}",
                           "{\"test\":\"empty\",\"size\":0,\"value\":1,\"iters\":-1}",
                           "{\"counter\":\"messages\",\"test\":\"empty\",\"value\":2.5}",
                           "{\"validation\":{\"checks\":1e300,\"failures\":0}}"}) {
    auto r = readLines(std::string("{\"run\":{}}\n") + line + "\n");
    ASSERT_FALSE(r.isOk()) << line;
    EXPECT_NE(r.status().message().find(":2: "), std::string::npos) << r.status().message();
  }
}

TEST(ReadRecords, WholeNumbersInRangeRead) {
  auto r = readLines(
      "{\"device\":3,\"rank\":-1,\"node\":2,\"host\":\"n1\"}\n"
      "{\"test\":\"empty\",\"size\":18446744073709551615,\"value\":1.5,\"unit\":\"us\",\"iters\":7}\n"
      "{\"counter\":\"messages\",\"test\":\"empty\",\"value\":2000}\n"
      "{\"validation\":{\"checks\":12,\"failures\":0}}\n");
  ASSERT_TRUE(r.isOk()) << r.status().message();
  ASSERT_EQ(r->devices.size(), 1u);
  EXPECT_EQ(r->devices[0].rank, -1);
  const Figure* f = r->find("empty", UINT64_MAX);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->iters, 7u);
  EXPECT_EQ((r->counters[{"empty", "messages"}]), 2000u);
  EXPECT_EQ(r->checks, 12);
}

}  // namespace
}  // namespace ferry::tools::bench
