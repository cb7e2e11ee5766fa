#include "coll/waiter.h"

#include <signal.h>

#include <cerrno>

#include "platform/clock.h"
#include "platform/parse.h"

namespace ferry::coll {
namespace {
constexpr uint64_t kPeerCheckNs = 100'000'000;  // a dead peer is noticed within 0.1 s
}

Waiter::Waiter(double timeoutSeconds, uint64_t spinNs, const std::vector<pid_t>& peers)
    : timeoutSeconds_(timeoutSeconds),
      peers_(peers),
      backoff_(spinNs, 0),  // every peer is inside the same call: yield, never sleep
      lastProgressNs_(nowNs()),
      nextPeerCheckNs_(lastProgressNs_ + kPeerCheckNs) {}

void Waiter::progressed() {
  backoff_.reset();
  lastProgressNs_ = nowNs();
}

Status Waiter::checkPeers(const std::function<std::string()>& what) const {
  for (size_t r = 0; r < peers_.size(); ++r) {
    if (kill(peers_[r], 0) != 0 && errno == ESRCH)
      return Status(Errc::Unavailable, "node-local rank " + std::to_string(r) + " (pid " + std::to_string(peers_[r]) +
                                           ") has exited while this rank waited " + what());
  }
  return {};
}

Status Waiter::idle(const std::function<std::string()>& what) {
  backoff_.idle();
  if (!backoff_.pastSpin()) return {};  // still spinning: keep the loop short
  uint64_t now = nowNs();
  if (now < nextPeerCheckNs_) return {};
  nextPeerCheckNs_ = now + kPeerCheckNs;
  if (Status st = checkPeers(what); !st) return st;
  double waited = static_cast<double>(now - lastProgressNs_) * 1e-9;
  if (waited > timeoutSeconds_)
    return Status(Errc::Timeout, "no progress for " + parse::formatSeconds(waited) + " while waiting " + what() +
                                     "; a rank of this communicator may be stuck outside the allreduce or "
                                     "may have left it early; raise FERRY_TIMEOUT if it is only slow");
  return {};
}

}  // namespace ferry::coll
