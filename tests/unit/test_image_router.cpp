// Each device gets the image built for its machine when a program carries x86_64, nvptx64
// and aarch64 images.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstring>

#include "elf_fixture.h"
#include "offload/host_image.h"
#include "offload/image_router.h"

namespace ferry::offload {
namespace {

const std::set<uint16_t> kCpusOnly = {EM_X86_64};
const std::set<uint16_t> kWithGpus = {EM_X86_64, 190};

struct FakeImage {
  explicit FakeImage(uint16_t machine, __tgt_offload_entry* entries) : bytes(tinyElf(machine)) {
    image = {bytes.data(), bytes.data() + bytes.size(), entries, entries + 1};
  }
  std::vector<uint8_t> bytes;
  __tgt_device_image image;
};

TEST(ImageRouter, EachKindGetsItsSibling) {
  char name[] = "k";
  __tgt_offload_entry entries[1] = {{reinterpret_cast<void*>(1), name, 0, 0, 0}};
  FakeImage x86(EM_X86_64, entries), cuda(190, entries);
  ImageRouter router;
  EXPECT_TRUE(router.offer(&x86.image, kWithGpus));
  EXPECT_TRUE(router.offer(&cuda.image, kWithGpus));
  // libomptarget passes whichever image it registered last; the router picks per machine.
  for (const __tgt_device_image* offered : {&x86.image, &cuda.image}) {
    auto cpu = router.select(offered, EM_X86_64);
    auto gpu = router.select(offered, 190);
    ASSERT_TRUE(cpu.isOk() && gpu.isOk());
    EXPECT_EQ(*cpu, &x86.image);
    EXPECT_EQ(*gpu, &cuda.image);
  }
}

// A fat binary for the host and an aarch64 co-processor's daemon: the daemon's devices get
// the aarch64 image, the ranks' the x86_64 one; without an aarch64 device it is not taken.
TEST(ImageRouter, AnAarch64DaemonGetsTheAarch64Image) {
  char name[] = "k";
  __tgt_offload_entry entries[1] = {{reinterpret_cast<void*>(1), name, 0, 0, 0}};
  FakeImage x86(EM_X86_64, entries), arm(EM_AARCH64, entries);
  ImageRouter router;
  const std::set<uint16_t> withDaemon = {EM_X86_64, EM_AARCH64};
  EXPECT_TRUE(router.offer(&x86.image, withDaemon));
  EXPECT_TRUE(router.offer(&arm.image, withDaemon));
  for (const __tgt_device_image* offered : {&x86.image, &arm.image}) {
    auto daemon = router.select(offered, EM_AARCH64);
    auto rank = router.select(offered, EM_X86_64);
    ASSERT_TRUE(daemon.isOk() && rank.isOk());
    EXPECT_EQ(*daemon, &arm.image);
    EXPECT_EQ(*rank, &x86.image);
  }
  ImageRouter hostOnly;
  EXPECT_FALSE(hostOnly.offer(&arm.image, kCpusOnly)) << "no device of the job runs aarch64";
  EXPECT_TRUE(hostOnly.offer(&x86.image, kCpusOnly));
  auto missing = hostOnly.select(&x86.image, EM_AARCH64);
  ASSERT_FALSE(missing.isOk());
  EXPECT_NE(missing.status().message().find("aarch64-unknown-linux-gnu"), std::string::npos)
      << missing.status().message();
}

TEST(ImageRouter, CudaImagesOnlyWhenTheJobHasGpus) {
  char name[] = "k";
  __tgt_offload_entry entries[1] = {{reinterpret_cast<void*>(1), name, 0, 0, 0}};
  FakeImage x86(EM_X86_64, entries), cuda(190, entries), arm(EM_AARCH64, entries);
  ImageRouter router;
  EXPECT_FALSE(router.offer(&cuda.image, kCpusOnly)) << "left to the CUDA plugin of this process";
  EXPECT_FALSE(router.offer(&arm.image, kWithGpus));
  EXPECT_TRUE(router.offer(&x86.image, kCpusOnly));
  auto gpu = router.select(&x86.image, 190);
  ASSERT_FALSE(gpu.isOk());
  EXPECT_NE(gpu.status().message().find("nvptx64-nvidia-cuda"), std::string::npos) << gpu.status().message();
}

// A damaged x86_64 image is refused (its regions would run on the host), and the reason is
// what checkX86Image says; the integration test offload.fail.damaged_image shows the message.
TEST(ImageRouter, RefusesADamagedX86Image) {
  char name[] = "k";
  __tgt_offload_entry entries[1] = {{reinterpret_cast<void*>(1), name, 0, 0, 0}};
  FakeImage damaged(EM_X86_64, entries);
  uint64_t pastTheEnd = damaged.bytes.size() + 1;
  std::memcpy(damaged.bytes.data() + offsetof(Elf64_Ehdr, e_shoff), &pastTheEnd, sizeof pastTheEnd);
  ImageRouter router;
  EXPECT_FALSE(router.offer(&damaged.image, kCpusOnly));
  Status why = checkX86Image(&damaged.image);
  EXPECT_NE(why.message().find("truncated"), std::string::npos) << why.message();
  EXPECT_EQ(describeImage(&damaged.image), "the program's device image (1 offload entry: k)");
}

}  // namespace
}  // namespace ferry::offload
