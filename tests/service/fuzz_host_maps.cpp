// Input: /proc/PID/maps text of rank 0 and of the serving rank itself, as the unified-shared-
// memory pager compares them before each kernel (service/host_pager.cpp). Rank 0's text comes
// from rank 0 over MPI where CMA cannot reach it (comm::PageLink::maps: whatever the peer on
// the page-request tag answers), else from /proc of a process on this node. The input holds
// both: rank 0's lines, a blank line, then the serving rank's.
//
// Properties: parsing never throws nor reads out of bounds; a collision that is reported
// is a range of rank 0's list, and (for layouts in address order, as the kernel writes
// them) it overlaps a range of the serving rank.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "fuzz_check.h"
#include "service/host_pager.h"

namespace {
using namespace ferry::service::hostpager;

bool inAddressOrder(const std::vector<MapRange>& maps) {
  for (size_t i = 0; i < maps.size(); ++i)
    if (maps[i].start > maps[i].end || (i && maps[i - 1].end > maps[i].start)) return false;
  return true;
}

void checkCollision(const std::vector<MapRange>& host, const std::vector<MapRange>& self) {
  const MapRange* hit = firstCollision(host, self);
  if (!hit) return;
  FUZZ_CHECK(hit >= host.data() && hit < host.data() + host.size(), "the collision is no range of rank 0's");
  if (!inAddressOrder(self)) return;
  bool overlaps = false;
  for (const MapRange& s : self) overlaps |= s.start < hit->end && s.end > hit->start;
  FUZZ_CHECK(overlaps, "a collision was reported where no range of this process overlaps");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  size_t blank = text.find("\n\n");
  std::string hostText = text.substr(0, blank);
  std::string selfText = blank == std::string::npos ? std::string() : text.substr(blank + 2);
  std::vector<MapRange> host = parseMaps(hostText), self = parseMaps(selfText);
  checkCollision(host, self);
  checkCollision(self, host);
  return 0;
}
