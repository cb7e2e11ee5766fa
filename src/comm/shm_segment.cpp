#include "comm/shm_segment.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <climits>
#include <cstring>
#include <utility>

#include "comm/mpi_check.h"

namespace ferry::comm {
namespace {

std::string errnoText(const std::string& what) { return what + ": " + std::strerror(errno); }

Result<uint8_t*> mapShared(int fd, size_t bytes, const std::string& what) {
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (p == MAP_FAILED) return Status(Errc::OutOfMemory, errnoText("mmap of " + std::to_string(bytes) + " B of " + what));
  return static_cast<uint8_t*>(p);
}

}  // namespace

ShmSegment::ShmSegment(ShmSegment&& other) noexcept { *this = std::move(other); }

ShmSegment& ShmSegment::operator=(ShmSegment&& other) noexcept {
  if (this != &other) {
    reset();
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
    fd_ = std::exchange(other.fd_, -1);
  }
  return *this;
}

ShmSegment::~ShmSegment() { reset(); }

void ShmSegment::reset() {
  if (data_) munmap(data_, size_);
  if (fd_ >= 0) close(fd_);
  data_ = nullptr;
  size_ = 0;
  fd_ = -1;
}

Result<ShmSegment> ShmSegment::createNamed(const std::string& name, size_t bytes) {
  int fd = shm_open(name.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0)
    return Status(Errc::Unavailable, errnoText("shm_open(" + name + ") failed (is /dev/shm mounted and writable?)"));
  // Reserve the pages now: on a full /dev/shm a later page fault would be a SIGBUS.
  if (int rc = posix_fallocate(fd, 0, static_cast<off_t>(bytes)); rc != 0) {
    close(fd);
    shm_unlink(name.c_str());
    return Status(Errc::OutOfMemory, "cannot reserve " + std::to_string(bytes) + " B for " + name + ": " +
                                         std::strerror(rc) + " (check free space with `df /dev/shm`)");
  }
  auto data = mapShared(fd, bytes, name);
  close(fd);
  if (!data) {
    shm_unlink(name.c_str());
    return data.takeStatus();
  }
  ShmSegment s;
  s.data_ = *data;
  s.size_ = bytes;
  return s;
}

// A peer's segment, opened as `fd`, which the mapping makes unneeded.
Result<ShmSegment> ShmSegment::mapPeers(int fd, size_t bytes, const std::string& what) {
  auto data = mapShared(fd, bytes, what);
  close(fd);
  if (!data) return data.takeStatus();
  ShmSegment s;
  s.data_ = *data;
  s.size_ = bytes;
  return s;
}

Result<ShmSegment> ShmSegment::openNamed(const std::string& name, size_t bytes) {
  int fd = shm_open(name.c_str(), O_RDWR | O_CLOEXEC, 0600);
  if (fd < 0) return Status(Errc::Unavailable, errnoText("shm_open(" + name + ") of a peer's segment failed"));
  return mapPeers(fd, bytes, name);
}

Result<ShmSegment> ShmSegment::createAnonymous(const char* tag, size_t bytes) {
  int fd = memfd_create(tag, MFD_CLOEXEC);
  if (fd < 0) return Status(Errc::Unavailable, errnoText(std::string("memfd_create(") + tag + ")"));
  if (ftruncate(fd, static_cast<off_t>(bytes)) != 0) {
    Status st(Errc::OutOfMemory, errnoText("ftruncate of memfd " + std::string(tag) + " to " + std::to_string(bytes) + " B"));
    close(fd);
    return st;
  }
  auto data = mapShared(fd, bytes, std::string("memfd ") + tag);
  if (!data) {
    close(fd);
    return data.takeStatus();
  }
  ShmSegment s;
  s.data_ = *data;
  s.size_ = bytes;
  s.fd_ = fd;
  return s;
}

Result<ShmSegment> ShmSegment::openPeer(pid_t pid, int fd, size_t bytes) {
  std::string path = "/proc/" + std::to_string(pid) + "/fd/" + std::to_string(fd);
  int local = open(path.c_str(), O_RDWR | O_CLOEXEC);
  if (local < 0)
    return Status(Errc::Unavailable, errnoText("open(" + path + ") to map a peer's shared memory") +
                                         " (the kernel allows it only where it allows ptrace access to the peer)");
  return mapPeers(local, bytes, path);
}

Status unlinkShmName(const std::string& name) {
  if (shm_unlink(name.c_str()) != 0 && errno != ENOENT)
    return Status(Errc::Internal, errnoText("shm_unlink(" + name + ")"));
  return {};
}

namespace {

constexpr size_t kNameBytes = 128;

std::string freshName(const char* purpose) {
  static std::atomic<uint32_t> counter{0};
  return "/ferry-" + std::string(purpose) + "-" + std::to_string(getpid()) + "-" + std::to_string(counter++);
}

}  // namespace

Result<ShmSegment> mapNodeSegment(MPI_Comm nodeComm, size_t bytes, const char* purpose) {
  int rank = 0;
  MPI_Comm_rank(nodeComm, &rank);
  // Rank 0 creates the segment and sends its name, or an empty name when it failed.
  char name[kNameBytes] = {};
  Result<ShmSegment> seg = Status(Errc::Internal, "not mapped");
  std::string created;
  if (rank == 0) {
    created = freshName(purpose);
    seg = ShmSegment::createNamed(created, bytes);
    if (seg) std::snprintf(name, sizeof name, "%s", created.c_str());
  }
  if (Status st = mpiStatus(MPI_Bcast(name, sizeof name, MPI_CHAR, 0, nodeComm), "MPI_Bcast(segment name)"); !st)
    return st;
  if (rank != 0 && name[0] != '\0') seg = ShmSegment::openNamed(name, bytes);
  if (rank != 0 && name[0] == '\0') seg = Status(Errc::Unavailable, "node-local rank 0 could not create the segment");

  // Everyone learns the lowest rank that failed, so that every rank returns the same outcome.
  int mine = seg ? INT_MAX : rank, firstFailed = INT_MAX;
  Status agree =
      mpiStatus(PMPI_Allreduce(&mine, &firstFailed, 1, MPI_INT, MPI_MIN, nodeComm), "PMPI_Allreduce(segment)");
  if (rank == 0 && !created.empty()) (void)unlinkShmName(created);
  if (!agree) return agree;
  std::string what = std::string("shared segment for ") + purpose + " (" + std::to_string(bytes) + " B)";
  if (!seg) return seg.takeStatus().withContext("mapping the " + what);
  if (firstFailed != INT_MAX)
    return Status(Errc::Unavailable, "node-local rank " + std::to_string(firstFailed) + " could not map the " + what +
                                         "; its log says why");
  return seg;
}

}  // namespace ferry::comm
