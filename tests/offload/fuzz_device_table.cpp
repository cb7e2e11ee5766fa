// Input: one rank's slot of the device-table allgather at start-up (DeviceTable::build):
// the framed announcement (magic, protocol version, length) and, inside it, the rank's
// device records (DeviceTable::decodeLocal). Every rank of the job writes one slot, and a
// rank of another Ferry build, or a process that is no Ferry rank at all, writes what it
// likes. Each rank then prints rows of the table built from them (`ferry info`).
//
// Properties: unframing and decoding never read past the slot; what decodes encodes and
// decodes to the same devices; framing a payload and unframing it gives it back.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "comm/protocol.h"
#include "fuzz_check.h"
#include "offload/device_table.h"

namespace {
using namespace ferry;
using offload::DeviceEntry;
using offload::DeviceTable;

bool sameDevices(const std::vector<DeviceEntry>& a, const std::vector<DeviceEntry>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i].localIndex != b[i].localIndex || a[i].kind != b[i].kind || a[i].clientHeap != b[i].clientHeap ||
        a[i].memoryBytes != b[i].memoryBytes || a[i].heapBase != b[i].heapBase || a[i].description != b[i].description)
      return false;
  return true;
}

void checkRecords(const uint8_t* data, size_t size) {
  auto devices = DeviceTable::decodeLocal(data, size);
  if (!devices) {
    FUZZ_CHECK(devices.status().code() == Errc::Protocol, "a refused announcement has an odd error code");
    return;
  }
  std::vector<uint8_t> again = DeviceTable::encodeLocal(*devices);
  auto second = DeviceTable::decodeLocal(again.data(), again.size());
  FUZZ_CHECK(second.isOk() && sameDevices(*devices, *second), "device records changed on a round trip");
  DeviceTable table = DeviceTable::fromEntries(*devices);
  for (size_t i = 0; i < table.size(); ++i) (void)table.row(i);
}

void checkSlot(const uint8_t* data, size_t size) {
  auto payload = comm::unframeAnnouncement(data, size, 1);
  if (!payload) return;
  checkRecords(payload->data(), payload->size());
  std::vector<uint8_t> slot = comm::frameAnnouncement(*payload, payload->size() + 16);
  auto back = comm::unframeAnnouncement(slot.data(), slot.size(), 1);
  FUZZ_CHECK(back.isOk() && *back == *payload, "framing and unframing changed the payload");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  checkSlot(data, size);
  // The records alone as well, so that the fuzzer need not find the frame to reach them.
  checkRecords(data, size);
  return 0;
}
