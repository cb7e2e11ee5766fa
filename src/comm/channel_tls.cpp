#include "comm/channel_tls.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <poll.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <vector>

namespace ferry::comm {
namespace {

// OpenSSL's queued reasons, oldest first, as one line.
std::string sslErrors() {
  std::string text;
  for (unsigned long e; (e = ERR_get_error()) != 0;) {
    char buf[256];
    ERR_error_string_n(e, buf, sizeof buf);
    text += (text.empty() ? "" : "; ") + std::string(buf);
  }
  return text.empty() ? "no reason given" : text;
}

struct SslFree {
  void operator()(SSL* s) const { SSL_free(s); }
  void operator()(SSL_CTX* c) const { SSL_CTX_free(c); }
};
using Ssl = std::unique_ptr<SSL, SslFree>;
using SslCtx = std::unique_ptr<SSL_CTX, SslFree>;

class TlsIo final : public ChannelIo {
 public:
  TlsIo(Ssl ssl, int fd, std::string peer) : ssl_(std::move(ssl)), fd_(fd), peer_(std::move(peer)) {}
  ~TlsIo() override {
    SSL_shutdown(ssl_.get());  // best effort: tells the peer the end was meant
    ssl_.reset();
    ::close(fd_);
  }

  Result<size_t> read(uint8_t* at, size_t want) override {
    size_t n = 0;
    if (SSL_read_ex(ssl_.get(), at, want, &n) == 1) return n;
    return wouldBlockOr(SSL_get_error(ssl_.get(), 0), "reading");
  }

  // One record per call: a small frame's header and bytes together (the same bytes again
  // after a retry, as OpenSSL requires), a large frame's parts one at a time.
  Result<size_t> write(const iovec* iov, int count) override {
    size_t total = 0;
    for (int i = 0; i < count; ++i) total += iov[i].iov_len;
    const void* data = iov[0].iov_base;
    size_t len = iov[0].iov_len;
    if (count > 1 && total <= kCoalesce) {
      scratch_.clear();
      for (int i = 0; i < count; ++i)
        scratch_.insert(scratch_.end(), static_cast<uint8_t*>(iov[i].iov_base),
                        static_cast<uint8_t*>(iov[i].iov_base) + iov[i].iov_len);
      data = scratch_.data();
      len = total;
    }
    size_t n = 0;
    if (SSL_write_ex(ssl_.get(), data, len, &n) == 1) return n;
    return wouldBlockOr(SSL_get_error(ssl_.get(), 0), "writing");
  }

 private:
  static constexpr size_t kCoalesce = 16 * 1024;

  Result<size_t> wouldBlockOr(int err, const char* what) {
    if (err == SSL_ERROR_WANT_READ || err == SSL_ERROR_WANT_WRITE) return size_t{0};
    if (err == SSL_ERROR_ZERO_RETURN) return Status(Errc::Unavailable, peer_ + " closed the connection");
    if (err == SSL_ERROR_SYSCALL && ERR_peek_error() == 0)
      return Status(Errc::Unavailable, peer_ + " closed the connection");
    return Status(Errc::Unavailable, "TLS " + std::string(what) + " from " + peer_ + " failed: " + sslErrors());
  }

  Ssl ssl_;
  int fd_;
  std::string peer_;
  std::vector<uint8_t> scratch_;
};

// Runs the handshake on the non-blocking `fd`, waiting for the socket within the deadline.
Status handshake(SSL* ssl, int fd, const std::string& peer, double timeoutSeconds) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeoutSeconds);
  while (true) {
    int r = SSL_do_handshake(ssl);
    if (r == 1) return {};
    int err = SSL_get_error(ssl, r);
    if (err != SSL_ERROR_WANT_READ && err != SSL_ERROR_WANT_WRITE) {
      long verify = SSL_get_verify_result(ssl);
      std::string why = verify != X509_V_OK ? std::string("the certificate check failed: ") +
                                                  X509_verify_cert_error_string(verify)
                                            : sslErrors();
      return Status(Errc::PermissionDenied, "TLS handshake with " + peer + " failed: " + why);
    }
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0)
      return Status(Errc::Timeout, "TLS handshake with " + peer + " did not finish within FERRY_TIMEOUT");
    pollfd p{fd, static_cast<short>(err == SSL_ERROR_WANT_READ ? POLLIN : POLLOUT), 0};
    ::poll(&p, 1, static_cast<int>(left.count()));
  }
}

