#include "offload/host_memory.h"

#include <elf.h>
#include <link.h>

#include <algorithm>
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

// Sorted by start. The segments never overlap (read-only PT_LOADs are disjoint, and RELRO
// lies inside a writable one, which is not collected), so the one that can overlap a range
// is the last that starts before its end.
const std::vector<Segment>& segments() {
  static std::vector<Segment> all;
  static std::once_flag once;
  std::call_once(once, [] {
    dl_iterate_phdr(collect, &all);
    std::sort(all.begin(), all.end(), [](const Segment& a, const Segment& b) { return a.start < b.start; });
  });
  return all;
}

}  // namespace

const std::string* readOnlyObjectAt(uint64_t addr, uint64_t len) {
  const auto& all = segments();
  uint64_t end = addr + std::max<uint64_t>(len, 1);
  auto it = std::lower_bound(all.begin(), all.end(), end, [](const Segment& s, uint64_t e) { return s.start < e; });
  if (it == all.begin()) return nullptr;
  --it;  // the last segment that starts before `end`; earlier ones end before it starts
  return addr < it->end ? &it->object : nullptr;
}

}  // namespace ferry::offload
