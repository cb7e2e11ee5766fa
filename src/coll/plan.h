// How one call cuts its message: into chunks (the pipeline's unit), and each chunk into one
// share per node-local rank (the unit one rank reduces). Every rank computes the same plan
// from the same inputs, so no rank ever has to tell another where a piece starts.
#pragma once

#include <algorithm>
#include <cstddef>

namespace ferry::coll {

struct Range {
  size_t begin = 0;  // elements
  size_t end = 0;
  size_t size() const { return end - begin; }
};

class Plan {
 public:
  // Shares start on boundaries of this many bytes so that two ranks never write one cache
  // line; chunks are whole units so that this holds in every chunk. A chunk is therefore
  // never smaller than one unit, whatever chunk size it is asked for.
  static constexpr size_t kUnitBytes = 64;

  Plan(size_t count, size_t elemSize, size_t chunkBytes, int localSize)
      : count_(count),
        elemSize_(elemSize),
        unitElems_(std::max<size_t>(1, kUnitBytes / elemSize)),
        chunkElems_(std::max(unitElems_, chunkBytes / elemSize / unitElems_ * unitElems_)),
        localSize_(static_cast<size_t>(localSize)) {}

  size_t count() const { return count_; }
  size_t elemSize() const { return elemSize_; }
  size_t chunks() const { return (count_ + chunkElems_ - 1) / chunkElems_; }

  Range chunk(size_t c) const { return {c * chunkElems_, std::min(count_, (c + 1) * chunkElems_)}; }

  // The part of chunk `c` that node-local rank `s` reduces: whole 64-byte units, spread as
  // evenly as they go; a rank may get nothing when the chunk is small.
  Range share(size_t c, int s) const {
    Range ch = chunk(c);
    size_t units = (ch.size() + unitElems_ - 1) / unitElems_;
    size_t per = units / localSize_, extra = units % localSize_;
    size_t r = static_cast<size_t>(s);
    size_t first = r * per + std::min(r, extra);
    size_t n = per + (r < extra ? 1 : 0);
    size_t b = std::min(ch.end, ch.begin + first * unitElems_);
    size_t e = std::min(ch.end, ch.begin + (first + n) * unitElems_);
    return {b, e};
  }

  size_t bytes(const Range& r) const { return r.size() * elemSize_; }
  size_t offset(const Range& r) const { return r.begin * elemSize_; }

 private:
  size_t count_, elemSize_, unitElems_, chunkElems_, localSize_;
};

}  // namespace ferry::coll
