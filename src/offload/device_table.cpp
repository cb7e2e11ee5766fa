#include "offload/device_table.h"

#include "comm/mpi_check.h"
#include "comm/protocol.h"
#include "comm/wire.h"
#include "platform/parse.h"

namespace ferry::offload {
namespace {
// Fixed forever: a peer of another protocol version must still fit its announcement in
// the same slot, or the allgather itself would fail before the version check could speak.
constexpr size_t kSlotSize = 8192;
constexpr uint32_t kMaxLocalDevices = 64;
}  // namespace

std::vector<uint8_t> DeviceTable::encodeLocal(const std::vector<DeviceEntry>& local) {
  std::vector<uint8_t> out;
  comm::WireWriter w(out);
  w.put<uint32_t>(static_cast<uint32_t>(local.size()));
  for (const auto& d : local)
    w.put<int32_t>(d.localIndex)
        .put<uint8_t>(static_cast<uint8_t>(d.kind))
        .put<uint8_t>(d.clientHeap ? 1 : 0)
        .put(d.memoryBytes)
        .put(d.heapBase)
        .str(d.description);
  return out;
}

Result<std::vector<DeviceEntry>> DeviceTable::decodeLocal(const uint8_t* data, size_t len) {
  comm::WireReader r(data, len);
  uint32_t n = 0;
  if (!r.get(n) || n > kMaxLocalDevices) return Status(Errc::Protocol, "device announcement: bad device count");
  std::vector<DeviceEntry> out(n);
  for (auto& d : out) {
    uint8_t kind = 0, heap = 0;
    if (!r.get(d.localIndex) || !r.get(kind) || !r.get(heap) || !r.get(d.memoryBytes) || !r.get(d.heapBase) ||
        !r.str(d.description, 512) || kind > 1)
      return Status(Errc::Protocol, "device announcement: truncated or malformed device record");
    d.kind = static_cast<service::DeviceKind>(kind);
    d.clientHeap = heap != 0;
  }
  if (r.remaining() != 0) return Status(Errc::Protocol, "device announcement: trailing bytes");
  return out;
}

std::vector<DeviceEntry> DeviceTable::describeLocal(const std::vector<std::unique_ptr<service::LocalDevice>>& local) {
  std::vector<DeviceEntry> mine;
  for (size_t i = 0; i < local.size(); ++i) {
    DeviceEntry e;
    e.localIndex = static_cast<int>(i);
    e.kind = local[i]->kind();
    e.clientHeap = local[i]->clientManagedHeap();
    e.memoryBytes = local[i]->memoryBytes();
    e.heapBase = local[i]->heapBase();
    e.description = local[i]->description();
    mine.push_back(e);
  }
  return mine;
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
