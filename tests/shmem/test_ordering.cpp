// Ordering and completion, tests that fail where the implementation reorders: across
// virtual nodes the puts are MPI-3 RMA, which delivers puts to one target in no particular
// order unless the library flushes, so a fence or quiet that does too little shows here.
//   fence:   data, shmem_fence, then a flag to the same PE: a receiver that sees the flag
//            sees the data, iteration after iteration, sizes up to 64 KiB;
//   quiet:   data to every PE, shmem_quiet, then an atomic flag to each: every receiver
//            that sees all flags sees all data;
//   signal:  data, fence, put_signal of more data: both parts are there at the signal;
//   barrier: shmem_barrier_all completes every outstanding put, nbi and atomic.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "shmem_test_util.h"

namespace ferry::shmem::testing {
namespace {

constexpr int kFenceIterations = 150;
constexpr size_t kSizes[] = {8, 4096, 65536, 1000, 65535};
constexpr size_t kMaxBytes = 65536;

struct Channel {
  unsigned char* data = nullptr;
  uint64_t* words = nullptr;  // [0]: the flag my left neighbour raises; [1]: acks from my right
  Channel() {
    data = static_cast<unsigned char*>(shmem_malloc(kMaxBytes));
    words = static_cast<uint64_t*>(shmem_calloc(2, sizeof(uint64_t)));
  }
  ~Channel() {
    shmem_free(words);
    shmem_free(data);
  }
  bool ok() const { return data && words; }
};

// How one iteration's data and flag go out: `send(data, src, bytes, flag, value, pe)`.
using Sender = std::function<void(unsigned char*, const unsigned char*, size_t, uint64_t*, uint64_t, int)>;

// The ring: each PE sends to its right neighbour once that one acknowledged the previous
// iteration, then waits for its left neighbour's flag and checks the data before
// acknowledging. Failures are counted and the ring goes on, so that no PE waits forever.
void fenceRing(const Sender& send, unsigned salt, const std::function<void()>& afterSend = [] {}) {
  Channel ch;
  ASSERT_TRUE(ch.ok());
  const int me = myPe(), right = rightOf(me), left = leftOf(me);
  std::vector<unsigned char> src(kMaxBytes);
  int failures = 0;
  shmem_barrier_all();
  for (int it = 0; it < kFenceIterations; ++it) {
    const size_t bytes = kSizes[it % (sizeof kSizes / sizeof kSizes[0])];
    const unsigned s = salt + static_cast<unsigned>(it);
    if (it > 0) shmem_uint64_wait_until(&ch.words[1], SHMEM_CMP_GE, static_cast<uint64_t>(it));
    fillPattern(src.data(), bytes, me, right, s);
    send(ch.data, src.data(), bytes, &ch.words[0], static_cast<uint64_t>(it) + 1, right);
    afterSend();
    shmem_uint64_wait_until(&ch.words[0], SHMEM_CMP_GE, static_cast<uint64_t>(it) + 1);
    const size_t bad = firstMismatch(ch.data, bytes, left, me, s);
    if (bad != bytes && failures++ < 3)
      ADD_FAILURE() << "iteration " << it << ": the flag from PE " << left << " arrived before its " << bytes
                    << " B of data (first wrong byte " << bad << ")";
    shmem_uint64_atomic_add(&ch.words[1], 1, left);
  }
  shmem_barrier_all();
  EXPECT_EQ(failures, 0);
}

TEST(Fence, OrdersPutThenFlagPut) {
  fenceRing(
      [](unsigned char* d, const unsigned char* s, size_t b, uint64_t* flag, uint64_t v, int pe) {
        shmem_putmem(d, s, b, pe);
        shmem_fence();
        shmem_uint64_p(flag, v, pe);
      },
      1000);
}

TEST(Fence, OrdersNbiPutThenAtomicFlag) {
  fenceRing(
      [](unsigned char* d, const unsigned char* s, size_t b, uint64_t* flag, uint64_t v, int pe) {
        shmem_putmem_nbi(d, s, b, pe);
        shmem_fence();
        shmem_uint64_atomic_set(flag, v, pe);
      },
      2000, [] { shmem_quiet(); });  // the source may be refilled only after quiet
}

// Several puts of parts of the data, then the fence: all of them are ordered before the flag.
TEST(Fence, OrdersManyPutsThenFlag) {
  fenceRing(
      [](unsigned char* d, const unsigned char* s, size_t b, uint64_t* flag, uint64_t v, int pe) {
        const size_t half = b / 2;
        shmem_putmem(d + half, s + half, b - half, pe);  // the back first
        if (half) shmem_putmem(d, s, half, pe);
        shmem_fence();
        shmem_uint64_p(flag, v, pe);
      },
      3000);
}

TEST(Fence, OnACreatedContext) {
  shmem_ctx_t ctx;
  ASSERT_EQ(shmem_ctx_create(0, &ctx), 0);
  fenceRing(
      [ctx](unsigned char* d, const unsigned char* s, size_t b, uint64_t* flag, uint64_t v, int pe) {
        shmem_ctx_putmem(ctx, d, s, b, pe);
        shmem_ctx_fence(ctx);
        shmem_ctx_uint64_p(ctx, flag, v, pe);
      },
      4000);
  shmem_ctx_destroy(ctx);
}

// Data and fence, then put_signal of more data: at the signal, both parts are there.
TEST(Fence, OrdersPutThenPutSignal) {
  fenceRing(
      [](unsigned char* d, const unsigned char* s, size_t b, uint64_t* flag, uint64_t v, int pe) {
        const size_t head = b / 2;
        if (head) shmem_putmem(d, s, head, pe);
        shmem_fence();
        shmem_putmem_signal(d + head, s + head, b - head, flag, v, SHMEM_SIGNAL_SET, pe);
      },
      5000);
}

// Each PE puts its slot into every PE (every other iteration non-blocking), quiets, then
// increments every PE's counter atomically. A PE whose counter shows all PEs' increments
// for this iteration must find every slot written.
TEST(Quiet, CompletesPutsToManyPesBeforeTheFlags) {
  const int n = nPes(), me = myPe();
  constexpr size_t kSlot = 16384;
  constexpr int kIterations = 30;
  auto* slots = static_cast<unsigned char*>(shmem_malloc(kSlot * static_cast<size_t>(n)));
  auto* count = static_cast<uint64_t*>(shmem_calloc(1, sizeof(uint64_t)));
  ASSERT_NE(slots, nullptr);
  ASSERT_NE(count, nullptr);
  std::vector<std::vector<unsigned char>> src(static_cast<size_t>(n), std::vector<unsigned char>(kSlot));
  int failures = 0;
  shmem_barrier_all();
  for (int it = 0; it < kIterations; ++it) {
    const unsigned salt = 6000 + static_cast<unsigned>(it);
    const size_t bytes = kSlot - static_cast<size_t>(it % 7);
    for (int p = 0; p < n; ++p) {
      fillPattern(src[p].data(), bytes, me, p, salt);
      if (it % 2) shmem_putmem_nbi(slots + kSlot * me, src[p].data(), bytes, p);
      else shmem_putmem(slots + kSlot * me, src[p].data(), bytes, p);
    }
    shmem_quiet();
    for (int p = 0; p < n; ++p) shmem_uint64_atomic_inc(count, p);
    shmem_uint64_wait_until(count, SHMEM_CMP_GE, static_cast<uint64_t>(n) * (it + 1));
    for (int q = 0; q < n; ++q) {
      const size_t bad = firstMismatch(slots + kSlot * q, bytes, q, me, salt);
      if (bad != bytes && failures++ < 3)
        ADD_FAILURE() << "iteration " << it << ": PE " << q << "'s flag came before its data (byte " << bad << ")";
    }
    shmem_barrier_all();  // every PE has checked before any overwrites
  }
  EXPECT_EQ(failures, 0);
  shmem_free(count);
  shmem_free(slots);
}

// shmem_quiet on a created context completes that context's puts.
TEST(Quiet, OnACreatedContextCompletesItsPuts) {
  const int me = myPe(), right = rightOf(me), left = leftOf(me);
  shmem_ctx_t ctx;
  ASSERT_EQ(shmem_ctx_create(0, &ctx), 0);
  Channel ch;
  ASSERT_TRUE(ch.ok());
  std::vector<unsigned char> src(kMaxBytes);
  fillPattern(src.data(), kMaxBytes, me, right, 7000);
  shmem_barrier_all();
  shmem_ctx_putmem_nbi(ctx, ch.data, src.data(), kMaxBytes, right);
  shmem_ctx_quiet(ctx);
  shmem_uint64_atomic_set(&ch.words[0], 1, right);  // the default context
  shmem_uint64_wait_until(&ch.words[0], SHMEM_CMP_EQ, 1);
  EXPECT_EQ(firstMismatch(ch.data, kMaxBytes, left, me, 7000), kMaxBytes) << "data from PE " << left;
  shmem_barrier_all();
  shmem_ctx_destroy(ctx);
}

// shmem_barrier_all completes what each PE has outstanding: nbi puts never quieted, blocking
// puts, p, and non-fetching atomics.
TEST(BarrierAll, CompletesOutstandingPutsAndAtomics) {
  const int n = nPes(), me = myPe();
  constexpr size_t kSlot = 8192;
  constexpr int kIterations = 20;
  auto* slots = static_cast<unsigned char*>(shmem_malloc(kSlot * static_cast<size_t>(n)));
  auto* words = static_cast<long*>(shmem_calloc(static_cast<size_t>(n) + 1, sizeof(long)));
  ASSERT_NE(slots, nullptr);
  ASSERT_NE(words, nullptr);
  std::vector<std::vector<unsigned char>> src(static_cast<size_t>(n), std::vector<unsigned char>(kSlot));
  for (int it = 0; it < kIterations; ++it) {
    const unsigned salt = 8000 + static_cast<unsigned>(it);
    for (int p = 0; p < n; ++p) {
      fillPattern(src[p].data(), kSlot, me, p, salt);
      if (it % 2) shmem_putmem_nbi(slots + kSlot * me, src[p].data(), kSlot, p);
      else shmem_putmem(slots + kSlot * me, src[p].data(), kSlot, p);
      shmem_long_p(&words[me], 100L * it + me, p);
      shmem_long_atomic_add(&words[n], me + 1, p);
    }
    shmem_barrier_all();
    for (int q = 0; q < n; ++q) {
      EXPECT_EQ(firstMismatch(slots + kSlot * q, kSlot, q, me, salt), kSlot)
          << "iteration " << it << ": PE " << q << "'s put was not complete at the barrier";
      EXPECT_EQ(words[q], 100L * it + q) << "iteration " << it << ": PE " << q << "'s p";
    }
    EXPECT_EQ(words[n], static_cast<long>(it + 1) * n * (n + 1) / 2) << "iteration " << it << ": the atomic adds";
    shmem_barrier_all();  // every PE has checked before any overwrites
  }
  shmem_free(words);
  shmem_free(slots);
}

}  // namespace
}  // namespace ferry::shmem::testing
