#include "comm/channel_transport.h"

#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "comm/baseline_spec.h"
#include "comm/protocol.h"
#include "comm/wire.h"
#include "platform/backoff.h"
#include "platform/clock.h"
#include "platform/config.h"

namespace ferry::comm {

// One direction of a transfer on the channel. A Send stream queues frames that point into
// its buffer; a Recv stream is the destination the reader writes a tag's frames into.
class ChannelStream final : public Stream {
 public:
  ChannelStream(ChannelTransport& t, Dir dir, int peer, int tag, uint8_t* buf, size_t len, size_t chunk)
      : t_(t), dir_(dir), peer_(peer), tag_(tag), buf_(buf), len_(len), chunk_(std::max<size_t>(chunk, 1)),
        ready_(len) {}
  ~ChannelStream() override { cancel(); }

  Result<bool> progress() override {
    std::lock_guard lock(t_.mutex_);
    if (Status st = t_.pumpLocked(); !st) return st;
    return done_ == len_;
  }
  void cancel() override {
    std::lock_guard lock(t_.mutex_);
    if (attached_) t_.detachLocked(this);
    cancelled_ = true;
  }
  size_t bytesDone() const override { return done_; }
  void setReady(size_t bytes) override {
    std::lock_guard lock(t_.mutex_);
    ready_ = std::min(bytes, len_);
    if (attached_) queueMoreLocked();
  }
  Dir direction() const override { return dir_; }
  int peer() const override { return peer_; }

 private:
  friend class ChannelTransport;
  // Send: frames for what is ready and not yet queued.
  void queueMoreLocked() {
    while (queued_ < ready_) {
      size_t n = std::min(chunk_, ready_ - queued_);
      t_.queueChunkLocked(this, tag_, buf_ + queued_, n);
      queued_ += n;
    }
  }

  ChannelTransport& t_;
  Dir dir_;
  int peer_, tag_;
  uint8_t* buf_;  // Recv with nullptr: the bytes are read and dropped
  size_t len_, chunk_, ready_;
  size_t queued_ = 0, done_ = 0;
  bool attached_ = false, cancelled_ = false;
};

class ChannelReceive final : public PostedReceive {
 public:
  ChannelReceive(ChannelTransport& t, int tag, size_t capacity) : t_(t), tag_(tag), capacity_(capacity) {}
  ~ChannelReceive() override {
    std::lock_guard lock(t_.mutex_);
    if (!arrived_) t_.unclaimLocked(tag_, this);
  }
  Result<std::optional<size_t>> test() override {
    std::lock_guard lock(t_.mutex_);
    Status st = arrived_ ? Status() : t_.pumpLocked();
    if (!error_.isOk()) return error_;
    if (arrived_) return std::optional<size_t>{bytes_.size()};
    if (!st) return st;
    return std::optional<size_t>{};
  }
  const uint8_t* data() const override { return bytes_.data(); }

 private:
  friend class ChannelTransport;
  // Under the transport's lock: the frame this receive was waiting for.
  void deliver(std::vector<uint8_t> bytes) {
    arrived_ = true;
    if (bytes.size() > capacity_)
      error_ = Status(Errc::Protocol, t_.peerName_ + " sent " + std::to_string(bytes.size()) + " bytes on tag " +
                                          std::to_string(tag_) + ", where at most " + std::to_string(capacity_) +
                                          " were expected");
    else bytes_ = std::move(bytes);
  }

  ChannelTransport& t_;
  int tag_;
  size_t capacity_;
  bool arrived_ = false;
  std::vector<uint8_t> bytes_;
  Status error_;  // a message too large for the receive: it stays failed
};

// A channel peer is alive while its connection is: a process that dies closes its socket,
// which the next read sees. (A link that drops silently needs TCP keepalive, set where the
// connection is made.)
class ChannelLiveness final : public PeerLiveness {
 public:
  explicit ChannelLiveness(ChannelTransport& t) : t_(t) {}
  Status poll(std::string_view what) override {
    std::lock_guard lock(t_.mutex_);
    Status st = t_.pumpLocked();
    if (st) return st;
    return Status(Errc::Unavailable, st.message() + " while " + t_.selfName_ + " waited for " + std::string(what));
  }
  void heardFrom() override {}

