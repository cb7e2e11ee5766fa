// Helpers shared by the OpenSHMEM tests: what a PE can know about the job's layout without
// asking the library under test, and small patterns every test computes on both ends.
#pragma once

#include <shmem.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <thread>

namespace ferry::shmem::testing {

// The PEs the CMake layout started (TEST_SHMEM_NPES, set by tests/shmem/CMakeLists.txt), or
// -1 where the binary runs by hand.
inline int launchedPes() {
  const char* v = std::getenv("TEST_SHMEM_NPES");
  return v ? std::atoi(v) : -1;
}

// Virtual nodes of this job: FERRY_VIRTUAL_NODES clamped to [1, PEs], as
// comm/node_split.cpp clamps it. Every test job runs on one machine.
inline int virtualNodes() {
  const char* v = std::getenv("FERRY_VIRTUAL_NODES");
  int k = v ? std::atoi(v) : 1;
  int n = shmem_n_pes();
  if (k < 1) k = 1;
  return k > n ? n : k;
}

// The virtual node of world PE `pe`: contiguous blocks of ranks (comm/node_split.cpp,
// virtualBlock), PE numbers being MPI ranks on one machine.
inline int nodeOf(int pe) { return static_cast<int>(static_cast<long>(pe) * virtualNodes() / shmem_n_pes()); }
inline bool sameNode(int a, int b) { return nodeOf(a) == nodeOf(b); }
inline int pesOnNodeOf(int pe) {
  int count = 0;
  for (int p = 0; p < shmem_n_pes(); ++p) count += sameNode(p, pe) ? 1 : 0;
  return count;
}

// Lets the other side start waiting before this side acts: a wait that returned early, or
// a put that arrived late, then shows.
inline void pauseMs(int ms) { std::this_thread::sleep_for(std::chrono::milliseconds(ms)); }

// A byte that depends on who wrote it, for whom, where and when: a misplaced, stale or
// partial copy shows as a wrong byte.
inline unsigned char patternByte(int from, int to, size_t i, unsigned salt) {
  uint64_t x = (static_cast<uint64_t>(from) * 0x9E3779B1u) ^ (static_cast<uint64_t>(to) * 0x85EBCA77u) ^
               (static_cast<uint64_t>(i) * 0xC2B2AE3Du) ^ (static_cast<uint64_t>(salt) * 0x27D4EB2Fu);
  x ^= x >> 29;
  return static_cast<unsigned char>(x ^ (x >> 11));
}

inline void fillPattern(void* buf, size_t bytes, int from, int to, unsigned salt) {
  auto* b = static_cast<unsigned char*>(buf);
  for (size_t i = 0; i < bytes; ++i) b[i] = patternByte(from, to, i, salt);
}

// The index of the first byte that differs from the pattern, or `bytes` where all match.
inline size_t firstMismatch(const void* buf, size_t bytes, int from, int to, unsigned salt) {
  const auto* b = static_cast<const unsigned char*>(buf);
  for (size_t i = 0; i < bytes; ++i)
    if (b[i] != patternByte(from, to, i, salt)) return i;
  return bytes;
}

inline int myPe() { return shmem_my_pe(); }
inline int nPes() { return shmem_n_pes(); }
inline int rightOf(int pe) { return (pe + 1) % shmem_n_pes(); }
inline int leftOf(int pe) { return (pe + shmem_n_pes() - 1) % shmem_n_pes(); }

// Most PEs any layout starts (tests/shmem/CMakeLists.txt): sizes static symmetric arrays.
inline constexpr int kMaxPes = 64;

}  // namespace ferry::shmem::testing
