// put-with-signal: once the receiver's signal_wait_until sees the signal, every byte of the
// data that came with it must be there. A producer/consumer ring over many iterations, each
// with a pattern of its own and sizes from 1 B to 64 KiB, for SHMEM_SIGNAL_SET and
// SHMEM_SIGNAL_ADD, blocking and nbi, mem/typed/sized, default and created contexts; then
// concurrent SIGNAL_ADDs from every PE into one signal, and shmem_signal_fetch.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "shmem_test_util.h"

namespace ferry::shmem::testing {
namespace {

constexpr int kIterations = 60;
constexpr size_t kMaxBytes = 65544;

using Send = std::function<void(void* dest, const void* src, size_t bytes, uint64_t* sig, uint64_t signal, int op, int pe)>;

uint64_t gStaticSignal;  // a signal in static data rather than the heap

struct Ring {
  unsigned char* data;  // symmetric, kMaxBytes
  uint64_t* sig;        // symmetric: what the left neighbour signals
  uint64_t* ack;        // symmetric: iterations the right neighbour has consumed
};

// Each PE sends iteration `it` to its right neighbour once that neighbour has consumed
// iteration it-1 (ack), then waits for its left neighbour's signal and checks the data.
// With SIGNAL_SET the signal is it+1; with SIGNAL_ADD each send adds 1. `nbi`: the source
// stays untouched until a quiet after the receive.
void runRing(const Send& send, Ring ring, int op, bool nbi, const size_t (&sizes)[3], unsigned salt,
             const std::function<void()>& quiet = shmem_quiet) {
  const int me = myPe(), right = rightOf(me), left = leftOf(me);
  std::vector<uint64_t> storage(kMaxBytes / 8 + 1);  // 8-byte aligned for the typed forms
  auto* src = reinterpret_cast<unsigned char*>(storage.data());
  int failures = 0;
  shmem_barrier_all();
  for (int it = 0; it < kIterations; ++it) {
    const size_t bytes = sizes[it % 3];
    if (it > 0) shmem_uint64_wait_until(ring.ack, SHMEM_CMP_GE, static_cast<uint64_t>(it));
    fillPattern(src, bytes, me, right, salt + static_cast<unsigned>(it));
    const uint64_t signal = op == SHMEM_SIGNAL_SET ? static_cast<uint64_t>(it) + 1 : 1;
    send(ring.data, src, bytes, ring.sig, signal, op, right);
    const uint64_t seen = shmem_signal_wait_until(ring.sig, SHMEM_CMP_GE, static_cast<uint64_t>(it) + 1);
    // Failures are counted, not returned on: the ring goes on, so that no PE waits forever.
    const size_t bad = firstMismatch(ring.data, bytes, left, me, salt + static_cast<unsigned>(it));
    const uint64_t fetched = shmem_signal_fetch(ring.sig);
    if (failures < 3 && (seen != static_cast<uint64_t>(it) + 1 || bad != bytes || fetched != seen)) {
      ++failures;
      ADD_FAILURE() << "iteration " << it << ", " << bytes << " B from PE " << left << ": signal_wait_until gave "
                    << seen << " (want " << it + 1 << "), signal_fetch " << fetched << ", first wrong byte "
                    << (bad == bytes ? std::string("none") : std::to_string(bad))
                    << " (data incomplete when the signal arrived?)";
    }
    if (nbi) quiet();
    shmem_uint64_atomic_add(ring.ack, 1, left);
  }
  shmem_barrier_all();
}

// Fresh zeroed symmetric memory for each ring.
struct RingMemory {
  Ring ring{};
  explicit RingMemory(bool staticSignal = false) {
    ring.data = static_cast<unsigned char*>(shmem_malloc(kMaxBytes));
    auto* words = static_cast<uint64_t*>(shmem_calloc(2, sizeof(uint64_t)));
    ring.sig = staticSignal ? &gStaticSignal : words;
    ring.ack = words + 1;
    gStaticSignal = 0;
    shmem_barrier_all();
  }
  ~RingMemory() {
    shmem_free(ring.ack - 1);
    shmem_free(ring.data);
  }
  bool ok() const { return ring.data && ring.ack; }
};

constexpr size_t kMemSizes[3] = {1, 4093, 65539};
constexpr size_t kWordSizes[3] = {8, 1000, kMaxBytes};

const Send putmemSignal = [](void* d, const void* s, size_t b, uint64_t* sig, uint64_t v, int op, int pe) {
  shmem_putmem_signal(d, s, b, sig, v, op, pe);
};
const Send putmemSignalNbi = [](void* d, const void* s, size_t b, uint64_t* sig, uint64_t v, int op, int pe) {
  shmem_putmem_signal_nbi(d, s, b, sig, v, op, pe);
};

TEST(PutSignal, MemSetRing) {
  RingMemory m;
  ASSERT_TRUE(m.ok());
  runRing(putmemSignal, m.ring, SHMEM_SIGNAL_SET, false, kMemSizes, 10);
}

TEST(PutSignal, MemAddRing) {
  RingMemory m;
  ASSERT_TRUE(m.ok());
  runRing(putmemSignal, m.ring, SHMEM_SIGNAL_ADD, false, kMemSizes, 20);
}

TEST(PutSignal, MemNbiSetRing) {
  RingMemory m;
  ASSERT_TRUE(m.ok());
  runRing(putmemSignalNbi, m.ring, SHMEM_SIGNAL_SET, true, kMemSizes, 30);
}

TEST(PutSignal, MemNbiAddRingWithTheSignalInStaticData) {
  RingMemory m(true);
  ASSERT_TRUE(m.ok());
  runRing(putmemSignalNbi, m.ring, SHMEM_SIGNAL_ADD, true, kMemSizes, 40);
}

TEST(PutSignal, TypedLongRing) {
  RingMemory m;
  ASSERT_TRUE(m.ok());
  const Send typed = [](void* d, const void* s, size_t b, uint64_t* sig, uint64_t v, int op, int pe) {
    shmem_long_put_signal(static_cast<long*>(d), static_cast<const long*>(s), b / sizeof(long), sig, v, op, pe);
  };
  runRing(typed, m.ring, SHMEM_SIGNAL_SET, false, kWordSizes, 50);
  const Send typedNbi = [](void* d, const void* s, size_t b, uint64_t* sig, uint64_t v, int op, int pe) {
    shmem_double_put_signal_nbi(static_cast<double*>(d), static_cast<const double*>(s), b / sizeof(double), sig, v,
                                op, pe);
  };
  RingMemory m2;
  ASSERT_TRUE(m2.ok());
  runRing(typedNbi, m2.ring, SHMEM_SIGNAL_ADD, true, kWordSizes, 60);
}

TEST(PutSignal, SizedRing) {
  RingMemory m;
  ASSERT_TRUE(m.ok());
  const Send sized = [](void* d, const void* s, size_t b, uint64_t* sig, uint64_t v, int op, int pe) {
    shmem_put64_signal(d, s, b / 8, sig, v, op, pe);
  };
  runRing(sized, m.ring, SHMEM_SIGNAL_SET, false, kWordSizes, 70);
  RingMemory m2;
  ASSERT_TRUE(m2.ok());
  const Send sizedNbi = [](void* d, const void* s, size_t b, uint64_t* sig, uint64_t v, int op, int pe) {
    shmem_put32_signal_nbi(d, s, b / 4, sig, v, op, pe);
  };
  runRing(sizedNbi, m2.ring, SHMEM_SIGNAL_ADD, true, kWordSizes, 80);
}

TEST(PutSignal, OnACreatedContext) {
  shmem_ctx_t ctx;
  ASSERT_EQ(shmem_ctx_create(0, &ctx), 0);
  {
    RingMemory m;
    ASSERT_TRUE(m.ok());
    const Send onCtx = [ctx](void* d, const void* s, size_t b, uint64_t* sig, uint64_t v, int op, int pe) {
      shmem_ctx_putmem_signal(ctx, d, s, b, sig, v, op, pe);
    };
    runRing(onCtx, m.ring, SHMEM_SIGNAL_SET, false, kMemSizes, 90);
  }
  {
    RingMemory m;
    ASSERT_TRUE(m.ok());
    const Send onCtxNbi = [ctx](void* d, const void* s, size_t b, uint64_t* sig, uint64_t v, int op, int pe) {
      shmem_ctx_putmem_signal_nbi(ctx, d, s, b, sig, v, op, pe);
    };
    runRing(onCtxNbi, m.ring, SHMEM_SIGNAL_ADD, true, kMemSizes, 100, [ctx] { shmem_ctx_quiet(ctx); });
  }
  shmem_ctx_destroy(ctx);
}

// Every PE adds (its number + 1) to PE 0's signal along with its own slot of data, all at
// once: the additions are atomic, so PE 0 sees exactly n(n+1)/2, and by then every slot.
void addsFromEveryPe(bool nbi, unsigned salt) {
  const int n = nPes(), me = myPe();
  constexpr size_t kSlot = 4096;
  auto* data = static_cast<unsigned char*>(shmem_malloc(kSlot * static_cast<size_t>(n)));
  auto* sig = static_cast<uint64_t*>(shmem_calloc(1, sizeof(uint64_t)));
  ASSERT_NE(data, nullptr);
  ASSERT_NE(sig, nullptr);
  std::vector<unsigned char> src(kSlot);
  fillPattern(src.data(), kSlot, me, 0, salt);
  shmem_barrier_all();
  if (nbi) {
    shmem_putmem_signal_nbi(data + kSlot * me, src.data(), kSlot, sig, static_cast<uint64_t>(me) + 1,
                            SHMEM_SIGNAL_ADD, 0);
    shmem_quiet();
  } else {
    shmem_putmem_signal(data + kSlot * me, src.data(), kSlot, sig, static_cast<uint64_t>(me) + 1, SHMEM_SIGNAL_ADD, 0);
  }
  if (me == 0) {
    const uint64_t total = static_cast<uint64_t>(n) * (n + 1) / 2;
    EXPECT_EQ(shmem_signal_wait_until(sig, SHMEM_CMP_EQ, total), total);
    for (int q = 0; q < n; ++q)
      EXPECT_EQ(firstMismatch(data + kSlot * q, kSlot, q, 0, salt), kSlot) << "slot of PE " << q;
    EXPECT_EQ(shmem_signal_fetch(sig), total);
  }
  shmem_barrier_all();
  shmem_free(sig);
  shmem_free(data);
}

TEST(PutSignal, ConcurrentAddsIntoOneSignal) { addsFromEveryPe(false, 110); }
TEST(PutSignal, ConcurrentNbiAddsIntoOneSignal) { addsFromEveryPe(true, 120); }

// SIGNAL_SET replaces the value (it does not add): two sets, ordered by a fence, leave the
// second value; signal_wait_until with NE and LT return the value they saw.
TEST(PutSignal, SetReplacesAndWaitReturnsTheValue) {
  const int me = myPe(), right = rightOf(me);
  auto* sig = static_cast<uint64_t*>(shmem_malloc(sizeof(uint64_t)));
  auto* data = static_cast<uint64_t*>(shmem_malloc(sizeof(uint64_t)));
  ASSERT_NE(sig, nullptr);
  ASSERT_NE(data, nullptr);
  *sig = 1000;
  shmem_barrier_all();
  const uint64_t word = 77 + static_cast<uint64_t>(me);
  shmem_putmem_signal(data, &word, sizeof word, sig, 900, SHMEM_SIGNAL_SET, right);
  shmem_fence();
  shmem_putmem_signal(data, &word, sizeof word, sig, 5, SHMEM_SIGNAL_SET, right);
  EXPECT_EQ(shmem_signal_wait_until(sig, SHMEM_CMP_LT, 900), 5u) << "the second SET must replace the first";
  EXPECT_EQ(*data, 77 + static_cast<uint64_t>(leftOf(me)));
  EXPECT_EQ(shmem_signal_fetch(sig), 5u);
  shmem_barrier_all();
  EXPECT_EQ(shmem_signal_wait_until(sig, SHMEM_CMP_NE, 0), 5u);
  shmem_barrier_all();
  shmem_free(data);
  shmem_free(sig);
}

}  // namespace
}  // namespace ferry::shmem::testing
