// Images as libomptarget passes them: OffloadBinary unwrapping and acceptance checks.
#include <gtest/gtest.h>

#include <cstring>

#include "elf_fixture.h"
#include "offload/host_image.h"

namespace ferry::offload {
namespace {

template <typename T>
void put(std::vector<uint8_t>& b, size_t at, T v) {
  std::memcpy(b.data() + at, &v, sizeof v);
}

// An OffloadBinary (LLVM 16 layout) holding `inner`.
std::vector<uint8_t> wrap(const std::vector<uint8_t>& inner) {
  std::vector<uint8_t> b(32 + 40 + inner.size(), 0);
  const uint8_t magic[4] = {0x10, 0xff, 0x10, 0xad};
  std::memcpy(b.data(), magic, 4);
  put<uint32_t>(b, 4, 1);
  put<uint64_t>(b, 8, b.size());
  put<uint64_t>(b, 16, 32);  // entry offset
  put<uint64_t>(b, 24, 40);  // entry size
  put<uint64_t>(b, 32 + 24, 72);            // image offset
  put<uint64_t>(b, 32 + 32, inner.size());  // image size
  std::memcpy(b.data() + 72, inner.data(), inner.size());
  return b;
}

__tgt_device_image imageOf(std::vector<uint8_t>& bytes, std::vector<__tgt_offload_entry>& entries) {
  return {bytes.data(), bytes.data() + bytes.size(), entries.data(), entries.data() + entries.size()};
}

TEST(HostImage, UnwrapsOffloadBinary) {
  auto elf = tinyElf();
  auto wrapped = wrap(elf);
  auto inner = innerElf(wrapped);
  ASSERT_TRUE(inner.isOk());
  EXPECT_EQ(inner->size(), elf.size());
  EXPECT_EQ(std::memcmp(inner->data(), elf.data(), elf.size()), 0);
  auto plain = innerElf(elf);
  ASSERT_TRUE(plain.isOk());
  EXPECT_EQ(plain->data(), elf.data()) << "unwrapped bytes pass through";
}

TEST(HostImage, BrokenContainerIsRejected) {
  auto wrapped = wrap(tinyElf());
  put<uint64_t>(wrapped, 32 + 32, wrapped.size());  // image runs past the container
  EXPECT_FALSE(innerElf(wrapped).isOk());
  std::vector<uint8_t> header(16, 0);
  const uint8_t magic[4] = {0x10, 0xff, 0x10, 0xad};
  std::memcpy(header.data(), magic, 4);
  EXPECT_FALSE(innerElf(header).isOk());
}

TEST(HostImage, AcceptsOnlyX86SharedObjects) {
  std::vector<__tgt_offload_entry> none;
  auto x86 = wrap(tinyElf());
  auto img = imageOf(x86, none);
  EXPECT_TRUE(isX86Image(&img));
  auto arm = wrap(tinyElf(EM_AARCH64));
  img = imageOf(arm, none);
  EXPECT_FALSE(isX86Image(&img)) << "an image for another machine goes to another plugin";
  std::vector<uint8_t> junk(100, 7);
  img = imageOf(junk, none);
  EXPECT_FALSE(isX86Image(&img));
}

TEST(HostImage, RecordCarriesEntriesAndIdentity) {
  auto bytes = wrap(tinyElf());
  char k[] = "__omp_offloading_kernel", g[] = "global_counter";
  std::vector<__tgt_offload_entry> entries = {{reinterpret_cast<void*>(1), k, 0, 0, 0},
                                              {reinterpret_cast<void*>(2), g, 8, 0, 0}};
  auto img = imageOf(bytes, entries);
  auto rec = recordFromImage(&img);
  ASSERT_TRUE(rec.isOk());
  ASSERT_EQ(rec->entries.size(), 2u);
  EXPECT_EQ(rec->entries[0].name, k);
  EXPECT_EQ(rec->entries[1].size, 8u);
  EXPECT_EQ(rec->elf.size(), tinyElf().size()) << "the record holds the inner ELF only";
  EXPECT_EQ(rec->id, service::imageHash(rec->elf.data(), rec->elf.size()));
}

}  // namespace
}  // namespace ferry::offload
