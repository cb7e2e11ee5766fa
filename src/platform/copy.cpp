#include "platform/copy.h"

#include <cstring>
#include <new>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace ferry {
namespace {

#if defined(__x86_64__)
// 128 bytes per round, four unaligned 32-byte loads then four stores, on CPUs with AVX2
// (every AMD Zen): as fast as glibc's own vector loop, in cache and out, and never
// `rep movsb`. The loads come before the stores, so the compiler cannot turn the loop back
// into a memcpy call.
__attribute__((target("avx2"))) void copyAvx2(uint8_t* d, const uint8_t* s, size_t n) {
  if (n >= 256) {  // stores on 32-byte boundaries: none splits a cache line
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(d), _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s)));
    size_t head = 32 - (reinterpret_cast<uintptr_t>(d) & 31);
    d += head, s += head, n -= head;
  }
  for (; n >= 128; n -= 128, s += 128, d += 128) {
    __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s));
    __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s + 32));
    __m256i c = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s + 64));
    __m256i e = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s + 96));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(d), a);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(d + 32), b);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(d + 64), c);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(d + 96), e);
  }
  std::memcpy(d, s, n);  // the tail, below rep movsb's threshold
}

// The same with 16-byte moves, which every x86_64 has.
void copySse2(uint8_t* d, const uint8_t* s, size_t n) {
  for (; n >= 64; n -= 64, s += 64, d += 64) {
    __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s));
    __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + 16));
    __m128i c = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + 32));
    __m128i e = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + 48));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(d), a);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(d + 16), b);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(d + 32), c);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(d + 48), e);
  }
  std::memcpy(d, s, n);
}

// Chosen at the first copy, not by a static initialiser: another one may copy before it ran.
void vectorCopy(uint8_t* d, const uint8_t* s, size_t n) {
  using CopyFn = void (*)(uint8_t*, const uint8_t*, size_t);
  static const CopyFn fn = [] {
    __builtin_cpu_init();  // needed where this may run before the constructors that call it
    return __builtin_cpu_supports("avx2") ? copyAvx2 : copySse2;
  }();
  fn(d, s, n);
}
#else
// Elsewhere there is no such stall to avoid.
void vectorCopy(uint8_t* d, const uint8_t* s, size_t n) { std::memcpy(d, s, n); }
#endif

}  // namespace

void copyBytes(void* dst, const void* src, size_t n) {
  if (copyAliases(dst, src, n)) vectorCopy(static_cast<uint8_t*>(dst), static_cast<const uint8_t*>(src), n);
  else std::memcpy(dst, src, n);
}

std::vector<CopyLoop> copyLoopsOfThisCpu() {
#if defined(__x86_64__)
  __builtin_cpu_init();
  std::vector<CopyLoop> loops = {{"sse2", copySse2}};
  if (__builtin_cpu_supports("avx2")) loops.push_back({"avx2", copyAvx2});
  return loops;
#else
  return {};
#endif
}

PageBytes allocatePages(size_t n) {
  size_t rounded = (n + kCopyPage - 1) / kCopyPage * kCopyPage;  // aligned_alloc wants a multiple
  auto* p = static_cast<uint8_t*>(std::aligned_alloc(kCopyPage, rounded == 0 ? kCopyPage : rounded));
  if (!p) throw std::bad_alloc();
  return PageBytes(p);
}

}  // namespace ferry
