#include "offload/device_output.h"

#include <cstdio>
#include <vector>

#include "comm/protocol.h"
#include "platform/backoff.h"
#include "platform/clock.h"
#include "platform/config.h"

namespace ferry::offload {

DeviceOutput::DeviceOutput(comm::Transport& transport)
    : transport_(transport), printed_(new std::atomic<uint64_t>[static_cast<size_t>(transport.size())]) {
  for (int r = 0; r < transport.size(); ++r) printed_[r].store(0, std::memory_order_relaxed);
}

Status DeviceOutput::receiveOne(int peer, bool& got) {
  auto arrived = transport_.take(peer, comm::kOutputTag);
  if (!arrived) return arrived.takeStatus().withContext("device output");
  if (!arrived->has_value()) return {};
  const std::vector<uint8_t>& buf = **arrived;
  auto msg = comm::decode(buf.data(), buf.size());
  if (!msg) return msg.takeStatus().withContext("device output from rank " + std::to_string(peer));
  const auto* out = std::get_if<comm::OutputMsg>(&msg->body);
  if (!out) return Status(Errc::Protocol, "rank " + std::to_string(peer) + " sent a non-output message on the output tag");
  std::fwrite(out->text, 1, out->len, stdout);
  printed_[peer].store(out->mark, std::memory_order_release);
  got = true;
  return {};
}

Status DeviceOutput::catchUp(int peer, uint64_t mark) {
  if (printed_[peer].load(std::memory_order_acquire) >= mark) return {};  // the usual case
  std::lock_guard lock(mutex_);
  // The chunks were sent before the reply, eagerly (comm::kMaxOutputChunk): they have
  // arrived or are about to. The deadline guards against a broken peer only.
  const uint64_t deadline = nowNs() + static_cast<uint64_t>(config().seconds(Knob::Timeout) * 1e9);
  Backoff backoff;
  while (printed_[peer].load(std::memory_order_relaxed) < mark) {
    bool got = false;
    if (Status st = receiveOne(peer, got); !st) return st;
    if (got) {
      backoff.reset();
      continue;
    }
    if (nowNs() > deadline)
      return Status(Errc::Timeout, "device output announced by rank " + std::to_string(peer) +
                                       " did not arrive within FERRY_TIMEOUT (" + std::to_string(mark) + " bytes expected, " +
                                       std::to_string(printed_[peer].load()) + " received)");
    backoff.idle();
  }
  return {};
}

}  // namespace ferry::offload
