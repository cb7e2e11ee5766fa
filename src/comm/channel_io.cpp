#include "comm/channel_io.h"

#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace ferry::comm {
namespace {

class PlainIo final : public ChannelIo {
 public:
  PlainIo(int fd, std::string peer) : fd_(fd), peer_(std::move(peer)) {}
  ~PlainIo() override { ::close(fd_); }

  Result<size_t> read(uint8_t* at, size_t want) override {
    while (true) {
      ssize_t r = ::recv(fd_, at, want, MSG_DONTWAIT);
      if (r > 0) return static_cast<size_t>(r);
      if (r == 0) return Status(Errc::Unavailable, peer_ + " closed the connection");
      if (errno == EAGAIN || errno == EWOULDBLOCK) return size_t{0};
      if (errno != EINTR) return failed();
    }
  }

  Result<size_t> write(const iovec* iov, int count) override {
    msghdr msg{};
    msg.msg_iov = const_cast<iovec*>(iov);
    msg.msg_iovlen = static_cast<size_t>(count);
    while (true) {
      ssize_t w = ::sendmsg(fd_, &msg, MSG_NOSIGNAL | MSG_DONTWAIT);
      if (w >= 0) return static_cast<size_t>(w);
      if (errno == EAGAIN || errno == EWOULDBLOCK) return size_t{0};
      if (errno != EINTR) return failed();
    }
  }

 private:
  // A peer that dies with bytes of ours unread resets the connection instead of closing it (a
  // Unix socket always does): that is the same event for the user, and says so alike.
  Status failed() const {
    if (errno == ECONNRESET || errno == EPIPE)
      return Status(Errc::Unavailable, peer_ + " closed the connection (" + std::strerror(errno) + ")");
    return Status(Errc::Unavailable, "the connection to " + peer_ + " failed (" + std::strerror(errno) + ")");
  }
  int fd_;
  std::string peer_;
};

}  // namespace

std::unique_ptr<ChannelIo> plainChannelIo(int fd, std::string peerName) {
  return std::make_unique<PlainIo>(fd, std::move(peerName));
}

}  // namespace ferry::comm
