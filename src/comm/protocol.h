// Ferry's wire protocol: the control messages that ranks exchange. Every message starts
// with a 32-byte header (magic, protocol version, type, target device, sequence number,
// body length); decode() checks all of it and every length inside the body, so a foreign,
// truncated or corrupt message is reported as such instead of being acted upon. Every
// integer on the wire is little-endian (wire.h), so that peers of different architectures
// (an x86_64 host and an aarch64 co-processor) read the same bytes alike.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "platform/status.h"

namespace ferry::comm {

inline constexpr uint32_t kMagic = 0x59525246;  // "FRRY" little-endian
inline constexpr uint16_t kProtocolVersion = 7;  // 2: replies carry an output mark; 3: Rts; 4: channel handshake;
                                                 // 5: device announcements name their ELF machine;
                                                 // 6: InitDevice carries the job's device numbering;
                                                 // 7: image entries carry their host address
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

// Every message type, once: its name in the enum, its number on the wire (never reused),
// its name in logs and errors, and the struct its body decodes into. A new message is one
// line here, its struct below (with its fields() list, which both encode() and decode()
// walk) and its entry in Body; encode, decode and msgTypeName follow from those.
#define FERRY_MESSAGE_TYPES(X)                                                                          \
  X(InitDevice, 1, "init_device", InitDeviceMsg)                                                        \
  X(LoadImage, 2, "load_image", LoadImageMsg)                                                           \
  X(Alloc, 3, "alloc", AllocMsg)                                                                        \
  X(Free, 4, "free", FreeMsg)                                                                           \
  X(Submit, 5, "submit", SubmitMsg)                                                                     \
  X(Retrieve, 6, "retrieve", RetrieveMsg)                                                               \
  X(ExchangeSend, 7, "exchange_send", ExchangeMsg)                                                      \
  X(ExchangeRecv, 8, "exchange_recv", ExchangeMsg)                                                      \
  X(Launch, 9, "launch", LaunchMsg)                                                                     \
  X(Sync, 10, "sync", SyncMsg)                                                                          \
  X(Ping, 11, "ping", PingMsg)                                                                          \
  X(Shutdown, 12, "shutdown", ShutdownMsg)                                                              \
  X(Reply, 13, "reply", ReplyMsg)                                                                       \
  X(Rtr, 14, "rtr", RtrMsg)           /* same-node rendezvous: "ready to receive at this address" */    \
  X(Fin, 15, "fin", FinMsg)           /* same-node rendezvous: "the bytes are in place" */              \
  X(Baseline, 16, "baseline", BaselineMsg) /* the transport's own figures with a peer (benchmarks) */   \
  X(Batch, 17, "batch", BatchMsg)     /* several control messages to one server, in order */           \
  X(SetInfo, 18, "set_info", SetInfoMsg) /* __tgt_set_info_flag, for the server's stock plugins */      \
  X(Output, 19, "output", OutputMsg)  /* what kernels wrote to stdout, for the issuer to print */       \
  X(Rts, 20, "rts", RtsMsg)           /* same-node rendezvous, large copies: "read the rest here" */   \
  X(Challenge, 21, "challenge", ChallengeMsg) /* channel handshake: the server's nonce */         \
  X(Response, 22, "response", ResponseMsg)    /* the client's nonce and proof of the token */     \
  X(Welcome, 23, "welcome", WelcomeMsg)       /* the server's proof, and what it serves */

enum class MsgType : uint16_t {
#define FERRY_MESSAGE_ENUM(name, number, text, body) name = number,
  FERRY_MESSAGE_TYPES(FERRY_MESSAGE_ENUM)
#undef FERRY_MESSAGE_ENUM
};
// decode() refuses any type above the last.
inline constexpr MsgType kLastMsgType = [] {
  uint16_t last = 0;
#define FERRY_MESSAGE_LAST(name, number, text, body) last = number > last ? number : last;
  FERRY_MESSAGE_TYPES(FERRY_MESSAGE_LAST)
#undef FERRY_MESSAGE_LAST
  return static_cast<MsgType>(last);
}();
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
  Mpi = 1,     // chunked, pipelined messages on the transport, on `tag` between this peer and `peer`
  Cma = 2,     // single-copy process_vm_readv/writev against `remoteAddr` in `peer`
};

