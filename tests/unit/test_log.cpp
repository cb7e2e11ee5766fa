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
  ASSERT_TRUE(configure("warn").isOk());
}

TEST(Log, RejectsUnknownWords) {
  Status st = configure("verbose");
  EXPECT_FALSE(st.isOk());
  EXPECT_NE(st.message().find("FERRY_LOG"), std::string::npos);
  EXPECT_NE(st.message().find("verbose"), std::string::npos);
  EXPECT_FALSE(configure("debug,network").isOk());
  ASSERT_TRUE(configure("warn").isOk());
}

}  // namespace
}  // namespace ferry::log
