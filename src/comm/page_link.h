// Unified shared memory where CMA cannot reach: a serving rank on another node (or where the
// kernel refuses cross-memory attach) reads and writes the pages of the rank whose memory its
// kernels dereference (rank 0) over MPI. The serving rank's end is a PageLink; rank 0 answers
// with servePageRequests() from the loops in which it waits for its devices, which
// libomptarget runs for as long as any region is outstanding.
//
// One request is in flight per link at a time (the link serialises them), so replies need no
// tag of their own: every request carries a sequence number, and a reply to an older one (a
// request that timed out) is dropped. The host answers without ever blocking on a reply.
#pragma once

#include <mpi.h>
#include <sys/uio.h>

#include <cstdint>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "comm/page_source.h"
#include "platform/status.h"

namespace ferry::comm {

inline constexpr int kPageRequestTag = 6;  // serving rank -> the rank whose memory it pages
inline constexpr int kPageReplyTag = 7;    // and back
class PageLink final : public PageSource {
 public:
  PageLink(MPI_Comm comm, int host, double timeoutSeconds) : comm_(comm), host_(host), timeout_(timeoutSeconds) {}

  Result<uint32_t> read(uint64_t page, uint32_t count, uint8_t* out) override;
  Status write(std::span<const iovec> local, std::span<const iovec> remote) override;
  Result<std::string> maps() override;
  int host() const override { return host_; }

 private:
  Result<std::vector<uint8_t>> call(std::vector<uint8_t> request, const char* what);

  MPI_Comm comm_;
  int host_;
  double timeout_;
  std::mutex mutex_;
};

// The host's end: answers every page request that has arrived on `comm`. Returns whether it
// answered any. Thread-safe (matched probes); a request it cannot parse is answered with
// nothing read or written, and logged.
Result<bool> servePageRequests(MPI_Comm comm);

}  // namespace ferry::comm
