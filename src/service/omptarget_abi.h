// Declarations of the libomptarget 16 plugin ABI (LLVM 16.0.6, Debian bookworm), as
// recorded in docs/llvm16-plugin-abi.md: the structs libomptarget passes to
// a plugin and the constants it uses. Layouts are pinned by static_asserts below.
#pragma once

#include <cstddef>
#include <cstdint>

extern "C" {

struct __tgt_offload_entry {
  void* addr;
  char* name;
  size_t size;
  int32_t flags;
  int32_t reserved;
};

struct __tgt_device_image {
  void* ImageStart;
  void* ImageEnd;
  __tgt_offload_entry* EntriesBegin;
  __tgt_offload_entry* EntriesEnd;
};

struct __tgt_image_info {
  const char* Arch;
};

struct __tgt_bin_desc {
  int32_t NumDeviceImages;
  __tgt_device_image* DeviceImages;
  __tgt_offload_entry* HostEntriesBegin;
  __tgt_offload_entry* HostEntriesEnd;
};

struct __tgt_target_table {
  __tgt_offload_entry* EntriesBegin;
  __tgt_offload_entry* EntriesEnd;
};

struct __tgt_async_info {
  void* Queue;
};

struct __tgt_device_info {
  void* Context;
  void* Device;
};

struct KernelArgsTy {
  uint32_t Version;
  uint32_t NumArgs;
  void** ArgBasePtrs;
  void** ArgPtrs;
  int64_t* ArgSizes;
  int64_t* ArgTypes;
  void** ArgNames;
  void** ArgMappers;
  uint64_t Tripcount;
  struct {
    uint64_t NoWait : 1;
    uint64_t Unused : 63;
  } Flags;
  uint32_t NumTeams[3];
  uint32_t ThreadLimit[3];
  uint32_t DynCGroupMem;
};

}  // extern "C"

static_assert(sizeof(__tgt_offload_entry) == 32);
static_assert(offsetof(__tgt_offload_entry, flags) == 24);
static_assert(sizeof(__tgt_device_image) == 32);
static_assert(sizeof(KernelArgsTy) == 104);
static_assert(offsetof(KernelArgsTy, NumTeams) == 72);
static_assert(offsetof(KernelArgsTy, ThreadLimit) == 84);

namespace ferry::abi {

inline constexpr int32_t kOffloadSuccess = 0;
inline constexpr int32_t kOffloadFail = ~0;

inline constexpr int32_t kEntryLink = 0x1;
inline constexpr int32_t kEntryCtor = 0x2;
inline constexpr int32_t kEntryDtor = 0x4;

enum TargetAllocKind : int32_t {
  kAllocDevice = 0,
  kAllocHost = 1,
  kAllocShared = 2,
  kAllocDefault = 3,
};

inline constexpr int64_t kReqUnifiedSharedMemory = 0x8;
inline constexpr uint16_t kElfMachineX86_64 = 62;

}  // namespace ferry::abi
