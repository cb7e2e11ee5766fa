// The shared heap's bound on blocks: each holds a descriptor, so a process keeps at most
// its descriptor limit / kFdShareOfBlocks of them, refuses more with a message that says
// which limit to raise, and takes new ones again once blocks are freed.
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <cstdint>
#include <string>
#include <vector>

#include "coll/shared_heap.h"

namespace ferry::coll {
namespace {

class LowerFdLimit {
 public:
  explicit LowerFdLimit(rlim_t soft) {
    getrlimit(RLIMIT_NOFILE, &saved_);
    rlimit lower = saved_;
    lower.rlim_cur = soft;
    EXPECT_EQ(setrlimit(RLIMIT_NOFILE, &lower), 0);
  }
  ~LowerFdLimit() { setrlimit(RLIMIT_NOFILE, &saved_); }

 private:
  rlimit saved_{};
};

TEST(CollSharedHeap, BlocksStayWithinAShareOfTheDescriptorLimit) {
  SharedHeap& heap = SharedHeap::instance();
  ASSERT_EQ(heap.blocks(), 0u);
  LowerFdLimit limit(256);
  ASSERT_EQ(maxHeapBlocks(), 256 / kFdShareOfBlocks);
  std::vector<void*> held;
  for (size_t i = 0; i < maxHeapBlocks(); ++i) {
    auto p = heap.allocate(4096);
    ASSERT_TRUE(p.isOk()) << "block " << i << ": " << p.status().message();
    held.push_back(*p);
  }
  auto refused = heap.allocate(4096);
  ASSERT_FALSE(refused.isOk());
  EXPECT_NE(refused.status().message().find("32 shared blocks are in use"), std::string::npos)
      << refused.status().message();
  EXPECT_NE(refused.status().message().find("raise ulimit -n"), std::string::npos) << refused.status().message();
  ASSERT_TRUE(heap.release(held.back()));
  held.pop_back();
  auto again = heap.allocate(4096);
  ASSERT_TRUE(again.isOk()) << again.status().message();
  held.push_back(*again);
  for (void* p : held) EXPECT_TRUE(heap.release(p));
  EXPECT_EQ(heap.blocks(), 0u);
}

// A size no machine has (a negative count cast to size_t, say) is refused with the size,
// never rounded into a small block that the program would then write far past.
TEST(CollSharedHeap, RequestLargerThanTheMachineIsRefused) {
  SharedHeap& heap = SharedHeap::instance();
  for (size_t bytes : {SIZE_MAX, SIZE_MAX - 4095, static_cast<size_t>(maxHeapBlockBytes()) + 1}) {
    auto refused = heap.allocate(bytes);
    ASSERT_FALSE(refused.isOk()) << bytes << " B";
    EXPECT_NE(refused.status().message().find("(" + std::to_string(bytes) + " B) of shared memory: more than this "
                                              "machine's memory and swap"),
              std::string::npos)
        << refused.status().message();
  }
  EXPECT_EQ(heap.blocks(), 0u);
}

}  // namespace
}  // namespace ferry::coll
