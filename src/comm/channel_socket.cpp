#include "comm/channel_socket.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace ferry::comm {
namespace {

Status sysError(const std::string& what, const NetAddress& a) {
  return Status(Errc::Unavailable, what + " " + a.text + ": " + std::strerror(errno));
}

sockaddr_un unixAddress(const NetAddress& a) {
  sockaddr_un sa{};
  sa.sun_family = AF_UNIX;
  std::memcpy(sa.sun_path, a.path.c_str(), std::min(a.path.size(), sizeof sa.sun_path - 1));
  return sa;
}

// A Unix socket file nobody accepts on is a dead daemon's: removed so that a restart works.
Status clearStaleSocket(const NetAddress& a) {
  struct stat st {};
  if (lstat(a.path.c_str(), &st) != 0) return {};
  if (!S_ISSOCK(st.st_mode)) return Status(Errc::InvalidArgument, a.text + " exists and is not a socket; not replaced");
  int probe = ::socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un sa = unixAddress(a);
  bool live = ::connect(probe, reinterpret_cast<sockaddr*>(&sa), sizeof sa) == 0;
  ::close(probe);
  if (live) return Status(Errc::Unavailable, "another daemon already listens on " + a.text);
  ::unlink(a.path.c_str());
  return {};
}

Result<addrinfo*> resolve(const NetAddress& a, bool passive) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = passive ? AI_PASSIVE : 0;
  addrinfo* res = nullptr;
  int rc = ::getaddrinfo(a.host.c_str(), std::to_string(a.port).c_str(), &hints, &res);
  if (rc != 0) return Status(Errc::NotFound, "cannot resolve " + a.text + ": " + gai_strerror(rc));
  return res;
}

}  // namespace

void tuneChannelSocket(int fd, double timeoutSeconds) {
  // Room for several chunks in flight each way: the socket is the transfer's window.
  int buffer = 4 << 20;
  ::setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &buffer, sizeof buffer);
  ::setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &buffer, sizeof buffer);
  int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);  // fails harmlessly on Unix sockets
  ::setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof one);
  int idle = std::max(1, static_cast<int>(timeoutSeconds / 3)), interval = std::max(1, idle / 3), count = 3;
  ::setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof idle);
  ::setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &interval, sizeof interval);
  ::setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &count, sizeof count);
}

Result<int> listenOn(const NetAddress& a) {
  int fd = -1;
  if (a.kind == NetAddress::Kind::Unix) {
    if (Status st = clearStaleSocket(a); !st) return st;
    fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    sockaddr_un sa = unixAddress(a);
    mode_t old = ::umask(0077);  // only the daemon's user may connect at all
    int rc = ::bind(fd, reinterpret_cast<sockaddr*>(&sa), sizeof sa);
    ::umask(old);
    if (rc != 0) return ::close(fd), sysError("cannot listen on", a);
  } else {
    auto res = resolve(a, true);
    if (!res) return res.takeStatus();
    addrinfo* ai = *res;
    fd = ::socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, ai->ai_protocol);
    int one = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    int rc = ::bind(fd, ai->ai_addr, ai->ai_addrlen);
    ::freeaddrinfo(ai);
    if (rc != 0) return ::close(fd), sysError("cannot listen on", a);
  }
  if (::listen(fd, 16) != 0) return ::close(fd), sysError("cannot listen on", a);
  return fd;
}

Result<int> acceptOne(int listener, std::string& peerName) {
  sockaddr_storage ss{};
  socklen_t len = sizeof ss;
  int fd = ::accept4(listener, reinterpret_cast<sockaddr*>(&ss), &len, SOCK_CLOEXEC);
  if (fd < 0) {
    if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR || errno == ECONNABORTED) return -1;
    return Status(Errc::Unavailable, std::string("accept failed: ") + std::strerror(errno));
  }
  char host[NI_MAXHOST] = "", port[NI_MAXSERV] = "";
  if (ss.ss_family == AF_UNIX) {
    peerName = "unix socket";
  } else if (::getnameinfo(reinterpret_cast<sockaddr*>(&ss), len, host, sizeof host, port, sizeof port,
                           NI_NUMERICHOST | NI_NUMERICSERV) == 0) {
    peerName = ss.ss_family == AF_INET6 ? "[" + std::string(host) + "]:" + port : std::string(host) + ":" + port;
  } else {
    peerName = "an unknown address";
  }
  return fd;
}

Result<int> connectTo(const NetAddress& a, double timeoutSeconds) {
  int fd = -1, rc = 0;
  if (a.kind == NetAddress::Kind::Unix) {
    fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    sockaddr_un sa = unixAddress(a);
    rc = ::connect(fd, reinterpret_cast<sockaddr*>(&sa), sizeof sa);
  } else {
    auto res = resolve(a, false);
    if (!res) return res.takeStatus();
    addrinfo* ai = *res;
    fd = ::socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, ai->ai_protocol);
    rc = ::connect(fd, ai->ai_addr, ai->ai_addrlen);
    ::freeaddrinfo(ai);
  }
  if (rc != 0 && errno == EINPROGRESS) {
    pollfd p{fd, POLLOUT, 0};
    int ready = ::poll(&p, 1, static_cast<int>(timeoutSeconds * 1000));
    int err = 0;
    socklen_t len = sizeof err;
    if (ready <= 0) err = ETIMEDOUT;
    else ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len);
    errno = err;
    rc = err == 0 ? 0 : -1;
  }
  if (rc != 0) return ::close(fd), sysError("cannot connect to the daemon at", a);
  tuneChannelSocket(fd, timeoutSeconds);
  return fd;
}

}  // namespace ferry::comm
