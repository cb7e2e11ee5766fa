// Shared memory that the ranks of one node map at the same time. Every segment is an
// anonymous memfd, which has no name that could be left behind in /dev/shm when a process
// dies: it goes with the last descriptor and mapping. Peers reach it in one of two ways:
//  - a node's common area: node-local rank 0 hands the descriptor to the others over an
//    abstract Unix socket (mapNodeSegment);
//  - memory a process hands out and that peers map on demand: through /proc/<pid>/fd/<fd>,
//    which the kernel allows where it allows process_vm_readv (same user, ptrace access).
#pragma once

#include <mpi.h>
#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "platform/status.h"

namespace ferry::comm {

class ShmSegment {
 public:
  ShmSegment() = default;
  ShmSegment(ShmSegment&& other) noexcept;
  ShmSegment& operator=(ShmSegment&& other) noexcept;
  ShmSegment(const ShmSegment&) = delete;
  ShmSegment& operator=(const ShmSegment&) = delete;
  ~ShmSegment();

  // A new anonymous segment; `tag` names it in /proc/<pid>/maps. fd() stays open so that
  // peers can reach it.
  static Result<ShmSegment> createAnonymous(const char* tag, size_t bytes);
  // Maps `bytes` of the anonymous segment that process `pid` holds open as `fd`.
  static Result<ShmSegment> openPeer(pid_t pid, int fd, size_t bytes);
  // Maps `bytes` of a segment received as `fd` (which it closes; the mapping keeps it).
  static Result<ShmSegment> mapPeers(int fd, size_t bytes, const std::string& what);

  uint8_t* data() const { return data_; }
  size_t size() const { return size_; }
  int fd() const { return fd_; }  // anonymous segments created here; -1 otherwise
  bool valid() const { return data_ != nullptr; }

 private:
  void reset();
  uint8_t* data_ = nullptr;
  size_t size_ = 0;
  int fd_ = -1;
};

// Collective over `nodeComm`: its rank 0 creates a segment of `bytes` (reserved: no SIGBUS
// later where memory is short) and hands it to the others, which map it. Every rank gets the
// same outcome: if one rank fails, all return an error that names that rank and the reason.
// `purpose` appears in the socket's name, /proc/<pid>/maps and errors.
//
// A named /dev/shm segment, as before, stayed behind whenever a rank died between creating
// the name and the last peer opening it (scripts/kill-campaign.py: one kill in two of an
// allreduce loop that creates communicators).
Result<ShmSegment> mapNodeSegment(MPI_Comm nodeComm, size_t bytes, const char* purpose);

}  // namespace ferry::comm
