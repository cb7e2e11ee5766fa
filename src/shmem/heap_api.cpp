// shmem_malloc and friends: collective, symmetric by construction (heap.h), and checked:
// PEs that ask for different sizes get NULL and an error that names them, not blocks at
// offsets that differ.
#include <algorithm>
#include <cstring>
#include <vector>

#include "comm/mpi_check.h"
#include "platform/log.h"
#include "platform/parse.h"
#include "shmem/api.h"
#include "shmem/runtime.h"
#include "shmem/target.h"

namespace ferry::shmem {
namespace {

// Collective: whether every PE passed the same (size, alignment, offset). Also the barrier
// the standard asks of every allocation call: no PE leaves before all have entered.
bool agree(Runtime& r, const char* call, uint64_t size, uint64_t alignment, uint64_t offset) {
  // One reduction finds both ends: the maximum of each value and of its complement.
  uint64_t mine[6] = {size, alignment, offset, ~size, ~alignment, ~offset}, hi[6];
  MPI_Allreduce(mine, hi, 6, MPI_UINT64_T, MPI_MAX, r.comm);
  if (hi[0] == ~hi[3] && hi[1] == ~hi[4] && hi[2] == ~hi[5]) return true;
  std::vector<uint64_t> sizes(static_cast<size_t>(r.npes));
  MPI_Allgather(&size, 1, MPI_UINT64_T, sizes.data(), 1, MPI_UINT64_T, r.comm);
  if (r.me == 0) {
    std::string list;
    for (int pe = 0; pe < r.npes && pe < 16; ++pe) list += (pe ? ", " : "") + std::to_string(sizes[pe]);
    log::error(log::Shmem, "%s is collective and must be symmetric, but the PEs asked for different sizes "
               "(bytes by PE: %s%s) or alignments; every PE must make the same allocation calls with the same "
               "arguments. The call returns NULL on every PE", call, list.c_str(), r.npes > 16 ? ", ..." : "");
  }
  return false;
}

// `zero`: shmem_calloc's zeroing, before the agreement that is the call's barrier: a PE
// that leaves first may write into the new block of one that has not zeroed it yet.
void* allocate(size_t size, size_t alignment, const char* call, bool zero = false) {
  Runtime& r = rt(call);
  shmem::quietAll();  // nothing of an earlier block may arrive in a new one
  auto offset = size ? r.heap.allocate(size, alignment) : std::nullopt;
  if (offset && zero) std::memset(r.heapBase + *offset, 0, size);
  uint64_t at = offset ? *offset : UINT64_MAX;
  if (!agree(r, call, size, alignment, at)) {
    if (offset) r.heap.release(*offset);
    return nullptr;
  }
  if (!offset) {
    if (size && r.me == 0)
      log::error(log::Shmem, "%s(%zu B): the symmetric heap is exhausted (%s of %s in use, largest free block %s); "
                 "raise SHMEM_SYMMETRIC_SIZE", call, size, parse::formatSize(r.heap.used()).c_str(),
                 parse::formatSize(r.heap.capacity()).c_str(), parse::formatSize(r.heap.largestFree()).c_str());
    return nullptr;
  }
  return r.heapBase + *offset;
}

size_t offsetOf(Runtime& r, void* p, const char* call) {
  auto* b = static_cast<uint8_t*>(p);
  if (b < r.heapBase || b >= r.heapBase + r.heapSize || r.heap.sizeOf(static_cast<size_t>(b - r.heapBase)) == 0)
    misuse(call, "pointer " + hex(reinterpret_cast<uint64_t>(p)) + " is not a block of the symmetric heap");
  return static_cast<size_t>(b - r.heapBase);
}

}  // namespace

void* malloc(size_t size, const char* call) { return allocate(size, HeapAllocator::kMinAlign, call); }

void* calloc(size_t count, size_t size) {
  size_t bytes = 0;
  if (__builtin_mul_overflow(count, size, &bytes)) bytes = SIZE_MAX;  // fails below, alike on every PE
  return allocate(bytes, HeapAllocator::kMinAlign, "shmem_calloc", true);
}

void* align(size_t alignment, size_t size) {
  if (alignment == 0 || (alignment & (alignment - 1)) != 0) {
    log::error(log::Shmem, "shmem_align: alignment %zu is not a power of two; the call returns NULL", alignment);
    size = 0;  // every PE passed it, so every PE returns NULL
    alignment = HeapAllocator::kMinAlign;
  }
  return allocate(size, alignment, "shmem_align");
}

void free(void* p) {
  const char* call = "shmem_free";
  Runtime& r = rt(call);
  if (!p) return;
  size_t off = offsetOf(r, p, call);
  barrierAll();  // no PE may still be writing into the block
  r.heap.release(off);
}

void* realloc(void* p, size_t size) {
  const char* call = "shmem_realloc";
  if (!p) return malloc(size, call);
  Runtime& r = rt(call);
  size_t off = offsetOf(r, p, call);
  if (size == 0) {
    free(p);
    return nullptr;
  }
  barrierAll();
  size_t old = r.heap.sizeOf(off);
  if (r.heap.resizeInPlace(off, size)) return agree(r, call, size, 0, off) ? p : nullptr;
  auto moved = r.heap.allocate(size);
  uint64_t at = moved ? *moved : UINT64_MAX;
  if (!agree(r, call, size, 0, at) || !moved) {
    if (moved) r.heap.release(*moved);
    return nullptr;
  }
  std::memcpy(r.heapBase + *moved, p, std::min(old, size));
  r.heap.release(off);
  return r.heapBase + *moved;
}

void* ptr(const void* dest, int pe) {
  Runtime& r = rt("shmem_ptr");
  if (pe < 0 || pe >= r.npes) return nullptr;
  if (pe == r.me && (r.data.contains(dest) || (dest >= r.heapBase && dest < r.heapBase + r.heapSize)))
    return const_cast<void*>(dest);
  auto* d = static_cast<const uint8_t*>(dest);
  if (d < r.heapBase || d >= r.heapBase + r.heapSize || !r.peerHeap[static_cast<size_t>(pe)]) return nullptr;
  return r.peerHeap[static_cast<size_t>(pe)] + (d - r.heapBase);
}

bool addrAccessible(const void* addr, int pe) {
  Runtime& r = rt("shmem_addr_accessible");
  if (pe < 0 || pe >= r.npes) return false;
  auto* a = static_cast<const uint8_t*>(addr);
  return (a >= r.heapBase && a < r.heapBase + r.heapSize) || r.data.contains(addr);
}

}  // namespace ferry::shmem
