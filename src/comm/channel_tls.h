// TLS under a channel (OpenSSL), for daemons reached beyond loopback (docs/daemon.md,
// "Security model"): the daemon presents a certificate (--tls-cert, --tls-key), and the client
// checks it by default against FERRY_REMOTE_TLS_CA (or the system's CAs), including that it
// names the address the client dialled. The token's challenge-response runs inside, as on a
// plain channel. Both calls take `fd` over (closed on failure) and finish the TLS handshake
// within `timeoutSeconds`.
#pragma once

#include <memory>
#include <string>

#include "comm/channel_io.h"
#include "platform/net_address.h"
#include "platform/status.h"

namespace ferry::comm {

struct TlsServerOptions {
  std::string certFile;  // PEM: the certificate, then any intermediates
  std::string keyFile;   // PEM: its private key
};

struct TlsClientOptions {
  std::string caFile;  // PEM CAs to trust; empty: the system's
  bool verify = true;  // check the chain and the name
};

// Checks that the daemon's certificate and key load and match, before it listens.
Status checkTlsServerOptions(const TlsServerOptions& opt);
Result<std::unique_ptr<ChannelIo>> tlsAccept(int fd, const TlsServerOptions& opt, const std::string& peerName,
                                             double timeoutSeconds);
Result<std::unique_ptr<ChannelIo>> tlsConnect(int fd, const NetAddress& addr, const TlsClientOptions& opt,
                                              const std::string& peerName, double timeoutSeconds);

}  // namespace ferry::comm
