// Authentication of a channel (channel_transport.h) before anything else travels on it. The
// daemon runs code it receives, so it talks only to a client that proves it holds the shared
// token, and the client talks only to a daemon that proves the same:
//
//   server -> client  Challenge  nonce S                                  (fresh, random)
//   client -> server  Response   nonce C, HMAC(token, "ferry client" | S | C)
//   server -> client  Welcome    HMAC(token, "ferry server" | C | S), what the server serves
//
// HMAC-SHA256 and the nonces come from OpenSSL; MACs are compared in constant time. Fresh
// nonces on both sides make a recorded answer useless on another connection. Every message
// carries the protocol version in its header, so a peer of another Ferry version is told so.
// The token travels never; it is read from a file only its owner may read.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "comm/channel_transport.h"
#include "platform/status.h"

namespace ferry::comm {

struct ChannelToken {
  std::vector<uint8_t> secret;
  std::string path;  // for messages
};

// Reads a token file: at least 16 bytes after trailing white space is removed, and neither
// group- nor world-readable (the error says `chmod 600 <file>`).
Result<ChannelToken> readTokenFile(const std::string& path);

// The server's side, first on every new connection: fails (and the caller closes the
// connection) on a wrong token, a peer of another version, garbage, or silence for
// `timeoutSeconds`. `announcement` reaches only a client that proved itself.
Status authenticateClient(ChannelTransport& t, const ChannelToken& token, const std::vector<uint8_t>& announcement,
                          double timeoutSeconds);

// The client's side: returns the server's announcement once the server proved itself.
Result<std::vector<uint8_t>> authenticateServer(ChannelTransport& t, const ChannelToken& token, double timeoutSeconds);

}  // namespace ferry::comm
