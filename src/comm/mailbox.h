// Control-message plumbing over MPI: an Outbox that keeps each sent buffer alive until
// MPI is done with it, and an Inbox of pre-posted receives for kControlTag.
#pragma once

#include <mpi.h>

#include <atomic>
#include <deque>
#include <cstdint>
#include <mutex>
#include <optional>
#include <vector>

#include "comm/protocol.h"
#include "comm/tag_pool.h"
#include "comm/transport.h"
#include "platform/status.h"

namespace ferry::comm {

class Outbox {
 public:
  explicit Outbox(MPI_Comm comm) : comm_(comm) {}
  // Starts an MPI_Isend of `bytes` to `peer`; the buffer lives until the send completes.
  Status send(int peer, int tag, std::vector<uint8_t> bytes);
  // Two sends that no other send of this outbox comes between, from any thread: every peer
  // then sees each pair at the same place relative to everything else it receives.
  Status sendPair(int peerA, std::vector<uint8_t> bytesA, int peerB, std::vector<uint8_t> bytesB, int tag);
  // Frees the buffers of completed sends. Cheap; call it from progress loops.
  Status reap();
  size_t pending();

 private:
  struct Entry {
    MPI_Request req;
    int peer;
    std::vector<uint8_t> bytes;
  };
  Status sendLocked(int peer, int tag, std::vector<uint8_t> bytes);  // mutex_ held

  MPI_Comm comm_;
  std::mutex mutex_;
  std::vector<Entry> entries_;
  std::atomic<size_t> pending_{0};  // entries_.size(), readable without the lock
};

// The receives are kept in posting order and only the oldest is tested: MPI matches
// messages to receives in posting order, so this yields messages in the order MPI matched
// them, which keeps each sender's messages in the order they were sent. (MPI_Testany
// over re-posted slots would not: it returns the lowest completed index.)
class Inbox {
 public:
  Inbox(MPI_Comm comm, int slots, size_t slotBytes, int tag);
  ~Inbox();
  // Returns one arrived message, or nothing. The message stays valid until release().
  Result<std::optional<Incoming>> poll();
  // Re-posts the receive of a consumed slot.
  Status release(const Incoming& msg);
  // Cancels the pre-posted receives (at shutdown).
  void close();

 private:
  Status post(int slot);
  MPI_Comm comm_;
  int tag_;
  size_t slotBytes_;
  std::vector<std::vector<uint8_t>> buffers_;
  std::vector<MPI_Request> reqs_;
  std::deque<int> postOrder_;  // slots with a posted receive, oldest first
};

}  // namespace ferry::comm
