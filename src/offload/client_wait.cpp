// How rank 0 waits: progress every reply and transfer of a queue, request a Sync from each
// device whose ops are not yet confirmed, and watch the liveness of the peers it waits on.
#include <signal.h>

#include <cstdlib>
#include <cstring>

#include "comm/mpi_check.h"
#include "comm/page_link.h"
#include "offload/client.h"
#include "offload/wait_report.h"
#include "platform/backoff.h"
#include "platform/clock.h"
#include "platform/trace.h"
#include "platform/log.h"
#include "platform/parse.h"

namespace ferry::offload {

using comm::MsgType;

std::string AsyncQueue::syncWhat(int device) const {
  auto it = unconfirmedCopy.find(device);
  if (it == unconfirmedCopy.end()) return "synchronize";
  const UnconfirmedCopy& c = it->second;
  std::string what = "synchronize after " + std::string(c.op) + " of " + parse::formatSize(c.bytes);
  if (c.from >= 0) what += " from device " + std::to_string(c.from);
  return what + " to device " + std::to_string(c.to);
}

std::string PendingReply::describe() const {
  if (!bytes) return what;
  return what + " of " + parse::formatSize(bytes) + " from device " + std::to_string(device);
}

namespace {

void record(AsyncQueue& q, Status st) {
  if (!st.isOk() && q.error.isOk()) q.error = std::move(st);
}

// Applies an arrived reply; returns its status. Device output the serving rank sent before
// the reply is printed first, in the order the program produced it.
Status applyReply(PendingReply& r, size_t count, DeviceOutput& output) {
  auto msg = comm::decode(r.recv->data(), count);
  if (!msg) return msg.takeStatus();
  auto* reply = std::get_if<comm::ReplyMsg>(&msg->body);
  if (!reply) return Status(Errc::Protocol, "expected a reply, got " + std::string(comm::msgTypeName(msg->header.type)));
  if (Status st = output.catchUp(r.peer, reply->outputMark); !st) return st;
  if (reply->code != Errc::Ok) return Status(reply->code, reply->message);
  if (r.copyTo) {
    if (reply->inlineSize != r.copyLen)
      return Status(Errc::Protocol, "reply carries " + std::to_string(reply->inlineSize) + " bytes, expected " +
                                        std::to_string(r.copyLen));
    std::memcpy(r.copyTo, reply->inlineBytes, r.copyLen);
  }
  if (r.valuesOut) *r.valuesOut = reply->values;
  return {};
}

}  // namespace

// A transport failure while `device`'s answer was awaited (its peer's connection or MPI gave
// up), said as the liveness watch says it: which device, and what this rank waited for.
// Which of them notices a daemon's closed connection first (a reply's receive, the reap of
// sends, the watch) is a race; the user gets the same message whichever does.
Status Client::lostPeer(int device, const std::string& awaited, Status st) const {
  Status lost(st.code(), st.message() + " while rank " + std::to_string(world_.rank()) + " on host " +
                             world_.self().host + " waited for " + awaited);
  return std::move(lost.withContext(where(device)));
}

// Advances everything in flight on the queue. Returns whether anything completed.
Status Client::progress(AsyncQueue& q) {
  for (auto& r : q.replies) {
    if (!r->replied) {
      auto arrived = r->recv->test();
      if (!arrived || arrived->has_value()) {
        r->replied = true;
        Status st = arrived ? applyReply(*r, **arrived, output_) : lostPeer(r->device, r->describe(), arrived.takeStatus());
        r->status = st;
        if (!st) r->pipe.reset();  // the data will not come
      }
    }
    if (r->replied && r->pipe) {
      auto done = r->pipe->progress();
      if (!done) r->status = done.takeStatus();
      if (!done || *done) r->pipe.reset();
    }
  }
  for (auto& s : q.sends) {
    auto done = s->pipe->progress();
    if (!done) {
      record(q, done.takeStatus().withContext(s->what));
      s.reset();
    } else if (*done) {
      s.reset();
    }
  }
  std::erase(q.sends, nullptr);
  // A serving rank's error text already says which op failed where; it is passed on as is.
  std::erase_if(q.replies, [&](const std::unique_ptr<PendingReply>& r) {
    if (!r->done()) return false;
    if (!r->status.isOk()) record(q, r->status);
    return true;
  });
  // The control messages this rank sent stay in the outbox until MPI is done with them;
  // unreaped, every one whose send was not complete at once stayed until the job's end
  // (the soak test measured rank 0 growing by about 2 KiB per copy). Cheap when none is.
  Status reaped = transport_->reap();
  if (reaped || q.idle() || q.replies.empty()) return reaped;
  return lostPeer(q.replies.front()->device, q.replies.front()->describe(), std::move(reaped));
}

comm::SyncMsg Client::syncRequest(AsyncQueue& q, int id) {
  int tag = tags_.next();
  expectReply(q, id, tag, 0, 0, q.syncWhat(id));
  return comm::SyncMsg{tag};
}

Status Client::requestSyncs(AsyncQueue& q) {
  for (auto& [id, state] : q.devices) {
    if (state == DeviceSync::Clean) continue;
    if (Status st = send(id, MsgType::Sync, syncRequest(q, id)); !st) return st;
    q.noteConfirmed(id);
  }
  return {};
}

// One step of waiting: progress, and when nothing is in flight, confirm unconfirmed devices.
// Returns true when the queue is complete.
static bool queueComplete(const AsyncQueue& q) {
  if (!q.idle()) return false;
  for (const auto& [id, state] : q.devices)
    if (state != DeviceSync::Clean) return false;
  return true;
}

// Whether bytes of rank 0's own are on an MPI pipeline: its next chunks go out (or are
// received) only while rank 0 polls, so the wait must not sleep (docs/performance.md,
// map bandwidth: sleeping cost up to half of it).
static bool ownTransferInFlight(const AsyncQueue& q) {
  if (!q.sends.empty()) return true;
  for (const auto& r : q.replies)
    if (r->pipe) return true;
  return false;
}

int Client::frontDevice(const AsyncQueue& q) const {
  return !q.replies.empty() ? q.replies.front()->device : q.sends.front()->device;
}

// A rank that stopped answering cannot finish its part of anything: operations queued
// behind its transfers on other ranks' devices would wait for ever, and so would
// MPI_Finalize. Rank 0 says which rank it is and ends the job, as MPI ends one whose rank
// died; libomptarget could not pass the error on from every call anyway (a copy's
// completion is checked where its result is dropped).
[[noreturn]] void Client::endJobForLostPeer(int rank, const Status& st) {
  log::error(log::Offload, "%s; ending the job (MPI_Abort): the others cannot finish without that rank",
             st.message().c_str());
  world_.abortForLostRank(rank);
}

// Liveness of the ranks a queue waits on: the front device's, and every rank a reply is due
// from. After a device-to-device copy the other device's rank may be the one that stopped
// answering, while the front device's rank, which waits for it, answers fine. Called only
// once a wait has outlasted its spin phase: most waits end in microseconds and must not pay
// for it. A rank that does not answer ends the job (endJobForLostPeer).
// Each is named by what is awaited from it ("synchronize after data_exchange of 4 MiB from
// device 0 to device 1"), which says more than the wait's own name.
void Client::watchPeers(AsyncQueue& q, const char* what) {
  auto watch = [&](int device, const std::string& awaited) {
    int rank = devices_[device]->entry.rank;
    auto& w = q.watches[rank];
    if (!w) w = transport_->watch(rank, tags_);
    Status st = w->poll(awaited);
    if (st) return;
    st.withContext(where(device));
    if (isDaemon(rank)) return failDaemonWaits(q, rank, st);
    endJobForLostPeer(rank, st);
  };
  if (q.replies.empty()) watch(frontDevice(q), q.sends.empty() ? what : q.sends.front()->what);
  for (const auto& r : q.replies) watch(r->device, r->describe());
}

void Client::failDaemonWaits(AsyncQueue& q, int rank, const Status& st) {
  log::error(log::Offload, "%s", st.message().c_str());
  for (auto& r : q.replies) {
    if (r->peer != rank || r->done()) continue;
    r->replied = true;
    r->status = st;
    r->pipe.reset();
    r->recv.reset();
  }
  for (auto& s : q.sends)
    if (devices_[s->device]->entry.rank == rank) {
      record(q, st);
      s.reset();
    }
  std::erase(q.sends, nullptr);
  q.watches.erase(rank);
}

Status Client::wait(AsyncQueue& q, const char* what) {
  if (shutDown_) {
    q = AsyncQueue();
    return Status(Errc::Unavailable, std::string(what) + " after Ferry shut down at exit was skipped (MPI has ended)");
  }
  if (Status st = flushQueue(q, true); !st) record(q, st);
  uint64_t traceStart = trace::enabled() ? nowNs() : 0;
  int traceDevice = q.idle() ? -1 : frontDevice(q);
  Backoff backoff = Backoff::afterSpinTime(waitsRest_);
  bool pages = servesPages();
  while (true) {
    size_t before = q.replies.size() + q.sends.size();
    if (pages)
      if (Status st = servePages(); !st) record(q, st);
    if (Status st = progress(q); !st) record(q, st);
    if (!q.error.isOk()) break;
    if (q.idle()) {
      if (queueComplete(q)) break;
      if (Status st = requestSyncs(q); !st) {
        record(q, st);
        break;
      }
      continue;
    }
    noteWait(what, frontDevice(q));
    if (q.replies.size() + q.sends.size() < before) {
      // An answer came: the front device's rank, which it most likely came from, is alive.
      auto it = q.watches.find(devices_[frontDevice(q)]->entry.rank);
      if (it != q.watches.end()) it->second->heardFrom();
      backoff.reset();
      continue;
    }
    // A device paging this rank's memory waits for each answer: never sleep then either.
    if (pages || ownTransferInFlight(q)) backoff.idleWithoutSleep();
    else backoff.idle();
    if (!backoff.pastSpin()) continue;
    watchPeers(q, what);
  }
  clearWait();
  if (traceStart) trace::record("wait", std::string("wait: ") + what, traceStart, nowNs(), {{"device", traceDevice}});
  Status st = std::move(q.error);
  q = AsyncQueue();  // cancels whatever an error left in flight
  return st;
}

Status Client::synchronize(AsyncQueue& q) { return wait(q, "synchronize"); }

Result<bool> Client::query(AsyncQueue& q) {
  if (shutDown_) {
    q = AsyncQueue();
    return Status(Errc::Unavailable, "a nowait region after Ferry shut down at exit was skipped (MPI has ended)");
  }
  if (Status st = flushQueue(q, true); !st) record(q, st);
  if (servesPages())
    if (Status st = servePages(); !st) record(q, st);
  if (Status st = progress(q); !st) record(q, st);
  if (!q.error.isOk()) {
    Status st = std::move(q.error);
    q = AsyncQueue();
    return st;
  }
  if (queueComplete(q)) {
    q = AsyncQueue();
    return true;
  }
  if (q.idle()) {
    if (Status st = requestSyncs(q); !st) return st;
    return false;
  }
  // Non-blocking queries come back again and again; the watch starts after a millisecond.
  uint64_t now = nowNs();
  if (q.firstQueryNs == 0) q.firstQueryNs = now;
  if (now - q.firstQueryNs > 1000000) watchPeers(q, "a nowait target region");
  return false;
}

Status Client::servePages() {
  auto served = comm::servePageRequests(world_.comm());
  if (!served) return served.takeStatus().withContext("answering a device's page request (unified shared memory)");
  return {};
}

Status Client::syncDevice(int id) {
  AsyncQueue q;
  q.noteNoReplyOp(id);
  return wait(q, "synchronize");
}

}  // namespace ferry::offload
