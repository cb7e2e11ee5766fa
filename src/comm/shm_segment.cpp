#include "comm/shm_segment.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <climits>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <utility>

#include "comm/mpi_check.h"
#include "platform/config.h"
#include "platform/parse.h"

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

Result<ShmSegment> ShmSegment::mapPeers(int fd, size_t bytes, const std::string& what) {
  auto data = mapShared(fd, bytes, what);
  close(fd);
  if (!data) return data.takeStatus();
  ShmSegment s;
  s.data_ = *data;
  s.size_ = bytes;
  return s;
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

namespace {

constexpr size_t kNameBytes = 108 - 2;  // sockaddr_un's path, less the abstract name's NUL

std::string freshName(const char* purpose) {
  static std::atomic<uint32_t> counter{0};
  return "ferry-" + std::string(purpose) + "-" + std::to_string(getpid()) + "-" + std::to_string(counter++);
}

// An abstract Unix socket's address: no file, and it goes with the last descriptor.
socklen_t abstractAddress(const std::string& name, sockaddr_un& addr) {
  addr = {};
  addr.sun_family = AF_UNIX;
  std::memcpy(addr.sun_path + 1, name.data(), name.size());
  return static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + name.size());
}

// Waits for `fd` to be ready for `events`, at most `seconds`.
Status awaitReady(int fd, short events, double seconds, const std::string& what) {
  pollfd p{fd, events, 0};
  int rc;
  do rc = poll(&p, 1, static_cast<int>(seconds * 1000));
  while (rc < 0 && errno == EINTR);
  if (rc < 0) return Status(Errc::Internal, errnoText("poll while " + what));
  if (rc == 0)
    return Status(Errc::Timeout, what + " took longer than FERRY_TIMEOUT (" + parse::formatSeconds(seconds) + ")");
  return {};
}

Result<int> listenAbstract(const std::string& name, int backlog) {
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return Status(Errc::Unavailable, errnoText("socket(AF_UNIX) for the node's shared segment"));
  sockaddr_un addr;
  socklen_t len = abstractAddress(name, addr);
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), len) != 0 || listen(fd, backlog) != 0) {
    Status st(Errc::Unavailable, errnoText("listening on the abstract Unix socket @" + name));
    close(fd);
    return st;
  }
  return fd;
}

// Hands `fd` to `peers` connections on `listener`, one SCM_RIGHTS message each.
Status handOut(int listener, int fd, int peers, double seconds) {
  for (int i = 0; i < peers; ++i) {
    if (Status st = awaitReady(listener, POLLIN, seconds, "waiting for the node's ranks to take the shared segment");
        !st)
      return st;
    int conn = accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);
    if (conn < 0) return Status(Errc::Unavailable, errnoText("accept on the node's segment socket"));
    char byte = 'F';
    iovec iov{&byte, 1};
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
    msghdr msg{};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control;
    msg.msg_controllen = sizeof control;
    cmsghdr* c = CMSG_FIRSTHDR(&msg);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int));
    std::memcpy(CMSG_DATA(c), &fd, sizeof fd);
    ssize_t sent = sendmsg(conn, &msg, MSG_NOSIGNAL);
    close(conn);
    if (sent != 1) return Status(Errc::Unavailable, errnoText("sending the node's shared segment to a peer"));
  }
  return {};
}

