// How this rank reaches one buffer of a node-local rank: by pointer (its own buffer, or a
// peer's buffer mapped from the shared heap) or through process_vm_readv/writev (a peer's
// buffer anywhere else). Either way it is a single copy; every byte moved is counted in
// stats(), so tests and benchmarks can prove which path ran.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>

#include "platform/copy.h"
#include "platform/status.h"

namespace ferry::coll {

class BufferRef {
 public:
  BufferRef() = default;
  static BufferRef local(uint8_t* p) { return BufferRef(p, 0, 0, false); }
  static BufferRef mapped(uint8_t* p) { return BufferRef(p, 0, 0, true); }
  static BufferRef remote(pid_t pid, uint64_t addr) { return BufferRef(nullptr, pid, addr, false); }

  // The same buffer, starting `bytes` further on.
  BufferRef advanced(size_t bytes) const;
  // In-place access, or nullptr when only process_vm_readv/writev can reach it.
  uint8_t* pointer() const { return ptr_; }
  // Whether both name the same memory (a fold must not overwrite an operand it still reads).
  bool sameAs(const BufferRef& o) const;

  // A pointer to [off, off + len): in place when possible, else copied into `scratch` (page-
  // aligned, len + kCopyPage bytes) at pageOffset(off), where the kernel copies fastest.
  Result<const uint8_t*> view(size_t off, size_t len, uint8_t* scratch) const;
  // The low 12 bits of the address of byte `off` (platform/copy.h).
  size_t pageOffset(size_t off) const {
    return static_cast<size_t>((ptr_ ? reinterpret_cast<uint64_t>(ptr_) : addr_) + off) & (kCopyPage - 1);
  }
  // Writes `len` bytes from `src` at `off`.
  Status write(size_t off, const void* src, size_t len) const;
  // Copies [off, off + len) of this buffer to `dst` (a local pointer).
  Status readInto(size_t off, size_t len, void* dst) const;

 private:
  BufferRef(uint8_t* p, pid_t pid, uint64_t addr, bool mapped) : ptr_(p), pid_(pid), addr_(addr), mapped_(mapped) {}
  void count(size_t bytes) const;

  uint8_t* ptr_ = nullptr;
  pid_t pid_ = 0;
  uint64_t addr_ = 0;
  bool mapped_ = false;
};

}  // namespace ferry::coll
