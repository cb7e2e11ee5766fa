#include "service/announcement.h"

#include "comm/wire.h"
#include "service/image.h"

namespace ferry::service {

std::vector<AnnouncedDevice> describeDevices(const std::vector<std::unique_ptr<LocalDevice>>& local) {
  std::vector<AnnouncedDevice> mine;
  for (size_t i = 0; i < local.size(); ++i) {
    AnnouncedDevice d;
    d.localIndex = static_cast<int>(i);
    d.kind = local[i]->kind();
    d.clientHeap = local[i]->clientManagedHeap();
    d.memoryBytes = local[i]->memoryBytes();
    d.heapBase = local[i]->heapBase();
    d.machine = d.kind == DeviceKind::Gpu ? kElfMachineCuda : nativeElfMachine();
    d.description = local[i]->description();
    mine.push_back(std::move(d));
  }
  return mine;
}

std::vector<uint8_t> encodeAnnouncement(const std::vector<AnnouncedDevice>& devices) {
  std::vector<uint8_t> out;
  comm::WireWriter w(out);
  w.put<uint32_t>(static_cast<uint32_t>(devices.size()));
  for (const auto& d : devices)
    w.put<int32_t>(d.localIndex)
        .put<uint8_t>(static_cast<uint8_t>(d.kind))
        .put<uint8_t>(d.clientHeap ? 1 : 0)
        .put(d.memoryBytes)
        .put(d.heapBase)
        .put(d.machine)
        .str(d.description);
  return out;
}

Result<std::vector<AnnouncedDevice>> decodeAnnouncement(const uint8_t* data, size_t len) {
  comm::WireReader r(data, len);
  uint32_t n = 0;
  if (!r.get(n) || n > kMaxAnnouncedDevices) return Status(Errc::Protocol, "device announcement: bad device count");
  std::vector<AnnouncedDevice> out(n);
  for (auto& d : out) {
    uint8_t kind = 0, heap = 0;
    if (!r.get(d.localIndex) || !r.get(kind) || !r.get(heap) || !r.get(d.memoryBytes) || !r.get(d.heapBase) ||
        !r.get(d.machine) || !r.str(d.description, 512) || kind > 1)
      return Status(Errc::Protocol, "device announcement: truncated or malformed device record");
    d.kind = static_cast<DeviceKind>(kind);
    d.clientHeap = heap != 0;
  }
  if (r.remaining() != 0) return Status(Errc::Protocol, "device announcement: trailing bytes");
  return out;
}

}  // namespace ferry::service
