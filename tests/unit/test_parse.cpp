#include <gtest/gtest.h>

#include "platform/parse.h"

namespace ferry::parse {
namespace {

TEST(Parse, Sizes) {
  EXPECT_EQ(size("4096"), 4096u);
  EXPECT_EQ(size("64K"), 65536u);
  EXPECT_EQ(size("64KiB"), 65536u);
  EXPECT_EQ(size("1m"), 1u << 20);
  EXPECT_EQ(size("2G"), 2ull << 30);
  EXPECT_EQ(size(" 8 MB "), 8u << 20);
  EXPECT_FALSE(size(""));
  EXPECT_FALSE(size("1.5M"));
  EXPECT_FALSE(size("-1"));
  EXPECT_FALSE(size("12Q"));
  EXPECT_FALSE(size("99999999999999999999"));
  EXPECT_FALSE(size("17179869184T"));  // overflows 64 bits
}

TEST(Parse, Durations) {
  EXPECT_DOUBLE_EQ(*seconds("30"), 30.0);
  EXPECT_DOUBLE_EQ(*seconds("30s"), 30.0);
  EXPECT_DOUBLE_EQ(*seconds("250ms"), 0.25);
  EXPECT_DOUBLE_EQ(*seconds("1500us"), 0.0015);
  EXPECT_DOUBLE_EQ(*seconds("2m"), 120.0);
  EXPECT_DOUBLE_EQ(*seconds("1h"), 3600.0) << "docs/user-guide.md recommends FERRY_TIMEOUT=1h for debugging";
  EXPECT_FALSE(seconds("fast"));
  EXPECT_FALSE(seconds("3 hours"));
  EXPECT_FALSE(seconds(""));
}

TEST(Parse, Booleans) {
  for (const char* t : {"1", "true", "YES", "On"}) EXPECT_EQ(boolean(t), true) << t;
  for (const char* f : {"0", "false", "no", "OFF"}) EXPECT_EQ(boolean(f), false) << f;
  EXPECT_FALSE(boolean("2"));
  EXPECT_FALSE(boolean("enable"));
}

TEST(Parse, Integers) {
  EXPECT_EQ(integer("42"), 42);
  EXPECT_EQ(integer("-7"), -7);
  EXPECT_FALSE(integer("4 2"));
  EXPECT_FALSE(integer("0x10"));
}

TEST(Parse, Formatting) {
  EXPECT_EQ(formatSize(512), "512 B");
  EXPECT_EQ(formatSize(1536), "1.5 KiB");
  EXPECT_EQ(formatSize(64ull << 20), "64 MiB");
  EXPECT_EQ(formatSeconds(0.25), "250 ms");
  EXPECT_EQ(formatSeconds(86400), "86400 s");
  EXPECT_EQ(hex(255), "0xff");
}

TEST(Parse, EditDistance) {
  EXPECT_EQ(editDistance("FERRY_TIMEOUT", "FERRY_TIMEOUT"), 0u);
  EXPECT_EQ(editDistance("FERRY_TIMOUT", "FERRY_TIMEOUT"), 1u);
  EXPECT_EQ(editDistance("", "abc"), 3u);
}

}  // namespace
}  // namespace ferry::parse
