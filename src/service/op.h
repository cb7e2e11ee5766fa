// One operation in a device's stream, as the server tracks it from arrival to completion.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "comm/protocol.h"
#include "comm/transport.h"
#include "service/staging_pool.h"
#include "service/worker.h"

namespace ferry::service {

struct Range {
  uint64_t begin = 0, end = 0;  // [begin, end); empty when begin == end
  bool overlaps(const Range& o) const { return begin < o.end && o.begin < end; }
  bool empty() const { return begin == end; }
};

struct Op {
  enum class State : uint8_t { Pending, Running, Done };

  comm::MsgType type{};
  int client = 0;     // rank that issued it
  uint64_t seq = 0;
  comm::Body body;
  std::vector<uint8_t> payload;  // inline bytes, copied out of the receive slot

  State state = State::Pending;
  uint64_t startNs = 0;  // when it started, for FERRY_TRACE
  // Hazards: an op may start only when no earlier unfinished op conflicts with it.
  Range reads, writes;
  bool barrier = false;

  // Running state, depending on the kind of op.
  std::unique_ptr<comm::Stream> pipe;  // a transfer over the transport (Mpi data mode)
  std::shared_ptr<Completion> job;  // work handed to the device's worker
  bool awaitingRendezvous = false;  // same-node exchange: waiting for Rtr (send) or Fin (recv)
  std::vector<uint8_t> imageBytes;  // LoadImage: the image as it arrived
  StagingBuffer stage;              // a staged device's transfer bytes (staging_pool.h)
  uint64_t staged = 0;              // staged receive: bytes written to the device; send: read from it
  std::shared_ptr<Completion> copy; // staged transfer over MPI: the device copy in flight
  uint64_t copyUpto = 0;            // ... which ends there
  const uint8_t* source = nullptr;  // exchange send: where its bytes are (device or staging)
  uint8_t* sink = nullptr;          // exchange receive: where its bytes go (device or staging)
  Status half;                      // split same-node exchange: how this side's half went
  Status deferred;                  // staged send over MPI: a device read failed mid-way
  std::vector<uint64_t> values;     // LoadImage: the table addresses to reply with

  bool conflictsWith(const Op& later) const {
    if (barrier || later.barrier) return true;
    return writes.overlaps(later.reads) || writes.overlaps(later.writes) || reads.overlaps(later.writes);
  }
};

// Sets an op's read and write ranges, or marks it a barrier, from its type.
void classifyHazards(Op& op);
// The device address an op that receives bytes (submit, exchange receive) writes to.
uint64_t sinkAddressOf(const Op& op);
// The device address an op that sends bytes (retrieve, exchange send) reads from.
uint64_t sourceAddressOf(const Op& op);
// The description of an op's data transfer, or nullptr for an op that moves none.
const comm::DataDesc* dataOf(const Op& op);
// The tag its issuer waits on for an answer, or 0 when the op is not answered.
int replyTagOf(const comm::Body& body);

}  // namespace ferry::service
