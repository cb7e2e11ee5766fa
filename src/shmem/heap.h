// The allocator of the symmetric heap. Symmetry comes from determinism: every PE runs the
// same sequence of collective allocations, so one first-fit allocator over offsets, started
// alike on every PE, hands out the same offset everywhere; no offsets travel. Whether the
// PEs did call alike is checked by the caller (heap_api.cpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>

namespace ferry::shmem {

class HeapAllocator {
 public:
  // Blocks start at multiples of kMinAlign; a larger alignment may be asked for.
  static constexpr size_t kMinAlign = 64;
  explicit HeapAllocator(size_t capacity);

  // The offset of a new block of `size` bytes (rounded up to kMinAlign), or nothing.
  std::optional<size_t> allocate(size_t size, size_t alignment = kMinAlign);
  // Frees the block at `offset`; false when no block starts there.
  bool release(size_t offset);
  // The size of the block at `offset`, or 0.
  size_t sizeOf(size_t offset) const;
  // Grows or shrinks the block at `offset` in place where the space after it allows.
  bool resizeInPlace(size_t offset, size_t size);

  size_t capacity() const { return capacity_; }
  size_t used() const { return used_; }
  size_t largestFree() const;

 private:
  void insertFree(size_t offset, size_t size);
  size_t capacity_;
  size_t used_ = 0;
  std::map<size_t, size_t> free_;  // offset -> size, coalesced
  std::map<size_t, size_t> blocks_;
};

}  // namespace ferry::shmem
