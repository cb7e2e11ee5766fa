#include "coll/waiter.h"

#include <utility>

#include "platform/clock.h"
#include "platform/log.h"
#include "platform/parse.h"
#include "platform/process.h"

namespace ferry::coll {
namespace {
constexpr uint64_t kPeerCheckNs = 100'000'000;  // a dead peer is noticed within 0.1 s
}

Waiter::Waiter(double timeoutSeconds, uint64_t spinNs, const std::vector<pid_t>& peers, NameOf nameOf)
    : timeoutSeconds_(timeoutSeconds),
      peers_(peers),
      nameOf_(std::move(nameOf)),
      backoff_(spinNs, 0),  // every peer is inside the same call: yield, never sleep
      lastProgressNs_(nowNs()),
      nextPeerCheckNs_(lastProgressNs_ + kPeerCheckNs) {}

void Waiter::progressed() {
  backoff_.reset();
  lastProgressNs_ = nowNs();
}

Status Waiter::checkPeers(const std::function<std::string()>& what) const {
  for (size_t r = 0; r < peers_.size(); ++r) {
    if (processGone(peers_[r])) {
      return Status(Errc::Unavailable, nameOf_(static_cast<int>(r)) + ", pid " + std::to_string(peers_[r]) +
                                           ", has exited while this rank waited " + what() +
                                           "; the launcher's report says why");
    }
  }
  return {};
}

Status Waiter::idle(const std::function<std::string()>& what, const std::function<Status()>& remote) {
  backoff_.idle();
  if (!backoff_.pastSpin()) return {};  // still spinning: keep the loop short
  uint64_t now = nowNs();
  if (now < nextPeerCheckNs_) return {};
  nextPeerCheckNs_ = now + kPeerCheckNs;
  if (Status st = checkPeers(what); !st) return st;
  if (remote)
    if (Status st = remote(); !st) return st;
  // Every peer is alive. MPI lets a rank reach a collective as late as it likes (the library
  // waits for it without limit), so a late rank is not an error: it gets one warning per
  // call, which names who has not arrived, in case the program is deadlocked.
  double waited = static_cast<double>(now - lastProgressNs_) * 1e-9;
  if (waited > timeoutSeconds_ && !warned_) {
    warned_ = true;
    log::warn(log::Coll,
              "no progress for %s while waiting %s; every rank of this node is alive, so this rank keeps "
              "waiting, as MPI requires: a rank that never reaches the call means the program is deadlocked "
              "(FERRY_TIMEOUT sets when this is said)",
              parse::formatSeconds(waited).c_str(), what().c_str());
  }
  return {};
}

}  // namespace ferry::coll
