#include "comm/routed_transport.h"

namespace ferry::comm {

namespace {
constexpr int kDaemonPeer = 1;  // a daemon is the server end of its channel
}

RoutedTransport::RoutedTransport(std::unique_ptr<Transport> ranks, std::vector<std::unique_ptr<Transport>> daemons)
    : ranks_(std::move(ranks)), daemons_(std::move(daemons)) {}

std::pair<Transport*, int> RoutedTransport::route(int peer) const {
  if (!isDaemon(peer)) return {ranks_.get(), peer};
  return {daemons_[static_cast<size_t>(peer - ranks_->size())].get(), kDaemonPeer};
}

Status RoutedTransport::send(int peer, int tag, std::vector<uint8_t> bytes) {
  auto [t, p] = route(peer);
  return t->send(p, tag, std::move(bytes));
}

Status RoutedTransport::sendPair(int peerA, std::vector<uint8_t> bytesA, int peerB, std::vector<uint8_t> bytesB,
                                 int tag) {
  auto [ta, pa] = route(peerA);
  auto [tb, pb] = route(peerB);
  if (ta == tb) return ta->sendPair(pa, std::move(bytesA), pb, std::move(bytesB), tag);
  // Two transports: no third peer can see the pair's order, so two sends keep its meaning.
  if (Status st = ta->send(pa, tag, std::move(bytesA)); !st) return st;
  return tb->send(pb, tag, std::move(bytesB));
}

Status RoutedTransport::reap() {
  Status first = ranks_->reap();
  for (auto& d : daemons_)
    if (Status st = d->reap(); !st && first.isOk()) first = st;
  return first;
}

size_t RoutedTransport::pendingSends() {
  size_t n = ranks_->pendingSends();
  for (auto& d : daemons_) n += d->pendingSends();
  return n;
}

Result<std::unique_ptr<PostedReceive>> RoutedTransport::expect(int peer, int tag, size_t capacity) {
  auto [t, p] = route(peer);
  return t->expect(p, tag, capacity);
}

Result<std::optional<std::vector<uint8_t>>> RoutedTransport::take(int peer, int tag) {
  auto [t, p] = route(peer);
  return t->take(p, tag);
}

std::unique_ptr<Stream> RoutedTransport::openStream(Stream::Dir dir, int peer, int tag, void* buf, size_t len,
                                                    size_t chunk, int depth) {
  auto [t, p] = route(peer);
  return t->openStream(dir, p, tag, buf, len, chunk, depth);
}

std::unique_ptr<PeerLiveness> RoutedTransport::watch(int peer, TagPool& tags) {
  auto [t, p] = route(peer);
  return t->watch(p, tags);
}

Result<double> RoutedTransport::baseline(int peer, bool initiator, const BaselineSpec& spec) {
  auto [t, p] = route(peer);
  return t->baseline(p, initiator, spec);
}

}  // namespace ferry::comm
