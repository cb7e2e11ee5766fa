// Images on the wire: packing round-trips, corruption is caught by the checksum, and
// the ELF checks say what is wrong with a foreign image.
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <iterator>

#include "elf_fixture.h"
#include "service/image.h"

namespace ferry::service {
namespace {

ImageRecord sampleImage() {
  ImageRecord r;
  r.elf = tinyElf();
  r.id = imageHash(r.elf.data(), r.elf.size());
  r.entries = {{"__omp_offloading_10_2_main_l5", 0, 0}, {"counter", 4, 0, 0x7ffd12345678}, {"ctor", 0, 2}};
  return r;
}

TEST(Image, PackUnpackRoundTrip) {
  ImageRecord r = sampleImage();
  auto packed = packImage(r);
  auto back = unpackImage(r.id, packed.data(), packed.size());
  ASSERT_TRUE(back.isOk()) << back.status().message();
  EXPECT_EQ(back->elf, r.elf);
  ASSERT_EQ(back->entries.size(), 3u);
  EXPECT_EQ(back->entries[0].name, "__omp_offloading_10_2_main_l5");
  EXPECT_EQ(back->entries[1].size, 4u);
  EXPECT_EQ(back->entries[1].hostAddr, 0x7ffd12345678u);  // read under unified_shared_memory
  EXPECT_EQ(back->entries[2].flags, 2);
}

TEST(Image, CorruptBytesAreDetected) {
  ImageRecord r = sampleImage();
  auto packed = packImage(r);
  packed[packed.size() - 10] ^= 0x40;  // a bit flip inside the ELF
  auto back = unpackImage(r.id, packed.data(), packed.size());
  ASSERT_FALSE(back.isOk());
  EXPECT_NE(back.status().message().find("corrupted"), std::string::npos);
}

TEST(Image, TruncatedPayloadIsDetected) {
  ImageRecord r = sampleImage();
  auto packed = packImage(r);
  for (size_t len : {size_t{0}, size_t{3}, packed.size() / 2, packed.size() - 1}) {
    auto back = unpackImage(r.id, packed.data(), len);
    EXPECT_FALSE(back.isOk()) << len;
  }
}

// A count of entries the payload cannot hold is refused before a table is allocated for it
// (a 4-byte claim of 2^20 entries allocated and zeroed 48 MiB).
TEST(Image, EntryCountBeyondThePayloadIsRefused) {
  ImageRecord r = sampleImage();
  r.entries.assign(5, ImageEntry{});  // nameless: 24 bytes each, the least an entry takes
  auto packed = packImage(r);
  EXPECT_TRUE(unpackImage(r.id, packed.data(), packed.size()).isOk());
  for (uint32_t claim : {1000u, 1u << 20}) {
    auto forged = packed;
    std::memcpy(forged.data(), &claim, sizeof claim);
    auto back = unpackImage(r.id, forged.data(), forged.size());
    ASSERT_FALSE(back.isOk()) << claim;
    EXPECT_NE(back.status().message().find("bad entry count"), std::string::npos) << back.status().message();
  }
}

TEST(Image, ElfChecksNameTheProblem) {
  auto ok = tinyElf();
  EXPECT_TRUE(checkElf(ok.data(), ok.size()).isOk());

  auto arm = tinyElf(EM_AARCH64);
  Status st = checkElf(arm.data(), arm.size());
  EXPECT_FALSE(st.isOk());
  EXPECT_NE(st.message().find("not x86_64"), std::string::npos) << st.message();

  auto exe = tinyElf(EM_X86_64, ET_EXEC);
  EXPECT_NE(checkElf(exe.data(), exe.size()).message().find("shared object"), std::string::npos);

  std::vector<uint8_t> text = {'h', 'e', 'l', 'l', 'o'};
  EXPECT_NE(checkElf(text.data(), text.size()).message().find("too small"), std::string::npos);
  std::vector<uint8_t> notElf(128, 'x');
  EXPECT_NE(checkElf(notElf.data(), notElf.size()).message().find("not an ELF"), std::string::npos);
}

}  // namespace
}  // namespace ferry::service

// A global of known size in this test's own symbol table.
extern "C" {
__attribute__((used)) char ferry_test_sized_symbol[48];
}

namespace ferry::service {
namespace {

// What a GPU image's device-environment lookup relies on (plugin_device.cpp).
TEST(Image, SymbolSizesComeFromTheSymbolTable) {
  std::ifstream f("/proc/self/exe", std::ios::binary);
  std::vector<uint8_t> self((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  ASSERT_GT(self.size(), 1000u);
  EXPECT_EQ(elfSymbolSize(self.data(), self.size(), "ferry_test_sized_symbol"), 48u);
  EXPECT_EQ(elfSymbolSize(self.data(), self.size(), "ferry_test_sized"), 0u) << "a prefix is not a match";
  EXPECT_EQ(elfSymbolSize(self.data(), self.size(), "no_such_symbol_here"), 0u);
  EXPECT_EQ(elfSymbolSize(self.data(), 200, "ferry_test_sized_symbol"), 0u) << "truncated section table";
  std::vector<uint8_t> junk(4096, 0xab);
  EXPECT_EQ(elfSymbolSize(junk.data(), junk.size(), "ferry_test_sized_symbol"), 0u);
}

TEST(Image, HashIsStableAndNonZero) {
  auto a = tinyElf();
  EXPECT_EQ(imageHash(a.data(), a.size()), imageHash(a.data(), a.size()));
  auto b = a;
  b[100] = 1;
  EXPECT_NE(imageHash(a.data(), a.size()), imageHash(b.data(), b.size()));
  EXPECT_NE(imageHash(nullptr, 0), 0u);
}

}  // namespace
}  // namespace ferry::service