// Connects to the creator's socket and takes the descriptor it sends.
Result<int> receiveFrom(const std::string& name, double seconds) {
  int sock = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (sock < 0) return Status(Errc::Unavailable, errnoText("socket(AF_UNIX) for the node's shared segment"));
  sockaddr_un addr;
  socklen_t len = abstractAddress(name, addr);
  Status st;
  int fd = -1;
  if (connect(sock, reinterpret_cast<sockaddr*>(&addr), len) != 0) {
    st = Status(Errc::Unavailable, errnoText("connecting to @" + name + ", node-local rank 0's socket") +
                                       " (are the ranks of this node in different network namespaces?)");
  } else if ((st = awaitReady(sock, POLLIN, seconds, "waiting for node-local rank 0's shared segment"))) {
    char byte = 0;
    iovec iov{&byte, 1};
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
    msghdr msg{};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control;
    msg.msg_controllen = sizeof control;
    cmsghdr* c = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC) == 1 ? CMSG_FIRSTHDR(&msg) : nullptr;
    if (c && c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) std::memcpy(&fd, CMSG_DATA(c), sizeof fd);
    else st = Status(Errc::Protocol, "node-local rank 0 sent no shared segment on @" + name);
  }
  close(sock);
  if (!st) return st;
  return fd;
}

// Node-local rank 0's part: a reserved memfd, and the socket that hands it out. `name`
// stays empty when either fails (the peers then fail too, and the agreement says why).
Result<ShmSegment> createAndOffer(size_t bytes, const char* purpose, char (&name)[kNameBytes], int& listener,
                                  int peers) {
  auto seg = ShmSegment::createAnonymous(purpose, bytes);
  if (!seg) return seg;
  // Reserve the pages now: where memory is short, a later page fault would be a SIGBUS.
  if (int rc = posix_fallocate(seg->fd(), 0, static_cast<off_t>(bytes)); rc != 0)
    return Status(Errc::OutOfMemory, "cannot reserve " + parse::formatSize(bytes) + " of shared memory for " + purpose +
                                         ": " + std::strerror(rc));
  std::string socketName = freshName(purpose);
  auto l = listenAbstract(socketName, peers);
  if (!l) return l.takeStatus();
  listener = *l;
  std::snprintf(name, sizeof name, "%s", socketName.c_str());
  return seg;
}

}  // namespace

Result<ShmSegment> mapNodeSegment(MPI_Comm nodeComm, size_t bytes, const char* purpose) {
  int rank = 0, size = 1;
  MPI_Comm_rank(nodeComm, &rank);
  MPI_Comm_size(nodeComm, &size);
  const double seconds = config().seconds(Knob::Timeout);
  // Rank 0 creates the segment and sends its socket's name, or an empty name when it failed.
  char name[kNameBytes] = {};
  int listener = -1;
  Result<ShmSegment> seg = Status(Errc::Internal, "not mapped");
  if (rank == 0) seg = createAndOffer(bytes, purpose, name, listener, size - 1);
  if (Status st = mpiStatus(MPI_Bcast(name, sizeof name, MPI_CHAR, 0, nodeComm), "MPI_Bcast(segment name)"); !st) {
    if (listener >= 0) close(listener);
    return st;
  }
  if (rank != 0 && name[0] != '\0') {
    auto fd = receiveFrom(name, seconds);
    seg = fd ? ShmSegment::mapPeers(*fd, bytes, std::string("@") + name) : Result<ShmSegment>(fd.takeStatus());
  }
  if (rank != 0 && name[0] == '\0') seg = Status(Errc::Unavailable, "node-local rank 0 could not create the segment");
  if (listener >= 0) {
    if (Status st = handOut(listener, seg->fd(), size - 1, seconds); !st) seg = std::move(st);
    close(listener);
  }
  // Everyone learns the lowest rank that failed, so that every rank returns the same outcome.
  int mine = seg ? INT_MAX : rank, firstFailed = INT_MAX;
  Status agree =
      mpiStatus(PMPI_Allreduce(&mine, &firstFailed, 1, MPI_INT, MPI_MIN, nodeComm), "PMPI_Allreduce(segment)");
  if (!agree) return agree;
  std::string what = std::string("shared segment for ") + purpose + " (" + std::to_string(bytes) + " B)";
  if (!seg) return seg.takeStatus().withContext("mapping the " + what);
  if (firstFailed != INT_MAX)
    return Status(Errc::Unavailable, "node-local rank " + std::to_string(firstFailed) + " could not map the " + what +
                                         "; its log says why");
  return seg;
}

}  // namespace ferry::comm
