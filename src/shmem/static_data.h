// The executable's writable data (.data and .bss), which the OpenSHMEM standard makes
// symmetric: a global or static variable is a valid remote address in every PE. With
// position-independent executables each PE has it at another address, so a remote address
// is the offset into the region plus that PE's base (exchanged at start-up).
#pragma once

#include <cstddef>
#include <cstdint>

namespace ferry::shmem {

struct StaticData {
  uint8_t* base = nullptr;
  size_t size = 0;
  bool contains(const void* p, size_t len = 1) const {
    auto a = reinterpret_cast<uintptr_t>(p), b = reinterpret_cast<uintptr_t>(base);
    return a >= b && a - b < size && len <= size - (a - b);
  }
};

// The main program's writable PT_LOAD segment (data, then bss), or an empty region.
StaticData findStaticData();

}  // namespace ferry::shmem
