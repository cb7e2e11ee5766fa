#include "comm/liveness.h"

#include <algorithm>
#include <time.h>

#include <cstring>
#include <deque>
#include <mutex>

#include "comm/mailbox.h"
#include "comm/mpi_check.h"
#include "comm/protocol.h"
#include "comm/world.h"
#include "platform/clock.h"
#include "platform/config.h"
#include "platform/log.h"
#include "platform/parse.h"
#include "platform/process.h"

namespace ferry::comm {

LivenessResponder::LivenessResponder(MPI_Comm comm) : comm_(comm), thread_([this] { loop(); }) {}

LivenessResponder::~LivenessResponder() { stop(); }

void LivenessResponder::stop() {
  if (stop_.exchange(true)) return;
  if (thread_.joinable()) thread_.join();
}

// An MPI call of the responder that fails ends it: it cannot answer probes any more, so
// its peers will take this rank for dead within FERRY_TIMEOUT and end the job. The error
// is logged here first, so that the job's end names the real cause, not only the silence.
void LivenessResponder::loop() {
  std::vector<uint8_t> buf(256);
  MPI_Request req = MPI_REQUEST_NULL;
  std::deque<std::pair<MPI_Request, std::vector<uint8_t>>> replies;  // MPI holds each buffer
  Status st = mpiStatus(
      MPI_Irecv(buf.data(), static_cast<int>(buf.size()), MPI_BYTE, MPI_ANY_SOURCE, kPingTag, comm_, &req),
      "MPI_Irecv(liveness probe)");
  while (st && !stop_.load(std::memory_order_relaxed)) {
    int done = 0;
    MPI_Status status;
    st = mpiStatus(MPI_Test(&req, &done, &status), "MPI_Test(liveness probe)");
    if (st && done) {
      st = answer(buf, status, replies);
      if (st)
        st = mpiStatus(
            MPI_Irecv(buf.data(), static_cast<int>(buf.size()), MPI_BYTE, MPI_ANY_SOURCE, kPingTag, comm_, &req),
            "MPI_Irecv(liveness probe)");
      continue;
    }
    // Reap finished replies; probes are rare, so a linear pass is fine.
    std::erase_if(replies, [&st](auto& r) {
      int sent = 0;
      if (st) st = mpiStatus(MPI_Test(&r.first, &sent, MPI_STATUS_IGNORE), "MPI_Test(liveness reply)");
      return sent != 0;
    });
    timespec ts{0, 1000000};  // 1 ms: probes come at most once per heartbeat
    nanosleep(&ts, nullptr);
  }
  if (!st)
    log::error(log::Comm, "the liveness responder of this rank stopped: %s; this rank answers no more liveness "
               "probes, so its peers will take it for dead within FERRY_TIMEOUT (%s)",
               st.message().c_str(), parse::formatSeconds(config().seconds(Knob::Timeout)).c_str());
  cancelAll(req, replies);
}

// Answers one probe on the tag it names. A malformed probe is not this rank's failure.
Status LivenessResponder::answer(const std::vector<uint8_t>& buf, const MPI_Status& status,
                                 std::deque<std::pair<MPI_Request, std::vector<uint8_t>>>& replies) {
  int count = 0;
  MPI_Get_count(&status, MPI_BYTE, &count);
  auto msg = decode(buf.data(), static_cast<size_t>(count));
  if (!msg || !std::holds_alternative<PingMsg>(msg->body)) {
    log::warn(log::Comm, "liveness: ignoring a malformed probe from rank %d", status.MPI_SOURCE);
    return {};
  }
  int tag = std::get<PingMsg>(msg->body).replyTag;
  auto& [req, bytes] = replies.emplace_back(MPI_REQUEST_NULL, encode(MsgType::Reply, kNoDevice, msg->header.seq, ReplyMsg{}));
  return mpiStatus(MPI_Isend(bytes.data(), static_cast<int>(bytes.size()), MPI_BYTE, status.MPI_SOURCE, tag, comm_, &req),
                   "MPI_Isend(liveness reply)", status.MPI_SOURCE);
}

// At the end (or after a failure): nothing stays posted. A cancel that fails leaves a
// request MPI_Finalize may report; there is nothing more this rank can do about it.
void LivenessResponder::cancelAll(MPI_Request& req, std::deque<std::pair<MPI_Request, std::vector<uint8_t>>>& replies) {
  if (req != MPI_REQUEST_NULL) {
    MPI_Cancel(&req);
    MPI_Request_free(&req);
  }
  for (auto& r : replies) {
    if (r.first == MPI_REQUEST_NULL) continue;
    MPI_Cancel(&r.first);
    MPI_Request_free(&r.first);
  }
  // MPI may still read a freed send's buffer: keep them until the process ends.
  static auto* kept = new std::deque<std::pair<MPI_Request, std::vector<uint8_t>>>();
  for (auto& r : replies) kept->push_back(std::move(r));
}

namespace {

constexpr int kPongBytes = 128;  // a Reply message, with room to spare

// A probe whose watch ended before it was answered, kept with its buffers until it is.
struct UnansweredProbe {
  int peer = -1;
  MPI_Request send = MPI_REQUEST_NULL, recv = MPI_REQUEST_NULL;
  std::vector<uint8_t> ping;
  std::unique_ptr<uint8_t[]> pong;
  bool settled() {
    for (MPI_Request* r : {&send, &recv}) {
      int done = 0;
      if (*r != MPI_REQUEST_NULL) MPI_Test(r, &done, MPI_STATUS_IGNORE);
    }
    return send == MPI_REQUEST_NULL && recv == MPI_REQUEST_NULL;
  }
};

std::mutex gUnansweredMutex;
std::vector<UnansweredProbe>& unanswered() {
  static auto* probes = new std::vector<UnansweredProbe>();  // used until MPI_Finalize
  return *probes;
}

void dropSettled() { std::erase_if(unanswered(), [](UnansweredProbe& p) { return p.settled(); }); }

// Set once MPI is about to end: watches ended later (a queue dropped after shutdown) make no
// MPI call, and leave their requests and buffers to the process's end.
bool gProbesSettled = false;

// Buffers MPI may still hold at its end: kept, never freed, so that it cannot write into
// memory given back.
void keepForever(std::vector<uint8_t> bytes, std::unique_ptr<uint8_t[]> more = nullptr) {
  static auto* kept = new std::vector<std::vector<uint8_t>>();
  kept->push_back(std::move(bytes));
  (void)more.release();
}

}  // namespace

std::vector<int> settleUnansweredProbes(double seconds) {
  std::lock_guard lock(gUnansweredMutex);
  uint64_t end = nowNs() + static_cast<uint64_t>(seconds * 1e9);
  for (dropSettled(); !unanswered().empty() && nowNs() < end; dropSettled()) {
    timespec ts{0, 1000000};
    nanosleep(&ts, nullptr);
  }
  std::vector<int> silent;
  for (auto& p : unanswered()) {
    if (std::find(silent.begin(), silent.end(), p.peer) == silent.end()) silent.push_back(p.peer);
    // Never answered: the receive is cancelled and waited for (a cancel completes locally),
    // so MPI has let go of its buffer. A probe still on its way out keeps its buffer, leaked.
    if (p.recv != MPI_REQUEST_NULL) {
      MPI_Cancel(&p.recv);
      MPI_Wait(&p.recv, MPI_STATUS_IGNORE);
    }
    if (p.send != MPI_REQUEST_NULL) {
      MPI_Request_free(&p.send);
      keepForever(std::move(p.ping));
    }
  }
  unanswered().clear();
  gProbesSettled = true;
  return silent;
}

PeerWatch::PeerWatch(MPI_Comm comm, int peer, TagPool& tags)
    : comm_(comm),
      peer_(peer),
      tags_(tags),
      lastHeardNs_(nowNs()),
      lastPollNs_(lastHeardNs_),
      pongBuf_(std::make_unique<uint8_t[]>(kPongBytes)) {}

PeerWatch::~PeerWatch() {
  if (pingSend_ == MPI_REQUEST_NULL && pongRecv_ == MPI_REQUEST_NULL) return;
  std::lock_guard lock(gUnansweredMutex);
  if (gProbesSettled) {
    keepForever(std::move(pingMsg_), std::move(pongBuf_));  // no MPI call once MPI is ending
    return;
  }
  dropSettled();  // a long job ends many watches; keep only what is still in flight
  unanswered().push_back({peer_, pingSend_, pongRecv_, std::move(pingMsg_), std::move(pongBuf_)});
}

void PeerWatch::heardFrom() { lastHeardNs_ = nowNs(); }

Status PeerWatch::poll(std::string_view what) {
  uint64_t now = nowNs();
  const double timeout = config().seconds(Knob::Timeout);
  // Probes must be able to go out and come back within the timeout, whatever
  // FERRY_HEARTBEAT says: at most a quarter of it apart.
  const double heartbeat = std::min(config().seconds(Knob::Heartbeat), timeout / 4);
  // Time this side spent not listening (a serving rank running a kernel on the thread that
  // polls) is not the peer's silence: only silence while we listened counts. That includes
  // the time before the first poll: a server busy from its start until a long kernel began
  // polled first after the kernel, and took the kernel's 4 s for rank 0's silence.
  if (static_cast<double>(now - lastPollNs_) * 1e-9 > heartbeat) lastHeardNs_ = now;
  lastPollNs_ = now;
  if (pongRecv_ != MPI_REQUEST_NULL) {
    int done = 0;
    if (Status st = mpiStatus(MPI_Test(&pongRecv_, &done, MPI_STATUS_IGNORE), "MPI_Test(liveness reply)", peer_); !st)
      return st;
    if (done) lastHeardNs_ = now;
  }
  if (pingSend_ != MPI_REQUEST_NULL) {
    int done = 0;
    if (Status st = mpiStatus(MPI_Test(&pingSend_, &done, MPI_STATUS_IGNORE), "MPI_Test(liveness probe)", peer_); !st)
      return st;
  }
  double quiet = static_cast<double>(now - lastHeardNs_) * 1e-9;
  if (quiet >= heartbeat && pongRecv_ == MPI_REQUEST_NULL && pingSend_ == MPI_REQUEST_NULL) {
    int tag = tags_.next();
    pingMsg_ = encode(MsgType::Ping, kNoDevice, 0, PingMsg{tag});
    if (Status st = mpiStatus(MPI_Irecv(pongBuf_.get(), kPongBytes, MPI_BYTE, peer_, tag, comm_, &pongRecv_),
                              "MPI_Irecv(liveness reply)", peer_);
        !st)
      return st;
    if (Status st = mpiStatus(MPI_Isend(pingMsg_.data(), static_cast<int>(pingMsg_.size()), MPI_BYTE, peer_, kPingTag,
                                        comm_, &pingSend_),
                              "MPI_Isend(liveness probe)", peer_);
        !st)
      return st;
  }
  // A peer on this machine is looked at far more often than it is probed: a look is two
  // system calls, and a launcher that ends the whole job when one rank dies (srun with PMIx)
  // leaves rank 0 well under a heartbeat to say which rank it lost.
  const double exitCheck = std::min(heartbeat, kExitCheckSeconds);
  if (quiet >= exitCheck)
    if (Status st = checkExited(now, exitCheck, what); !st) return st;
  if (quiet >= timeout) return silence(quiet, timeout, what);
  return {};
}

// A peer on this machine whose process has ended is gone now, not after the timeout: its
// launcher may let the others run on (MPICH's Hydra with -disable-auto-cleanup, srun with
// pmi2), or be slow to notice. Looked at once per `interval` of silence.
Status PeerWatch::checkExited(uint64_t now, double interval, std::string_view what) {
  if (static_cast<double>(now - lastExitCheckNs_) * 1e-9 < interval) return {};
  lastExitCheckNs_ = now;
  const World* w = World::instance();
  if (!w || w->peer(peer_).physNode != w->self().physNode || !processGone(w->peer(peer_).pid)) return {};
  return Status(Errc::Unavailable, "rank " + std::to_string(peer_) + " (pid " + std::to_string(w->peer(peer_).pid) +
                                       ") on host " + w->peer(peer_).host + " has exited while rank " +
                                       std::to_string(w->rank()) + " waited for " + std::string(what) +
                                       "; the launcher's report may say how it ended");
}

Status PeerWatch::silence(double quiet, double timeout, std::string_view what) const {
  const World* w = World::instance();
  std::string host = w ? w->peer(peer_).host : std::string("?");
  return Status(Errc::Timeout,
                "rank " + std::to_string(peer_) + " on host " + host + " has not answered for " +
                    parse::formatSeconds(quiet) + " while rank " + std::to_string(w ? w->rank() : 0) + " waited for " +
                    std::string(what) + "; it has died or cannot be reached (raise FERRY_TIMEOUT, now " +
                    parse::formatSeconds(timeout) + ", if the network is merely slow)");
}

}  // namespace ferry::comm
