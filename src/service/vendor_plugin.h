// A stock LLVM 16 plugin (the x86_64 host plugin, or the CUDA plugin), opened by absolute
// path as a private instance. A serving rank drives its local devices through it.
#pragma once

#include <cstdint>
#include <string>

#include "platform/status.h"
#include "service/omptarget_abi.h"

namespace ferry::service {

struct VendorPlugin {
  std::string path;
  void* handle = nullptr;
  int numDevices = 0;

  int32_t (*initPlugin)() = nullptr;
  int32_t (*numberOfDevices)() = nullptr;
  int64_t (*initRequires)(int64_t) = nullptr;
  int32_t (*initDevice)(int32_t) = nullptr;
  int32_t (*isValidBinary)(__tgt_device_image*) = nullptr;
  __tgt_target_table* (*loadBinary)(int32_t, __tgt_device_image*) = nullptr;
  void* (*dataAlloc)(int32_t, int64_t, void*, int32_t) = nullptr;
  int32_t (*dataDelete)(int32_t, void*, int32_t) = nullptr;
  int32_t (*dataSubmit)(int32_t, void*, void*, int64_t) = nullptr;
  int32_t (*dataRetrieve)(int32_t, void*, void*, int64_t) = nullptr;
  int32_t (*launchKernel)(int32_t, void*, void**, ptrdiff_t*, KernelArgsTy*, __tgt_async_info*) = nullptr;
  void (*setInfoFlag)(uint32_t) = nullptr;  // optional

  // Opens the plugin and counts its devices. A plugin that loads but finds no device (the
  // CUDA plugin on a machine without a GPU) is returned with numDevices == 0.
  static Result<VendorPlugin*> open(const std::string& path);
};

// Absolute paths of the stock plugins in Debian's LLVM 16.
// Where Debian's libomptarget and its stock plugins live (FERRY_LLVM_LIBDIR at build time).
std::string llvmLibDir();
std::string stockHostPluginPath();
std::string stockCudaPluginPath();

}  // namespace ferry::service
