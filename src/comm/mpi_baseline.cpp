#include "comm/mpi_baseline.h"

#include <cstdlib>
#include <cstring>
#include <vector>

#include "comm/mpi_check.h"

namespace ferry::comm {
namespace {

// Page-aligned and touched, as OSU's buffers are, so that first-touch costs stay out.
struct Buffer {
  explicit Buffer(size_t n) : size(n ? n : 1) {
    if (posix_memalign(&data, 4096, size) != 0) data = nullptr;
    if (data) std::memset(data, 1, size);
  }
  ~Buffer() { std::free(data); }
  void* data = nullptr;
  size_t size;
};

Status pingPongOnce(MPI_Comm comm, int peer, bool initiator, Buffer& buf, int bytes) {
  if (initiator) {
    if (Status st = mpiStatus(MPI_Send(buf.data, bytes, MPI_BYTE, peer, kBaselineTag, comm), "MPI_Send(baseline)", peer); !st)
      return st;
    return mpiStatus(MPI_Recv(buf.data, bytes, MPI_BYTE, peer, kBaselineTag, comm, MPI_STATUS_IGNORE),
                     "MPI_Recv(baseline)", peer);
  }
  if (Status st = mpiStatus(MPI_Recv(buf.data, bytes, MPI_BYTE, peer, kBaselineTag, comm, MPI_STATUS_IGNORE),
                            "MPI_Recv(baseline)", peer);
      !st)
    return st;
  return mpiStatus(MPI_Send(buf.data, bytes, MPI_BYTE, peer, kBaselineTag, comm), "MPI_Send(baseline)", peer);
}

// OSU bandwidth: the initiator posts `window` sends, the responder as many receives; an
// acknowledgement closes each iteration.
Status bandwidthOnce(MPI_Comm comm, int peer, bool initiator, Buffer& buf, int bytes, uint32_t window) {
  std::vector<MPI_Request> reqs(window);
  for (uint32_t i = 0; i < window; ++i) {
    int rc = initiator ? MPI_Isend(buf.data, bytes, MPI_BYTE, peer, kBaselineTag, comm, &reqs[i])
                       : MPI_Irecv(buf.data, bytes, MPI_BYTE, peer, kBaselineTag, comm, &reqs[i]);
    if (Status st = mpiStatus(rc, "MPI_Isend/Irecv(baseline)", peer); !st) return st;
  }
  if (Status st = mpiStatus(MPI_Waitall(static_cast<int>(window), reqs.data(), MPI_STATUSES_IGNORE),
                            "MPI_Waitall(baseline)", peer);
      !st)
    return st;
  char ack = 0;
  if (initiator)
    return mpiStatus(MPI_Recv(&ack, 1, MPI_CHAR, peer, kBaselineTag, comm, MPI_STATUS_IGNORE), "MPI_Recv(ack)", peer);
  return mpiStatus(MPI_Send(&ack, 1, MPI_CHAR, peer, kBaselineTag, comm), "MPI_Send(ack)", peer);
}

}  // namespace

Result<double> runBaseline(MPI_Comm comm, int peer, bool initiator, const BaselineSpec& spec) {
  if (spec.bytes > static_cast<uint64_t>(INT32_MAX))
    return Status(Errc::InvalidArgument, "baseline messages are limited to 2 GiB");
  Buffer buf(spec.bytes);
  if (!buf.data) return Status(Errc::OutOfMemory, "cannot allocate the baseline buffer");
  int bytes = static_cast<int>(spec.bytes);
  double start = 0;
  for (uint32_t i = 0; i < spec.warmup + spec.iters; ++i) {
    if (i == spec.warmup) start = MPI_Wtime();
    Status st = spec.kind == BaselineKind::PingPong ? pingPongOnce(comm, peer, initiator, buf, bytes)
                                                    : bandwidthOnce(comm, peer, initiator, buf, bytes, spec.window);
    if (!st) return st;
  }
  return initiator ? MPI_Wtime() - start : 0.0;
}

}  // namespace ferry::comm
