// Input: a device image in the two forms a serving rank reads. (1) The LoadImage payload
// rank 0 sends it (packImage: the entry table, then the ELF), which the server unpacks
// (service/transfers.cpp) from whatever arrived: another rank of the job, or another build.
// (2) The ELF inside, which comes from the user's program: the stock plugin loads it after
// checkElf, the CUDA path asks it for a symbol's size (plugin_device.cpp), and the same
// walkers read the sections of every loaded ELF file (embedded_targets.cpp) and the
// program the CLI is asked to run (tools/ferry/program_check.cpp).
//
// Properties: unpacking never reads past the payload, and what unpacks packs back to the
// same bytes; the ELF walkers only hand out names and sections that lie inside the bytes.
#include <elf.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string_view>
#include <vector>

#include "fuzz_check.h"
#include "service/image.h"

namespace {
using namespace ferry::service;

// The image's identity is the hash of its ELF, which is the payload's tail after its u64
// length: a sender that says the truth is found by looking for a length that fits.
void checkUnpack(const uint8_t* data, size_t size) {
  int tries = 0;
  for (size_t at = 0; at + sizeof(uint64_t) <= size && tries < 4; ++at) {
    uint64_t len = 0;
    std::memcpy(&len, data + at, sizeof len);
    if (len != size - at - sizeof len) continue;
    ++tries;
    uint64_t id = imageHash(data + at + sizeof len, len);
    auto img = unpackImage(id, data, size);
    if (!img) continue;
    FUZZ_CHECK(img->id == id && imageHash(img->elf.data(), img->elf.size()) == id, "an unpacked image lost its id");
    std::vector<uint8_t> again = packImage(*img);
    FUZZ_CHECK(again.size() == size && std::memcmp(again.data(), data, size) == 0, "pack(unpack(x)) != x");
  }
  // Any other id: the same parse up to the checksum, which must refuse.
  auto wrong = unpackImage(0, data, size);
  FUZZ_CHECK(!wrong && wrong.status().code() == ferry::Errc::Protocol, "an image with id 0 was accepted");
}

bool inside(const uint8_t* data, size_t size, const void* p, size_t len) {
  auto* b = static_cast<const uint8_t*>(p);
  return len == 0 || (b >= data && len <= size && static_cast<size_t>(b - data) <= size - len);
}

void checkElfWalkers(const uint8_t* data, size_t size) {
  (void)checkElf(data, size);
  (void)elfMachine(data, size);
  for (uint32_t type : {SHT_SYMTAB, SHT_DYNSYM}) {
    findElfSymbol(data, size, type, [&](std::string_view name, uint64_t, bool) {
      FUZZ_CHECK(inside(data, size, name.data(), name.size() + 1), "a symbol name runs outside the ELF");
      return false;
    });
  }
  for (const char* name : {".llvm.offloading", ".interp", ".dynsym"}) {
    std::span<const uint8_t> s = findElfSection(data, size, name);
    FUZZ_CHECK(inside(data, size, s.data(), s.size()), "a section lies outside the ELF");
  }
  (void)elfSymbolSize(data, size, "__omp_rtl_device_environment");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  checkUnpack(data, size);
  checkElfWalkers(data, size);
  return 0;
}
