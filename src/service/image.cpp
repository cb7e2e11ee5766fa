#include "service/image.h"

#include <elf.h>

#include <cstring>

#include "comm/wire.h"
#include "platform/hash.h"
#include "platform/parse.h"
#include "service/omptarget_abi.h"

namespace ferry::service {

std::vector<uint8_t> packImage(const ImageRecord& image) {
  std::vector<uint8_t> out;
  comm::WireWriter w(out);
  w.put<uint32_t>(static_cast<uint32_t>(image.entries.size()));
  for (const auto& e : image.entries) w.str(e.name).put(e.size).put(e.flags).put(e.hostAddr);
  w.put<uint64_t>(image.elf.size()).bytes(image.elf.data(), image.elf.size());
  return out;
}

Result<ImageRecord> unpackImage(uint64_t id, const uint8_t* data, size_t len) {
  comm::WireReader r(data, len);
  ImageRecord img;
  img.id = id;
  uint32_t n = 0;
  // Each entry takes at least 24 bytes (name length, size, flags, host address): a count the
  // payload cannot hold is refused before the table is allocated.
  constexpr size_t kMinEntryBytes = sizeof(uint32_t) + 2 * sizeof(uint64_t) + sizeof(int32_t);
  if (!r.get(n) || n > 1u << 20 || n > r.remaining() / kMinEntryBytes)
    return Status(Errc::Protocol, "image " + hex(id) + ": bad entry count");
  img.entries.resize(n);
  for (auto& e : img.entries)
    if (!r.str(e.name, 4096) || !r.get(e.size) || !r.get(e.flags) || !r.get(e.hostAddr))
      return Status(Errc::Protocol, "image " + hex(id) + ": truncated entry table");
  uint64_t elfLen = 0;
  const uint8_t* p = nullptr;
  if (!r.get(elfLen) || !r.view(p, elfLen) || r.remaining() != 0)
    return Status(Errc::Protocol, "image " + hex(id) + ": truncated ELF payload");
  img.elf.assign(p, p + elfLen);
  if (imageHash(img.elf.data(), img.elf.size()) != id)
    return Status(Errc::Protocol, "image " + hex(id) + ": checksum mismatch, the bytes were corrupted");
  return img;
}

uint16_t nativeElfMachine() {
#if defined(__x86_64__)
  return abi::kElfMachineX86_64;
#elif defined(__aarch64__)
  return kElfMachineAarch64;
#else
#error "Ferry's device service runs on x86_64 and aarch64"
#endif
}

std::string machineName(uint16_t machine) {
  switch (machine) {
    case abi::kElfMachineX86_64: return "x86_64";
    case kElfMachineAarch64: return "aarch64";
    case kElfMachineCuda: return "nvptx64";
    default: return "ELF machine " + std::to_string(machine);
  }
}

Status checkElf(const uint8_t* data, size_t len, uint16_t machine) {
  if (len < sizeof(Elf64_Ehdr)) return Status(Errc::LoadFailed, "image is " + std::to_string(len) + " bytes, too small for an ELF header");
  Elf64_Ehdr h;
  std::memcpy(&h, data, sizeof h);
  if (std::memcmp(h.e_ident, ELFMAG, SELFMAG) != 0) return Status(Errc::LoadFailed, "image is not an ELF file");
  if (h.e_ident[EI_CLASS] != ELFCLASS64 || h.e_ident[EI_DATA] != ELFDATA2LSB)
    return Status(Errc::LoadFailed, "image is not a 64-bit little-endian ELF");
  if (h.e_machine != machine)
    return Status(Errc::LoadFailed, "image is for " + machineName(h.e_machine) + " (ELF machine " +
                                        std::to_string(h.e_machine) + "), not " + machineName(machine) + " (" +
                                        std::to_string(machine) + ")");
  if (h.e_type != ET_DYN) return Status(Errc::LoadFailed, "image is not a shared object (ET_DYN)");
  if (h.e_shoff > len || h.e_phoff > len) return Status(Errc::LoadFailed, "image is truncated (headers point past its end)");
  return {};
}

uint16_t elfMachine(const uint8_t* data, size_t len) {
  if (len < sizeof(Elf64_Ehdr) || std::memcmp(data, ELFMAG, SELFMAG) != 0 || data[EI_CLASS] != ELFCLASS64) return 0;
  Elf64_Ehdr h;
  std::memcpy(&h, data, sizeof h);
  return h.e_machine;
}

namespace {

// The section headers of a well-formed ELF64, each checked to lie within its bytes on use.
struct SectionTable {
  const uint8_t* data = nullptr;
  size_t len = 0;
  Elf64_Ehdr eh{};

