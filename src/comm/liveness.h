// Fault detection. Every rank runs a small responder thread that answers liveness probes on
// its own tag, independently of what the rank's main loop is doing (a kernel can run for
// hours). A waiting rank probes its peer every FERRY_HEARTBEAT; a peer that answers no probe
// for FERRY_TIMEOUT is declared dead or unreachable, and the wait fails with that error.
#pragma once

#include <mpi.h>

#include <atomic>
#include <deque>
#include <memory>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "comm/transport.h"
#include "platform/status.h"

namespace ferry::comm {

inline constexpr int kPingTag = 2;

class LivenessResponder {
 public:
  explicit LivenessResponder(MPI_Comm comm);
  ~LivenessResponder();
  void stop();

 private:
  void loop();
  Status answer(const std::vector<uint8_t>& buf, const MPI_Status& status,
                std::deque<std::pair<MPI_Request, std::vector<uint8_t>>>& replies);
  static void cancelAll(MPI_Request& req, std::deque<std::pair<MPI_Request, std::vector<uint8_t>>>& replies);
  MPI_Comm comm_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

class TagPool;

// The waiting side: call poll() from a wait loop. It sends a probe when the peer has been
// quiet for a heartbeat, and fails once the peer has been silent for the timeout.
class PeerWatch final : public PeerLiveness {
 public:
  PeerWatch(MPI_Comm comm, int peer, TagPool& tags);
  ~PeerWatch() override;
  // `what` describes the wait, for the error message.
  Status poll(std::string_view what) override;
  // Anything heard from the peer counts as a sign of life.
  void heardFrom() override;

 private:
  // How often a silent peer on this machine is checked for having exited (at most).
  static constexpr double kExitCheckSeconds = 0.1;
  Status checkExited(uint64_t now, double interval, std::string_view what);
  Status silence(double quiet, double timeout, std::string_view what) const;
  MPI_Comm comm_;
  int peer_;
  TagPool& tags_;
  uint64_t lastHeardNs_;
  uint64_t lastPollNs_;
  uint64_t lastExitCheckNs_ = 0;
  MPI_Request pingSend_ = MPI_REQUEST_NULL, pongRecv_ = MPI_REQUEST_NULL;
  std::unique_ptr<uint8_t[]> pongBuf_;  // on the heap: an unanswered probe outlives the watch
  std::vector<uint8_t> pingMsg_;
};

// Before MPI_Finalize: waits up to `seconds` for the answers to probes whose watch ended
// first, then cancels what is left. Cancelled instead, an answer already on its way found
// no receive and MPI_Finalize warned about it (UCX: "unexpected tag-receive descriptor").
// Returns the ranks whose probes were still unanswered.
std::vector<int> settleUnansweredProbes(double seconds);

}  // namespace ferry::comm
