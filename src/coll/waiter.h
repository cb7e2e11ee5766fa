// How a pipeline waits for its node peers: it busy-polls for FERRY_SPIN_TIME (not at all
// when the node's ranks outnumber its cores), then yields but never sleeps (every peer is
// inside the same call, so a sleeping rank would only leave its core idle), and fails the
// call within 0.1 s when a peer process has exited (or another node's leader has said that it
// failed the call). A live peer may be late without limit,
// as MPI allows: after FERRY_TIMEOUT without progress the wait warns once, naming what it
// waits for, and goes on.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "platform/backoff.h"
#include "platform/status.h"

namespace ferry::coll {

class Waiter {
 public:
  // `peers`: pids of the node-local ranks, checked for liveness while waiting; the vector
  // must outlive the waiter (it belongs to the communicator's context). `nameOf` names a
  // node-local rank in errors as the user knows it (Pipeline::peerName: its rank in the
  // communicator and in MPI_COMM_WORLD).
  using NameOf = std::function<std::string(int localRank)>;
  Waiter(double timeoutSeconds, uint64_t spinNs, const std::vector<pid_t>& peers, NameOf nameOf);

  // Call after a poll found nothing to do. `what` describes the awaited event; it is only
  // called when the wait fails or warns. `remote`, if given, runs with the liveness check
  // (every 0.1 s): news from other nodes that fails the call (InterStage::peerFailed()),
  // too slow to ask for on every poll.
  Status idle(const std::function<std::string()>& what, const std::function<Status()>& remote = {});
  // Call after a poll made progress: the warning's delay counts from the last progress.
  void progressed();

 private:
  Status checkPeers(const std::function<std::string()>& what) const;

  double timeoutSeconds_;
  const std::vector<pid_t>& peers_;
  NameOf nameOf_;
  Backoff backoff_;
  uint64_t lastProgressNs_;
  uint64_t nextPeerCheckNs_;
  bool warned_ = false;
};

}  // namespace ferry::coll
