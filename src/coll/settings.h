// The FERRY_COLL_* settings (declared in platform/config_table.cpp), read once into a struct
// that the cost model and the pipelines take as a plain value (and tests build by hand).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "platform/config.h"

namespace ferry::coll {

enum class Mode : uint8_t { Auto, On, Off };
enum class IntraChoice : uint8_t { Auto, Single, Staged, CopyIn };
// Who runs the inter-node stage (FERRY_COLL_LEADERS); chooseLeaders() in select.h decides auto.
enum class Leaders : uint8_t { Auto, One, All };

// Under the interposer, MPI_Alloc_mem requests of at least this size come from the shared
// heap (with FERRY_COLL_ALLOC_MEM=1). Smaller ones stay with the library: each shared block
// costs a file descriptor, and allreduce on them gains less.
constexpr uint64_t kAllocMemMinSize = 64 * 1024;
constexpr uint64_t kDefaultDirectChunk = 4 << 20;

// The crossover where FERRY_COLL_MIN_SIZE is unset, by the MPI library that
// MPI_Get_library_version names. MPICH's own MPI_Allreduce (4.0.2, ch4:ucx) measured slower
// than Ferry's at every size with ranks sharing a node, 4 B included, so with MPICH every
// call goes to Ferry; Open MPI's is faster below 4 KiB. Libraries derived from MPICH (Intel
// MPI, Cray MPICH) say other names and tune their own collectives: they keep 4 KiB
// (docs/collectives.md, "Algorithm choice").
uint64_t defaultMinSize(std::string_view libraryVersion);

struct Settings {
  Mode mode = Mode::Auto;
  uint64_t minSize = 4 * 1024;  // FERRY_COLL_MIN_SIZE, or defaultMinSize() where unset
  uint64_t stagedPerRank = 16 * 1024;
  uint64_t chunkSize = 512 * 1024;
  // Chunks that go straight into the receive buffers (one node of two ranks, single copy:
  // CommContext::directResults) fit no slot. Larger ones cost fewer hand-offs and system
  // calls there, and measured 1.5-1.6x the library at 2-8 MiB against 1.2-1.4x with 512 KiB
  // (docs/collectives.md). FERRY_COLL_CHUNK_SIZE, when set, applies to them too.
  uint64_t directChunkSize = kDefaultDirectChunk;
  int depth = 4;
  IntraChoice intra = IntraChoice::Auto;
  std::string inter = "auto";
  uint64_t halvingMin = 64 * 1024;  // p2p inter-node stage: reduce-scatter + allgather from here
  Leaders leaders = Leaders::Auto;
  bool allocMem = true;
  uint64_t regCacheBytes = 4ull << 30;
  int virtualNodes = 1;
  double timeoutSeconds = 30;
  double spinSeconds = 50e-6;

  static Settings fromConfig(const Config& cfg);
  // A hash of everything that must be equal on every rank of a communicator for all of them
  // to take the same decisions (they would deadlock otherwise).
  uint64_t fingerprint() const;
};

// The process-wide settings, from the global configuration.
const Settings& settings();

const char* modeName(Mode m);
const char* leadersName(Leaders l);

}  // namespace ferry::coll
