// spreadOf(): the median, min and max every benchmark reports.
#include <gtest/gtest.h>

#include <cmath>

#include "platform/spread.h"

namespace ferry {
namespace {

TEST(Spread, OddCountTakesTheMiddleOne) {
  Spread s = spreadOf({3.0, 1.0, 2.0});
  EXPECT_EQ(s.median, 2.0);
  EXPECT_EQ(s.min, 1.0);
  EXPECT_EQ(s.max, 3.0);
  EXPECT_EQ(s.n, 3);
}

TEST(Spread, EvenCountTakesTheMeanOfTheMiddleTwo) {
  EXPECT_EQ(spreadOf({4.0, 1.0, 2.0, 3.0}).median, 2.5);
}

TEST(Spread, NanEntriesAreLeftOut) {
  Spread s = spreadOf({NAN, 5.0, 1.0, NAN});
  EXPECT_EQ(s.n, 2);
  EXPECT_EQ(s.median, 3.0);
  EXPECT_EQ(s.min, 1.0);
}

TEST(Spread, NoSamplesIsInvalid) {
  Spread s = spreadOf({NAN});
  EXPECT_FALSE(s.valid());
  EXPECT_TRUE(std::isnan(s.median));
}

}  // namespace
}  // namespace ferry
