// The issuer's transport in a job with device daemons (issue 28): peers 0..N-1 are the MPI
// ranks, reached through `ranks`; peer N+k is daemon k, reached through its channel, where
// it is peer 1. Everything else is passed through to the transport that reaches the peer.
#pragma once

#include <memory>
#include <vector>

#include "comm/transport.h"

namespace ferry::comm {

class RoutedTransport final : public Transport {
 public:
  RoutedTransport(std::unique_ptr<Transport> ranks, std::vector<std::unique_ptr<Transport>> daemons);

  int self() const override { return ranks_->self(); }
  int size() const override { return ranks_->size() + static_cast<int>(daemons_.size()); }
  std::string where() const override { return ranks_->where(); }
  Path pathTo(int peer) const override { return isDaemon(peer) ? Path::Mpi : ranks_->pathTo(peer); }
  // Between a daemon and anyone else there is no direct path: the client stages such copies.
  Path pathBetween(int a, int b) const override {
    return isDaemon(a) || isDaemon(b) ? Path::Mpi : ranks_->pathBetween(a, b);
  }
  pid_t pidOf(int peer) const override { return isDaemon(peer) ? 0 : ranks_->pidOf(peer); }
  int tagUpperBound() const override { return ranks_->tagUpperBound(); }
  bool isDaemon(int peer) const { return peer >= ranks_->size(); }

  Status send(int peer, int tag, std::vector<uint8_t> bytes) override;
  Status sendPair(int peerA, std::vector<uint8_t> bytesA, int peerB, std::vector<uint8_t> bytesB, int tag) override;
  Status reap() override;
  size_t pendingSends() override;

  Result<std::optional<Incoming>> poll() override { return ranks_->poll(); }
  Status release(const Incoming& msg) override { return ranks_->release(msg); }
  void stopReceiving() override { ranks_->stopReceiving(); }

  Result<std::unique_ptr<PostedReceive>> expect(int peer, int tag, size_t capacity) override;
  Result<std::optional<std::vector<uint8_t>>> take(int peer, int tag) override;
  std::unique_ptr<Stream> openStream(Stream::Dir dir, int peer, int tag, void* buf, size_t len, size_t chunk,
                                     int depth) override;
  std::unique_ptr<PeerLiveness> watch(int peer, TagPool& tags) override;
  Result<double> baseline(int peer, bool initiator, const BaselineSpec& spec) override;

 private:
  // The transport that reaches `peer`, and the peer's number there.
  std::pair<Transport*, int> route(int peer) const;

  std::unique_ptr<Transport> ranks_;
  std::vector<std::unique_ptr<Transport>> daemons_;
};

}  // namespace ferry::comm