Result<std::unique_ptr<ChannelIo>> finish(SslCtx ctx, int fd, bool server, const NetAddress* addr,
                                          const std::string& peer, double timeoutSeconds) {
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
  Ssl ssl(SSL_new(ctx.get()));
  if (!ssl || SSL_set_fd(ssl.get(), fd) != 1) {
    ::close(fd);
    return Status(Errc::Internal, "TLS with " + peer + ": " + sslErrors());
  }
  SSL_set_mode(ssl.get(), SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
  if (server) SSL_set_accept_state(ssl.get());
  else SSL_set_connect_state(ssl.get());
  if (addr && addr->kind == NetAddress::Kind::Tcp) {
    // The name the client dialled is the one the certificate must carry (an IP address is
    // checked against the certificate's IP entries).
    in6_addr ip{};
    bool isIp = inet_pton(AF_INET, addr->host.c_str(), &ip) == 1 || inet_pton(AF_INET6, addr->host.c_str(), &ip) == 1;
    X509_VERIFY_PARAM* param = SSL_get0_param(ssl.get());
    if (isIp) X509_VERIFY_PARAM_set1_ip_asc(param, addr->host.c_str());
    else SSL_set1_host(ssl.get(), addr->host.c_str()), SSL_set_tlsext_host_name(ssl.get(), addr->host.c_str());
  }
  if (Status st = handshake(ssl.get(), fd, peer, timeoutSeconds); !st) {
    ssl.reset();
    ::close(fd);
    return st;
  }
  return std::unique_ptr<ChannelIo>(std::make_unique<TlsIo>(std::move(ssl), fd, peer));
}

Result<SslCtx> serverContext(const TlsServerOptions& opt) {
  SslCtx ctx(SSL_CTX_new(TLS_server_method()));
  if (!ctx) return Status(Errc::Internal, "TLS: " + sslErrors());
  SSL_CTX_set_min_proto_version(ctx.get(), TLS1_2_VERSION);
  if (SSL_CTX_use_certificate_chain_file(ctx.get(), opt.certFile.c_str()) != 1)
    return Status(Errc::InvalidArgument, "--tls-cert " + opt.certFile + ": " + sslErrors());
  if (SSL_CTX_use_PrivateKey_file(ctx.get(), opt.keyFile.c_str(), SSL_FILETYPE_PEM) != 1)
    return Status(Errc::InvalidArgument, "--tls-key " + opt.keyFile + ": " + sslErrors());
  if (SSL_CTX_check_private_key(ctx.get()) != 1)
    return Status(Errc::InvalidArgument, "--tls-key " + opt.keyFile + " is not the key of --tls-cert " + opt.certFile);
  return ctx;
}

}  // namespace

Status checkTlsServerOptions(const TlsServerOptions& opt) { return serverContext(opt).takeStatus(); }

Result<std::unique_ptr<ChannelIo>> tlsAccept(int fd, const TlsServerOptions& opt, const std::string& peerName,
                                             double timeoutSeconds) {
  auto ctx = serverContext(opt);
  if (!ctx) {
    ::close(fd);
    return ctx.takeStatus();
  }
  return finish(std::move(ctx.value()), fd, true, nullptr, peerName, timeoutSeconds);
}

Result<std::unique_ptr<ChannelIo>> tlsConnect(int fd, const NetAddress& addr, const TlsClientOptions& opt,
                                              const std::string& peerName, double timeoutSeconds) {
  SslCtx ctx(SSL_CTX_new(TLS_client_method()));
  if (!ctx) {
    ::close(fd);
    return Status(Errc::Internal, "TLS: " + sslErrors());
  }
  SSL_CTX_set_min_proto_version(ctx.get(), TLS1_2_VERSION);
  if (opt.verify) {
    SSL_CTX_set_verify(ctx.get(), SSL_VERIFY_PEER, nullptr);
    int ok = opt.caFile.empty() ? SSL_CTX_set_default_verify_paths(ctx.get())
                                : SSL_CTX_load_verify_locations(ctx.get(), opt.caFile.c_str(), nullptr);
    if (ok != 1) {
      ::close(fd);
      return Status(Errc::InvalidArgument, "FERRY_REMOTE_TLS_CA " + opt.caFile + ": " + sslErrors());
    }
  }
  return finish(std::move(ctx), fd, false, &addr, peerName, timeoutSeconds);
}

}  // namespace ferry::comm
