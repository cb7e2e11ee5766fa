// Rank 0's side of device stdout (service/output_capture.h): every reply says how many bytes
// of output its serving rank had sent before it; before the reply is acted on, rank 0
// prints those bytes. So a region's printf appears where the region ran in program order,
// as with the stock plugin, not whenever the launcher forwards a serving rank's output.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>

#include "comm/transport.h"
#include "platform/status.h"

namespace ferry::offload {

class DeviceOutput {
 public:
  explicit DeviceOutput(comm::Transport& transport);
  // Prints what `peer` sent up to byte `mark` of its output, waiting (at most FERRY_TIMEOUT)
  // for chunks still on their way. Any thread may call it.
  Status catchUp(int peer, uint64_t mark);

 private:
  Status receiveOne(int peer, bool& got);
  comm::Transport& transport_;
  std::mutex mutex_;                             // one reader at a time keeps chunks in order
  std::unique_ptr<std::atomic<uint64_t>[]> printed_;  // per peer: bytes printed so far
};

}  // namespace ferry::offload
