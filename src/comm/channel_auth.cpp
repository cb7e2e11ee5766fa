#include "comm/channel_auth.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "comm/protocol.h"
#include "platform/backoff.h"
#include "platform/clock.h"
#include "platform/files.h"

namespace ferry::comm {
namespace {

using Nonce = std::array<uint8_t, kNonceBytes>;
using Mac = std::array<uint8_t, kMacBytes>;

Result<Nonce> freshNonce() {
  Nonce n{};
  if (RAND_bytes(n.data(), static_cast<int>(n.size())) != 1)
    return Status(Errc::Internal, "OpenSSL could not produce random bytes for the channel handshake");
  return n;
}

// HMAC-SHA256(token, label | first | second).
Mac proof(const ChannelToken& token, const char* label, const Nonce& first, const Nonce& second) {
  std::vector<uint8_t> data(label, label + std::strlen(label));
  data.insert(data.end(), first.begin(), first.end());
  data.insert(data.end(), second.begin(), second.end());
  Mac mac{};
  unsigned int len = 0;
  HMAC(EVP_sha256(), token.secret.data(), static_cast<int>(token.secret.size()), data.data(), data.size(), mac.data(),
       &len);
  return mac;
}

bool sameMac(const Mac& a, const Mac& b) { return CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0; }

// The next handshake message, of type `want`, within the deadline.
Result<Message> awaitStep(ChannelTransport& t, MsgType want, uint64_t deadlineNs, std::vector<uint8_t>& storage) {
  auto recv = t.expect(1 - t.self(), kHandshakeTag, kHeaderSize + 2 * kMacBytes + kMaxAnnouncement + 64);
  if (!recv) return recv.takeStatus();
  Backoff backoff(0);
  while (true) {
    auto n = (*recv)->test();
    if (!n) return n.takeStatus();
    if (n->has_value()) {
      storage.assign((*recv)->data(), (*recv)->data() + **n);
      auto msg = decode(storage.data(), storage.size());
      if (!msg) return msg.takeStatus();
      if (msg->header.type != want)
        return Status(Errc::Protocol, std::string("expected ") + msgTypeName(want) + ", got " +
                                          msgTypeName(msg->header.type));
      return msg;
    }
    if (nowNs() > deadlineNs)
      return Status(Errc::Timeout, std::string("no ") + msgTypeName(want) + " within the handshake's time (FERRY_TIMEOUT)" +
                                       (want == MsgType::Challenge ? ": is the daemon started with --tls-cert? Then "
                                                                     "set FERRY_REMOTE_TLS=1"
                                                                   : ""));
    backoff.idle();
  }
}

uint64_t deadline(double seconds) { return nowNs() + static_cast<uint64_t>(seconds * 1e9); }

Status sendStep(ChannelTransport& t, MsgType type, const Body& body) {
  return t.send(1 - t.self(), kHandshakeTag, encode(type, kNoDevice, 0, body));
}

}  // namespace

Result<ChannelToken> readTokenFile(const std::string& path) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0)
    return Status(Errc::InvalidArgument, "token file " + path + ": " + std::strerror(errno));
  if (st.st_mode & (S_IRWXG | S_IRWXO)) {
    char mode[8];
    std::snprintf(mode, sizeof mode, "%03o", static_cast<unsigned>(st.st_mode & 0777));
    return Status(Errc::InvalidArgument, "token file " + path + " may be read by others (mode " + mode +
                                             "); anyone who reads it can run code on the daemon: chmod 600 " + path);
  }
  std::string text;
  if (Status read = readTextFile(path, text); !read) return read.withContext("token file");
  std::vector<uint8_t> secret(text.begin(), text.end());
  while (!secret.empty() && (secret.back() == '\n' || secret.back() == '\r' || secret.back() == ' ')) secret.pop_back();
  if (secret.size() < 16)
    return Status(Errc::InvalidArgument, "token file " + path + " holds " + std::to_string(secret.size()) +
                                             " bytes; a token needs at least 16 (for example: openssl rand -hex 32 > " +
                                             path + ")");
  return ChannelToken{std::move(secret), path};
}

Status authenticateClient(ChannelTransport& t, const ChannelToken& token, const std::vector<uint8_t>& announcement,
                          double timeoutSeconds) {
  if (announcement.size() > kMaxAnnouncement) return Status(Errc::Internal, "the announcement is too large");
  const uint64_t until = deadline(timeoutSeconds);
  auto serverNonce = freshNonce();
  if (!serverNonce) return serverNonce.takeStatus();
  if (Status st = sendStep(t, MsgType::Challenge, ChallengeMsg{*serverNonce}); !st) return st;
  std::vector<uint8_t> storage;
  auto msg = awaitStep(t, MsgType::Response, until, storage);
  if (!msg) return msg.takeStatus().withContext("authenticating the client");
  const auto& response = std::get<ResponseMsg>(msg->body);
  if (!sameMac(response.mac, proof(token, "ferry client", *serverNonce, response.nonce)))
    return Status(Errc::PermissionDenied, "the client does not hold this daemon's token");
  WelcomeMsg welcome;
  welcome.mac = proof(token, "ferry server", response.nonce, *serverNonce);
  welcome.announcement = announcement.data();
  welcome.len = announcement.size();
  return sendStep(t, MsgType::Welcome, welcome);
}

Result<std::vector<uint8_t>> authenticateServer(ChannelTransport& t, const ChannelToken& token,
                                                double timeoutSeconds) {
  const uint64_t until = deadline(timeoutSeconds);
  std::vector<uint8_t> storage;
  auto challenge = awaitStep(t, MsgType::Challenge, until, storage);
  if (!challenge) return challenge.takeStatus().withContext("authenticating the daemon");
  const Nonce serverNonce = std::get<ChallengeMsg>(challenge->body).nonce;
  auto clientNonce = freshNonce();
  if (!clientNonce) return clientNonce.takeStatus();
  if (Status st = sendStep(t, MsgType::Response, ResponseMsg{*clientNonce, proof(token, "ferry client", serverNonce,
                                                                                     *clientNonce)});
      !st)
    return st;
  auto welcome = awaitStep(t, MsgType::Welcome, until, storage);
  if (!welcome) return welcome.takeStatus().withContext("authenticating the daemon (is the token the daemon's?)");
  const auto& w = std::get<WelcomeMsg>(welcome->body);
  if (!sameMac(w.mac, proof(token, "ferry server", *clientNonce, serverNonce)))
    return Status(Errc::PermissionDenied, "the daemon could not prove it holds the token: it is not the daemon "
                                          "the token belongs to");
  return std::vector<uint8_t>(w.announcement, w.announcement + w.len);
}

}  // namespace ferry::comm
