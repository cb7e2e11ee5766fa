// How the leaders of a failed call tell each other, whatever the inter-node backend: a
// leader that fails a call may leave the others waiting for its messages (p2p) or for its
// part of an MPI_Iallreduce (mpi), which never come. It sends every other leader an 8-byte
// notice with the call's number; a waiting leader looks for notices (check()) and fails the
// call too, so no rank is left waiting.
//
// The notices go point to point on the leaders' communicator under their own tag: it is
// Ferry's own, and its collectives (MPI_Iallreduce) match apart from point-to-point messages.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "platform/status.h"

namespace ferry::coll {

class FailureNotices {
 public:
  explicit FailureNotices(MPI_Comm leaders);
  ~FailureNotices();
  FailureNotices(const FailureNotices&) = delete;
  FailureNotices& operator=(const FailureNotices&) = delete;

  // "This leader failed call `call`", to every other leader. Not waited for: 8 bytes go
  // eagerly.
  void send(uint64_t call);
  // Fails if another leader has said that it failed call `call`. Notices of later calls are
  // kept for then; those of earlier ones are dropped (this leader failed them too, or
  // finished them before that leader failed).
  Status check(uint64_t call);
  // Whether leader `node` has said that it failed call `call`, as far as check() has read.
  bool failed(uint64_t call, int node) const;

  static constexpr int kTag = 99;

 private:
  struct Sent {
    std::unique_ptr<uint64_t> call;  // the buffer of its sends
    std::vector<MPI_Request> reqs;
    bool complete();
  };
  struct Received {
    uint64_t call;
    int node;
  };

  MPI_Comm comm_;
  int rank_ = 0, size_ = 1;
  std::vector<Sent> sent_;          // notices whose sends may not be over
  std::vector<Received> received_;  // notices of calls this leader has not reached
};

}  // namespace ferry::coll
