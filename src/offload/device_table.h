// The one device table of the job. Every rank announces its local devices; one allgather
// builds the same table everywhere. Order (documented in docs/user-guide.md): by rank, then
// by the rank's local device index (CPU devices in stock-plugin order). Rank 0's devices
// appear only with FERRY_RANK0_DEVICES=1.
#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "comm/world.h"
#include "platform/status.h"
#include "service/announcement.h"
#include "service/local_device.h"

namespace ferry::offload {

// A device of the job's table: what its server announced of it (kind, memory, heap, ELF
// machine, description, its local index), and where it sits in the job.
struct DeviceEntry : service::AnnouncedDevice {
  int index = 0;  // global device number: omp device(index)
  int rank = 0;   // the rank that serves it (a daemon's: its transport peer)
  int node = 0;   // virtual node of that rank (-1: a daemon's)
  std::string host;
};

// The ELF machine a device runs; entries made without one (tests' tables) run the machine
// of their kind on x86_64.
inline uint16_t machineOf(const DeviceEntry& e) {
  if (e.machine) return e.machine;
  return e.kind == service::DeviceKind::Gpu ? service::kElfMachineCuda : 62;
}

class DeviceTable {
 public:
  // Collective over the world: each rank contributes `local` (empty for non-serving ranks).
  static Result<DeviceTable> build(const comm::World& world,
                                   const std::vector<std::unique_ptr<service::LocalDevice>>& local);
  // For tests: a table from explicit entries.
  static DeviceTable fromEntries(std::vector<DeviceEntry> entries);
  // What a process announces of its local devices (numbered by their local index).
  static std::vector<DeviceEntry> describeLocal(const std::vector<std::unique_ptr<service::LocalDevice>>& local);
  // Appends a daemon's devices (issue 28) after those of the ranks: served by transport peer
  // `endpoint`, on `host` (the daemon's address), on no node of the job (node -1).
  void appendRemote(std::vector<DeviceEntry> devices, int endpoint, const std::string& host);

  size_t size() const { return entries_.size(); }
  const DeviceEntry& operator[](size_t i) const { return entries_[i]; }
  const std::vector<DeviceEntry>& entries() const { return entries_; }

  // One line per device: index, rank, host, node, kind, memory.
  void print(FILE* out) const;
  std::string row(size_t i) const;
  static std::string header();

  // Announcement codec (exposed for unit tests).
  static std::vector<uint8_t> encodeLocal(const std::vector<DeviceEntry>& local);
  static Result<std::vector<DeviceEntry>> decodeLocal(const uint8_t* data, size_t len);

 private:
  std::vector<DeviceEntry> entries_;
};

}  // namespace ferry::offload
