#include "coll/buffer_ref.h"

#include "comm/cma.h"
#include "coll/stats.h"
#include "platform/copy.h"

namespace ferry::coll {

BufferRef BufferRef::advanced(size_t bytes) const {
  BufferRef r = *this;
  if (ptr_) r.ptr_ += bytes;
  else r.addr_ += bytes;
  return r;
}

bool BufferRef::sameAs(const BufferRef& o) const {
  return ptr_ ? ptr_ == o.ptr_ : (o.ptr_ == nullptr && pid_ == o.pid_ && addr_ == o.addr_);
}

void BufferRef::count(size_t bytes) const {
  if (!ptr_) stats().bytesCma.fetch_add(bytes, std::memory_order_relaxed);
  else if (mapped_) stats().bytesMapped.fetch_add(bytes, std::memory_order_relaxed);
}

Result<const uint8_t*> BufferRef::view(size_t off, size_t len, uint8_t* scratch) const {
  count(len);
  if (ptr_) return static_cast<const uint8_t*>(ptr_ + off);
  uint8_t* at = scratch + pageOffset(off);
  if (Status st = comm::cmaRead(pid_, addr_ + off, at, len); !st) return st;
  return static_cast<const uint8_t*>(at);
}

Status BufferRef::write(size_t off, const void* src, size_t len) const {
  count(len);
  if (ptr_) {
    copyBytes(ptr_ + off, src, len);
    return {};
  }
  return comm::cmaWrite(pid_, addr_ + off, src, len);
}

Status BufferRef::readInto(size_t off, size_t len, void* dst) const {
  count(len);
  if (ptr_) {
    copyBytes(dst, ptr_ + off, len);
    return {};
  }
  return comm::cmaRead(pid_, addr_ + off, dst, len);
}

}  // namespace ferry::coll
