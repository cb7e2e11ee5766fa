// UPC-style shared arrays and UPC++-style global pointers (include/ferry/shmem/ferry/pgas.hpp)
// on the public SHMEM API: the blocked-cyclic layout against a reference that deals the blocks
// out one by one; element access, memput and memget between every pair of PEs, with ranges
// that start and end inside blocks; forall touching exactly this PE's elements once; a lock
// making a get-then-put counter exact; rput/rget futures; out_of_range for misuse. Every value
// depends on its index (and writer), so a misplaced or stale element shows.
#include <ferry/pgas.hpp>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <mutex>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "shmem_test_util.h"

namespace ferry::shmem::testing {
namespace {

namespace pgas = ferry::pgas;

// ---- the layout -----------------------------------------------------------------------------

// Where each element goes, by dealing blocks of `block` elements to PEs 0, 1, ... in turn
// and stacking each PE's blocks: UPC's definition, not the formula under test.
struct Placement {
  std::vector<int> owner;
  std::vector<size_t> local;
  std::vector<size_t> perPe;  // elements each PE holds
};

Placement dealBlocks(size_t n, size_t block, int threads) {
  Placement p{std::vector<int>(n), std::vector<size_t>(n), std::vector<size_t>(static_cast<size_t>(threads))};
  std::vector<size_t> stacked(static_cast<size_t>(threads), 0);  // block slots used per PE
  int pe = 0;
  for (size_t start = 0; start < n; start += block) {
    auto& slots = stacked[static_cast<size_t>(pe)];
    for (size_t i = start; i < n && i < start + block; ++i) {
      p.owner[i] = pe;
      p.local[i] = slots + (i - start);
      ++p.perPe[static_cast<size_t>(pe)];
    }
    slots += block;
    pe = (pe + 1) % threads;
  }
  return p;
}

// The arithmetic alone, for thread counts this job does not have.
template <size_t Block>
void expectLayoutMatchesDealing(size_t n, int threads) {
  SCOPED_TRACE("Block " + std::to_string(Block) + ", n " + std::to_string(n) + ", threads " + std::to_string(threads));
  const pgas::block_cyclic<Block> layout(n, threads);
  const Placement ref = dealBlocks(n, Block, threads);
  size_t most = 0;
  for (int pe = 0; pe < threads; ++pe) {
    EXPECT_EQ(layout.local_size(pe), ref.perPe[static_cast<size_t>(pe)]) << "PE " << pe;
    most = std::max(most, ref.perPe[static_cast<size_t>(pe)]);
  }
  EXPECT_GE(layout.local_capacity(), most);
  EXPECT_LT(layout.local_capacity(), most + Block) << "more than one spare block per PE";
  for (size_t i = 0; i < n; ++i) {
    ASSERT_EQ(layout.owner(i), ref.owner[i]) << "element " << i;
    ASSERT_EQ(layout.local_index(i), ref.local[i]) << "element " << i;
    ASSERT_EQ(layout.global_index(ref.owner[i], ref.local[i]), i);
  }
}

// The same through a shared_array of this job, whose part sizes must add up to n.
template <size_t Block>
void expectArrayLayout(size_t n) {
  SCOPED_TRACE("Block " + std::to_string(Block) + ", n " + std::to_string(n));
  pgas::shared_array<int, Block> a(n);
  const Placement ref = dealBlocks(n, Block, nPes());
  EXPECT_EQ(a.size(), n);
  EXPECT_EQ(a.block_size(), Block);
  EXPECT_EQ(a.local_size(), ref.perPe[static_cast<size_t>(myPe())]);
  for (size_t i = 0; i < n; ++i) {
    ASSERT_EQ(a.owner(i), ref.owner[i]) << "element " << i;
    ASSERT_EQ(a.local_index(i), ref.local[i]) << "element " << i;
    ASSERT_EQ(a.is_local(i), ref.owner[i] == myPe()) << "element " << i;
  }
  for (int t = 1; t <= 5; ++t) expectLayoutMatchesDealing<Block>(n, t);
}

TEST(PgasLayout, CyclicBlockOfOne) {
  for (size_t n : {size_t{0}, size_t{1}, size_t{7}, size_t{100}}) expectArrayLayout<1>(n);
}

TEST(PgasLayout, BlocksOfFour) {
  for (size_t n : {size_t{3}, size_t{4}, size_t{37}, size_t{96}}) expectArrayLayout<4>(n);
}

// One partial block larger than n / threads: PE 0 holds everything, the others nothing.
TEST(PgasLayout, BlockLargerThanShare) {
  expectArrayLayout<64>(50);
  pgas::shared_array<double, 64> a(50);
  EXPECT_EQ(a.local_size(), myPe() == 0 ? 50u : 0u);
  for (size_t i = 0; i < a.size(); ++i) ASSERT_EQ(a.owner(i), 0);
  // Two blocks and a partial third over however many PEs there are.
  expectArrayLayout<16>(40);
}

// ---- element access ---------------------------------------------------------------------------

struct Record {  // not a SHMEM type: the array moves bytes
  int64_t index;
  double value;
  int writer;
};

Record recordOf(size_t i, int writer) {
  return Record{static_cast<int64_t>(i), static_cast<double>(i) * 0.5 + 3.0, writer};
}

// Elements are written by a PE other than their owner (where there is one), then read by
// every PE, through both the proxy and get().
TEST(PgasSharedArray, PutGetEveryElementFromEveryPe) {
  const int n = nPes(), me = myPe();
  pgas::shared_array<Record, 3> a(static_cast<size_t>(5 * n + 2));
  for (size_t i = 0; i < a.size(); ++i) {
    const int writer = (a.owner(i) + 1) % n;
    if (writer == me) a[i] = recordOf(i, writer);
  }
  pgas::barrier();
  for (size_t i = 0; i < a.size(); ++i) {
    const Record viaProxy = a[i];
    const Record viaGet = a.get(i);
    const Record want = recordOf(i, (a.owner(i) + 1) % n);
    EXPECT_EQ(viaProxy.index, want.index) << "element " << i;
    EXPECT_EQ(viaProxy.value, want.value) << "element " << i;
    EXPECT_EQ(viaProxy.writer, want.writer) << "element " << i;
    EXPECT_EQ(viaGet.index, want.index) << "element " << i;
  }
  // The destructor's shmem_free waits for every PE: no part goes while another PE reads it.
}

// A PE reads back what it just wrote to another PE's element, with no synchronisation in
// between (UPC's rule for a thread's own accesses): across nodes the get follows the put
// through SHMEM's RMA path, which does not order them by itself.
TEST(PgasSharedArray, ReadsItsOwnWritesWithoutSynchronisation) {
  const int n = nPes(), me = myPe();
  pgas::shared_array<int64_t, 2> a(static_cast<size_t>(8 * n));
  for (int round = 0; round < 5; ++round) {
    for (size_t i = 0; i < a.size(); ++i) {
      if (a.owner(i) != rightOf(me)) continue;  // only this PE writes the right neighbour's elements
      const int64_t v = round * 1000 + static_cast<int64_t>(i) * 7 + me;
      a[i] = v;
      ASSERT_EQ(static_cast<int64_t>(a[i]), v) << "round " << round << ", element " << i;
    }
  }
  pgas::barrier();
}

TEST(PgasSharedArray, ProxyCopiesValuesAndCompoundAssigns) {
  const int me = myPe();
  pgas::shared_array<double, 2> a(static_cast<size_t>(4 * nPes()));
  const size_t mine = static_cast<size_t>(me);  // element me: each PE its own, some remote
  const size_t other = a.size() - 1 - mine;  // another PE's where there are several
  a[other] = 10.0 + me;
  a[mine] = a[other];  // the value, not the proxy
  a[mine] += 2;
  a[mine] *= 3;
  EXPECT_EQ(static_cast<double>(a[mine]), (10.0 + me + 2) * 3);
  pgas::barrier();
}

TEST(PgasSharedArray, ElementsStartAtZero) {
  pgas::shared_array<int64_t, 5> a(static_cast<size_t>(23 * nPes()));
  for (size_t i = 0; i < a.size(); ++i) ASSERT_EQ(a.get(i), 0) << "element " << i;
  pgas::barrier();
}

// ---- memput / memget --------------------------------------------------------------------------

int64_t cellOf(size_t i, int writer) { return static_cast<int64_t>(i) * 1009 + writer * 7 + 1; }
constexpr int64_t kUntouched = -5;

// Each PE memputs 9 elements from an odd index (3, 13, 23, ...): with blocks of 4 a range
// starts inside one block, spans two more and ends inside a third, on up to three owners.
// Every PE then memgets the whole array and odd windows of it.
TEST(PgasMemPutGet, RangesAcrossOwnersFromOddOffsets) {
  const int n = nPes(), me = myPe();
  constexpr size_t kStride = 10, kCount = 9, kFirst = 3;
  pgas::shared_array<int64_t, 4> a(kStride * static_cast<size_t>(n) + 7);
  pgas::forall(a, [](size_t, int64_t& v) { v = kUntouched; });
  pgas::barrier();

  auto writerOf = [&](size_t i) -> int {  // the PE whose range holds i, or -1
    if (i < kFirst) return -1;
    const size_t k = (i - kFirst) / kStride;
    return (k < static_cast<size_t>(n) && (i - kFirst) % kStride < kCount) ? static_cast<int>(k) : -1;
  };
  std::vector<int64_t> src(kCount);
  const size_t first = kFirst + kStride * static_cast<size_t>(me);
  for (size_t k = 0; k < kCount; ++k) src[k] = cellOf(first + k, me);
  a.memput(first, src.data(), kCount);
  pgas::barrier();

  auto expected = [&](size_t i) { return writerOf(i) < 0 ? kUntouched : cellOf(i, writerOf(i)); };
  std::vector<int64_t> all(a.size(), 0);
  a.memget(all.data(), 0, a.size());
  for (size_t i = 0; i < a.size(); ++i) ASSERT_EQ(all[i], expected(i)) << "element " << i;
  for (size_t from : {size_t{1}, size_t{5}, size_t{7 + static_cast<size_t>(me)}}) {
    for (size_t count : {size_t{1}, size_t{3}, size_t{11}, a.size() - from}) {
      if (from + count > a.size()) continue;
      std::vector<int64_t> window(count + 2, 99);
      a.memget(window.data() + 1, from, count);
      EXPECT_EQ(window.front(), 99) << "memget wrote before its buffer";
      EXPECT_EQ(window.back(), 99) << "memget wrote past its buffer";
      for (size_t k = 0; k < count; ++k) ASSERT_EQ(window[k + 1], expected(from + k)) << "from " << from << " +" << k;
    }
  }
  a.memget(all.data(), a.size(), 0);  // empty ranges at either end are fine
  a.memput(0, src.data(), 0);
  pgas::barrier();
}

// One PE writes nearly everything in one call; every PE checks with one memget.
TEST(PgasMemPutGet, WholeArrayFromOnePe) {
  const int n = nPes();
  pgas::shared_array<double, 16> a(1000 + static_cast<size_t>(n));
  const int writer = n - 1;
  if (myPe() == writer) {
    std::vector<double> src(a.size() - 2);
    for (size_t k = 0; k < src.size(); ++k) src[k] = static_cast<double>(cellOf(k + 1, writer));
    a.memput(1, src.data(), src.size());
  }
  pgas::barrier();
  std::vector<double> all(a.size());
  a.memget(all.data(), 0, a.size());
  EXPECT_EQ(all.front(), 0.0);
  EXPECT_EQ(all.back(), 0.0);
  for (size_t i = 1; i + 1 < a.size(); ++i) ASSERT_EQ(all[i], static_cast<double>(cellOf(i, writer))) << i;
  pgas::barrier();
}

// ---- forall -------------------------------------------------------------------------------------

template <size_t Block>
void expectForallVisitsOwnElementsOnce(size_t n) {
  SCOPED_TRACE("Block " + std::to_string(Block) + ", n " + std::to_string(n));
  pgas::shared_array<int64_t, Block> a(n);
  std::vector<int> hits(n, 0);
  pgas::forall(a, [&](size_t i, int64_t& v) {
    ++hits.at(i);
    EXPECT_EQ(&v, a.local_data() + a.local_index(i)) << "not this PE's element " << i;
    v = cellOf(i, myPe());
  });
  size_t visited = 0;
  for (size_t i = 0; i < n; ++i) {
    ASSERT_EQ(hits[i], a.is_local(i) ? 1 : 0) << "element " << i;
    visited += static_cast<size_t>(hits[i]);
  }
  EXPECT_EQ(visited, a.local_size());
  pgas::barrier();
  // Every element was set once, by its owner.
  std::vector<int64_t> all(n);
  a.memget(all.data(), 0, n);
  for (size_t i = 0; i < n; ++i) ASSERT_EQ(all[i], cellOf(i, a.owner(i))) << "element " << i;

  // A sub-range that starts and ends inside blocks; the const form.
  const size_t first = n / 5 + 1, last = n - n / 7 - 1;
  std::vector<int> inRange(n, 0);
  const auto& ca = a;
  pgas::forall(first, last, ca, [&](size_t i, const int64_t& v) {
    ++inRange.at(i);
    EXPECT_EQ(v, cellOf(i, myPe()));
  });
  for (size_t i = 0; i < n; ++i)
    ASSERT_EQ(inRange[i], (a.is_local(i) && i >= first && i < last) ? 1 : 0) << "element " << i;
  pgas::barrier();
}

TEST(PgasForall, VisitsExactlyTheOwnedElementsOnce) {
  const auto n = static_cast<size_t>(nPes());
  expectForallVisitsOwnElementsOnce<1>(11 * n + 3);
  expectForallVisitsOwnElementsOnce<4>(12 * n + 5);
  expectForallVisitsOwnElementsOnce<64>(50);  // only PE 0 holds anything
}

// ---- locks ----------------------------------------------------------------------------------

constexpr int kIncrements = 50;

// A get and a put of one counter (on PE 0), not an atomic: only the lock keeps increments
// from being lost.
TEST(PgasLock, ProtectsReadModifyWrite) {
  pgas::shared_array<long> counter(1);
  pgas::lock_t lock;
  pgas::barrier();
  for (int k = 0; k < kIncrements; ++k) {
    std::lock_guard<pgas::lock_t> hold(lock);
    const long v = counter[0];
    counter[0] = v + 1;
  }
  pgas::barrier();
  EXPECT_EQ(counter.get(0), static_cast<long>(kIncrements) * nPes()) << "increments lost under the lock";
  pgas::barrier();
}

TEST(PgasLock, TryLockTakesOnlyAFreeLock) {
  const int n = nPes(), me = myPe();
  pgas::lock_t lock;
  const int holder = n - 1;
  if (me == holder) lock.lock();
  pgas::barrier();
  if (me != holder) {
    EXPECT_FALSE(lock.try_lock()) << "took a held lock";
  }
  pgas::barrier();
  if (me == holder) lock.unlock();
  pgas::barrier();
  // Now each PE gets it in turn, by trying.
  for (int pe = 0; pe < n; ++pe) {
    if (pe == me) {
      std::unique_lock<pgas::lock_t> hold(lock, std::try_to_lock);
      EXPECT_TRUE(hold.owns_lock()) << "a free lock was refused";
    }
    pgas::barrier();
  }
}

// ---- global pointers and futures ------------------------------------------------------------

int64_t gStatic[8];  // symmetric static data

TEST(PgasGlobalPtr, WhereLocalAndArithmetic) {
  const int me = myPe();
  auto* buf = static_cast<int64_t*>(shmem_calloc(8, sizeof(int64_t)));
  ASSERT_NE(buf, nullptr);
  for (int pe = 0; pe < nPes(); ++pe) {
    pgas::global_ptr<int64_t> p(buf, pe);
    EXPECT_EQ(p.where(), pe);
    EXPECT_EQ((p + 3).where(), pe);
    EXPECT_EQ((p + 5) - (p + 2), 3);
    EXPECT_EQ((p + 3).symmetric_address(), buf + 3);
    EXPECT_EQ(p.local() != nullptr, sameNode(me, pe)) << "heap, PE " << pe;
    pgas::global_ptr<int64_t> s(gStatic, pe);
    EXPECT_EQ(s.local() != nullptr, pe == me) << "static data, PE " << pe;
  }
  EXPECT_TRUE(pgas::global_ptr<int64_t>().is_null());
  EXPECT_FALSE(pgas::global_ptr<int64_t>(buf, me).is_null());
  pgas::barrier();
  shmem_free(buf);
}

// rput to the right neighbour, a single value and a run; rget from the left neighbour.
TEST(PgasGlobalPtr, RputRgetWithFutures) {
  const int me = myPe(), right = rightOf(me), left = leftOf(me);
  constexpr size_t kRun = 5;
  auto* buf = static_cast<int64_t*>(shmem_calloc(1 + kRun, sizeof(int64_t)));
  ASSERT_NE(buf, nullptr);
  pgas::barrier();

  std::vector<int64_t> run(kRun);
  for (size_t k = 0; k < kRun; ++k) run[k] = cellOf(k + 1, me);
  pgas::global_ptr<int64_t> dst(buf, right);
  pgas::future<> one = pgas::rput(cellOf(0, me), dst);  // an int64_t from an rvalue: copied
  pgas::future<> many = pgas::rput(run.data(), dst + 1, kRun);
  EXPECT_FALSE(many.ready()) << "ready before any quiet";
  many.wait();
  EXPECT_TRUE(one.ready()) << "waiting on one future completes the others";
  one.wait();
  pgas::barrier();
  for (size_t k = 0; k <= kRun; ++k) EXPECT_EQ(buf[k], cellOf(k, left)) << "slot " << k;

  pgas::global_ptr<int64_t> src(buf, left);  // holds what left's left neighbour wrote
  const int leftOfLeft = leftOf(left);
  pgas::future<int64_t> value = pgas::rget(src + 2);
  std::vector<int64_t> got(kRun + 1, -1);
  pgas::future<> bulk = pgas::rget(src, got.data(), kRun + 1);
  EXPECT_FALSE(value.ready());
  pgas::fence();
  EXPECT_TRUE(value.ready()) << "fence() is a quiet";
  EXPECT_TRUE(bulk.ready());
  EXPECT_EQ(value.get(), cellOf(2, leftOfLeft));
  for (size_t k = 0; k <= kRun; ++k) EXPECT_EQ(got[k], cellOf(k, leftOfLeft)) << "slot " << k;
  pgas::barrier();
  shmem_free(buf);
}

// A dropped rput future (of a copied value) still delivers; the static data path too.
TEST(PgasGlobalPtr, DroppedFutureAndStaticData) {
  const int me = myPe(), right = rightOf(me);
  std::fill(std::begin(gStatic), std::end(gStatic), 0);
  pgas::barrier();
  {
    pgas::future<> dropped = pgas::rput(cellOf(4, me), pgas::global_ptr<int64_t>(gStatic + 4, right));
  }
  pgas::barrier();
  EXPECT_EQ(gStatic[4], cellOf(4, leftOf(me)));
  EXPECT_EQ(pgas::rget(pgas::global_ptr<int64_t>(gStatic + 4, right)).get(), cellOf(4, me));
  pgas::barrier();
}

// A shared_array element as a global pointer: the owner and the same value.
TEST(PgasGlobalPtr, SharedArrayElements) {
  pgas::shared_array<int64_t, 3> a(static_cast<size_t>(7 * nPes() + 1));
  pgas::forall(a, [](size_t i, int64_t& v) { v = cellOf(i, 0); });
  pgas::barrier();
  for (size_t i = 0; i < a.size(); ++i) {
    const pgas::global_ptr<int64_t> p = a.ptr(i);
    EXPECT_EQ(p.where(), a.owner(i));
    EXPECT_EQ(a[i].ptr(), p);
    ASSERT_EQ(pgas::rget(p).get(), cellOf(i, 0)) << "element " << i;
  }
  pgas::barrier();
}

// ---- misuse, lifetime -----------------------------------------------------------------------

// The message names the index (or range) and the size; nothing was sent, so every PE goes on.
TEST(PgasErrors, OutOfRangeNamesIndexAndSize) {
  pgas::shared_array<double, 4> a(10);
  auto expectOutOfRange = [](auto&& call, const std::string& index) {
    try {
      call();
      ADD_FAILURE() << "no exception for index " << index;
    } catch (const std::out_of_range& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find(index), std::string::npos) << what;
      EXPECT_NE(what.find("size 10"), std::string::npos) << what;
    }
  };
  double buf[4] = {};
  expectOutOfRange([&] { (void)static_cast<double>(a[10]); }, "index 10");
  expectOutOfRange([&] { (void)a.get(12); }, "index 12");
  expectOutOfRange([&] { a.put(10, 1.0); }, "index 10");
  expectOutOfRange([&] { (void)a.owner(11); }, "index 11");
  expectOutOfRange([&] { (void)a.ptr(10); }, "index 10");
  expectOutOfRange([&] { a.memget(buf, 8, 3); }, "from index 8");
  expectOutOfRange([&] { a.memput(11, buf, 0); }, "from index 11");
  expectOutOfRange([&] { pgas::forall(2, 11, a, [](size_t, double&) {}); }, "[2, 11)");
  expectOutOfRange([&] { pgas::forall(5, 4, a, [](size_t, double&) {}); }, "[5, 4)");
  EXPECT_THROW((void)pgas::rget(pgas::global_ptr<double>()), std::invalid_argument);
  pgas::future<double> none;
  EXPECT_TRUE(none.ready());
  EXPECT_THROW((void)none.get(), std::logic_error);
  pgas::barrier();
}

// Moves hand the symmetric block over (freed once, collectively); repeated construction
// reuses the heap, so nothing leaks.
TEST(PgasSharedArray, MoveAndRepeatedConstruction) {
  pgas::shared_array<int64_t, 2> a(static_cast<size_t>(6 * nPes()));
  pgas::forall(a, [](size_t i, int64_t& v) { v = cellOf(i, 1); });
  pgas::barrier();
  pgas::shared_array<int64_t, 2> b(std::move(a));
  EXPECT_EQ(a.size(), 0u);  // NOLINT(bugprone-use-after-move): a moved-from array is empty
  EXPECT_EQ(b.get(b.size() - 1), cellOf(b.size() - 1, 1));
  pgas::shared_array<int64_t, 2> c(3);
  c = std::move(b);  // frees c's block on every PE
  EXPECT_EQ(c.get(0), cellOf(0, 1));
  pgas::barrier();
  for (int k = 0; k < 40; ++k) {  // 40 x 4 MiB per PE through a 128 MiB heap: reuse or fail
    pgas::shared_array<char, 4096> big(static_cast<size_t>(nPes()) << 22);
    ASSERT_EQ(big.local_size(), size_t{1} << 22);
  }
}

}  // namespace
}  // namespace ferry::shmem::testing
