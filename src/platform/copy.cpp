#include "platform/copy.h"

#include <cstring>
#include <new>

#if defined(__x86_64__)
#include <emmintrin.h>
#endif

namespace ferry {
namespace {

// 64 bytes per round, as four unaligned 16-byte loads then four stores: as fast as glibc's
// vector loop on data in cache (SSE2 is in every x86_64, so no dispatch is needed), and
// never `rep movsb`. The loads come before the stores so the compiler cannot turn the loop
// back into a memcpy call.
void vectorCopy(uint8_t* d, const uint8_t* s, size_t n) {
#if defined(__x86_64__)
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
#endif
  std::memcpy(d, s, n);  // the tail (below rep movsb's threshold), or everything elsewhere
}

}  // namespace

void copyBytes(void* dst, const void* src, size_t n) {
  if (copyAliases(dst, src, n)) vectorCopy(static_cast<uint8_t*>(dst), static_cast<const uint8_t*>(src), n);
  else std::memcpy(dst, src, n);
}

PageBytes allocatePages(size_t n) {
  size_t rounded = (n + kCopyPage - 1) / kCopyPage * kCopyPage;  // aligned_alloc wants a multiple
  auto* p = static_cast<uint8_t*>(std::aligned_alloc(kCopyPage, rounded == 0 ? kCopyPage : rounded));
  if (!p) throw std::bad_alloc();
  return PageBytes(p);
}

}  // namespace ferry
