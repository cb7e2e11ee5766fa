// The byte pipe under a ChannelTransport: a plain socket, or TLS over it (comm/channel_tls.h,
// in ferry_channel with OpenSSL, so that the wire needs no crypto library). Both move bytes
// without blocking: a call moves what it can and returns how many, 0 when nothing can move
// now; a closed or failed connection is an error naming the peer.
#pragma once

#include <sys/uio.h>

#include <cstdint>
#include <memory>
#include <string>

#include "platform/status.h"

namespace ferry::comm {

class ChannelIo {
 public:
  virtual ~ChannelIo() = default;
  virtual Result<size_t> read(uint8_t* at, size_t want) = 0;
  virtual Result<size_t> write(const iovec* iov, int count) = 0;
};

// recv/sendmsg on `fd`, which it owns from now on; `peerName` names the other end in errors.
std::unique_ptr<ChannelIo> plainChannelIo(int fd, std::string peerName);

}  // namespace ferry::comm
