// Each device gets the image built for it when a program carries x86_64 and nvptx64 images.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstring>

#include "elf_fixture.h"
#include "offload/host_image.h"
#include "offload/image_router.h"

namespace ferry::offload {
namespace {

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
  EXPECT_TRUE(router.offer(&x86.image, true));
  EXPECT_TRUE(router.offer(&cuda.image, true));
  // libomptarget passes whichever image it registered last; the router picks per kind.
  for (const __tgt_device_image* offered : {&x86.image, &cuda.image}) {
    auto cpu = router.select(offered, service::DeviceKind::Cpu);
    auto gpu = router.select(offered, service::DeviceKind::Gpu);
    ASSERT_TRUE(cpu.isOk() && gpu.isOk());
    EXPECT_EQ(*cpu, &x86.image);
    EXPECT_EQ(*gpu, &cuda.image);
  }
}

TEST(ImageRouter, CudaImagesOnlyWhenTheJobHasGpus) {
  char name[] = "k";
  __tgt_offload_entry entries[1] = {{reinterpret_cast<void*>(1), name, 0, 0, 0}};
  FakeImage x86(EM_X86_64, entries), cuda(190, entries), arm(EM_AARCH64, entries);
  ImageRouter router;
  EXPECT_FALSE(router.offer(&cuda.image, false)) << "left to the CUDA plugin of this process";
  EXPECT_FALSE(router.offer(&arm.image, true));
  EXPECT_TRUE(router.offer(&x86.image, false));
  auto gpu = router.select(&x86.image, service::DeviceKind::Gpu);
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
  EXPECT_FALSE(router.offer(&damaged.image, false));
  Status why = checkX86Image(&damaged.image);
  EXPECT_NE(why.message().find("truncated"), std::string::npos) << why.message();
  EXPECT_EQ(describeImage(&damaged.image), "the program's device image (1 offload entry: k)");
}

}  // namespace
}  // namespace ferry::offload
