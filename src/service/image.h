// A device image as a serving rank holds it: the inner ELF that clang-16 produced for the
// x86_64 offload target, plus the offload entries (kernels and declare-target globals) that
// name what the host will ask for. Rank 0 ships the bytes once per rank; every device of the
// rank then loads its own copy (its own globals).
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "platform/status.h"

namespace ferry::service {

struct ImageEntry {
  std::string name;
  uint64_t size = 0;   // 0 for kernels, the byte size for globals
  int32_t flags = 0;
  // The entry's address in the host program. Under unified_shared_memory the stock plugin
  // copies each global's host bytes (its reference pointer: where the host's variable lives)
  // into the device's copy at load, so the serving rank must read them there.
  uint64_t hostAddr = 0;
};

struct ImageRecord {
  uint64_t id = 0;
  std::vector<uint8_t> elf;
  std::vector<ImageEntry> entries;
};

// Serialisation of an image for the LoadImage transfer: entries first, then the ELF.
std::vector<uint8_t> packImage(const ImageRecord& image);
Result<ImageRecord> unpackImage(uint64_t id, const uint8_t* data, size_t len);

inline constexpr uint16_t kElfMachineAarch64 = 183;
inline constexpr uint16_t kElfMachineCuda = 190;
// The ELF machine this process's CPU devices run: the one it was built for (62 on x86_64,
// 183 on an aarch64 co-processor).
uint16_t nativeElfMachine();
// "x86_64", "aarch64", "nvptx64" or "ELF machine N": for messages.
std::string machineName(uint16_t machine);

// Checks that the bytes are a loadable shared object for `machine` (ELF64, little-endian,
// ET_DYN, that e_machine) and says what is wrong when they are not.
Status checkElf(const uint8_t* data, size_t len, uint16_t machine = 62);

// The ELF machine of an image (62 x86_64, 183 aarch64, 190 CUDA), or 0 when it is not a
// 64-bit ELF.
uint16_t elfMachine(const uint8_t* data, size_t len);

// Calls fn(name, size, defined) for each symbol of the ELF64's sections of `sectionType`
// (SHT_SYMTAB or SHT_DYNSYM) until fn returns true; false when the bytes are not a
// well-formed 64-bit ELF or fn never returned true.
bool findElfSymbol(const uint8_t* data, size_t len, uint32_t sectionType,
                   const std::function<bool(std::string_view name, uint64_t size, bool defined)>& fn);
// The bytes of the ELF64's section `name` (empty when it has none, or it lies outside them).
std::span<const uint8_t> findElfSection(const uint8_t* data, size_t len, std::string_view name);
// The size of the symbol `name` in the image's symbol table, or 0 when it has none (or the
// bytes are not a well-formed 64-bit ELF).
uint64_t elfSymbolSize(const uint8_t* data, size_t len, const char* name);

// 64-bit FNV-1a of the bytes: an image's identity across ranks.
uint64_t imageHash(const uint8_t* data, size_t len);

}  // namespace ferry::service
