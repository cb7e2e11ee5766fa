// One transfer per node: which device memory of a node still holds bytes that rank 0 sent
// there, so that the same host bytes bound for another device of that node are copied from
// that device's rank on the node instead of crossing the network again.
//
// Users map one host array to every device of a node (one `target enter data` per device);
// each mapping is a separate data_submit, and without this each one crosses the network. A
// record says "device D at address A holds these n bytes, whose digest is H". It stays true
// until something may write that memory: a kernel on D (any kernel: its writes are not
// known), a transfer into the range, or a free of it. The owner (Client) forgets records at
// each of these, under the same lock with which it reads them and sends the copy, so a copy
// from a recorded range always reaches the serving rank before any later write to it.
// "Later" is in the program's order: a kernel of another host thread that the program does
// not order against the transfer that made the record writes that device memory in a race
// with the transfer itself, which OpenMP leaves undefined already.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>

namespace ferry::offload {

// A 128-bit content digest (xxHash's XXH3): equal digests stand for equal bytes. A chance
// collision between two different buffers is about 2^-128 per comparison.
struct Digest {
  uint64_t low = 0, high = 0;
  bool operator==(const Digest&) const = default;
};
Digest digestOf(const void* data, size_t len);

struct NodeCopy {
  int node = 0;          // the device's node (DeviceEntry::node)
  int device = 0;        // job-wide device id
  uint64_t address = 0;  // where the bytes are in the device's memory
  uint64_t size = 0;
  Digest digest;
};

class NodeCopies {
 public:
  // At most `capacity` records are kept; the oldest goes first.
  explicit NodeCopies(size_t capacity = 64) : capacity_(capacity) {}

  // `c.device` now holds these bytes at c.address (its older records there are forgotten).
  void add(const NodeCopy& c);
  // A device of `node` other than `notDevice` that holds `size` bytes with `digest`; the
  // newest such record.
  std::optional<NodeCopy> find(int node, uint64_t size, const Digest& digest, int notDevice) const;
  // Whether any device of `node` other than `notDevice` holds a record of `size` bytes: only
  // then is a digest of the host bytes worth computing before they are sent.
  bool holdsSize(int node, uint64_t size, int notDevice) const;
  // [address, address+len) of `device` may have changed.
  void forget(int device, uint64_t address, uint64_t len);
  // Any memory of `device` may have changed (a kernel ran there).
  void forgetDevice(int device);
  size_t size() const { return records_.size(); }

 private:
  size_t capacity_;
  std::deque<NodeCopy> records_;  // oldest first
};

}  // namespace ferry::offload
