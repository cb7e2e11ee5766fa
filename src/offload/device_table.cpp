#include "offload/device_table.h"

#include "comm/mpi_check.h"
#include "comm/protocol.h"
#include "platform/parse.h"

namespace ferry::offload {
namespace {
// Fixed forever: a peer of another protocol version must still fit its announcement in
// the same slot, or the allgather itself would fail before the version check could speak.
constexpr size_t kSlotSize = 8192;
}  // namespace

std::vector<uint8_t> DeviceTable::encodeLocal(const std::vector<DeviceEntry>& local) {
  return service::encodeAnnouncement(std::vector<service::AnnouncedDevice>(local.begin(), local.end()));
}

namespace {
// The announced part; the place (index, rank, node, host) is filled in when the table is built.
DeviceEntry entryOf(const service::AnnouncedDevice& announced) {
  DeviceEntry e;
  static_cast<service::AnnouncedDevice&>(e) = announced;
  return e;
}
}  // namespace

Result<std::vector<DeviceEntry>> DeviceTable::decodeLocal(const uint8_t* data, size_t len) {
  auto devices = service::decodeAnnouncement(data, len);
  if (!devices) return devices.takeStatus();
  std::vector<DeviceEntry> out;
  for (const auto& d : *devices) out.push_back(entryOf(d));
  return out;
}

std::vector<DeviceEntry> DeviceTable::describeLocal(const std::vector<std::unique_ptr<service::LocalDevice>>& local) {
  std::vector<DeviceEntry> out;
  for (const auto& d : service::describeDevices(local)) out.push_back(entryOf(d));
  return out;
}

void DeviceTable::appendRemote(std::vector<DeviceEntry> devices, int endpoint, const std::string& host) {
  for (auto& d : devices) {
    d.index = static_cast<int>(entries_.size());
    d.rank = endpoint;
    d.node = -1;
    d.host = host;
    entries_.push_back(std::move(d));
  }
}

Result<DeviceTable> DeviceTable::build(const comm::World& world,
                                       const std::vector<std::unique_ptr<service::LocalDevice>>& local) {
  std::vector<uint8_t> slot = comm::frameAnnouncement(encodeLocal(describeLocal(local)), kSlotSize);
  std::vector<uint8_t> all(kSlotSize * static_cast<size_t>(world.size()));
  if (Status st = comm::mpiStatus(MPI_Allgather(slot.data(), kSlotSize, MPI_BYTE, all.data(), kSlotSize, MPI_BYTE,
                                                world.comm()),
                                  "MPI_Allgather(device table)");
      !st)
    return st;

  DeviceTable table;
  for (int r = 0; r < world.size(); ++r) {
    auto payload = comm::unframeAnnouncement(all.data() + kSlotSize * r, kSlotSize, r);
    if (!payload) return payload.takeStatus();
    auto devices = decodeLocal(payload->data(), payload->size());
    if (!devices) return Status(Errc::Protocol, devices.status().message() + " from rank " + std::to_string(r));
    for (auto& d : *devices) {
      d.index = static_cast<int>(table.entries_.size());
      d.rank = r;
      d.node = world.peer(r).node;
      d.host = world.peer(r).host;
      table.entries_.push_back(std::move(d));
    }
  }
  return table;
}

DeviceTable DeviceTable::fromEntries(std::vector<DeviceEntry> entries) {
  DeviceTable t;
  t.entries_ = std::move(entries);
  return t;
}

std::string DeviceTable::header() {
  char buf[160];
  std::snprintf(buf, sizeof buf, "%-6s %-5s %-16s %-5s %-5s %-10s %s", "device", "rank", "host", "node", "kind",
                "memory", "details");
  return buf;
}

std::string DeviceTable::row(size_t i) const {
  const DeviceEntry& d = entries_[i];
  // A daemon's device (node -1) has no rank: its host column is the daemon's address.
  std::string rank = d.node < 0 ? "-" : std::to_string(d.rank), node = d.node < 0 ? "-" : std::to_string(d.node);
  std::string details = d.node < 0 ? d.description + " (daemon)" : d.description;
  char buf[400];
  std::snprintf(buf, sizeof buf, "%-6d %-5s %-16s %-5s %-5s %-10s %s", d.index, rank.c_str(), d.host.c_str(),
                node.c_str(), service::deviceKindName(d.kind), parse::formatSize(d.memoryBytes).c_str(),
                details.c_str());
  return buf;
}

void DeviceTable::print(FILE* out) const {
  std::fprintf(out, "%s\n", header().c_str());
  for (size_t i = 0; i < entries_.size(); ++i) std::fprintf(out, "%s\n", row(i).c_str());
}

}  // namespace ferry::offload
