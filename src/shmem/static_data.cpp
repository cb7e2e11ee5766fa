#include "shmem/static_data.h"

#include <elf.h>
#include <link.h>

#include <cstdint>

namespace ferry::shmem {
namespace {

// The first object dl_iterate_phdr reports is the main program: its largest writable
// segment, less the part that is read-only after relocation (PT_GNU_RELRO: the GOT and
// constant pointers, never a program variable). Windows over read-only pages lose RMA with
// MPICH's UCX device.
int findMain(dl_phdr_info* info, size_t, void* out) {
  auto* region = static_cast<StaticData*>(out);
  uintptr_t relroEnd = 0;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const auto& ph = info->dlpi_phdr[i];
    if (ph.p_type == PT_GNU_RELRO) relroEnd = info->dlpi_addr + ph.p_vaddr + ph.p_memsz;
    if (ph.p_type != PT_LOAD || !(ph.p_flags & PF_W) || ph.p_memsz <= region->size) continue;
    region->base = reinterpret_cast<uint8_t*>(info->dlpi_addr + ph.p_vaddr);
    region->size = ph.p_memsz;
  }
  auto begin = reinterpret_cast<uintptr_t>(region->base);
  if (relroEnd > begin && relroEnd < begin + region->size) {
    region->size -= relroEnd - begin;
    region->base = reinterpret_cast<uint8_t*>(relroEnd);
  }
  return 1;  // stop after the main program
}

}  // namespace

StaticData findStaticData() {
  StaticData region;
  dl_iterate_phdr(findMain, &region);
  return region;
}

}  // namespace ferry::shmem
