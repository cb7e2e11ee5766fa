// What a serving process tells its clients about the devices it serves: the record each
// device contributes to the job's device table (offload/device_table.h), exchanged by an
// allgather among MPI ranks and in the Welcome of a daemon's handshake (comm/protocol.h).
// Each record names the ELF machine the device runs, so that a client of a daemon on another
// architecture (an aarch64 DPU) sends it the image built for that machine.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "platform/status.h"
#include "service/image.h"
#include "service/local_device.h"

namespace ferry::service {

struct AnnouncedDevice {
  int localIndex = 0;  // its number in the serving process
  DeviceKind kind = DeviceKind::Cpu;
  bool clientHeap = false;
  uint64_t memoryBytes = 0;
  uint64_t heapBase = 0;
  uint16_t machine = 0;  // ELF e_machine of the images it runs (62 x86_64, 183 aarch64, 190 CUDA)
  std::string description;
};

inline constexpr uint32_t kMaxAnnouncedDevices = 64;

std::vector<AnnouncedDevice> describeDevices(const std::vector<std::unique_ptr<LocalDevice>>& local);
std::vector<uint8_t> encodeAnnouncement(const std::vector<AnnouncedDevice>& devices);
Result<std::vector<AnnouncedDevice>> decodeAnnouncement(const uint8_t* data, size_t len);

}  // namespace ferry::service
