// The MPI Transport (transport.h): peers are the ranks of Ferry's communicator (world.h).
// Control messages go out through an Outbox, a server's arrive in an Inbox of pre-posted
// receives, replies land in receives posted before their request is sent, large transfers
// are MpiPipes and liveness is the PeerWatch probe protocol (liveness.h).
#pragma once

#include <memory>

#include "comm/mailbox.h"
#include "comm/transport.h"
#include "comm/world.h"

namespace ferry::comm {

class MpiTransport final : public Transport {
 public:
  // A server pre-posts the receives of its control messages; an issuer has none.
  enum class Role : uint8_t { Issuer, Server };
  MpiTransport(World& world, Role role);
  ~MpiTransport() override;
  // For what exists only over MPI (unified shared memory's page link, `ferry doctor`).
  World& world() const { return world_; }

  int self() const override { return world_.rank(); }
  int size() const override { return world_.size(); }
  std::string where() const override;
  Path pathTo(int peer) const override { return world_.pathTo(peer); }
  Path pathBetween(int a, int b) const override { return world_.pathBetween(a, b); }
  pid_t pidOf(int peer) const override { return world_.peer(peer).pid; }
  int tagUpperBound() const override { return world_.tagUpperBound(); }

  Status send(int peer, int tag, std::vector<uint8_t> bytes) override { return outbox_.send(peer, tag, std::move(bytes)); }
  Status sendPair(int peerA, std::vector<uint8_t> bytesA, int peerB, std::vector<uint8_t> bytesB, int tag) override {
    return outbox_.sendPair(peerA, std::move(bytesA), peerB, std::move(bytesB), tag);
  }
  Status reap() override { return outbox_.reap(); }
  size_t pendingSends() override { return outbox_.pending(); }

  Result<std::optional<Incoming>> poll() override;
  Status release(const Incoming& msg) override;
  void stopReceiving() override;

  Result<std::unique_ptr<PostedReceive>> expect(int peer, int tag, size_t capacity) override;
  Result<std::optional<std::vector<uint8_t>>> take(int peer, int tag) override;

  std::unique_ptr<Stream> openStream(Stream::Dir dir, int peer, int tag, void* buf, size_t len, size_t chunk,
                                     int depth) override;
  std::unique_ptr<PeerLiveness> watch(int peer, TagPool& tags) override;
  Result<double> baseline(int peer, bool initiator, const BaselineSpec& spec) override;

 private:
  World& world_;
  Outbox outbox_;
  std::unique_ptr<Inbox> inbox_;  // Server role only
};

}  // namespace ferry::comm
