// The plan cuts every message into chunks and shares that cover it exactly once, with
// shares on 64-byte boundaries, for any count, element size, chunk size and rank count.
#include <gtest/gtest.h>

#include <vector>

#include "coll/plan.h"

namespace ferry::coll {
namespace {

TEST(CollPlan, SharesCoverEveryElementOnce) {
  for (size_t elem : {1, 2, 4, 8, 16})
    for (size_t count : {0, 1, 5, 63, 64, 65, 1000, 4099, 100003})
      for (size_t chunkBytes : {1, 64, 4096, 65536})
        for (int k : {1, 2, 3, 4, 7}) {
          Plan p(count, elem, chunkBytes, k);
          std::vector<int> seen(count, 0);
          size_t covered = 0;
          for (size_t c = 0; c < p.chunks(); ++c) {
            Range ch = p.chunk(c);
            ASSERT_LE(ch.end, count);
            for (int s = 0; s < k; ++s) {
              Range sh = p.share(c, s);
              ASSERT_LE(ch.begin, sh.begin);
              ASSERT_LE(sh.end, ch.end);
              if (sh.size() > 0) {
                EXPECT_EQ(sh.begin * elem % 64, 0u) << "share start on a 64-byte boundary";
              }
              for (size_t i = sh.begin; i < sh.end; ++i) ++seen[i];
              covered += sh.size();
            }
          }
          ASSERT_EQ(covered, count) << "elem " << elem << " count " << count << " chunk " << chunkBytes << " k " << k;
          for (size_t i = 0; i < count; ++i) ASSERT_EQ(seen[i], 1) << i;
        }
}

TEST(CollPlan, ChunksAreWholeUnitsAndSharesBalanced) {
  Plan p(1 << 20, 4, 256 * 1024, 3);
  EXPECT_EQ(p.chunks(), 16u);
  EXPECT_EQ(p.chunk(1).begin, 65536u);
  size_t lo = SIZE_MAX, hi = 0;
  for (int s = 0; s < 3; ++s) {
    lo = std::min(lo, p.share(0, s).size());
    hi = std::max(hi, p.share(0, s).size());
  }
  EXPECT_LE(hi - lo, 16u) << "shares differ by at most one 64-byte unit";
}

}  // namespace
}  // namespace ferry::coll
