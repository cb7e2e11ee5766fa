// Ferry's wire protocol: the control messages that ranks exchange. Every message starts
// with a 32-byte header (magic, protocol version, type, target device, sequence number,
// body length); decode() checks all of it and every length inside the body, so a foreign,
// truncated or corrupt message is reported as such instead of being acted upon. Every
// integer on the wire is little-endian (wire.h), so that peers of different architectures
// (an x86_64 host and an aarch64 co-processor) read the same bytes alike.
#pragma once

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "platform/status.h"

namespace ferry::comm {

inline constexpr uint32_t kMagic = 0x59525246;  // "FRRY" little-endian
inline constexpr uint16_t kProtocolVersion = 3;  // 2: replies carry an output mark; 3: Rts
inline constexpr size_t kHeaderSize = 32;
// Every control message fits in this many bytes; servers pre-post receives of this size.
inline constexpr size_t kMaxControlMessage = 64 * 1024;
inline constexpr uint32_t kMaxKernelArgs = 2048;
inline constexpr uint32_t kNoDevice = 0xffffffffu;
// A reply's error text is cut to this many bytes, so that the issuer can size its
// pre-posted receive: header and fixed fields, text, values and inline bytes.
inline constexpr size_t kMaxReplyText = 4096;
inline constexpr size_t kReplyFixedBytes = 128;
inline constexpr size_t replyCapacity(size_t numValues, size_t inlineBytes) {
  return kReplyFixedBytes + kMaxReplyText + numValues * sizeof(uint64_t) + inlineBytes;
}

// MPI tags. Control messages to a rank use kControlTag; replies and data use tags that
// rank 0 hands out from [kFirstDynamicTag, MPI_TAG_UB].
inline constexpr int kControlTag = 1;
inline constexpr int kFirstDynamicTag = 16;

enum class MsgType : uint16_t {
  InitDevice = 1,
  LoadImage,
  Alloc,
  Free,
  Submit,
  Retrieve,
  ExchangeSend,
  ExchangeRecv,
  Launch,
  Sync,
  Ping,
  Shutdown,
  Reply,
  Rtr,   // same-node rendezvous: "ready to receive at this address"
  Fin,   // same-node rendezvous: "the bytes are in place"
  Baseline,  // run a raw MPI baseline with a peer (benchmarks; devices must be idle)
  Batch,     // several control messages to one rank, delivered in order
  SetInfo,   // __tgt_set_info_flag, passed on to the serving rank's stock plugins
  Output,    // what kernels wrote to stdout on a serving rank, for rank 0 to print
  Rts,       // same-node rendezvous, large copies: "read the rest from this address"
  // New types go here, and kLastMsgType names them: decode() refuses any type above it.
};
inline constexpr MsgType kLastMsgType = MsgType::Rts;
const char* msgTypeName(MsgType t);

struct Header {
  uint32_t magic = kMagic;
  uint16_t version = kProtocolVersion;
  MsgType type{};
  uint32_t device = kNoDevice;
  uint32_t flags = 0;
  uint64_t seq = 0;
  uint32_t bodyLen = 0;
  uint32_t reserved = 0;
};
static_assert(sizeof(Header) == kHeaderSize, "the header is part of the wire format");

// How the bytes of a transfer travel.
enum class DataMode : uint8_t {
  Inline = 0,  // inside this control message (at most FERRY_EAGER_LIMIT)
  Mpi = 1,     // chunked, pipelined MPI messages on `tag` between this rank and `peer`
  Cma = 2,     // single-copy process_vm_readv/writev against `remoteAddr` in `peer`
};

struct DataDesc {
  DataMode mode = DataMode::Inline;
  uint64_t size = 0;
  int32_t peer = -1;        // the rank at the other end of the bytes
  int32_t tag = 0;          // Mpi: tag of the chunks; Cma: id of the rendezvous
  uint32_t chunk = 0;       // Mpi: chunk size used by the sender
  uint64_t remoteAddr = 0;  // Cma: address of the bytes in `peer`
};

struct InitDeviceMsg {
  int64_t requiresFlags = 0;
  int32_t replyTag = 0;
};
struct LoadImageMsg {
  uint64_t imageId = 0;
  int32_t replyTag = 0;
  uint32_t numEntries = 0;
  DataDesc data;
  const uint8_t* inlineBytes = nullptr;  // decode: points into the message buffer
};
struct AllocMsg {
  uint64_t addr = 0;    // 0: the server chooses and replies; else commit this range
  uint64_t size = 0;
  int32_t kind = 0;
  int32_t replyTag = 0;  // 0: no reply wanted
};
struct FreeMsg {
  uint64_t addr = 0;
  uint64_t size = 0;
  int32_t kind = 0;
};
struct SubmitMsg {
  uint64_t dst = 0;
  DataDesc data;
  const uint8_t* inlineBytes = nullptr;
};
struct RetrieveMsg {
  uint64_t src = 0;
  int32_t replyTag = 0;
  DataDesc data;
};
struct ExchangeMsg {  // ExchangeSend: addr is the source; ExchangeRecv: the destination
  uint64_t addr = 0;
  DataDesc data;
};
// Kernel arguments that stand for the C streams: a region that uses stdout or stderr gets
// the host's FILE*, which means nothing in another process, so rank 0 sends these tokens
// (kernel-space addresses, never a user pointer) and the serving rank puts its own FILE*s
// in their place.
inline constexpr uint64_t kStdinToken = 0xffffffffffffff01ull;
inline constexpr uint64_t kStdoutToken = 0xffffffffffffff02ull;
inline constexpr uint64_t kStderrToken = 0xffffffffffffff03ull;

struct LaunchMsg {
  uint64_t kernel = 0;  // handle from the LoadImage reply
  uint32_t numTeams = 0;
  uint32_t threadLimit = 0;
  uint64_t tripCount = 0;
  int32_t replyTag = 0;  // 0: no reply; else reply once the kernel has finished
  std::vector<uint64_t> args;
  std::vector<int64_t> offsets;
};
struct SyncMsg { int32_t replyTag = 0; };
struct PingMsg { int32_t replyTag = 0; };
struct ShutdownMsg {};
struct ReplyMsg {
  Errc code = Errc::Ok;
  uint64_t outputMark = 0;         // device output sent to this rank before this reply (bytes)
  std::string message;             // error text, with the server's context
  std::vector<uint64_t> values;    // e.g. LoadImage: one address per entry
  const uint8_t* inlineBytes = nullptr;
  uint64_t inlineSize = 0;
};
struct RtrMsg {
  int32_t xfer = 0;
  uint64_t dstAddr = 0;
  uint64_t size = 0;
};
// The sender's answer to an Rtr for a large same-node copy: it writes [0, split) while the
// receiver reads [split, size) from `srcAddr`, so that both ranks' cores copy. Each side
// then sends the other a Fin; the sender keeps its bytes until the receiver's arrives.
struct RtsMsg {
  int32_t xfer = 0;
  uint64_t srcAddr = 0;
  uint64_t split = 0;
  uint64_t size = 0;
};
// Device stdout on its way to rank 0 (tag kOutputTag); `mark` counts every byte sent so far,
// this chunk included. Chunks stay small enough to travel eagerly on common transports
// (Open MPI's shared-memory eager limit is 4 KiB): the receiver takes them after the reply
// that announces them, when the serving rank may be busy in its next kernel and unable to
// progress a rendezvous.
struct OutputMsg {
  uint64_t mark = 0;
  const uint8_t* text = nullptr;
  uint64_t len = 0;
};
inline constexpr int kOutputTag = 5;
inline constexpr size_t kMaxOutputChunk = 3 * 1024;
struct SetInfoMsg {
  uint32_t flags = 0;
};
struct BaselineMsg {
  int32_t peer = -1;
  uint8_t kind = 0;        // comm::BaselineKind
  uint8_t initiator = 0;   // the initiator times the loop and replies with the seconds
  uint64_t bytes = 0;
  uint32_t warmup = 0, iters = 0, window = 0;
  int32_t replyTag = 0;
};
// Consecutive ops of one queue travel as one message. Items are complete encoded messages
// (a batch never nests); decode() leaves them as views into the buffer.
struct BatchMsg {
  std::vector<std::pair<const uint8_t*, size_t>> items;
};
inline constexpr size_t kBatchItemOverhead = sizeof(uint32_t);
struct FinMsg {
  int32_t xfer = 0;
  Errc code = Errc::Ok;
  std::string message;
};

using Body = std::variant<InitDeviceMsg, LoadImageMsg, AllocMsg, FreeMsg, SubmitMsg, RetrieveMsg, ExchangeMsg, LaunchMsg,
                          SyncMsg, PingMsg, ShutdownMsg, ReplyMsg, RtrMsg, FinMsg, BaselineMsg, BatchMsg, SetInfoMsg, OutputMsg,
                          RtsMsg>;

struct Message {
  Header header;
  Body body;
};

// Encodes one message. `inlineBytes` (for LoadImage, Submit, Reply) is appended as the
// inline payload; the body's DataDesc/inlineSize must agree with its length.
// ExchangeSend and ExchangeRecv share ExchangeMsg, so the type is given explicitly.
std::vector<uint8_t> encode(MsgType type, uint32_t device, uint64_t seq, const Body& body,
                            const void* inlineBytes = nullptr, size_t inlineLen = 0);

// A Reply with code Ok and nothing else: the most frequent message, built from a template.
std::vector<uint8_t> encodeOkReply(uint64_t seq, uint64_t outputMark = 0);

// Decodes and validates. Pointers in the result refer into `buf`.
Result<Message> decode(const uint8_t* buf, size_t len);

// Start-up announcement that each rank contributes to the device-table allgather. The
// framing (magic, version) lets a rank detect a peer built from another protocol version.
std::vector<uint8_t> frameAnnouncement(const std::vector<uint8_t>& payload, size_t slotSize);
Result<std::vector<uint8_t>> unframeAnnouncement(const uint8_t* slot, size_t slotSize, int fromRank);

}  // namespace ferry::comm
