#include "comm/mpi_pipe.h"

#include <algorithm>

#include "comm/mpi_check.h"

namespace ferry::comm {

MpiPipe::MpiPipe(Dir dir, MPI_Comm comm, int peer, int tag, void* buf, size_t len, size_t chunk, int depth)
    : dir_(dir), comm_(comm), peer_(peer), tag_(tag), buf_(static_cast<uint8_t*>(buf)), len_(len),
      chunk_(std::max<size_t>(chunk, 1)), depth_(std::max(depth, 1)), ready_(len) {
  if (!buf_ && dir_ == Dir::Recv && len_ > 0) {
    scratch_.resize(std::min(chunk_, len_));
    depth_ = 1;  // chunks land one after another in the same scratch space
  }
}

MpiPipe::~MpiPipe() { cancel(); }

Status MpiPipe::postMore() {
  while (postedBytes_ < len_ && static_cast<int>(inflight_.size()) < depth_) {
    size_t n = std::min(chunk_, len_ - postedBytes_);
    if (dir_ == Dir::Send && postedBytes_ + n > ready_) break;
    uint8_t* at = scratch_.empty() ? buf_ + postedBytes_ : scratch_.data();
    MPI_Request req = MPI_REQUEST_NULL;
    int rc = dir_ == Dir::Send ? MPI_Isend(at, static_cast<int>(n), MPI_BYTE, peer_, tag_, comm_, &req)
                               : MPI_Irecv(at, static_cast<int>(n), MPI_BYTE, peer_, tag_, comm_, &req);
    if (Status st = mpiStatus(rc, dir_ == Dir::Send ? "MPI_Isend(data chunk)" : "MPI_Irecv(data chunk)", peer_); !st)
      return st;
    inflight_.push_back({req, n});
    postedBytes_ += n;
  }
  return {};
}

Result<bool> MpiPipe::progress() {
  if (Status st = postMore(); !st) return st;
  // Chunks complete in posting order on one (peer, tag), so testing the oldest suffices.
  while (!inflight_.empty()) {
    int done = 0;
    MPI_Status status;
    int rc = MPI_Test(&inflight_.front().req, &done, &status);
    if (Status st = mpiStatus(rc, "MPI_Test(data chunk)", peer_); !st) return st;
    if (!done) break;
    doneBytes_ += inflight_.front().bytes;
    inflight_.pop_front();
    if (Status st = postMore(); !st) return st;
  }
  return doneBytes_ == len_;
}

void MpiPipe::cancel() {
  for (auto& f : inflight_) {
    if (f.req == MPI_REQUEST_NULL) continue;
    MPI_Cancel(&f.req);
    MPI_Request_free(&f.req);
  }
  inflight_.clear();
}

}  // namespace ferry::comm
