// Tags for replies and data streams: the issuer writes one into each request, and the
// answer (a reply, or a transfer's chunks) travels on it. Rank 0 issues every operation and
// draws from the lower half of [kFirstDynamicTag, tag upper bound]; a server draws only the
// reply tags of its own liveness probes, from the upper half, so the two never meet on one
// pair of peers. Within a pool, tags cycle: they stay unique for as long as a cycle lasts
// (tens of thousands of operations at the smallest MPI_TAG_UB allowed, far more in practice).
#pragma once

#include <atomic>
#include <cstdint>

#include "comm/protocol.h"

namespace ferry::comm {

class TagPool {
 public:
  enum class Half : uint8_t { Issuer, Server };
  void setUpperBound(int ub, Half half = Half::Issuer);
  int next();

 private:
  std::atomic<uint32_t> counter_{0};
  int lo_ = kFirstDynamicTag, hi_ = 32767 / 2;
};

}  // namespace ferry::comm
