// RMA: typed put/get/p/g, the sized and mem forms, strided iput/iget, the _nbi forms
// completed by shmem_quiet, and the ctx forms on a created context. Each goes to every PE
// (all-to-all, self included) or to the ring neighbour, into heap memory and into static
// data, from 1 B to 1 MiB, at unaligned offsets. Every value depends on the writer, the
// target, the position and the case, so a misplaced, stale or partial transfer shows.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "shmem_test_util.h"

namespace ferry::shmem::testing {
namespace {

constexpr size_t kCount = 17;  // elements per slot: odd, so no transfer is a power of two

// ---- typed routines, per type -----------------------------------------------------------
template <typename T>
struct TypedRma {
  const char* name;
  void (*put)(T*, const T*, size_t, int);
  void (*get)(T*, const T*, size_t, int);
  void (*p)(T*, T, int);
  T (*g)(const T*, int);
  void (*putNbi)(T*, const T*, size_t, int);
  void (*getNbi)(T*, const T*, size_t, int);
  void (*iput)(T*, const T*, ptrdiff_t, ptrdiff_t, size_t, int);
  void (*iget)(T*, const T*, ptrdiff_t, ptrdiff_t, size_t, int);
  void (*ctxPut)(shmem_ctx_t, T*, const T*, size_t, int);
  void (*ctxGet)(shmem_ctx_t, T*, const T*, size_t, int);
  void (*ctxP)(shmem_ctx_t, T*, T, int);
  T (*ctxG)(shmem_ctx_t, const T*, int);
  void (*ctxPutNbi)(shmem_ctx_t, T*, const T*, size_t, int);
  void (*ctxGetNbi)(shmem_ctx_t, T*, const T*, size_t, int);
  void (*ctxIput)(shmem_ctx_t, T*, const T*, ptrdiff_t, ptrdiff_t, size_t, int);
  void (*ctxIget)(shmem_ctx_t, T*, const T*, ptrdiff_t, ptrdiff_t, size_t, int);
};

#define FERRY_TYPED_RMA(T, N)                                                                                         \
  TypedRma<T> {                                                                                                       \
    #N, shmem_##N##_put, shmem_##N##_get, shmem_##N##_p, shmem_##N##_g, shmem_##N##_put_nbi, shmem_##N##_get_nbi,     \
        shmem_##N##_iput, shmem_##N##_iget, shmem_ctx_##N##_put, shmem_ctx_##N##_get, shmem_ctx_##N##_p,              \
        shmem_ctx_##N##_g, shmem_ctx_##N##_put_nbi, shmem_ctx_##N##_get_nbi, shmem_ctx_##N##_iput,                    \
        shmem_ctx_##N##_iget                                                                                          \
  }

// The value element i of a transfer from `from` to `to` in case `salt` carries: small
// enough for every type, and never the same for two neighbouring cases.
template <typename T>
T valueOf(int from, int to, size_t i, int salt) {
  long v = (from * 37L + to * 11L + static_cast<long>(i) * 5L + salt * 23L) % 101L + 1;
  if constexpr (std::is_floating_point_v<T>) return static_cast<T>(v) + static_cast<T>(0.25);
  else return static_cast<T>(v);
}
template <typename T>
T sentinel() {
  return static_cast<T>(121);  // outside valueOf's 1..101
}

// Either the default context (ctx == nullptr: the plain routines) or a created one.
template <typename T>
struct Ops {
  const TypedRma<T>& f;
  const shmem_ctx_t* ctx;
  void put(T* d, const T* s, size_t n, int pe) const { ctx ? f.ctxPut(*ctx, d, s, n, pe) : f.put(d, s, n, pe); }
  void get(T* d, const T* s, size_t n, int pe) const { ctx ? f.ctxGet(*ctx, d, s, n, pe) : f.get(d, s, n, pe); }
  void p(T* d, T v, int pe) const { ctx ? f.ctxP(*ctx, d, v, pe) : f.p(d, v, pe); }
  T g(const T* s, int pe) const { return ctx ? f.ctxG(*ctx, s, pe) : f.g(s, pe); }
  void putNbi(T* d, const T* s, size_t n, int pe) const {
    ctx ? f.ctxPutNbi(*ctx, d, s, n, pe) : f.putNbi(d, s, n, pe);
  }
  void getNbi(T* d, const T* s, size_t n, int pe) const {
    ctx ? f.ctxGetNbi(*ctx, d, s, n, pe) : f.getNbi(d, s, n, pe);
  }
  void iput(T* d, const T* s, ptrdiff_t dst, ptrdiff_t sst, size_t n, int pe) const {
    ctx ? f.ctxIput(*ctx, d, s, dst, sst, n, pe) : f.iput(d, s, dst, sst, n, pe);
  }
  void iget(T* d, const T* s, ptrdiff_t dst, ptrdiff_t sst, size_t n, int pe) const {
    ctx ? f.ctxIget(*ctx, d, s, dst, sst, n, pe) : f.iget(d, s, dst, sst, n, pe);
  }
  void quiet() const { ctx ? shmem_ctx_quiet(*ctx) : shmem_quiet(); }
  const char* what() const { return ctx ? "ctx" : "default"; }
};

// `dst` is symmetric, n_pes * kCount elements. Slot q of PE p's dst receives PE q's data.
template <typename T>
void checkAllToAll(const Ops<T>& ops, T* dst, int salt) {
  const int n = nPes(), me = myPe();
  SCOPED_TRACE(std::string(ops.f.name) + " all-to-all, " + ops.what() + " context");
  std::vector<T> src(kCount);
  shmem_barrier_all();
  for (int p = 0; p < n; ++p) {
    for (size_t i = 0; i < kCount; ++i) src[i] = valueOf<T>(me, p, i, salt);
    ops.put(dst + me * kCount, src.data(), kCount, p);  // src is reusable on return
  }
  shmem_barrier_all();
  for (int q = 0; q < n; ++q)
    for (size_t i = 0; i < kCount; ++i)
      ASSERT_EQ(dst[q * kCount + i], valueOf<T>(q, me, i, salt)) << "put from PE " << q << ", element " << i;
  // get: slot q of PE p holds valueOf(q, p, ...).
  std::vector<T> got(kCount);
  for (int p = 0; p < n; ++p) {
    const int q = (me + p) % n;
    ops.get(got.data(), dst + q * kCount, kCount, p);
    for (size_t i = 0; i < kCount; ++i)
      ASSERT_EQ(got[i], valueOf<T>(q, p, i, salt)) << "get from PE " << p << " slot " << q << ", element " << i;
  }
  // g, one element of each slot of each PE.
  for (int p = 0; p < n; ++p)
    for (int q = 0; q < n; ++q) {
      const size_t i = static_cast<size_t>(p + q) % kCount;
      EXPECT_EQ(ops.g(dst + q * kCount + i, p), valueOf<T>(q, p, i, salt)) << "g from PE " << p << " slot " << q;
    }
  shmem_barrier_all();
}

// p into the right neighbour, element by element; g back from it.
template <typename T>
void checkRingElements(const Ops<T>& ops, T* dst, int salt) {
  const int me = myPe(), right = rightOf(me), left = leftOf(me);
  SCOPED_TRACE(std::string(ops.f.name) + " p/g ring, " + ops.what() + " context");
  shmem_barrier_all();
  for (size_t i = 0; i < kCount; ++i) ops.p(dst + i, valueOf<T>(me, right, i, salt), right);
  shmem_barrier_all();
  for (size_t i = 0; i < kCount; ++i) ASSERT_EQ(dst[i], valueOf<T>(left, me, i, salt)) << "p from PE " << left << ", element " << i;
  for (size_t i = 0; i < kCount; ++i)
    ASSERT_EQ(ops.g(dst + i, right), valueOf<T>(me, right, i, salt)) << "g from PE " << right << ", element " << i;
  shmem_barrier_all();
}

// put_nbi to every PE, completed by quiet (before the barrier); get_nbi from every PE, whose
// results are only read after quiet.
template <typename T>
void checkNbi(const Ops<T>& ops, T* dst, int salt) {
  const int n = nPes(), me = myPe();
  SCOPED_TRACE(std::string(ops.f.name) + " nbi, " + ops.what() + " context");
  std::vector<std::vector<T>> src(static_cast<size_t>(n), std::vector<T>(kCount));
  shmem_barrier_all();
  for (int p = 0; p < n; ++p) {
    for (size_t i = 0; i < kCount; ++i) src[p][i] = valueOf<T>(me, p, i, salt);
    ops.putNbi(dst + me * kCount, src[p].data(), kCount, p);  // src[p] stays untouched until quiet
  }
  ops.quiet();
  shmem_barrier_all();
  for (int q = 0; q < n; ++q)
    for (size_t i = 0; i < kCount; ++i)
      ASSERT_EQ(dst[q * kCount + i], valueOf<T>(q, me, i, salt)) << "put_nbi from PE " << q << ", element " << i;
  std::vector<std::vector<T>> got(static_cast<size_t>(n), std::vector<T>(kCount, sentinel<T>()));
  for (int p = 0; p < n; ++p) ops.getNbi(got[p].data(), dst + me * kCount, kCount, p);
  ops.quiet();
  for (int p = 0; p < n; ++p)
    for (size_t i = 0; i < kCount; ++i)
      ASSERT_EQ(got[p][i], valueOf<T>(me, p, i, salt)) << "get_nbi from PE " << p << ", element " << i;
  shmem_barrier_all();
}

// iput with target stride 3 and source stride 2 into the right neighbour: only every third
// element changes. iget with the strides the other way round reads them back.
template <typename T>
void checkStrided(const Ops<T>& ops, T* dst, int salt) {
  const int me = myPe(), right = rightOf(me), left = leftOf(me);
  SCOPED_TRACE(std::string(ops.f.name) + " iput/iget, " + ops.what() + " context");
  constexpr size_t nelems = 5;
  constexpr ptrdiff_t tst = 3, sst = 2;
  for (size_t i = 0; i < 3 * nelems; ++i) dst[i] = sentinel<T>();
  std::vector<T> src(2 * nelems);
  for (size_t i = 0; i < src.size(); ++i) src[i] = valueOf<T>(me, right, i, salt);
  shmem_barrier_all();
  ops.iput(dst, src.data(), tst, sst, nelems, right);
  shmem_barrier_all();
  for (size_t i = 0; i < 3 * nelems; ++i) {
    if (i % 3 == 0) {
      ASSERT_EQ(dst[i], valueOf<T>(left, me, (i / 3) * 2, salt)) << "strided element " << i;
    } else {
      ASSERT_EQ(dst[i], sentinel<T>()) << "element " << i << " lies between the strides";
    }
  }
  std::vector<T> got(2 * nelems, sentinel<T>());
  ops.iget(got.data(), dst, 2, 3, nelems, right);  // got[2k] = right's dst[3k]
  for (size_t k = 0; k < 2 * nelems; ++k) {
    if (k % 2 == 0) {
      ASSERT_EQ(got[k], valueOf<T>(me, right, k, salt)) << "iget element " << k;
    } else {
      ASSERT_EQ(got[k], sentinel<T>()) << "iget wrote element " << k << " between the strides";
    }
  }
  shmem_barrier_all();
}

template <typename T>
void checkType(const TypedRma<T>& f, int salt) {
  const size_t elems = static_cast<size_t>(nPes()) * kCount;
  T* dst = static_cast<T*>(shmem_malloc(elems * sizeof(T)));
  ASSERT_NE(dst, nullptr);
  Ops<T> plain{f, nullptr};
  checkAllToAll(plain, dst, salt);
  checkRingElements(plain, dst, salt + 1);
  checkNbi(plain, dst, salt + 2);
  checkStrided(plain, dst, salt + 3);
  shmem_ctx_t ctx;
  ASSERT_EQ(shmem_ctx_create(0, &ctx), 0);
  Ops<T> created{f, &ctx};
  checkAllToAll(created, dst, salt + 4);
  checkRingElements(created, dst, salt + 5);
  checkNbi(created, dst, salt + 6);
  checkStrided(created, dst, salt + 7);
  shmem_ctx_destroy(ctx);
  shmem_free(dst);
}

TEST(RmaTyped, Int) { checkType(FERRY_TYPED_RMA(int, int), 1); }
TEST(RmaTyped, Long) { checkType(FERRY_TYPED_RMA(long, long), 2); }
TEST(RmaTyped, Double) { checkType(FERRY_TYPED_RMA(double, double), 3); }
TEST(RmaTyped, Char) { checkType(FERRY_TYPED_RMA(char, char), 4); }
TEST(RmaTyped, LongDouble) { checkType(FERRY_TYPED_RMA(long double, longdouble), 5); }
TEST(RmaTyped, Int8) { checkType(FERRY_TYPED_RMA(int8_t, int8), 6); }
TEST(RmaTyped, Uint64) { checkType(FERRY_TYPED_RMA(uint64_t, uint64), 7); }
TEST(RmaTyped, Size) { checkType(FERRY_TYPED_RMA(size_t, size), 8); }

// ---- static data (file-scope arrays) as the target ----------------------------------------
long gLongs[kMaxPes * kCount];
double gDoubles[kMaxPes * kCount];
char gChars[kMaxPes * kCount];
int gInts[kMaxPes * kCount] = {1};  // initialised: .data, not .bss

TEST(RmaStatic, TypedIntoFileScopeArrays) {
  const auto longs = FERRY_TYPED_RMA(long, long);
  const auto doubles = FERRY_TYPED_RMA(double, double);
  const auto chars = FERRY_TYPED_RMA(char, char);
  const auto ints = FERRY_TYPED_RMA(int, int);
  checkAllToAll(Ops<long>{longs, nullptr}, gLongs, 11);
  checkRingElements(Ops<long>{longs, nullptr}, gLongs, 12);
  checkNbi(Ops<long>{longs, nullptr}, gLongs, 13);
  checkStrided(Ops<long>{longs, nullptr}, gLongs, 14);
  checkAllToAll(Ops<double>{doubles, nullptr}, gDoubles, 15);
  checkNbi(Ops<double>{doubles, nullptr}, gDoubles, 16);
  checkAllToAll(Ops<char>{chars, nullptr}, gChars, 17);
  checkStrided(Ops<char>{chars, nullptr}, gChars, 18);
  checkAllToAll(Ops<int>{ints, nullptr}, gInts, 19);
  checkRingElements(Ops<int>{ints, nullptr}, gInts, 20);
  shmem_ctx_t ctx;
  ASSERT_EQ(shmem_ctx_create(0, &ctx), 0);
  checkAllToAll(Ops<long>{longs, &ctx}, gLongs, 21);
  checkNbi(Ops<long>{longs, &ctx}, gLongs, 22);
  shmem_ctx_destroy(ctx);
}

// A static scalar (not an array) as the target of p and g.
long gScalar;
TEST(RmaStatic, ScalarThroughPAndG) {
  const int me = myPe();
  shmem_barrier_all();
  shmem_long_p(&gScalar, 5000L + me, rightOf(me));
  shmem_barrier_all();
  EXPECT_EQ(gScalar, 5000L + leftOf(me));
  EXPECT_EQ(shmem_long_g(&gScalar, rightOf(me)), 5000L + me);
  shmem_barrier_all();
}

// ---- sized routines: put8..put128, get8..get128, iput/iget sized -------------------------
struct Sized {
  size_t bytes;
  void (*put)(void*, const void*, size_t, int);
  void (*get)(void*, const void*, size_t, int);
  void (*putNbi)(void*, const void*, size_t, int);
  void (*getNbi)(void*, const void*, size_t, int);
  void (*iput)(void*, const void*, ptrdiff_t, ptrdiff_t, size_t, int);
  void (*iget)(void*, const void*, ptrdiff_t, ptrdiff_t, size_t, int);
};
#define FERRY_SIZED(BITS)                                                                                       \
  Sized {                                                                                                       \
    (BITS) / 8, shmem_put##BITS, shmem_get##BITS, shmem_put##BITS##_nbi, shmem_get##BITS##_nbi, shmem_iput##BITS, \
        shmem_iget##BITS                                                                                        \
  }

TEST(RmaSized, EachWidthMovesWholeElements) {
  const int me = myPe(), right = rightOf(me), left = leftOf(me);
  const Sized all[] = {FERRY_SIZED(8), FERRY_SIZED(16), FERRY_SIZED(32), FERRY_SIZED(64), FERRY_SIZED(128)};
  const size_t maxBytes = 16 * 3 * kCount + 16;
  auto* dst = static_cast<unsigned char*>(shmem_malloc(maxBytes));
  ASSERT_NE(dst, nullptr);
  unsigned salt = 100;
  for (const Sized& s : all) {
    SCOPED_TRACE("element size " + std::to_string(s.bytes));
    const size_t bytes = s.bytes * kCount;
    std::vector<unsigned char> src(3 * bytes);
    // contiguous put, then get back
    std::memset(dst, 0xee, maxBytes);
    fillPattern(src.data(), bytes, me, right, ++salt);
    shmem_barrier_all();
    s.put(dst, src.data(), kCount, right);
    shmem_barrier_all();
    EXPECT_EQ(firstMismatch(dst, bytes, left, me, salt), bytes) << "put from PE " << left;
    EXPECT_EQ(dst[bytes], 0xee) << "put wrote past nelems elements";
    std::vector<unsigned char> got(bytes, 0);
    s.get(got.data(), dst, kCount, right);
    EXPECT_EQ(firstMismatch(got.data(), bytes, me, right, salt), bytes) << "get from PE " << right;
    // nbi forms
    fillPattern(src.data(), bytes, me, right, ++salt);
    shmem_barrier_all();
    s.putNbi(dst, src.data(), kCount, right);
    shmem_quiet();
    shmem_barrier_all();
    EXPECT_EQ(firstMismatch(dst, bytes, left, me, salt), bytes) << "put_nbi from PE " << left;
    std::fill(got.begin(), got.end(), 0);
    s.getNbi(got.data(), dst, kCount, right);
    shmem_quiet();
    EXPECT_EQ(firstMismatch(got.data(), bytes, me, right, salt), bytes) << "get_nbi from PE " << right;
    // strided: source stride 2, target stride 3 (in elements)
    shmem_barrier_all();
    std::memset(dst, 0xee, maxBytes);
    fillPattern(src.data(), 2 * bytes, me, right, ++salt);
    shmem_barrier_all();
    s.iput(dst, src.data(), 3, 2, kCount, right);
    shmem_barrier_all();
    for (size_t k = 0; k < kCount; ++k) {
      std::vector<unsigned char> want(s.bytes);
      for (size_t b = 0; b < s.bytes; ++b) want[b] = patternByte(left, me, 2 * k * s.bytes + b, salt);
      ASSERT_EQ(std::memcmp(dst + 3 * k * s.bytes, want.data(), s.bytes), 0) << "iput element " << k;
      if (k + 1 < kCount) {
        ASSERT_EQ(dst[(3 * k + 1) * s.bytes], 0xee) << "iput wrote between the strides at " << k;
      }
    }
    std::vector<unsigned char> strided(2 * bytes, 0);
    s.iget(strided.data(), dst, 2, 3, kCount, right);  // strided[2k] = right's dst[3k] = my src[2k]
    for (size_t k = 0; k < kCount; ++k)
      for (size_t b = 0; b < s.bytes; ++b)
        ASSERT_EQ(strided[2 * k * s.bytes + b], patternByte(me, right, 2 * k * s.bytes + b, salt))
            << "iget element " << k << " byte " << b;
    shmem_barrier_all();
  }
  shmem_free(dst);
}

// ---- putmem/getmem from 1 B to 1 MiB, unaligned, into heap and static data -----------------
constexpr size_t kBulkMax = size_t{1} << 20;
constexpr size_t kGuard = 16;
unsigned char gBulk[kBulkMax + 2 * kGuard];

enum class Path { Blocking, Nbi, Ctx, CtxNbi };

void putOrGet(bool put, Path path, shmem_ctx_t ctx, void* dst, const void* src, size_t bytes, int pe) {
  switch (path) {
    case Path::Blocking:
      put ? shmem_putmem(dst, src, bytes, pe) : shmem_getmem(dst, src, bytes, pe);
      break;
    case Path::Nbi:
      put ? shmem_putmem_nbi(dst, src, bytes, pe) : shmem_getmem_nbi(dst, src, bytes, pe);
      shmem_quiet();
      break;
    case Path::Ctx:
      put ? shmem_ctx_putmem(ctx, dst, src, bytes, pe) : shmem_ctx_getmem(ctx, dst, src, bytes, pe);
      break;
    case Path::CtxNbi:
      put ? shmem_ctx_putmem_nbi(ctx, dst, src, bytes, pe) : shmem_ctx_getmem_nbi(ctx, dst, src, bytes, pe);
      shmem_ctx_quiet(ctx);
      break;
  }
}

// The ring: put `bytes` at `offset` of the right neighbour's region (from an unaligned
// source too), check what the left one put and the guard bytes around it; then get it back.
void checkBulk(unsigned char* region, size_t bytes, size_t offset, Path path, shmem_ctx_t ctx, unsigned salt) {
  const int me = myPe(), right = rightOf(me), left = leftOf(me);
  std::vector<unsigned char> src(bytes + 8);
  unsigned char* from = src.data() + (offset % 8);  // the source is as unaligned as the target
  fillPattern(from, bytes, me, right, salt);
  std::memset(region, 0xc3, kBulkMax + 2 * kGuard);
  shmem_barrier_all();
  putOrGet(true, path, ctx, region + kGuard + offset, from, bytes, right);
  shmem_barrier_all();
  const unsigned char* at = region + kGuard + offset;
  EXPECT_EQ(firstMismatch(at, bytes, left, me, salt), bytes) << "put from PE " << left;
  EXPECT_EQ(at[-1], 0xc3) << "put wrote before its target";
  EXPECT_EQ(at[bytes], 0xc3) << "put wrote past its end";
  std::vector<unsigned char> got(bytes + 9, 0x3c);
  unsigned char* into = got.data() + 1 + (offset % 8);
  putOrGet(false, path, ctx, into, at, bytes, right);  // right's region holds what I put there
  EXPECT_EQ(firstMismatch(into, bytes, me, right, salt), bytes) << "get from PE " << right;
  EXPECT_EQ(into[-1], 0x3c) << "get wrote before its destination";
  shmem_barrier_all();
}

void checkAllSizes(unsigned char* region, Path path, shmem_ctx_t ctx, unsigned salt) {
  const size_t sizes[] = {1, 8, 4095, 65536, kBulkMax};
  const size_t offsets[] = {0, 1, 3};
  for (size_t bytes : sizes)
    for (size_t offset : offsets) {
      SCOPED_TRACE("bytes " + std::to_string(bytes) + " at offset " + std::to_string(offset));
      checkBulk(region, bytes, offset, path, ctx, salt++);  // 1 MiB at offset 3 still ends in the guard
    }
}

TEST(RmaBulk, PutmemGetmemIntoHeap) {
  auto* region = static_cast<unsigned char*>(shmem_malloc(kBulkMax + 2 * kGuard));
  ASSERT_NE(region, nullptr);
  checkAllSizes(region, Path::Blocking, SHMEM_CTX_DEFAULT, 200);
  shmem_free(region);
}

TEST(RmaBulk, PutmemGetmemIntoStaticData) { checkAllSizes(gBulk, Path::Blocking, SHMEM_CTX_DEFAULT, 300); }

TEST(RmaBulk, NbiCompletedByQuiet) {
  auto* region = static_cast<unsigned char*>(shmem_malloc(kBulkMax + 2 * kGuard));
  ASSERT_NE(region, nullptr);
  checkAllSizes(region, Path::Nbi, SHMEM_CTX_DEFAULT, 400);
  checkAllSizes(gBulk, Path::Nbi, SHMEM_CTX_DEFAULT, 500);
  shmem_free(region);
}

TEST(RmaBulk, OnACreatedContext) {
  auto* region = static_cast<unsigned char*>(shmem_malloc(kBulkMax + 2 * kGuard));
  ASSERT_NE(region, nullptr);
  shmem_ctx_t ctx;
  ASSERT_EQ(shmem_ctx_create(0, &ctx), 0);
  checkAllSizes(region, Path::Ctx, ctx, 600);
  checkAllSizes(gBulk, Path::CtxNbi, ctx, 700);
  shmem_ctx_destroy(ctx);
  // The ctx routines with SHMEM_CTX_DEFAULT are the plain ones.
  checkAllSizes(region, Path::CtxNbi, SHMEM_CTX_DEFAULT, 800);
  shmem_free(region);
}

// Small and odd sizes to every PE at once, each into its own slot.
TEST(RmaBulk, AllToAllSmallSizes) {
  const int n = nPes(), me = myPe();
  constexpr size_t kSlot = 4096 + 8;
  auto* region = static_cast<unsigned char*>(shmem_malloc(static_cast<size_t>(n) * kSlot));
  ASSERT_NE(region, nullptr);
  unsigned salt = 900;
  for (size_t bytes : {size_t{1}, size_t{8}, size_t{13}, size_t{4095}}) {
    ++salt;
    shmem_barrier_all();
    for (int p = 0; p < n; ++p) {
      std::vector<unsigned char> src(bytes);
      fillPattern(src.data(), bytes, me, p, salt);
      shmem_putmem(region + static_cast<size_t>(me) * kSlot + 1, src.data(), bytes, p);
    }
    shmem_barrier_all();
    for (int q = 0; q < n; ++q)
      EXPECT_EQ(firstMismatch(region + static_cast<size_t>(q) * kSlot + 1, bytes, q, me, salt), bytes)
          << bytes << " B from PE " << q;
    for (int p = 0; p < n; ++p) {
      std::vector<unsigned char> got(bytes);
      shmem_getmem(got.data(), region + static_cast<size_t>(p) * kSlot + 1, bytes, p);  // p's own slot on p
      EXPECT_EQ(firstMismatch(got.data(), bytes, p, p, salt), bytes) << bytes << " B read from PE " << p;
    }
  }
  shmem_barrier_all();
  shmem_free(region);
}

}  // namespace
}  // namespace ferry::shmem::testing