 private:
  ChannelTransport& t_;
};

namespace {

void putFrameHeader(uint8_t* out, int tag, uint64_t len) {
  uint32_t magic = kChannelFrameMagic;
  uint32_t t = static_cast<uint32_t>(tag);
  std::memcpy(out, &magic, 4);  // little-endian: comm/wire.h refuses any other host
  std::memcpy(out + 4, &t, 4);
  std::memcpy(out + 8, &len, 8);
}

}  // namespace

ChannelTransport::ChannelTransport(int fd, int self, std::string selfName, std::string peerName)
    // peerName is copied twice, not moved: the order in which arguments are made is unspecified.
    : ChannelTransport(plainChannelIo(fd, peerName), self, std::move(selfName), peerName) {}

ChannelTransport::ChannelTransport(std::unique_ptr<ChannelIo> io, int self, std::string selfName, std::string peerName)
    : io_(std::move(io)), self_(self), selfName_(std::move(selfName)), peerName_(std::move(peerName)) {}

ChannelTransport::~ChannelTransport() = default;

Status ChannelTransport::fail(Status st) {
  if (broken_.isOk()) broken_ = std::move(st);
  return broken_;
}

Status ChannelTransport::queueLocked(int tag, std::vector<uint8_t> bytes) {
  if (!broken_.isOk()) return broken_;
  if (bytes.size() > kMaxChannelFrame)
    return Status(Errc::InvalidArgument, "a message of " + std::to_string(bytes.size()) + " bytes exceeds a channel frame");
  OutFrame f;
  putFrameHeader(f.header, tag, bytes.size());
  f.owned = std::move(bytes);
  f.data = f.owned.data();
  f.len = f.owned.size();
  out_.push_back(std::move(f));
  return {};
}

void ChannelTransport::queueChunkLocked(ChannelStream* s, int tag, const uint8_t* data, size_t len) {
  OutFrame f;
  putFrameHeader(f.header, tag, len);
  f.data = data;
  f.len = len;
  f.stream = s;
  out_.push_back(std::move(f));
}

Status ChannelTransport::send(int, int tag, std::vector<uint8_t> bytes) {
  std::lock_guard lock(mutex_);
  if (Status st = queueLocked(tag, std::move(bytes)); !st) return st;
  return pumpAfterQueueLocked();  // out at once where the socket takes it: this is every op's latency
}

Status ChannelTransport::sendPair(int, std::vector<uint8_t> bytesA, int, std::vector<uint8_t> bytesB, int tag) {
  std::lock_guard lock(mutex_);
  if (Status st = queueLocked(tag, std::move(bytesA)); !st) return st;
  if (Status st = queueLocked(tag, std::move(bytesB)); !st) return st;
  return pumpAfterQueueLocked();
}

// A send fails by its own write only. The read that follows may find the connection closed
// by a peer that took the message and ended, as a daemon's worker does after Shutdown
// (rank 0 descheduled between its write and that read saw the close first and reported a
// failed shutdown). The channel is broken all the same: the next operation that needs the
// peer reports it.
Status ChannelTransport::pumpAfterQueueLocked() {
  if (!broken_.isOk()) return broken_;
  if (Status st = writeLocked(); !st) return fail(std::move(st));
  if (Status st = readLocked(); !st) (void)fail(std::move(st));
  return {};
}

Status ChannelTransport::reap() {
  std::lock_guard lock(mutex_);
  return pumpLocked();
}

size_t ChannelTransport::pendingSends() {
  std::lock_guard lock(mutex_);
  return out_.size();
}

Status ChannelTransport::pumpLocked() {
  if (!broken_.isOk()) return broken_;
  if (Status st = writeLocked(); !st) return fail(std::move(st));
  if (Status st = readLocked(); !st) return fail(std::move(st));
  return {};
}

Status ChannelTransport::writeLocked() {
  while (!out_.empty()) {
    OutFrame& f = out_.front();
    iovec iov[2];
    int n = 0;
    if (f.written < kChannelFrameHeader) iov[n++] = {f.header + f.written, kChannelFrameHeader - f.written};
    size_t dataDone = f.written > kChannelFrameHeader ? f.written - kChannelFrameHeader : 0;
    if (f.len > dataDone) iov[n++] = {const_cast<uint8_t*>(f.data) + dataDone, f.len - dataDone};
    auto w = n ? io_->write(iov, n) : Result<size_t>(size_t{0});
    if (!w) return w.takeStatus();
    if (*w == 0 && n) return {};  // the socket is full
    f.written += *w;
    if (f.written < kChannelFrameHeader + f.len) return {};  // the socket is full
    if (f.stream) f.stream->done_ += f.len;
    out_.pop_front();
  }
  return {};
}

Status ChannelTransport::readLocked() {
  while (true) {
    uint8_t* at;
    size_t want;
    if (in_.headerGot < kChannelFrameHeader) {
      at = in_.header + in_.headerGot;
      want = kChannelFrameHeader - in_.headerGot;
    } else {
      at = (in_.dst ? in_.dst : in_.owned.data()) + in_.got;
      want = in_.len - in_.got;
    }
    auto got = want ? io_->read(at, want) : Result<size_t>(size_t{0});
    if (!got) return got.takeStatus();
    if (*got == 0 && want) return {};  // nothing more has arrived
    size_t r = *got;
    if (in_.headerGot < kChannelFrameHeader) {
      in_.headerGot += r;
      if (in_.headerGot == kChannelFrameHeader)
        if (Status st = startFrameLocked(); !st) return st;
    } else {
      in_.got += r;
    }
    if (in_.headerGot == kChannelFrameHeader && in_.got == in_.len && !finishFrameLocked()) return {};
  }
}

// A frame header has arrived: checks it and chooses where the bytes go.
Status ChannelTransport::startFrameLocked() {
  uint32_t magic = 0, tag = 0;
  std::memcpy(&magic, in_.header, 4);
  std::memcpy(&tag, in_.header + 4, 4);
  std::memcpy(&in_.len, in_.header + 8, 8);
  if (magic != kChannelFrameMagic)
    return Status(Errc::Protocol, peerName_ + " sent something that is no Ferry channel frame; closing the connection");
  if (in_.len > kMaxChannelFrame)
    return Status(Errc::Protocol, peerName_ + " sent a frame of " + std::to_string(in_.len) + " bytes, more than " +
                                      std::to_string(kMaxChannelFrame) + "; closing the connection");
  in_.tag = static_cast<int>(tag);
  in_.got = 0;
  in_.dst = nullptr;
  in_.direct = nullptr;
  auto it = claims_.find(in_.tag);
  ChannelStream* s = it != claims_.end() ? it->second.front().stream : nullptr;
  if (s && s->done_ + in_.len > s->len_)
    return Status(Errc::Protocol, peerName_ + " sent more bytes on tag " + std::to_string(in_.tag) +
                                      " than the transfer on it holds");
  if (s && s->buf_) {  // straight into place
    in_.direct = s;
    in_.dst = s->buf_ + s->done_;
  } else {
    in_.owned.resize(in_.len);
  }
  return {};
}

// A whole frame is in: it goes to the oldest claim on its tag, or waits for one. Returns
// false for a frame nobody claimed: the reader stops there, so that the caller acts on it (a
// server starts the op that a control message asks for, and opens its stream) before the
// chunks behind it are read, which then go straight into place instead of being kept.
bool ChannelTransport::finishFrameLocked() {
  auto it = claims_.find(in_.tag);
  bool claimed = it != claims_.end();
  if (!claimed) {
    arrived_[in_.tag].push_back(std::move(in_.owned));
  } else if (ChannelReceive* r = it->second.front().receive) {
    it->second.pop_front();
    r->deliver(std::move(in_.owned));
  } else {
    ChannelStream* s = it->second.front().stream;
    if (!in_.direct && s->buf_) std::memcpy(s->buf_ + s->done_, in_.owned.data(), in_.len);  // began unclaimed
    s->done_ += in_.len;  // in place, copied, or dropped (a discarding stream)
    if (s->done_ == s->len_) it->second.pop_front();
  }
  if (it != claims_.end() && it->second.empty()) claims_.erase(it);
  in_.owned = {};
  in_.headerGot = 0;
  in_.got = in_.len = 0;
  in_.dst = nullptr;
  in_.direct = nullptr;
  return claimed;
}

std::optional<std::vector<uint8_t>> ChannelTransport::popLocked(int tag) {
  auto it = arrived_.find(tag);
  if (it == arrived_.end() || it->second.empty()) return std::nullopt;
  std::vector<uint8_t> bytes = std::move(it->second.front());
  it->second.pop_front();
  if (it->second.empty()) arrived_.erase(it);
  return bytes;
}

void ChannelTransport::claimLocked(ChannelReceive* r) {
  if (!claims_.count(r->tag_))
    if (auto early = popLocked(r->tag_)) return r->deliver(std::move(*early));
  claims_[r->tag_].push_back({r, nullptr});
}

// A Send stream queues its frames; a Recv stream first takes the chunks that arrived before
// anyone claimed them, then waits in its tag's queue.
void ChannelTransport::attachLocked(ChannelStream* s) {
  s->attached_ = true;
  if (s->dir_ == Stream::Dir::Send) return s->queueMoreLocked();
  while (s->done_ < s->len_ && !claims_.count(s->tag_)) {
    auto early = popLocked(s->tag_);
    if (!early) break;
    size_t n = std::min(early->size(), s->len_ - s->done_);
    if (s->buf_) std::memcpy(s->buf_ + s->done_, early->data(), n);
    s->done_ += n;
  }
  if (s->done_ < s->len_) claims_[s->tag_].push_back({nullptr, s});
  else s->attached_ = false;
}

void ChannelTransport::unclaimLocked(int tag, const void* claimant) {
  auto it = claims_.find(tag);
  if (it == claims_.end()) return;
  std::erase_if(it->second, [&](const ChannelClaim& c) { return c.receive == claimant || c.stream == claimant; });
  if (it->second.empty()) claims_.erase(it);
}

// A stream that goes before its bytes did: its queued frames are withdrawn (one already half
// written is finished from a copy, since the peer reads frames whole), and the frame being
// read into it is finished into a buffer of the reader's.
void ChannelTransport::detachLocked(ChannelStream* s) {
  s->attached_ = false;
  for (auto it = out_.begin(); it != out_.end();) {
    if (it->stream != s) {
      ++it;
    } else if (it->written == 0) {
      it = out_.erase(it);
    } else {
      it->owned.assign(it->data, it->data + it->len);
      it->data = it->owned.data();
      it->stream = nullptr;
      ++it;
    }
  }
  if (in_.direct == s) {
    in_.owned.resize(in_.len);
    std::memcpy(in_.owned.data(), in_.dst, in_.got);
    in_.dst = nullptr;
    in_.direct = nullptr;
  }
  unclaimLocked(s->tag_, s);
}

Result<std::optional<Incoming>> ChannelTransport::poll() {
  std::lock_guard lock(mutex_);
  Status st = pumpLocked();
  auto msg = popLocked(kControlTag);
  if (!msg) {
    if (!st) return st;
    return std::optional<Incoming>{};
  }
  int slot = nextSlot_++;
  auto& held = held_[slot] = std::move(*msg);
  return std::optional<Incoming>{Incoming{1 - self_, held.data(), held.size(), slot}};
}

Status ChannelTransport::release(const Incoming& msg) {
  std::lock_guard lock(mutex_);
  held_.erase(msg.slot);
  return {};
}

Result<std::unique_ptr<PostedReceive>> ChannelTransport::expect(int, int tag, size_t capacity) {
  auto r = std::make_unique<ChannelReceive>(*this, tag, capacity);
  std::lock_guard lock(mutex_);
  claimLocked(r.get());
  return std::unique_ptr<PostedReceive>(std::move(r));
}

Result<std::optional<std::vector<uint8_t>>> ChannelTransport::take(int, int tag) {
  std::lock_guard lock(mutex_);
  Status st = pumpLocked();
  if (auto msg = popLocked(tag)) return std::optional<std::vector<uint8_t>>{std::move(*msg)};
  if (!st) return st;
  return std::optional<std::vector<uint8_t>>{};
}

std::unique_ptr<Stream> ChannelTransport::openStream(Stream::Dir dir, int peer, int tag, void* buf, size_t len,
                                                     size_t chunk, int) {
  auto s = std::make_unique<ChannelStream>(*this, dir, peer, tag, static_cast<uint8_t*>(buf), len, chunk);
  std::lock_guard lock(mutex_);
  attachLocked(s.get());
  return s;
}

std::unique_ptr<PeerLiveness> ChannelTransport::watch(int, TagPool&) {
  return std::make_unique<ChannelLiveness>(*this);
}

// Waits for `done` (checked under the lock after each pump) for at most FERRY_TIMEOUT.
Status ChannelTransport::blockUntil(const char* what, const std::function<bool()>& done) {
  const uint64_t deadline = nowNs() + static_cast<uint64_t>(config().seconds(Knob::Timeout) * 1e9);
  Backoff backoff;  // spins first, as every wait does: a baseline must not time sleeps
  while (true) {
    {
      std::lock_guard lock(mutex_);
      Status st = pumpLocked();
      if (done()) return {};
      if (!st) return st;
    }
    if (nowNs() > deadline)
      return Status(Errc::Timeout, peerName_ + " did not answer within FERRY_TIMEOUT while " + selfName_ + " waited for " +
                                       what);
    backoff.idle();
  }
}

// A bandwidth window moves as streams, as a transfer's chunks do: framed, written from the
// sender's buffer and read into the receiver's without a copy. (Messages are copied into
// vectors at both ends, which is not the channel's limit.)
Status ChannelTransport::baselineWindow(bool send, std::vector<uint8_t>& buf, uint32_t count) {
  const size_t chunk = std::min<size_t>(std::max<size_t>(buf.size(), 1), config().size(Knob::ChunkSize));
  std::vector<std::unique_ptr<Stream>> window;
  for (uint32_t k = 0; k < count; ++k)
    window.push_back(openStream(send ? Stream::Dir::Send : Stream::Dir::Recv, 1 - self_, kBaselineTag, buf.data(),
                                buf.size(), chunk, 0));
  const uint64_t deadline = nowNs() + static_cast<uint64_t>(config().seconds(Knob::Timeout) * 1e9);
  Backoff backoff;
  while (true) {
    size_t done = 0;
    for (auto& s : window) {
      auto r = s->progress();
      if (!r) return r.takeStatus();
      done += *r ? 1 : 0;
    }
    if (done == window.size()) return {};
    if (nowNs() > deadline)
      return Status(Errc::Timeout, peerName_ + " did not answer within FERRY_TIMEOUT while " + selfName_ +
                                       " waited for a baseline window");
    backoff.idle();
  }
}

// The channel's own figures: OSU-style ping-pong of messages, or a window of `window`
// streamed messages and an acknowledgement per iteration, on kBaselineTag.
Result<double> ChannelTransport::baseline(int, bool initiator, const BaselineSpec& spec) {
  std::vector<uint8_t> payload(spec.bytes, 0x5a);
  const std::vector<uint8_t> ack(4, 0);
  auto receiveOne = [&]() -> Status {
    return blockUntil("a baseline message", [&] { return popLocked(kBaselineTag).has_value(); });
  };
  const bool pingPong = spec.kind == BaselineKind::PingPong;
  uint64_t start = nowNs();
  for (uint32_t i = 0; i < spec.warmup + spec.iters; ++i) {
    if (i == spec.warmup) start = nowNs();
    // Ping-pong: the initiator sends and waits for the echo. Bandwidth: the initiator streams
    // a window and waits for the acknowledgement.
    Status st = pingPong ? (initiator ? send(0, kBaselineTag, payload) : receiveOne())
                         : baselineWindow(initiator, payload, spec.window);
    if (st) st = initiator ? receiveOne() : send(0, kBaselineTag, pingPong ? payload : ack);
    if (!st) return st;
  }
  double seconds = static_cast<double>(nowNs() - start) * 1e-9;
  if (Status st = blockUntil("the baseline's last sends", [&] { return out_.empty(); }); !st) return st;
  return initiator ? seconds : 0.0;
}

}  // namespace ferry::comm
