// A minimal valid x86_64 ET_DYN ELF header, for tests of image checks.
#pragma once

#include <elf.h>

#include <cstring>
#include <vector>

inline std::vector<uint8_t> tinyElf(uint16_t machine = EM_X86_64, uint16_t type = ET_DYN) {
  std::vector<uint8_t> bytes(256, 0);
  Elf64_Ehdr h{};
  std::memcpy(h.e_ident, ELFMAG, SELFMAG);
  h.e_ident[EI_CLASS] = ELFCLASS64;
  h.e_ident[EI_DATA] = ELFDATA2LSB;
  h.e_ident[EI_VERSION] = EV_CURRENT;
  h.e_type = type;
  h.e_machine = machine;
  h.e_version = EV_CURRENT;
  std::memcpy(bytes.data(), &h, sizeof h);
  return bytes;
}
