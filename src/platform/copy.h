// Copies between buffers of any alignment at memcpy's speed, including the one relative
// alignment where memcpy is not. On AMD Zen with glibc 2.36 (Debian 12's), a copy of 4 KiB
// or more, up to where glibc stops using `rep movsb` (512 KiB here, the L2 size), whose
// destination lies 1-31 bytes past the source modulo 4 KiB runs `rep movsb` into the CPU's
// 4 KiB-aliasing stall: 2-3 GB/s instead of 40-90 (measured on this project's EPYC
// machines, docs/performance.md, "Copies"; newer glibc versions are reported to avoid it,
// which was not checked here). That offset is the common case here, not a corner: a
// malloc'd buffer of 128 KiB or more starts 16 bytes into a page, and the shared segments'
// slots start on one.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <vector>

namespace ferry {

constexpr size_t kCopyPage = 4096;  // the aliasing period: the low 12 address bits

// Whether copying `n` bytes from `src` to `dst` falls in that window: the distance modulo
// 4 KiB is 1-63 bytes (1-31 stalled here; the window keeps a cache line of margin) and the
// copy is large enough for `rep movsb`.
inline bool copyAliases(const void* dst, const void* src, size_t n) {
  // glibc's rep movsb threshold with AVX2 (2048 x 32/16 bytes). Below it memcpy takes its
  // vector path, faster at 1-2 KiB than copyBytes' loop (0.6-0.9x measured: a call through
  // a pointer and the alignment of the head cost more than such a copy).
  constexpr size_t kMinBytes = 4096;
  constexpr uintptr_t kWindow = 64;
  uintptr_t distance = (reinterpret_cast<uintptr_t>(dst) - reinterpret_cast<uintptr_t>(src)) & (kCopyPage - 1);
  return n >= kMinBytes && distance != 0 && distance < kWindow;
}

// memcpy(dst, src, n) for buffers that do not overlap; in the window above, a vector loop
// instead, at any size: where glibc stops using rep movsb depends on the CPU (the L2 size on
// AMD), and above it the loop measured 0.89-1.05x of memcpy's non-temporal stores, noise
// next to the 13-35x it gains below (bench/copy).
void copyBytes(void* dst, const void* src, size_t n);

// The kernel copies for process_vm_readv/writev (and so for MPI libraries' single-copy
// paths) with `rep movsb` too, so a buffer that another process fills is best placed at the
// page offset of the data that goes into it. These are page-aligned buffers for that: offset
// them by the source's `& (kCopyPage - 1)` (with kCopyPage bytes of slack), or leave them
// aligned when the source is a shared segment's 64-byte-aligned slot.
struct FreeBytes {
  void operator()(uint8_t* p) const { std::free(p); }
};
using PageBytes = std::unique_ptr<uint8_t[], FreeBytes>;
PageBytes allocatePages(size_t n);

// The vector loops copyBytes() chooses from by the CPU (AVX2, else SSE2), each of them that
// this CPU runs, so that a test can check the one that other CPUs take too. Empty off x86_64.
struct CopyLoop {
  const char* name;
  void (*fn)(uint8_t* dst, const uint8_t* src, size_t n);
};
std::vector<CopyLoop> copyLoopsOfThisCpu();

}  // namespace ferry
