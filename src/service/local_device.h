// A device that this rank serves. The server drives every kind through this interface; the
// CPU device (stock host plugin + Ferry-managed heap) is in cpu_device.h.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "comm/protocol.h"
#include "platform/status.h"
#include "service/image.h"

namespace ferry::service {

enum class DeviceKind : uint8_t { Cpu = 0, Gpu = 1 };
const char* deviceKindName(DeviceKind k);

class LocalDevice {
 public:
  virtual ~LocalDevice() = default;

  virtual DeviceKind kind() const = 0;
  virtual std::string description() const = 0;  // e.g. "x86_64 host plugin device 0, 1 thread"
  virtual uint64_t memoryBytes() const = 0;
  // Device memory is a range whose layout rank 0 manages: allocation needs no round trip.
  virtual bool clientManagedHeap() const = 0;
  virtual uint64_t heapBase() const = 0;
  // Device memory is ordinary memory of this process: MPI and CMA can move bytes into place.
  virtual bool hostAccessible() const = 0;

  // Runs once, before the first image load, allocation or launch. `clientRank` is the rank
  // whose program the device serves (rank 0): under unified_shared_memory its kernels
  // dereference that rank's memory.
  virtual Status init(int64_t requiresFlags, int clientRank) = 0;
  // Loads an image on the device that is `globalDevice` in the job's table; returns one table
  // address per entry (kernel handle or global address).
  virtual Result<std::vector<uint64_t>> loadImage(const ImageRecord& image, int globalDevice) = 0;
  virtual Status launch(const comm::LaunchMsg& launch) = 0;

  // Client-managed heaps: `commit` prepares [addr, addr+size), `release` gives it back.
  // Other devices: `allocate` picks the address.
  virtual Result<uint64_t> allocate(uint64_t size, int32_t kind) = 0;
  virtual Status release(uint64_t addr, uint64_t size, int32_t kind) = 0;

  virtual Status write(uint64_t dst, const void* src, uint64_t len) = 0;
  virtual Status read(void* dst, uint64_t src, uint64_t len) = 0;

  // Host memory that copies to and from this device run fastest from (pinned, for a GPU),
  // for staging buffers; nullptr where the device has none to give.
  virtual void* allocHostBuffer(uint64_t bytes) { return nullptr; }
  virtual void freeHostBuffer(void* p) {}

  // Whether [addr, addr+len) is device memory or a global of a loaded image.
  virtual bool validRange(uint64_t addr, uint64_t len) const = 0;
  // The name of a kernel this device loaded ("" if unknown), for traces and reports.
  virtual std::string kernelName(uint64_t handle) const = 0;
  // libomptarget's info flags (LIBOMPTARGET_INFO), for the stock plugin behind the device.
  virtual void setInfoFlag(uint32_t flags) = 0;
};

}  // namespace ferry::service
