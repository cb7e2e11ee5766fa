// Process-wide counters that prove which data path the allreduce took: benchmarks print
// them, tests assert on them, ferry_coll_get_stats() hands them to programs.
#pragma once

#include <atomic>
#include <cstdint>

namespace ferry::coll {

struct StatsSnapshot {
  uint64_t ferryCalls = 0;         // calls Ferry's algorithm ran
  uint64_t libraryCalls = 0;       // calls handed to the MPI library
  uint64_t bytesCma = 0;           // bytes moved by process_vm_readv/writev
  uint64_t bytesMapped = 0;        // bytes read or written in peers' mapped memory
  uint64_t bytesStaged = 0;        // bytes copied into or out of the staging segment
  uint64_t interChunks = 0;        // chunks the inter-node stage reduced
  uint64_t regHits = 0;            // registration cache: mapping found and still valid
  uint64_t regMisses = 0;          // no mapping yet: mapped now
  uint64_t regInvalidations = 0;   // mapping found but the memory was freed and reused
  uint64_t regEvictions = 0;       // mappings dropped to stay under FERRY_COLL_REG_CACHE
  uint64_t setups = 0;             // communicators set up
};

class Stats {
 public:
  // The call counters move on every MPI_Allreduce, the smallest included, where a locked
  // instruction would cost a noticeable part of the call: they are counted per thread
  // (countCall) and summed by snapshot().
  std::atomic<uint64_t> bytesCma{0}, bytesMapped{0}, bytesStaged{0}, interChunks{0}, regHits{0}, regMisses{0},
      regInvalidations{0}, regEvictions{0}, setups{0};
  StatsSnapshot snapshot() const;
};

Stats& stats();
void countCall(bool ferry);

}  // namespace ferry::coll
