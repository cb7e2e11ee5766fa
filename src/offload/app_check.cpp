#include "offload/app_check.h"

#include <elf.h>

#include <cstring>
#include <fstream>
#include <iterator>
#include <vector>

namespace ferry::offload {

std::string executableImportsMpiInit(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return {};
  std::vector<uint8_t> file((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (file.size() < sizeof(Elf64_Ehdr)) return {};
  Elf64_Ehdr eh;
  std::memcpy(&eh, file.data(), sizeof eh);
  if (std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != ELFCLASS64) return {};
  if (eh.e_shoff == 0 || eh.e_shentsize != sizeof(Elf64_Shdr) ||
      eh.e_shoff + static_cast<uint64_t>(eh.e_shnum) * sizeof(Elf64_Shdr) > file.size())
    return {};
  auto section = [&](size_t i) {
    Elf64_Shdr sh;
    std::memcpy(&sh, file.data() + eh.e_shoff + i * sizeof(Elf64_Shdr), sizeof sh);
    return sh;
  };
  static const char* kInits[] = {"MPI_Init", "MPI_Init_thread", "mpi_init_", "mpi_init_thread_"};
  for (size_t i = 0; i < eh.e_shnum; ++i) {
    Elf64_Shdr sym = section(i);
    if (sym.sh_type != SHT_DYNSYM || sym.sh_link >= eh.e_shnum) continue;
    Elf64_Shdr str = section(sym.sh_link);
    if (sym.sh_offset + sym.sh_size > file.size() || str.sh_offset + str.sh_size > file.size()) return {};
    for (size_t off = 0; off + sizeof(Elf64_Sym) <= sym.sh_size; off += sizeof(Elf64_Sym)) {
      Elf64_Sym s;
      std::memcpy(&s, file.data() + sym.sh_offset + off, sizeof s);
      if (s.st_shndx != SHN_UNDEF || s.st_name >= str.sh_size) continue;
      const char* name = reinterpret_cast<const char*>(file.data() + str.sh_offset + s.st_name);
      size_t maxLen = str.sh_size - s.st_name;
      for (const char* init : kInits)
        if (strnlen(name, maxLen) == std::strlen(init) && std::strcmp(name, init) == 0) return init;
    }
  }
  return {};
}

}  // namespace ferry::offload