struct DataDesc {
  DataMode mode = DataMode::Inline;
  uint64_t size = 0;
  int32_t peer = -1;        // the transport peer (MPI: rank) at the other end of the bytes
  int32_t tag = 0;          // Mpi: tag of the chunks; Cma: id of the rendezvous
  uint32_t chunk = 0;       // Mpi: chunk size used by the sender
  uint64_t remoteAddr = 0;  // Cma: address of the bytes in `peer`
};

struct InitDeviceMsg {
  int64_t requiresFlags = 0;
  int32_t replyTag = 0;
  // The device's number in the client's table and the table's size: what omp_get_device_num()
  // and omp_get_num_devices() answer inside its kernels (a daemon knows nothing of the job).
  int32_t globalDevice = -1;
  int32_t jobDevices = 0;
  template <class F, class M>
  static bool fields(F& f, M& m) {
    return f(m.requiresFlags, m.replyTag, m.globalDevice, m.jobDevices);
  }
};
struct LoadImageMsg {
  uint64_t imageId = 0;
  int32_t replyTag = 0;
  uint32_t numEntries = 0;
  DataDesc data;
  const uint8_t* inlineBytes = nullptr;  // decode: points into the message buffer
  template <class F, class M>
  static bool fields(F& f, M& m) {
    return f(m.imageId, m.replyTag, m.numEntries, m.data) && f.inlineData(m.data, m.inlineBytes);
  }
};
struct AllocMsg {
  uint64_t addr = 0;    // 0: the server chooses and replies; else commit this range
  uint64_t size = 0;
  int32_t kind = 0;
  int32_t replyTag = 0;  // 0: no reply wanted
  template <class F, class M>
  static bool fields(F& f, M& m) {
    return f(m.addr, m.size, m.kind, m.replyTag);
  }
};
struct FreeMsg {
  uint64_t addr = 0;
  uint64_t size = 0;
  int32_t kind = 0;
  template <class F, class M>
  static bool fields(F& f, M& m) {
    return f(m.addr, m.size, m.kind);
  }
};
struct SubmitMsg {
  uint64_t dst = 0;
  DataDesc data;
  const uint8_t* inlineBytes = nullptr;
  template <class F, class M>
  static bool fields(F& f, M& m) {
    return f(m.dst, m.data) && f.inlineData(m.data, m.inlineBytes);
  }
};
struct RetrieveMsg {
  uint64_t src = 0;
  int32_t replyTag = 0;
  DataDesc data;
  template <class F, class M>
  static bool fields(F& f, M& m) {
    return f(m.src, m.replyTag, m.data);
  }
};
struct ExchangeMsg {  // ExchangeSend: addr is the source; ExchangeRecv: the destination
  uint64_t addr = 0;
  DataDesc data;
  template <class F, class M>
  static bool fields(F& f, M& m) {
    return f(m.addr, m.data) && f.check(m.data.mode != DataMode::Inline);
  }
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
  template <class F, class M>
  static bool fields(F& f, M& m) {
    return f(m.kernel, m.numTeams, m.threadLimit, m.tripCount, m.replyTag) && f.kernelArgs(m.args, m.offsets);
  }
};
struct SyncMsg {
  int32_t replyTag = 0;
  template <class F, class M>
  static bool fields(F& f, M& m) {
    return f(m.replyTag);
  }
};
struct PingMsg {
  int32_t replyTag = 0;
  template <class F, class M>
  static bool fields(F& f, M& m) {
    return f(m.replyTag);
  }
};
struct ShutdownMsg {
  template <class F, class M>
  static bool fields(F&, M&) {
    return true;
  }
};
struct ReplyMsg {
  Errc code = Errc::Ok;
  uint64_t outputMark = 0;         // device output sent to this rank before this reply (bytes)
  std::string message;             // error text, with the server's context
  std::vector<uint64_t> values;    // e.g. LoadImage: one address per entry
  const uint8_t* inlineBytes = nullptr;
  uint64_t inlineSize = 0;
  template <class F, class M>
  static bool fields(F& f, M& m) {
    return f(m.code, m.outputMark, m.message, m.values) && f.tail(m.inlineBytes, m.inlineSize);
  }
};
struct RtrMsg {
  int32_t xfer = 0;
  uint64_t dstAddr = 0;
  uint64_t size = 0;
  template <class F, class M>
  static bool fields(F& f, M& m) {
    return f(m.xfer, m.dstAddr, m.size);
  }
};
// The sender's answer to an Rtr for a large same-node copy: it writes [0, split) while the
// receiver reads [split, size) from `srcAddr`, so that both ranks' cores copy. Each side
// then sends the other a Fin; the sender keeps its bytes until the receiver's arrives.
struct RtsMsg {
  int32_t xfer = 0;
  uint64_t srcAddr = 0;
  uint64_t split = 0;
  uint64_t size = 0;
  template <class F, class M>
  static bool fields(F& f, M& m) {
    return f(m.xfer, m.srcAddr, m.split, m.size) && f.check(m.split <= m.size);
  }
};
inline constexpr int kOutputTag = 5;
inline constexpr size_t kMaxOutputChunk = 3 * 1024;
// Device stdout on its way to rank 0 (tag kOutputTag); `mark` counts every byte sent so far,
// this chunk included. Chunks stay small enough to travel eagerly on common transports
// (Open MPI's shared-memory eager limit is 4 KiB): the receiver takes them after the reply
// that announces them, when the serving rank may be busy in its next kernel and unable to
// progress a rendezvous.
struct OutputMsg {
  uint64_t mark = 0;
  const uint8_t* text = nullptr;
  uint64_t len = 0;
  template <class F, class M>
  static bool fields(F& f, M& m) {
    return f(m.mark) && f.text(m.text, m.len, kMaxOutputChunk);
  }
};
struct SetInfoMsg {
  uint32_t flags = 0;
  template <class F, class M>
  static bool fields(F& f, M& m) {
    return f(m.flags);
  }
};
struct BaselineMsg {
  int32_t peer = -1;
  uint8_t kind = 0;        // comm::BaselineKind
  uint8_t initiator = 0;   // the initiator times the loop and replies with the seconds
  uint64_t bytes = 0;
  uint32_t warmup = 0, iters = 0, window = 0;
  int32_t replyTag = 0;
  template <class F, class M>
  static bool fields(F& f, M& m) {
    return f(m.peer, m.kind, m.initiator, m.bytes, m.warmup, m.iters, m.window, m.replyTag) && f.check(m.kind <= 1);
  }
};
// Consecutive ops of one queue travel as one message. Items are complete encoded messages
// (a batch never nests); decode() leaves them as views into the buffer.
struct BatchMsg {
  std::vector<std::pair<const uint8_t*, size_t>> items;
  template <class F, class M>
  static bool fields(F& f, M& m) {
    return f.items(m.items);
  }
};
inline constexpr size_t kBatchItemOverhead = sizeof(uint32_t);
struct FinMsg {
  int32_t xfer = 0;
  Errc code = Errc::Ok;
  std::string message;
  template <class F, class M>
  static bool fields(F& f, M& m) {
    return f(m.xfer, m.code, m.message);
  }
};

