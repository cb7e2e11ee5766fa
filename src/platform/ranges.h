// Address ranges kept as a map from block start to block size.
#pragma once

#include <cstdint>
#include <map>

namespace ferry {

// Whether [addr, addr+len) lies inside one block of `blocks` (start -> size).
inline bool insideBlock(const std::map<uint64_t, uint64_t>& blocks, uint64_t addr, uint64_t len) {
  auto it = blocks.upper_bound(addr);
  if (it == blocks.begin()) return false;
  --it;
  uint64_t offset = addr - it->first;
  return offset <= it->second && len <= it->second - offset;
}

}  // namespace ferry
