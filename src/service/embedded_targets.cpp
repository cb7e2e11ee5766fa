#include "service/embedded_targets.h"

#include <fcntl.h>
#include <link.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <vector>

#include "service/image.h"
#include "service/offload_binary.h"

namespace ferry::service {

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
      std::span<const uint8_t> section = findElfSection(data, len, ".llvm.offloading");
      t = targetsInSection(section.data(), section.size());
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
