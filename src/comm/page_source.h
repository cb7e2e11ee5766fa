// Where a serving process reads and writes the pages of the client whose memory its kernels
// dereference (unified shared memory, service/host_pager.h) when cross-memory attach cannot
// reach it. An interface without MPI, so that the pager and its courier thread belong to the
// device service whatever its transport: the MPI job's PageLink (comm/page_link.h) is the one
// implementation today; a daemon's clients are on another machine and page nothing.
#pragma once

#include <sys/uio.h>

#include <cstdint>
#include <span>
#include <string>

#include "platform/status.h"

namespace ferry::comm {

inline constexpr uint64_t kLinkPage = 4096;
// Most pages one read asks for: what the pager mirrors at once (FERRY_USM_FAULT_AROUND), and
// what the host reads with one cmaReadPages.
inline constexpr uint32_t kMaxLinkPages = 256;

class PageSource {
 public:
  virtual ~PageSource() = default;
  // Reads up to `count` pages from `page` on into `out`; returns how many: the pages up to
  // the first one the host does not map.
  virtual Result<uint32_t> read(uint64_t page, uint32_t count, uint8_t* out) = 0;
  // Writes each local run to the host address of the same index.
  virtual Status write(std::span<const iovec> local, std::span<const iovec> remote) = 0;
  // The host's /proc/self/maps.
  virtual Result<std::string> maps() = 0;
  // The peer whose memory this is (its rank).
  virtual int host() const = 0;
};

}  // namespace ferry::comm
