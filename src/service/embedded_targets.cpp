#include "service/embedded_targets.h"

#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <vector>

#include "service/offload_binary.h"

namespace ferry::service {
namespace {

template <typename T>
T load(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

// The file's section named `name`, as an offset and size into `data`; size 0 if none.
std::pair<size_t, size_t> findSection(const uint8_t* data, size_t len, const char* name) {
  if (len < sizeof(Elf64_Ehdr) || std::memcmp(data, ELFMAG, SELFMAG) != 0 || data[EI_CLASS] != ELFCLASS64) return {};
  auto eh = load<Elf64_Ehdr>(data);
  if (eh.e_shentsize != sizeof(Elf64_Shdr) || eh.e_shoff > len ||
      (len - eh.e_shoff) / sizeof(Elf64_Shdr) < eh.e_shnum || eh.e_shstrndx >= eh.e_shnum)
    return {};
  auto section = [&](size_t i) { return load<Elf64_Shdr>(data + eh.e_shoff + i * sizeof(Elf64_Shdr)); };
  Elf64_Shdr names = section(eh.e_shstrndx);
  if (names.sh_offset > len || names.sh_size > len - names.sh_offset) return {};
  for (size_t i = 0; i < eh.e_shnum; ++i) {
    Elf64_Shdr s = section(i);
    if (s.sh_name >= names.sh_size || s.sh_type == SHT_NOBITS) continue;
    auto* n = reinterpret_cast<const char*>(data + names.sh_offset + s.sh_name);
    if (strncmp(n, name, names.sh_size - s.sh_name) != 0) continue;
    if (s.sh_offset > len || s.sh_size > len - s.sh_offset) return {};
    return {static_cast<size_t>(s.sh_offset), static_cast<size_t>(s.sh_size)};
  }
  return {};
}

}  // namespace

EmbeddedTargets targetsInSection(const uint8_t* data, size_t len) {
  EmbeddedTargets t;
  // Containers follow one another, each 8-byte aligned.
  for (size_t off = 0; off < len;) {
    auto bin = parseOffloadBinary({data + off, len - off});
    if (!bin) {
      off += 8;  // not a container here: look further
      continue;
    }
    ++t.images;
    if (bin->triple.starts_with("nvptx64")) ++t.nvptx;
    if (bin->triple.starts_with("x86_64")) ++t.x86;
    off += (bin->size + 7) / 8 * 8;
  }
  return t;
}

EmbeddedTargets targetsInFile(const std::string& path) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return {};
  struct stat st {};
  EmbeddedTargets t;
  if (fstat(fd, &st) == 0 && st.st_size > 0) {
    size_t len = static_cast<size_t>(st.st_size);
    void* map = mmap(nullptr, len, PROT_READ, MAP_PRIVATE, fd, 0);
    if (map != MAP_FAILED) {
      auto* data = static_cast<const uint8_t*>(map);
      auto [off, size] = findSection(data, len, ".llvm.offloading");
      if (size) t = targetsInSection(data + off, size);
      munmap(map, len);
    }
  }
  close(fd);
  return t;
}

EmbeddedTargets loadedTargets() {
  std::vector<std::string> files;
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* out) {
        auto& list = *static_cast<std::vector<std::string>*>(out);
        const char* name = info->dlpi_name;
        if (!name || !*name) list.emplace_back(list.empty() ? "/proc/self/exe" : "");  // the executable
        else if (name[0] == '/') list.emplace_back(name);                                 // not the vDSO
        return 0;
      },
      &files);
  EmbeddedTargets all;
  for (const auto& f : files)
    if (!f.empty()) all.add(targetsInFile(f));
  return all;
}

}  // namespace ferry::service
