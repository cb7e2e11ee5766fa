#include "shmem/target.h"

#include "platform/parse.h"

namespace ferry::shmem {
namespace {

[[noreturn]] void notSymmetric(Runtime& r, const void* addr, size_t len, const char* call) {
  auto a = reinterpret_cast<uint64_t>(addr), h = reinterpret_cast<uint64_t>(r.heapBase),
       d = reinterpret_cast<uint64_t>(r.data.base);
  misuse(call, "address " + hex(a) + " (" + std::to_string(len) + " B) is not symmetric memory: the symmetric heap is [" +
                   hex(h) + ", " + hex(h + r.heapSize) + ") (SHMEM_SYMMETRIC_SIZE=" + parse::formatSize(r.heapSize) +
                   ") and the program's static data [" + hex(d) + ", " + hex(d + r.data.size) +
                   "); allocate the buffer with shmem_malloc or make it a global or static variable");
}

bool inHeap(const Runtime& r, const void* addr, size_t len) {
  auto a = reinterpret_cast<uintptr_t>(addr), b = reinterpret_cast<uintptr_t>(r.heapBase);
  return a >= b && a - b < r.heapSize && len <= r.heapSize - (a - b);
}

}  // namespace

Target resolve(Runtime& r, const void* addr, size_t len, int pe, const char* call) {
  Target t;
  t.pe = pe;
  if (inHeap(r, addr, len)) [[likely]] {
    t.inHeap = true;
    auto off = static_cast<size_t>(static_cast<const uint8_t*>(addr) - r.heapBase);
    if (uint8_t* peer = r.peerHeap[static_cast<size_t>(pe)]) {
      t.ptr = peer + off;
      return t;
    }
    t.via = Target::Via::Window;
    t.win = r.heapWin;
    t.winBit = kHeapWin;
    t.disp = static_cast<MPI_Aint>(off);
    return t;
  }
  if (!r.data.contains(addr, len)) notSymmetric(r, addr, len, call);
  auto off = static_cast<uint64_t>(static_cast<const uint8_t*>(addr) - r.data.base);
  if (pe == r.me) {
    t.ptr = const_cast<uint8_t*>(static_cast<const uint8_t*>(addr));
  } else if (r.cma && r.sameNode[static_cast<size_t>(pe)]) {
    t.via = Target::Via::Cma;
    t.addr = r.peerDataBase[static_cast<size_t>(pe)] + off;
    t.pid = r.pid[static_cast<size_t>(pe)];
  } else {
    t.via = Target::Via::Window;
    t.win = r.dataWin;
    t.winBit = kDataWin;
    t.disp = static_cast<MPI_Aint>(off);
  }
  return t;
}

Target resolveAtomic(Runtime& r, const void* addr, size_t len, int pe, const char* call) {
  Target t = resolve(r, addr, len, pe, call);
  // A lone PE has no windows: its own memory is all there is.
  if (t.via == Target::Via::Window || (t.inHeap && r.directAmo) || r.npes == 1) return t;
  // Static data (in any PE) and, in a multi-node job, the heap of a same-node PE: MPI, the
  // one agent every other PE's atomics on that word go through too.
  t.via = Target::Via::Window;
  if (t.inHeap) {
    t.win = r.heapWin;
    t.winBit = kHeapWin;
    t.disp = static_cast<MPI_Aint>(static_cast<const uint8_t*>(addr) - r.heapBase);
  } else {
    t.win = r.dataWin;
    t.winBit = kDataWin;
    t.disp = static_cast<MPI_Aint>(static_cast<const uint8_t*>(addr) - r.data.base);
  }
  return t;
}

}  // namespace ferry::shmem
