#include "comm/mailbox.h"

#include "comm/mpi_check.h"
#include "comm/protocol.h"

namespace ferry::comm {

Status Outbox::send(int peer, int tag, std::vector<uint8_t> bytes) {
  std::lock_guard lock(mutex_);
  return sendLocked(peer, tag, std::move(bytes));
}

Status Outbox::sendPair(int peerA, std::vector<uint8_t> bytesA, int peerB, std::vector<uint8_t> bytesB, int tag) {
  std::lock_guard lock(mutex_);
  if (Status st = sendLocked(peerA, tag, std::move(bytesA)); !st) return st;
  return sendLocked(peerB, tag, std::move(bytesB));
}

Status Outbox::sendLocked(int peer, int tag, std::vector<uint8_t> bytes) {
  Entry e{MPI_REQUEST_NULL, peer, std::move(bytes)};
  int rc = MPI_Isend(e.bytes.data(), static_cast<int>(e.bytes.size()), MPI_BYTE, peer, tag, comm_, &e.req);
  if (Status st = mpiStatus(rc, "MPI_Isend(control)", peer); !st) return st;
  int done = 0;
  if (Status st = mpiStatus(MPI_Test(&e.req, &done, MPI_STATUS_IGNORE), "MPI_Test(control send)", peer); !st)
    return st;
  if (!done) {
    entries_.push_back(std::move(e));
    pending_.store(entries_.size(), std::memory_order_relaxed);
  }
  return {};
}

Status Outbox::reap() {
  if (pending_.load(std::memory_order_relaxed) == 0) return {};  // the common case, lock-free
  std::lock_guard lock(mutex_);
  for (size_t i = 0; i < entries_.size();) {
    int done = 0;
    if (Status st = mpiStatus(MPI_Test(&entries_[i].req, &done, MPI_STATUS_IGNORE), "MPI_Test(control send)",
                              entries_[i].peer);
        !st)
      return st;
    if (done) {
      entries_[i] = std::move(entries_.back());
      entries_.pop_back();
    } else {
      ++i;
    }
  }
  pending_.store(entries_.size(), std::memory_order_relaxed);
  return {};
}

size_t Outbox::pending() { return pending_.load(std::memory_order_relaxed); }

Inbox::Inbox(MPI_Comm comm, int slots, size_t slotBytes, int tag)
    : comm_(comm), tag_(tag), slotBytes_(slotBytes), buffers_(slots), reqs_(slots, MPI_REQUEST_NULL) {
  for (int i = 0; i < slots; ++i) {
    buffers_[i].resize(slotBytes_);
    (void)post(i);  // a failure here resurfaces at the first poll()
  }
}

Inbox::~Inbox() { close(); }

Status Inbox::post(int slot) {
  Status st = mpiStatus(MPI_Irecv(buffers_[slot].data(), static_cast<int>(slotBytes_), MPI_BYTE, MPI_ANY_SOURCE, tag_,
                                  comm_, &reqs_[slot]),
                        "MPI_Irecv(control)");
  if (st) postOrder_.push_back(slot);
  return st;
}

Result<std::optional<Incoming>> Inbox::poll() {
  if (postOrder_.empty()) return Status(Errc::Internal, "control inbox has no posted receive");
  int slot = postOrder_.front();
  int done = 0;
  MPI_Status status;
  if (Status st = mpiStatus(MPI_Test(&reqs_[slot], &done, &status), "MPI_Test(control)"); !st) return st;
  if (!done) return std::optional<Incoming>();
  postOrder_.pop_front();
  int count = 0;
  MPI_Get_count(&status, MPI_BYTE, &count);
  return std::optional<Incoming>(Incoming{status.MPI_SOURCE, buffers_[slot].data(), static_cast<size_t>(count), slot});
}

Status Inbox::release(const Incoming& msg) { return post(msg.slot); }

void Inbox::close() {
  postOrder_.clear();
  for (auto& r : reqs_) {
    if (r == MPI_REQUEST_NULL) continue;
    MPI_Cancel(&r);
    MPI_Request_free(&r);
  }
}

}  // namespace ferry::comm
