// Sockets for the channel transport: a daemon's listening socket, a client's connection with
// a deadline, and the options every channel socket gets (no Nagle delay; TCP keepalive, so
// that a link that drops without a word is noticed within about FERRY_TIMEOUT).
#pragma once

#include <string>

#include "platform/net_address.h"
#include "platform/status.h"

namespace ferry::comm {

// Listens on `addr` (loopback unless the address says otherwise). A Unix socket left behind
// by a daemon that died is replaced; one a live daemon listens on is an error.
Result<int> listenOn(const NetAddress& addr);
// Accepts one connection (non-blocking listener: -1 and no error when none waits), and names
// its peer ("127.0.0.1:53122", "unix socket").
Result<int> acceptOne(int listener, std::string& peerName);
// Connects within `timeoutSeconds`.
Result<int> connectTo(const NetAddress& addr, double timeoutSeconds);
// Keepalive and TCP_NODELAY on a connected TCP socket, sized from `timeoutSeconds`.
void tuneChannelSocket(int fd, double timeoutSeconds);

}  // namespace ferry::comm
