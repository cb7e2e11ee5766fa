// Shared memory that the ranks of one node map at the same time. Two kinds:
//  - named POSIX segments (/dev/shm), for a node's common area: one rank creates it, the
//    others open it by name, and the name is removed as soon as everyone has it mapped,
//    so that a crash later leaves nothing behind in /dev/shm;
//  - anonymous segments (memfd), for memory a process hands out and that peers map on
//    demand through /proc/<pid>/fd/<fd>. They have no name that could leak; the kernel
//    lets a peer open them where it allows process_vm_readv (same user, ptrace access).
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

  // A new named segment of `bytes` zero bytes; fails if the name exists.
  static Result<ShmSegment> createNamed(const std::string& name, size_t bytes);
  static Result<ShmSegment> openNamed(const std::string& name, size_t bytes);
  // A new anonymous segment; `tag` names it in /proc/<pid>/maps. fd() stays open so that
  // peers can reach it.
  static Result<ShmSegment> createAnonymous(const char* tag, size_t bytes);
  // Maps `bytes` of the anonymous segment that process `pid` holds open as `fd`.
  static Result<ShmSegment> openPeer(pid_t pid, int fd, size_t bytes);

  uint8_t* data() const { return data_; }
  size_t size() const { return size_; }
  int fd() const { return fd_; }  // anonymous segments created here; -1 otherwise
  bool valid() const { return data_ != nullptr; }

 private:
  static Result<ShmSegment> mapPeers(int fd, size_t bytes, const std::string& what);
  void reset();
  uint8_t* data_ = nullptr;
  size_t size_ = 0;
  int fd_ = -1;
};

// Removes a named segment's name; existing mappings stay valid.
Status unlinkShmName(const std::string& name);

// Collective over `nodeComm`: its rank 0 creates a named segment of `bytes`, the others
// map it, and the name is removed once all have. Every rank gets the same outcome: if one
// rank fails, all return an error that names that rank and the reason. `purpose` appears
// in the name and in errors.
Result<ShmSegment> mapNodeSegment(MPI_Comm nodeComm, size_t bytes, const char* purpose);

}  // namespace ferry::comm
