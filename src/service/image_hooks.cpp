#include "service/image_hooks.h"

#include <elf.h>
#include <link.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <vector>

namespace ferry::service {
namespace {

std::atomic<int> gNumDevices{0};
std::atomic<int> gProcessDevice{-1};
thread_local int tDevice = -1;

extern "C" int ferryOmpGetNumDevices() { return gNumDevices.load(std::memory_order_relaxed); }
extern "C" int ferryOmpGetInitialDevice() { return gNumDevices.load(std::memory_order_relaxed); }
extern "C" int ferryOmpGetDeviceNum() {
  // The launching thread knows its device; threads the kernel forks fall back to the
  // process's (exact when the rank serves one device).
  return tDevice >= 0 ? tDevice : gProcessDevice.load(std::memory_order_relaxed);
}

struct Hook {
  const char* name;
  void* target;
};
const Hook kHooks[] = {{"omp_get_num_devices", reinterpret_cast<void*>(&ferryOmpGetNumDevices)},
                       {"omp_get_initial_device", reinterpret_cast<void*>(&ferryOmpGetInitialDevice)},
                       {"omp_get_device_num", reinterpret_cast<void*>(&ferryOmpGetDeviceNum)}};

void* hookFor(const char* name) {
  for (const Hook& h : kHooks)
    if (std::strcmp(name, h.name) == 0) return h.target;
  return nullptr;
}

// Writes a pointer into a relocated slot. A slot inside the RELRO range (read-only once
// relocated) is made writable for the moment; any other slot lies in a writable segment
// and is written as is (changing its page's protection would break the data beside it).
bool writeSlot(uintptr_t slot, void* value, uintptr_t relroStart, uintptr_t relroEnd) {
  bool relro = slot >= relroStart && slot < relroEnd;
  long page = sysconf(_SC_PAGESIZE);
  uintptr_t start = slot & ~static_cast<uintptr_t>(page - 1);
  if (relro && mprotect(reinterpret_cast<void*>(start), static_cast<size_t>(page), PROT_READ | PROT_WRITE) != 0)
    return false;
  std::memcpy(reinterpret_cast<void*>(slot), &value, sizeof value);
  if (relro) mprotect(reinterpret_cast<void*>(start), static_cast<size_t>(page), PROT_READ);
  return true;
}

struct Dynamic {
  uintptr_t relroStart = 0, relroEnd = 0;
  const Elf64_Sym* symtab = nullptr;
  const char* strtab = nullptr;
  const Elf64_Rela* rela[2] = {nullptr, nullptr};  // DT_RELA, DT_JMPREL
  size_t relaBytes[2] = {0, 0};
};

Dynamic readDynamic(const dl_phdr_info* info) {
  Dynamic d;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    if (info->dlpi_phdr[i].p_type == PT_GNU_RELRO) {
      d.relroStart = info->dlpi_addr + info->dlpi_phdr[i].p_vaddr;
      d.relroEnd = d.relroStart + info->dlpi_phdr[i].p_memsz;
    }
    if (info->dlpi_phdr[i].p_type != PT_DYNAMIC) continue;
    auto* dyn = reinterpret_cast<const Elf64_Dyn*>(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
    for (; dyn->d_tag != DT_NULL; ++dyn) {
      // In a loaded object these entries hold absolute addresses (ld.so relocated them).
      switch (dyn->d_tag) {
        case DT_SYMTAB: d.symtab = reinterpret_cast<const Elf64_Sym*>(dyn->d_un.d_ptr); break;
        case DT_STRTAB: d.strtab = reinterpret_cast<const char*>(dyn->d_un.d_ptr); break;
        case DT_RELA: d.rela[0] = reinterpret_cast<const Elf64_Rela*>(dyn->d_un.d_ptr); break;
        case DT_RELASZ: d.relaBytes[0] = dyn->d_un.d_val; break;
        case DT_JMPREL: d.rela[1] = reinterpret_cast<const Elf64_Rela*>(dyn->d_un.d_ptr); break;
        case DT_PLTRELSZ: d.relaBytes[1] = dyn->d_un.d_val; break;
        default: break;
      }
    }
  }
  return d;
}

// The relocations that fill a GOT or PLT slot with a function's address, by architecture (an
// aarch64 co-processor's daemon loads aarch64 images).
bool isSlotRelocation(uint32_t type) {
#if defined(__aarch64__)
  return type == R_AARCH64_JUMP_SLOT || type == R_AARCH64_GLOB_DAT;
#else
  return type == R_X86_64_JUMP_SLOT || type == R_X86_64_GLOB_DAT;
#endif
}

int patchObject(const dl_phdr_info* info) {
  Dynamic d = readDynamic(info);
  if (!d.symtab || !d.strtab) return 0;
  int patched = 0;
  for (int t = 0; t < 2; ++t) {
    if (!d.rela[t]) continue;
    for (size_t k = 0; k < d.relaBytes[t] / sizeof(Elf64_Rela); ++k) {
      const Elf64_Rela& r = d.rela[t][k];
      uint32_t type = ELF64_R_TYPE(r.r_info);
      if (!isSlotRelocation(type)) continue;
      const char* name = d.strtab + d.symtab[ELF64_R_SYM(r.r_info)].st_name;
      void* hook = hookFor(name);
      if (hook && writeSlot(info->dlpi_addr + r.r_offset, hook, d.relroStart, d.relroEnd)) ++patched;
    }
  }
  return patched;
}

bool isImagePath(const char* name) { return name && std::strstr(name, "/tmp/tmpfile_") != nullptr; }

}  // namespace

void setJobView(int numDevices) { gNumDevices.store(numDevices); }
int jobNumDevices() { return gNumDevices.load(std::memory_order_relaxed); }

void setExecutingDevice(int globalDevice) {
  tDevice = globalDevice;
  gProcessDevice.store(globalDevice, std::memory_order_relaxed);
}

std::set<std::string> loadedImagePaths() {
  std::set<std::string> out;
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* data) {
        if (isImagePath(info->dlpi_name)) static_cast<std::set<std::string>*>(data)->insert(info->dlpi_name);
        return 0;
      },
      &out);
  return out;
}

Result<int> hookNewImages(const std::set<std::string>& before) {
  struct Ctx {
    const std::set<std::string>* before;
    int patched = 0;
  } ctx{&before};
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* data) {
        auto* c = static_cast<Ctx*>(data);
        if (isImagePath(info->dlpi_name) && !c->before->count(info->dlpi_name)) c->patched += patchObject(info);
        return 0;
      },
      &ctx);
  return ctx.patched;
}

}  // namespace ferry::service