// The channel handshake (comm/channel_auth.h): mutual challenge-response over a shared token,
// before any other message. Each side proves it holds the token with an HMAC over both
// nonces, so neither a replayed answer nor a peer without the token gets through.
inline constexpr int kHandshakeTag = 8;
inline constexpr size_t kNonceBytes = 32;
inline constexpr size_t kMacBytes = 32;  // HMAC-SHA256
inline constexpr size_t kMaxAnnouncement = 16 * 1024;
struct ChallengeMsg {
  std::array<uint8_t, kNonceBytes> nonce{};
  template <class F, class M>
  static bool fields(F& f, M& m) {
    return f(m.nonce);
  }
};
struct ResponseMsg {
  std::array<uint8_t, kNonceBytes> nonce{};
  std::array<uint8_t, kMacBytes> mac{};
  template <class F, class M>
  static bool fields(F& f, M& m) {
    return f(m.nonce, m.mac);
  }
};
// `announcement`: what the server serves (offload::DeviceTable::encodeLocal of its devices).
struct WelcomeMsg {
  std::array<uint8_t, kMacBytes> mac{};
  const uint8_t* announcement = nullptr;
  uint64_t len = 0;
  template <class F, class M>
  static bool fields(F& f, M& m) {
    return f(m.mac) && f.text(m.announcement, m.len, kMaxAnnouncement);
  }
};

using Body = std::variant<InitDeviceMsg, LoadImageMsg, AllocMsg, FreeMsg, SubmitMsg, RetrieveMsg, ExchangeMsg, LaunchMsg,
                          SyncMsg, PingMsg, ShutdownMsg, ReplyMsg, RtrMsg, FinMsg, BaselineMsg, BatchMsg, SetInfoMsg, OutputMsg,
                          RtsMsg, ChallengeMsg, ResponseMsg, WelcomeMsg>;

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
