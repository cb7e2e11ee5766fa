#include <gtest/gtest.h>

#include "platform/log.h"

namespace ferry::log {
namespace {

TEST(Log, LevelAndSubsystems) {
  ASSERT_TRUE(configure("debug,comm,offload").isOk());
  EXPECT_TRUE(enabled(Level::Debug, Comm));
  EXPECT_TRUE(enabled(Level::Info, Offload));
  EXPECT_FALSE(enabled(Level::Debug, Coll));
  EXPECT_FALSE(enabled(Level::Trace, Comm));
  EXPECT_TRUE(enabled(Level::Warn, Coll)) << "warnings are never filtered by subsystem";
  ASSERT_TRUE(configure("info").isOk());
  EXPECT_TRUE(enabled(Level::Info, Coll)) << "no subsystem list means all";
  EXPECT_FALSE(enabled(Level::Debug, Coll));
  ASSERT_TRUE(configure("DEBUG, Coll").isOk()) << "any case, as NCCL_DEBUG=INFO is written";
  EXPECT_TRUE(enabled(Level::Debug, Coll));
  EXPECT_FALSE(enabled(Level::Debug, Comm));
  ASSERT_TRUE(configure("warn").isOk());
}

TEST(Log, RejectsUnknownWords) {
  Status st = configure("verbose");
  EXPECT_FALSE(st.isOk());
  EXPECT_NE(st.message().find("FERRY_LOG"), std::string::npos);
  EXPECT_NE(st.message().find("verbose"), std::string::npos);
  EXPECT_FALSE(configure("debug,network").isOk());
  Status late = configure("coll,error");
  EXPECT_NE(late.message().find("'error' is a level, and the level comes first (FERRY_LOG=error,SUBSYS...)"),
            std::string::npos)
      << late.message();
  ASSERT_TRUE(configure("warn").isOk());
}

// A process that is no rank of a job (the ferry CLI) names itself instead of "rank=?".
TEST(Log, LabelStandsInForAMissingRank) {
  ASSERT_LT(rank(), 0) << "run the unit tests outside a launcher";
  EXPECT_EQ(linePrefix(Level::Warn, Config).rfind("[ferry rank=? host=", 0), 0u);
  setLabel("cli");
  EXPECT_EQ(linePrefix(Level::Warn, Config).rfind("[ferry cli host=" + hostName() + " pid=", 0), 0u);
  setRank(3);
  EXPECT_EQ(linePrefix(Level::Warn, Config).rfind("[ferry rank=3 host=", 0), 0u) << "a known rank wins";
  setRank(-1);
  setLabel(nullptr);
}

}  // namespace
}  // namespace ferry::log