  Elf64_Shdr at(size_t i) const {
    Elf64_Shdr sh;
    std::memcpy(&sh, data + eh.e_shoff + i * sizeof sh, sizeof sh);
    return sh;
  }
  bool inBounds(const Elf64_Shdr& sh) const { return sh.sh_offset <= len && sh.sh_size <= len - sh.sh_offset; }
};

bool sectionTable(const uint8_t* data, size_t len, SectionTable& t) {
  if (elfMachine(data, len) == 0) return false;
  t.data = data, t.len = len;
  std::memcpy(&t.eh, data, sizeof t.eh);
  return t.eh.e_shentsize == sizeof(Elf64_Shdr) && t.eh.e_shoff <= len &&
         t.eh.e_shnum <= (len - t.eh.e_shoff) / sizeof(Elf64_Shdr);
}

}  // namespace

bool findElfSymbol(const uint8_t* data, size_t len, uint32_t sectionType,
                   const std::function<bool(std::string_view name, uint64_t size, bool defined)>& fn) {
  SectionTable t;
  if (!sectionTable(data, len, t)) return false;
  for (size_t i = 0; i < t.eh.e_shnum; ++i) {
    Elf64_Shdr symtab = t.at(i);
    if (symtab.sh_type != sectionType || symtab.sh_link >= t.eh.e_shnum) continue;
    Elf64_Shdr strtab = t.at(symtab.sh_link);
    if (!t.inBounds(symtab) || !t.inBounds(strtab)) return false;
    const char* strings = reinterpret_cast<const char*>(data + strtab.sh_offset);
    for (uint64_t off = 0; off + sizeof(Elf64_Sym) <= symtab.sh_size; off += sizeof(Elf64_Sym)) {
      Elf64_Sym sym;
      std::memcpy(&sym, data + symtab.sh_offset + off, sizeof sym);
      if (sym.st_name >= strtab.sh_size) continue;
      const char* s = strings + sym.st_name;
      // Names are NUL-terminated inside the string table; one that runs off its end is not read.
      size_t n = strnlen(s, strtab.sh_size - sym.st_name);
      if (n == strtab.sh_size - sym.st_name) continue;
      if (fn(std::string_view(s, n), sym.st_size, sym.st_shndx != SHN_UNDEF)) return true;
    }
  }
  return false;
}

std::span<const uint8_t> findElfSection(const uint8_t* data, size_t len, std::string_view name) {
  SectionTable t;
  if (!sectionTable(data, len, t) || t.eh.e_shstrndx >= t.eh.e_shnum) return {};
  Elf64_Shdr names = t.at(t.eh.e_shstrndx);
  if (!t.inBounds(names)) return {};
  for (size_t i = 0; i < t.eh.e_shnum; ++i) {
    Elf64_Shdr sh = t.at(i);
    if (sh.sh_name >= names.sh_size || sh.sh_type == SHT_NOBITS) continue;
    const char* s = reinterpret_cast<const char*>(data + names.sh_offset + sh.sh_name);
    if (std::string_view(s, strnlen(s, names.sh_size - sh.sh_name)) != name) continue;
    return t.inBounds(sh) ? std::span<const uint8_t>(data + sh.sh_offset, sh.sh_size) : std::span<const uint8_t>();
  }
  return {};
}

uint64_t elfSymbolSize(const uint8_t* data, size_t len, const char* name) {
  uint64_t size = 0;
  findElfSymbol(data, len, SHT_SYMTAB, [&](std::string_view s, uint64_t bytes, bool) {
    if (s != name) return false;
    size = bytes;
    return true;
  });
  return size;
}

uint64_t imageHash(const uint8_t* data, size_t len) {
  uint64_t h = fnv1a(data, len);
  return h ? h : 1;  // 0 means "no image" on the wire
}

}  // namespace ferry::service
