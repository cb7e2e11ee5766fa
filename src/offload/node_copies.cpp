#include "offload/node_copies.h"

#include <xxhash.h>

#include <algorithm>

namespace ferry::offload {

Digest digestOf(const void* data, size_t len) {
  XXH128_hash_t h = XXH3_128bits(data, len);
  return {h.low64, h.high64};
}

void NodeCopies::add(const NodeCopy& c) {
  forget(c.device, c.address, c.size);
  if (capacity_ == 0) return;
  if (records_.size() == capacity_) records_.pop_front();
  records_.push_back(c);
}

std::optional<NodeCopy> NodeCopies::find(int node, uint64_t size, const Digest& digest, int notDevice) const {
  for (auto it = records_.rbegin(); it != records_.rend(); ++it)
    if (it->node == node && it->device != notDevice && it->size == size && it->digest == digest) return *it;
  return std::nullopt;
}

bool NodeCopies::holdsSize(int node, uint64_t size, int notDevice) const {
  return std::any_of(records_.begin(), records_.end(),
                     [&](const NodeCopy& r) { return r.node == node && r.device != notDevice && r.size == size; });
}

void NodeCopies::forget(int device, uint64_t address, uint64_t len) {
  if (len == 0) return;
  std::erase_if(records_, [&](const NodeCopy& r) {
    return r.device == device && r.address < address + len && address < r.address + r.size;
  });
}

void NodeCopies::forgetDevice(int device) {
  std::erase_if(records_, [&](const NodeCopy& r) { return r.device == device; });
}

}  // namespace ferry::offload
