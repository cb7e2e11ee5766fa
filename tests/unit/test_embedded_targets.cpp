// Reading which offload targets a program carries: OffloadBinary containers in a
// `.llvm.offloading` section, built by hand and read from programs clang-16 built.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "service/embedded_targets.h"

using ferry::service::EmbeddedTargets;
using ferry::service::loadedTargets;
using ferry::service::targetsInFile;
using ferry::service::targetsInSection;

namespace {

template <typename T>
void put(std::vector<uint8_t>& b, size_t at, T v) {
  std::memcpy(b.data() + at, &v, sizeof v);
}

// One OffloadBinary container with the strings "triple" and "arch", padded to 8 bytes.
std::vector<uint8_t> container(const std::string& triple) {
  const size_t header = 32, entry = 40, strings = header + entry, table = strings + 32;
  std::string text = std::string("triple") + '\0' + triple + '\0' + "arch" + '\0' + "sm_90" + '\0';
  std::vector<uint8_t> b((table + text.size() + 16 + 7) / 8 * 8, 0);
  const uint8_t magic[4] = {0x10, 0xff, 0x10, 0xad};
  std::memcpy(b.data(), magic, 4);
  put<uint32_t>(b, 4, 1);
  put<uint64_t>(b, 8, b.size());
  put<uint64_t>(b, 16, header);
  put<uint64_t>(b, 24, entry);
  put<uint64_t>(b, header + 8, strings);  // string entries
  put<uint64_t>(b, header + 16, 2);       // two of them
  uint64_t key = table, value = key + 7, arch = value + triple.size() + 1, archValue = arch + 5;
  put<uint64_t>(b, strings + 0, arch);  // "arch" first: the reader must look for "triple"
  put<uint64_t>(b, strings + 8, archValue);
  put<uint64_t>(b, strings + 16, key);
  put<uint64_t>(b, strings + 24, value);
  std::memcpy(b.data() + table, text.data(), text.size());
  return b;
}

std::vector<uint8_t> concat(std::initializer_list<std::vector<uint8_t>> parts) {
  std::vector<uint8_t> out;
  for (const auto& p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}

}  // namespace

TEST(EmbeddedTargets, CountsEveryContainerByTriple) {
  auto section = concat({container("x86_64-pc-linux-gnu"), container("nvptx64-nvidia-cuda"), container("x86_64-pc-linux-gnu")});
  EmbeddedTargets t = targetsInSection(section.data(), section.size());
  EXPECT_EQ(t.images, 3);
  EXPECT_EQ(t.x86, 2);
  EXPECT_EQ(t.nvptx, 1);
}

TEST(EmbeddedTargets, SkipsWhatIsNotAWholeContainer) {
  auto one = container("nvptx64-nvidia-cuda");
  std::vector<uint8_t> truncated(one.begin(), one.begin() + 40);
  EXPECT_EQ(targetsInSection(truncated.data(), truncated.size()).images, 0);
  auto lying = one;
  put<uint64_t>(lying, 8, 1 << 20);  // a size past the section's end
  EXPECT_EQ(targetsInSection(lying.data(), lying.size()).images, 0);
  std::vector<uint8_t> noise(256, 0xab);
  EXPECT_EQ(targetsInSection(noise.data(), noise.size()).images, 0);
  auto afterNoise = concat({std::vector<uint8_t>(64, 0), one});
  EXPECT_EQ(targetsInSection(afterNoise.data(), afterNoise.size()).nvptx, 1) << "found past leading padding";
}

TEST(EmbeddedTargets, ReadsTheProgramsClangBuilt) {
  EmbeddedTargets x86 = targetsInFile(FERRY_TEST_X86_PROGRAM);
  EXPECT_GE(x86.images, 1) << FERRY_TEST_X86_PROGRAM;
  EXPECT_EQ(x86.nvptx, 0);
  EXPECT_EQ(x86.x86, x86.images);
  EXPECT_EQ(targetsInFile("/nonexistent").images, 0);
  EXPECT_EQ(targetsInFile("/bin/sh").images, 0) << "an ELF file without the section";
#ifdef FERRY_TEST_GPU_PROGRAM
  EmbeddedTargets both = targetsInFile(FERRY_TEST_GPU_PROGRAM);
  EXPECT_GE(both.nvptx, 1) << FERRY_TEST_GPU_PROGRAM;
  EXPECT_GE(both.x86, 1);
#else
  GTEST_SKIP() << "no nvptx64 program to read: CMake found no CUDA ptxas";
#endif
}

TEST(EmbeddedTargets, ThisTestProgramCarriesNone) {
  // No offload images in any loaded object: discovery then keeps the GPUs (a Ferry tool).
  EmbeddedTargets t = loadedTargets();
  EXPECT_EQ(t.images, 0);
}
