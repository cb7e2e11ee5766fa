// Input: the bytes a daemon reads from a new connection, before and during its handshake
// (comm/channel_auth.h): whatever anyone who reaches its port sends. The daemon's end of a
// socketpair gets the input, then end-of-file, and runs authenticateClient().
//
// Properties: the frame reader and the decoder never read outside what arrived; the handshake
// never succeeds without the token (no input can forge the HMAC); it always ends (EOF, a
// refused frame, or its deadline), so a hostile client cannot hold a worker.
#include <sys/socket.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "comm/channel_auth.h"
#include "fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace ferry::comm;
  int fds[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM, 0, fds) != 0) return 0;
  int sndbuf = 1 << 20;
  ::setsockopt(fds[0], SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof sndbuf);
  size_t sent = 0;
  while (sent < size) {
    ssize_t w = ::write(fds[0], data + sent, size - sent);
    if (w <= 0) break;
    sent += static_cast<size_t>(w);
  }
  ::shutdown(fds[0], SHUT_WR);  // the client sends nothing more: the handshake must end
  ChannelTransport daemon(fds[1], 1, "daemon (fuzz)", "client (fuzz)");
  ChannelToken token{std::vector<uint8_t>(32, 0x5a), "fuzz"};
  ferry::Status st = authenticateClient(daemon, token, {1, 2, 3}, 1.0);
  FUZZ_CHECK(!st.isOk(), "a handshake succeeded without the token");
  ::close(fds[0]);
  return 0;
}
