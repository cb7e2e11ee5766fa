// The channel Transport (transport.h): one connected stream socket (TCP, or a Unix socket on
// the same machine) between an issuer and a server that is no MPI rank, such as a device
// daemon on a co-processor (issue 28). It needs no MPI.
//
// The two ends are peers 0 (the issuer) and 1 (the server). Every message travels as a frame:
// a 16-byte header (magic "FRCH", tag, length; little-endian like the wire) and the bytes.
// Frames of one tag arrive in the order they were sent, and go to the receives and receiving
// streams of that tag in the order those were posted, as MPI matches messages: a retrieve's
// reply reaches the reply's receive and the chunks after it reach the stream opened after
// it, on the same tag. So the service and its client run unchanged. Large transfers are frames written straight from the sender's buffer
// and read straight into the receiver's (no whole-message copy) once the receiving Stream is
// open; chunks that arrive before it are kept until it opens.
//
// All I/O is non-blocking and happens inside the calls (poll, test, progress, reap), as MPI
// progresses inside its calls. A connection that fails or closes fails every later call with
// the peer's name; a wait notices it through watch().
#pragma once

#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "comm/channel_io.h"
#include "comm/transport.h"

namespace ferry::comm {

inline constexpr uint32_t kChannelFrameMagic = 0x48435246;  // "FRCH" little-endian
inline constexpr size_t kChannelFrameHeader = 16;
// The largest frame a channel accepts: a control message or one chunk of a transfer.
inline constexpr uint64_t kMaxChannelFrame = 64ull << 20;

class ChannelStream;
class ChannelReceive;

// What a tag's next frame goes to: a posted receive (one frame) or a receiving stream (frames
// until its length is in).
struct ChannelClaim {
  ChannelReceive* receive = nullptr;
  ChannelStream* stream = nullptr;
};

class ChannelTransport final : public Transport {
 public:
  // `fd`: a connected stream socket, owned from now on. `self`: 0 (issuer) or 1 (server).
  // `selfName` and `peerName` name the two ends in errors ("daemon 127.0.0.1:7010").
  ChannelTransport(int fd, int self, std::string selfName, std::string peerName);
  // The same over another byte pipe (TLS: comm/channel_tls.h).
  ChannelTransport(std::unique_ptr<ChannelIo> io, int self, std::string selfName, std::string peerName);
  ~ChannelTransport() override;

  int self() const override { return self_; }
  int size() const override { return 2; }
  std::string where() const override { return selfName_; }
  Path pathTo(int peer) const override { return peer == self_ ? Path::Self : Path::Mpi; }
  Path pathBetween(int, int) const override { return Path::Mpi; }
  pid_t pidOf(int) const override { return 0; }
  int tagUpperBound() const override { return 1 << 30; }

  Status send(int peer, int tag, std::vector<uint8_t> bytes) override;
  Status sendPair(int peerA, std::vector<uint8_t> bytesA, int peerB, std::vector<uint8_t> bytesB, int tag) override;
  Status reap() override;
  size_t pendingSends() override;

  Result<std::optional<Incoming>> poll() override;
  Status release(const Incoming& msg) override;
  void stopReceiving() override {}

  Result<std::unique_ptr<PostedReceive>> expect(int peer, int tag, size_t capacity) override;
  Result<std::optional<std::vector<uint8_t>>> take(int peer, int tag) override;

  std::unique_ptr<Stream> openStream(Stream::Dir dir, int peer, int tag, void* buf, size_t len, size_t chunk,
                                     int depth) override;
  std::unique_ptr<PeerLiveness> watch(int peer, TagPool& tags) override;
  Result<double> baseline(int peer, bool initiator, const BaselineSpec& spec) override;

 private:
  friend class ChannelStream;
  friend class ChannelReceive;
  friend class ChannelLiveness;

  struct OutFrame {
    uint8_t header[kChannelFrameHeader];
    std::vector<uint8_t> owned;      // the bytes, when the frame owns them
    const uint8_t* data = nullptr;   // else the sender's buffer (a stream's chunk)
    size_t len = 0;
    size_t written = 0;              // of header and bytes together
    ChannelStream* stream = nullptr; // told when the frame is out
  };
  // What the reader is filling: a frame header, then its bytes into a stream's buffer or a
  // buffer of its own.
  struct Reading {
    uint8_t header[kChannelFrameHeader];
    size_t headerGot = 0;
    int tag = 0;
    uint64_t len = 0, got = 0;
    uint8_t* dst = nullptr;         // nullptr: into `owned`
    ChannelStream* direct = nullptr;  // the stream `dst` points into
    std::vector<uint8_t> owned;
  };

  Status queueLocked(int tag, std::vector<uint8_t> bytes);
  void queueChunkLocked(ChannelStream* s, int tag, const uint8_t* data, size_t len);
  // Writes what the socket takes and reads what has arrived; never blocks.
  Status pumpLocked();
  Status pumpAfterQueueLocked();
  Status writeLocked();
  Status readLocked();
  Status startFrameLocked();
  bool finishFrameLocked();
  Status fail(Status st);
  std::optional<std::vector<uint8_t>> popLocked(int tag);
  // Takes the frames that arrived before anyone claimed them, then waits in the tag's queue.
  void claimLocked(ChannelReceive* r);
  void attachLocked(ChannelStream* s);
  void unclaimLocked(int tag, const void* claimant);
  void detachLocked(ChannelStream* s);
  Status blockUntil(const char* what, const std::function<bool()>& done);
  Status baselineWindow(bool send, std::vector<uint8_t>& buf, uint32_t count);

  std::mutex mutex_;
  std::unique_ptr<ChannelIo> io_;
  int self_;
  std::string selfName_, peerName_;
  std::deque<OutFrame> out_;
  Reading in_;
  std::map<int, std::deque<std::vector<uint8_t>>> arrived_;  // per tag, in order
  std::map<int, std::deque<ChannelClaim>> claims_;            // per tag, in posting order
  std::map<int, std::vector<uint8_t>> held_;                  // polled control messages, by slot
  int nextSlot_ = 0;
  Status broken_;  // the first failure of the connection
};

}  // namespace ferry::comm
