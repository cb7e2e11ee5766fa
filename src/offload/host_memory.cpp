#include "offload/host_memory.h"

#include <elf.h>
#include <link.h>

#include <mutex>
#include <vector>

namespace ferry::offload {
namespace {

struct Segment {
  uint64_t start, end;
  std::string object;
};

int collect(dl_phdr_info* info, size_t, void* data) {
  auto& out = *static_cast<std::vector<Segment>*>(data);
  std::string name = info->dlpi_name && *info->dlpi_name ? info->dlpi_name : "the program";
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& p = info->dlpi_phdr[i];
    bool readOnly = (p.p_type == PT_LOAD && !(p.p_flags & PF_W)) || p.p_type == PT_GNU_RELRO;
    if (readOnly && p.p_memsz) out.push_back({info->dlpi_addr + p.p_vaddr, info->dlpi_addr + p.p_vaddr + p.p_memsz, name});
  }
  return 0;
}

const std::vector<Segment>& segments() {
  static std::vector<Segment> all;
  static std::once_flag once;
  std::call_once(once, [] { dl_iterate_phdr(collect, &all); });
  return all;
}

}  // namespace

std::string readOnlyObjectAt(uint64_t addr, uint64_t len) {
  for (const Segment& s : segments())
    if (addr < s.end && addr + len > s.start) return s.object;
  return "";
}

}  // namespace ferry::offload
