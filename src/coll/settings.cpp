#include "coll/settings.h"

#include <mpi.h>

#include <algorithm>

#include "comm/mpi_check.h"
#include "platform/hash.h"

namespace ferry::coll {

uint64_t defaultMinSize(std::string_view libraryVersion) {
  return libraryVersion.starts_with("MPICH Version:") ? 0 : 4 * 1024;
}

Settings Settings::fromConfig(const Config& cfg) {
  Settings s;
  const std::string& mode = cfg.text(Knob::CollMode);
  s.mode = mode == "on" ? Mode::On : mode == "off" ? Mode::Off : Mode::Auto;
  s.minSize = cfg.isSet(Knob::CollMinSize) ? cfg.size(Knob::CollMinSize) : defaultMinSize(comm::mpiLibraryVersion());
  s.stagedPerRank = cfg.size(Knob::CollStagedPerRank);
  s.chunkSize = cfg.size(Knob::CollChunkSize);
  s.directChunkSize = cfg.isSet(Knob::CollChunkSize) ? s.chunkSize : std::max(s.chunkSize, kDefaultDirectChunk);
  s.depth = static_cast<int>(cfg.integer(Knob::CollDepth));
  const std::string& intra = cfg.text(Knob::CollIntra);
  s.intra = intra == "single"    ? IntraChoice::Single
            : intra == "staged"  ? IntraChoice::Staged
            : intra == "copy-in" ? IntraChoice::CopyIn
                                 : IntraChoice::Auto;
  s.inter = cfg.text(Knob::CollInter);
  s.halvingMin = cfg.size(Knob::CollHalvingMin);
  const std::string& leaders = cfg.text(Knob::CollLeaders);
  s.leaders = leaders == "one" ? Leaders::One : leaders == "all" ? Leaders::All : Leaders::Auto;
  s.allocMem = cfg.flag(Knob::CollAllocMem);
  s.regCacheBytes = cfg.size(Knob::CollRegCache);
  s.virtualNodes = static_cast<int>(cfg.integer(Knob::VirtualNodes));
  s.timeoutSeconds = cfg.seconds(Knob::Timeout);
  s.spinSeconds = cfg.seconds(Knob::SpinTime);
  return s;
}

uint64_t Settings::fingerprint() const {
  // The decision inputs, hashed little-endian; the timeouts and the cache size may differ
  // per rank.
  uint64_t h = kFnv1aStart;
  auto mix = [&h](uint64_t v) {
    uint8_t bytes[8];
    for (int i = 0; i < 8; ++i) bytes[i] = static_cast<uint8_t>(v >> (8 * i));
    h = fnv1a(bytes, sizeof bytes, h);
  };
  mix(static_cast<uint64_t>(mode));
  mix(minSize);
  mix(stagedPerRank);
  mix(chunkSize);
  mix(directChunkSize);
  mix(static_cast<uint64_t>(depth));
  mix(static_cast<uint64_t>(intra));
  for (char c : inter) mix(static_cast<uint8_t>(c));
  mix(halvingMin);
  mix(static_cast<uint64_t>(leaders));
  mix(static_cast<uint64_t>(virtualNodes));
  return h;
}

const Settings& settings() {
  static const Settings* s = new Settings(Settings::fromConfig(config()));
  return *s;
}

const char* modeName(Mode m) {
  switch (m) {
    case Mode::Auto: return "auto";
    case Mode::On: return "on";
    case Mode::Off: return "off";
  }
  return "?";
}

const char* leadersName(Leaders l) {
  switch (l) {
    case Leaders::Auto: return "auto";
    case Leaders::One: return "one";
    case Leaders::All: return "all";
  }
  return "?";
}

}  // namespace ferry::coll
