// The seam between the device service (and its client) and the wire: how control messages,
// replies, large transfers and liveness probes travel between an issuer and a server. The
// service and the offload client see only this interface; MPI is one implementation
// (mpi_transport.h), and a channel to a daemon that is no MPI rank is another. Nothing in
// this header needs MPI, so code that uses only it builds without MPI.
//
// Peers are numbered 0..size()-1 (MPI: ranks). Messages are matched by (peer, tag): every
// message from one peer on one tag arrives in the order it was sent (MPI's non-overtaking
// rule; a byte stream keeps it trivially). Control messages to a server use kControlTag;
// replies and data use tags the issuer draws from a TagPool (tag_pool.h).
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "comm/baseline_spec.h"
#include "platform/status.h"

namespace ferry::comm {

class TagPool;        // tag_pool.h

// How bytes reach a peer, chosen per pair of peers from where the peer lives.
enum class Path : uint8_t {
  Self,  // same process: memcpy
  Cma,   // same node: single-copy process_vm_readv/writev
  Mpi,   // another node, or CMA unusable: chunked, pipelined messages on the transport
};
const char* pathName(Path p);

// One control message that has arrived at a server. Valid until Transport::release().
struct Incoming {
  int source = -1;
  const uint8_t* data = nullptr;
  size_t len = 0;
  int slot = -1;
};

// One direction of a large transfer, cut into chunks with several in flight, so that the
// wire, the copy into place and (on staging devices) the device copy overlap.
class Stream {
 public:
  enum class Dir : uint8_t { Send, Recv };
  virtual ~Stream() = default;
  // Moves what it can without blocking. True once every byte has moved.
  virtual Result<bool> progress() = 0;
  // Gives up what is still posted (the other side reported an error).
  virtual void cancel() = 0;
  virtual size_t bytesDone() const = 0;
  // A Send stream sends only bytes below `bytes` (default: all), so that a staged sender
  // can fill its buffer while earlier chunks travel.
  virtual void setReady(size_t bytes) = 0;
  virtual Dir direction() const = 0;
  virtual int peer() const = 0;
};

// A receive posted for one message (a reply) before the request that causes it is sent.
// Destroyed before its message arrived, it is withdrawn.
class PostedReceive {
 public:
  virtual ~PostedReceive() = default;
  // The message's length once it has arrived; nothing while it has not.
  virtual Result<std::optional<size_t>> test() = 0;
  virtual const uint8_t* data() const = 0;
};

// The liveness of one peer, as a wait loop sees it: poll() from the loop fails once the
// peer has been silent for the fault-detection timeout (FERRY_TIMEOUT).
class PeerLiveness {
 public:
  virtual ~PeerLiveness() = default;
  // `what` names the wait, for the error message.
  virtual Status poll(std::string_view what) = 0;
  // Anything heard from the peer counts as a sign of life.
  virtual void heardFrom() = 0;
};

class Transport {
 public:
  virtual ~Transport() = default;

  // Who is where.
  virtual int self() const = 0;
  virtual int size() const = 0;
  // "rank 2 on host node17", for messages that say where something failed.
  virtual std::string where() const = 0;
  virtual Path pathTo(int peer) const = 0;
  // The path between two other peers (a device-to-device copy the issuer arranges).
  virtual Path pathBetween(int a, int b) const = 0;
  // The process id of a peer that pathTo() reaches by Cma.
  virtual pid_t pidOf(int peer) const = 0;
  // The largest tag (TagPool::setUpperBound).
  virtual int tagUpperBound() const = 0;

  // Control messages, sent without waiting: each buffer lives until the transport is done.
  virtual Status send(int peer, int tag, std::vector<uint8_t> bytes) = 0;
  // Two sends that no other send of this transport comes between, from any thread.
  virtual Status sendPair(int peerA, std::vector<uint8_t> bytesA, int peerB, std::vector<uint8_t> bytesB,
                          int tag) = 0;
  // Frees the buffers of completed sends; cheap, for progress loops.
  virtual Status reap() = 0;
  virtual size_t pendingSends() = 0;

  // A server's side: control messages (kControlTag) in the order each peer sent them.
  virtual Result<std::optional<Incoming>> poll() = 0;
  virtual Status release(const Incoming& msg) = 0;
  // Stops receiving control messages (at shutdown: nothing may stay posted after it).
  virtual void stopReceiving() = 0;

  // An issuer's side: a receive for one message of at most `capacity` bytes.
  virtual Result<std::unique_ptr<PostedReceive>> expect(int peer, int tag, size_t capacity) = 0;
  // A message from `peer` on `tag` that no receive was posted for (device output), if one
  // has arrived.
  virtual Result<std::optional<std::vector<uint8_t>>> take(int peer, int tag) = 0;

  // A large transfer. A Recv stream with buf == nullptr discards the bytes, so that a side
  // whose device failed still takes what its peer sends and the peer does not hang.
  virtual std::unique_ptr<Stream> openStream(Stream::Dir dir, int peer, int tag, void* buf, size_t len,
                                             size_t chunk, int depth) = 0;
  // Fault detection of `peer`; probes use tags from `tags`.
  virtual std::unique_ptr<PeerLiveness> watch(int peer, TagPool& tags) = 0;
  // The wire's own figures between this endpoint and `peer` (both call it, one as the
  // initiator): the initiator's seconds for spec.iters timed iterations.
  virtual Result<double> baseline(int peer, bool initiator, const BaselineSpec& spec) = 0;
};

}  // namespace ferry::comm
