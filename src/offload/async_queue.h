// What rank 0 still waits for on one libomptarget __tgt_async_info: replies it expects,
// large transfers in flight, and, per device, whether the ops it sent are already known to
// be complete. Operations are sent without waiting; synchronize() waits only where the host
// needs an answer, so a small target region costs about one round trip.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "comm/protocol.h"
#include "comm/transport.h"
#include "platform/status.h"

namespace ferry::offload {

// A reply rank 0 waits for (posted before the request is sent).
struct PendingReply {
  PendingReply() = default;
  PendingReply(const PendingReply&) = delete;
  PendingReply& operator=(const PendingReply&) = delete;

  int peer = -1;
  int tag = 0;
  int device = -1;
  std::string what;                      // "data_retrieve", "synchronize after ...", for errors
  uint64_t bytes = 0;                    // data_retrieve: its size (describe() says it)
  std::unique_ptr<comm::PostedReceive> recv;  // withdrawn if the reply is abandoned
  void* copyTo = nullptr;                // inline retrieve: where the bytes go
  uint64_t copyLen = 0;
  std::unique_ptr<comm::Stream> pipe;    // large retrieve: chunks that follow the reply
  std::vector<uint64_t>* valuesOut = nullptr;
  bool replied = false;
  Status status;
  bool done() const { return replied && !pipe; }
  // `what` with the size and the device, formatted only when a wait or an error needs it:
  // every region's retrieve would otherwise format it.
  std::string describe() const;
};

// A large host-to-device transfer that rank 0 is still sending.
struct PendingSend {
  int device = -1;
  std::string what;
  std::unique_ptr<comm::Stream> pipe;
};

// Per device: has everything sent on this queue been confirmed by a reply?
//   Clean  - nothing unconfirmed;
//   Dirty  - an op with no reply was sent after the last barrier (kernel, sync);
//   Fenced - unconfirmed ops all precede a barrier, so any later reply confirms them.
enum class DeviceSync : uint8_t { Clean, Dirty, Fenced };

// A kernel launch not sent yet: it goes out with the queue's next op, or, at synchronize,
// with a reply request, so that a kernel-only region costs one message each way.
struct DeferredLaunch {
  int device = -1;
  comm::LaunchMsg msg;
};

// A copy that gets no reply of its own: data_submit to `to`, or data_exchange `from` -> `to`.
struct UnconfirmedCopy {
  const char* op = "";
  uint64_t bytes = 0;
  int from = -1, to = -1;
};

struct AsyncQueue {
  std::vector<std::unique_ptr<PendingReply>> replies;
  std::vector<std::unique_ptr<PendingSend>> sends;
  std::map<int, DeviceSync> devices;
  // Per device: the last copy sent without a reply, so that a synchronize that fails names
  // it ("synchronize after data_exchange of 4 MiB from device 0 to device 1"), not only the
  // device. Kept as numbers: formatted only for a synchronize.
  std::map<int, UnconfirmedCopy> unconfirmedCopy;
  Status error;  // first failure seen on this queue
  // Liveness of the ranks this queue waits on, by rank (kept across non-blocking queries).
  std::map<int, std::unique_ptr<comm::PeerLiveness>> watches;
  uint64_t firstQueryNs = 0;  // query_async: when polling this queue began
  std::optional<DeferredLaunch> deferred;
  // Encoded ops for one device, waiting to travel as a single message (Client::queueSend).
  int batchDevice = -1;
  std::vector<std::vector<uint8_t>> batch;
  size_t batchBytes = 0;

  bool idle() const { return replies.empty() && sends.empty() && !deferred && batch.empty(); }
  void noteNoReplyOp(int device) { devices[device] = DeviceSync::Dirty; }
  void noteNoReplyCopy(int device, UnconfirmedCopy copy) {
    noteNoReplyOp(device);
    unconfirmedCopy[device] = copy;
  }
  void noteBarrier(int device) { devices[device] = DeviceSync::Fenced; }
  // A device's ops are confirmed, or about to be by the reply to `syncWhat`.
  void noteConfirmed(int device) {
    devices[device] = DeviceSync::Clean;
    unconfirmedCopy.erase(device);
  }
  std::string syncWhat(int device) const;
};

}  // namespace ferry::offload
