#include "coll/failure_notices.h"

#include <algorithm>
#include <string>

namespace ferry::coll {

FailureNotices::FailureNotices(MPI_Comm leaders) : comm_(leaders) {
  MPI_Comm_rank(leaders, &rank_);
  MPI_Comm_size(leaders, &size_);
}

FailureNotices::~FailureNotices() {
  // Notices still in flight keep their buffers: MPI may yet read them, and nothing can say
  // when once the requests are freed (8 bytes each, left to the process).
  std::erase_if(sent_, [](Sent& n) { return n.complete(); });
  for (Sent& n : sent_) {
    for (MPI_Request& r : n.reqs)
      if (r != MPI_REQUEST_NULL) MPI_Request_free(&r);
    (void)n.call.release();
  }
}

// A send that failed is over too: MPI reads its buffer no more.
bool FailureNotices::Sent::complete() {
  int flag = 0;
  return MPI_Testall(static_cast<int>(reqs.size()), reqs.data(), &flag, MPI_STATUSES_IGNORE) != MPI_SUCCESS || flag;
}

// Each call's notice has a buffer of its own, kept until its sends complete: a second failed
// call must not rewrite a buffer that a send of the first may still read.
void FailureNotices::send(uint64_t call) {
  std::erase_if(sent_, [](Sent& n) { return n.complete(); });
  Sent& n = sent_.emplace_back(Sent{std::make_unique<uint64_t>(call), {}});
  for (int peer = 0; peer < size_; ++peer) {
    if (peer == rank_) continue;
    MPI_Request req = MPI_REQUEST_NULL;
    if (MPI_Isend(n.call.get(), 1, MPI_UINT64_T, peer, kTag, comm_, &req) == MPI_SUCCESS) n.reqs.push_back(req);
  }
}

Status FailureNotices::check(uint64_t call) {
  for (;;) {
    int flag = 0;
    MPI_Status st;
    if (MPI_Iprobe(MPI_ANY_SOURCE, kTag, comm_, &flag, &st) != MPI_SUCCESS || !flag) break;
    uint64_t failed = 0;
    if (MPI_Recv(&failed, 1, MPI_UINT64_T, st.MPI_SOURCE, kTag, comm_, MPI_STATUS_IGNORE) != MPI_SUCCESS) break;
    received_.push_back({failed, st.MPI_SOURCE});
  }
  std::erase_if(received_, [call](const Received& n) { return n.call < call; });
  for (const Received& n : received_)
    if (n.call == call)
      // Peers are node numbers: leaders are numbered as their nodes.
      return Status(Errc::Unavailable, "the leader of node " + std::to_string(n.node) +
                                           " failed this call, so this rank cannot finish it; that rank's error says "
                                           "why");
  return {};
}

bool FailureNotices::failed(uint64_t call, int node) const {
  return std::ranges::any_of(received_, [&](const Received& n) { return n.call == call && n.node == node; });
}

}  // namespace ferry::coll
