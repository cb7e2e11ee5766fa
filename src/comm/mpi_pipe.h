// The MPI Stream (transport.h): one direction of a large transfer over MPI, cut into chunks with a window of chunks in
// flight, so that the network, the copy into place and (on staging devices) the device copy
// overlap. Both ends use the same chunk size (the sender's, carried in the DataDesc) and the
// same tag; MPI's non-overtaking rule matches the chunks in order.
#pragma once

#include <mpi.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <vector>

#include "comm/transport.h"
#include "platform/status.h"

namespace ferry::comm {

class MpiPipe final : public Stream {
 public:

  // A Recv pipe with buf == nullptr drains the bytes into a scratch chunk: a rank whose
  // device has failed still takes what a peer sends it, so that the peer does not hang.
  MpiPipe(Dir dir, MPI_Comm comm, int peer, int tag, void* buf, size_t len, size_t chunk, int depth);
  MpiPipe(MpiPipe&&) = default;
  MpiPipe& operator=(MpiPipe&&) = default;
  ~MpiPipe() override;

  // Tests the chunks in flight and posts more. Returns true once every byte has moved.
  Result<bool> progress() override;
  // Cancels what is still posted (used when the other side reported an error).
  void cancel() override;
  size_t bytesDone() const override { return doneBytes_; }
  // A Send pipe posts only chunks that lie wholly below `bytes` (default: all of them), so
  // that a staged sender can fill its buffer while earlier chunks travel.
  void setReady(size_t bytes) override { ready_ = std::min(bytes, len_); }
  Dir direction() const override { return dir_; }
  int peer() const override { return peer_; }

 private:
  Status postMore();

  Dir dir_;
  MPI_Comm comm_;
  int peer_, tag_;
  uint8_t* buf_;
  size_t len_, chunk_;
  int depth_;
  size_t ready_;
  size_t postedBytes_ = 0, doneBytes_ = 0;
  struct Inflight {
    MPI_Request req;
    size_t bytes;
  };
  std::deque<Inflight> inflight_;
  std::vector<uint8_t> scratch_;  // discard mode only
};

}  // namespace ferry::comm
