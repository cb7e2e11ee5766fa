// The interposer's job-wide check at MPI_Init (agreeAcrossJob): a rank that runs another
// build of Ferry's collectives turns them off for the whole job, rank 0 names it, and it
// says how it differs; allreduces then go to the library and are right. A binary of its
// own: the check's verdict holds for the rest of the process.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "coll/comm_context.h"
#include "coll/job_check.h"
#include "coll_test_util.h"

namespace ferry::coll::testing {
namespace {

TEST(CollJobCheck, AnotherBuildOnOneRankTurnsTheCollectivesOffForTheJob) {
  LogCapture capture("warn");
  ASSERT_TRUE(jobAgreed());
  int rank = rankOf(MPI_COMM_WORLD);
  if (rank == 1) announceProtocolVersionForTesting(kCollProtocolVersion + 1);
  agreeAcrossJob();
  announceProtocolVersionForTesting(kCollProtocolVersion);
  EXPECT_FALSE(jobAgreed()) << "on every rank, the one that differs and the others";
  std::string log = capture.text();
  if (rank == 0) {
    EXPECT_NE(log.find("Ferry's collectives are off for this job and the MPI library runs every allreduce: rank 1 "
                       "differs from rank 0 in Ferry's build or FERRY_* settings"),
              std::string::npos)
        << log;
  } else if (rank == 1) {
    std::string want = "this rank runs another build of Ferry (collectives protocol version " +
                       std::to_string(kCollProtocolVersion + 1) + ", rank 0's " +
                       std::to_string(kCollProtocolVersion) + "); load the same libferry-pmpi on every node";
    EXPECT_NE(log.find(want), std::string::npos) << log;
  } else {
    EXPECT_EQ(log.find("Ferry's collectives are off"), std::string::npos) << "only rank 0 and the rank that differs say so";
  }
  std::vector<int> in(100000, 1), out(in.size());
  StatsSnapshot before = statsNow();
  ASSERT_EQ(allreduceWith(forcedSettings(), in.data(), out.data(), static_cast<int>(in.size()), MPI_INT, MPI_SUM,
                          MPI_COMM_WORLD),
            MPI_SUCCESS);
  EXPECT_EQ(out, std::vector<int>(in.size(), ranksOf(MPI_COMM_WORLD)));
  EXPECT_EQ(statsNow().ferryCalls, before.ferryCalls) << "the library ran it";
}

}  // namespace
}  // namespace ferry::coll::testing
