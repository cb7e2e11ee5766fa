#include "comm/protocol.h"

#include <cstddef>
#include <cstring>

#include "comm/wire.h"

namespace ferry::comm {
namespace {

constexpr uint16_t kMaxMsgType = static_cast<uint16_t>(kLastMsgType);
// The longest error text decode() takes: a bound that refuses a garbage length, not a size
// any sender comes near (a server cuts a reply's text to kMaxReplyText, which the issuer's
// receive is sized for).
constexpr size_t kMaxDecodedText = 4 * kMaxReplyText;

void putData(WireWriter& w, const DataDesc& d) {
  w.put<uint8_t>(static_cast<uint8_t>(d.mode)).put(d.size).put(d.peer).put(d.tag).put(d.chunk).put(d.remoteAddr);
}

bool getData(WireReader& r, DataDesc& d) {
  uint8_t mode = 0;
  if (!r.get(mode) || !r.get(d.size) || !r.get(d.peer) || !r.get(d.tag) || !r.get(d.chunk) || !r.get(d.remoteAddr))
    return false;
  if (mode > static_cast<uint8_t>(DataMode::Cma)) return false;
  d.mode = static_cast<DataMode>(mode);
  return true;
}

// Inline payloads: the descriptor says how many bytes follow; they must all be there.
bool getInline(WireReader& r, const DataDesc& d, const uint8_t*& out) {
  if (d.mode != DataMode::Inline) return true;
  if (d.size > kMaxControlMessage) return false;
  return r.view(out, static_cast<size_t>(d.size));
}

struct BodyEncoder {
  WireWriter& w;
  const void* inlineBytes;
  size_t inlineLen;

  void operator()(const InitDeviceMsg& m) { w.put(m.requiresFlags).put(m.replyTag); }
  void operator()(const LoadImageMsg& m) {
    w.put(m.imageId).put(m.replyTag).put(m.numEntries);
    putData(w, m.data);
    if (m.data.mode == DataMode::Inline) w.bytes(inlineBytes, inlineLen);
  }
  void operator()(const AllocMsg& m) { w.put(m.addr).put(m.size).put(m.kind).put(m.replyTag); }
  void operator()(const FreeMsg& m) { w.put(m.addr).put(m.size).put(m.kind); }
  void operator()(const SubmitMsg& m) {
    w.put(m.dst);
    putData(w, m.data);
    if (m.data.mode == DataMode::Inline) w.bytes(inlineBytes, inlineLen);
  }
  void operator()(const RetrieveMsg& m) {
    w.put(m.src).put(m.replyTag);
    putData(w, m.data);
  }
  void operator()(const ExchangeMsg& m) {
    w.put(m.addr);
    putData(w, m.data);
  }
  void operator()(const LaunchMsg& m) {
    w.put(m.kernel).put(m.numTeams).put(m.threadLimit).put(m.tripCount).put(m.replyTag);
    w.put<uint32_t>(static_cast<uint32_t>(m.args.size()));
    w.bytes(m.args.data(), m.args.size() * sizeof(uint64_t));
    w.bytes(m.offsets.data(), m.offsets.size() * sizeof(int64_t));
  }
  void operator()(const SyncMsg& m) { w.put(m.replyTag); }
  void operator()(const PingMsg& m) { w.put(m.replyTag); }
  void operator()(const ShutdownMsg&) {}
  void operator()(const ReplyMsg& m) {
    w.put<uint8_t>(static_cast<uint8_t>(m.code)).put(m.outputMark).str(m.message);
    w.put<uint32_t>(static_cast<uint32_t>(m.values.size()));
    w.bytes(m.values.data(), m.values.size() * sizeof(uint64_t));
    w.put<uint64_t>(inlineLen).bytes(inlineBytes, inlineLen);
  }
  void operator()(const RtrMsg& m) { w.put(m.xfer).put(m.dstAddr).put(m.size); }
  void operator()(const RtsMsg& m) { w.put(m.xfer).put(m.srcAddr).put(m.split).put(m.size); }
  void operator()(const FinMsg& m) { w.put(m.xfer).put<uint8_t>(static_cast<uint8_t>(m.code)).str(m.message); }
  void operator()(const SetInfoMsg& m) { w.put(m.flags); }
  void operator()(const OutputMsg& m) { w.put(m.mark).put(m.len).bytes(m.text, m.len); }
  void operator()(const BatchMsg& m) {
    w.put<uint32_t>(static_cast<uint32_t>(m.items.size()));
    for (const auto& [bytes, len] : m.items) w.put<uint32_t>(static_cast<uint32_t>(len)).bytes(bytes, len);
  }
  void operator()(const BaselineMsg& m) {
    w.put(m.peer).put(m.kind).put(m.initiator).put(m.bytes).put(m.warmup).put(m.iters).put(m.window).put(m.replyTag);
  }
};

bool decodeErrc(WireReader& r, Errc& out) {
  uint8_t c = 0;
  if (!r.get(c) || c > static_cast<uint8_t>(Errc::Internal)) return false;
  out = static_cast<Errc>(c);
  return true;
}

// The reading side of BodyEncoder, message by message in the same order: each returns
// false when the body is malformed (short, or a field out of its range).
struct BodyDecoder {
  WireReader& r;

  bool operator()(InitDeviceMsg& m) { return r.get(m.requiresFlags) && r.get(m.replyTag); }
  bool operator()(LoadImageMsg& m) {
    return r.get(m.imageId) && r.get(m.replyTag) && r.get(m.numEntries) && getData(r, m.data) &&
           getInline(r, m.data, m.inlineBytes);
  }
  bool operator()(AllocMsg& m) { return r.get(m.addr) && r.get(m.size) && r.get(m.kind) && r.get(m.replyTag); }
  bool operator()(FreeMsg& m) { return r.get(m.addr) && r.get(m.size) && r.get(m.kind); }
  bool operator()(SubmitMsg& m) { return r.get(m.dst) && getData(r, m.data) && getInline(r, m.data, m.inlineBytes); }
  bool operator()(RetrieveMsg& m) { return r.get(m.src) && r.get(m.replyTag) && getData(r, m.data); }
  bool operator()(ExchangeMsg& m) { return r.get(m.addr) && getData(r, m.data) && m.data.mode != DataMode::Inline; }
  bool operator()(LaunchMsg& m) {
    uint32_t n = 0;
    const uint8_t *args = nullptr, *offs = nullptr;
    if (!r.get(m.kernel) || !r.get(m.numTeams) || !r.get(m.threadLimit) || !r.get(m.tripCount) ||
        !r.get(m.replyTag) || !r.get(n) || n > kMaxKernelArgs || !r.view(args, n * sizeof(uint64_t)) ||
        !r.view(offs, n * sizeof(int64_t)))
      return false;
    m.args.resize(n);
    m.offsets.resize(n);
    if (n) {
      std::memcpy(m.args.data(), args, n * sizeof(uint64_t));
      std::memcpy(m.offsets.data(), offs, n * sizeof(int64_t));
    }
    return true;
  }
  bool operator()(SyncMsg& m) { return r.get(m.replyTag); }
  bool operator()(PingMsg& m) { return r.get(m.replyTag); }
  bool operator()(ShutdownMsg&) { return true; }
  bool operator()(ReplyMsg& m) {
    uint32_t n = 0;
    const uint8_t* vals = nullptr;
    if (!decodeErrc(r, m.code) || !r.get(m.outputMark) || !r.str(m.message, kMaxDecodedText) || !r.get(n) ||
        n > kMaxControlMessage / 8 || !r.view(vals, n * sizeof(uint64_t)) || !r.get(m.inlineSize) ||
        m.inlineSize > r.remaining() || !r.view(m.inlineBytes, static_cast<size_t>(m.inlineSize)))
      return false;
    m.values.resize(n);
    if (n) std::memcpy(m.values.data(), vals, n * sizeof(uint64_t));
    return true;
  }
  bool operator()(RtrMsg& m) { return r.get(m.xfer) && r.get(m.dstAddr) && r.get(m.size); }
  bool operator()(RtsMsg& m) {
    return r.get(m.xfer) && r.get(m.srcAddr) && r.get(m.split) && r.get(m.size) && m.split <= m.size;
  }
  bool operator()(FinMsg& m) { return r.get(m.xfer) && decodeErrc(r, m.code) && r.str(m.message, kMaxDecodedText); }
  bool operator()(SetInfoMsg& m) { return r.get(m.flags); }
  bool operator()(OutputMsg& m) {
    return r.get(m.mark) && r.get(m.len) && m.len <= kMaxOutputChunk && r.view(m.text, m.len);
  }
  bool operator()(BatchMsg& m) {
    uint32_t n = 0;
    if (!r.get(n) || n > kMaxControlMessage / (kHeaderSize + kBatchItemOverhead)) return false;
    for (uint32_t i = 0; i < n; ++i) {
      uint32_t len = 0;
      const uint8_t* item = nullptr;
      if (!r.get(len) || len < kHeaderSize || !r.view(item, len)) return false;
      m.items.emplace_back(item, len);
    }
    return true;
  }
  bool operator()(BaselineMsg& m) {
    return r.get(m.peer) && r.get(m.kind) && r.get(m.initiator) && r.get(m.bytes) && r.get(m.warmup) &&
           r.get(m.iters) && r.get(m.window) && r.get(m.replyTag) && m.kind <= 1;
  }
};

template <class M>
bool decodeAs(BodyDecoder& decoder, Body& out) {
  M m;
  if (!decoder(m)) return false;
  out = std::move(m);
  return true;
}

// Returns false when the body is malformed or the type unknown.
bool decodeBody(MsgType type, WireReader& r, Body& out) {
  BodyDecoder d{r};
  switch (type) {
    case MsgType::InitDevice: return decodeAs<InitDeviceMsg>(d, out);
    case MsgType::LoadImage: return decodeAs<LoadImageMsg>(d, out);
    case MsgType::Alloc: return decodeAs<AllocMsg>(d, out);
    case MsgType::Free: return decodeAs<FreeMsg>(d, out);
    case MsgType::Submit: return decodeAs<SubmitMsg>(d, out);
    case MsgType::Retrieve: return decodeAs<RetrieveMsg>(d, out);
    case MsgType::ExchangeSend:
    case MsgType::ExchangeRecv: return decodeAs<ExchangeMsg>(d, out);
    case MsgType::Launch: return decodeAs<LaunchMsg>(d, out);
    case MsgType::Sync: return decodeAs<SyncMsg>(d, out);
    case MsgType::Ping: return decodeAs<PingMsg>(d, out);
    case MsgType::Shutdown: return decodeAs<ShutdownMsg>(d, out);
    case MsgType::Reply: return decodeAs<ReplyMsg>(d, out);
    case MsgType::Rtr: return decodeAs<RtrMsg>(d, out);
    case MsgType::Rts: return decodeAs<RtsMsg>(d, out);
    case MsgType::Fin: return decodeAs<FinMsg>(d, out);
    case MsgType::SetInfo: return decodeAs<SetInfoMsg>(d, out);
    case MsgType::Output: return decodeAs<OutputMsg>(d, out);
    case MsgType::Batch: return decodeAs<BatchMsg>(d, out);
    case MsgType::Baseline: return decodeAs<BaselineMsg>(d, out);
  }
  return false;
}

}  // namespace

const char* msgTypeName(MsgType t) {
  switch (t) {
    case MsgType::InitDevice: return "init_device";
    case MsgType::LoadImage: return "load_image";
    case MsgType::Alloc: return "alloc";
    case MsgType::Free: return "free";
    case MsgType::Submit: return "submit";
    case MsgType::Retrieve: return "retrieve";
    case MsgType::ExchangeSend: return "exchange_send";
    case MsgType::ExchangeRecv: return "exchange_recv";
    case MsgType::Launch: return "launch";
    case MsgType::Sync: return "sync";
    case MsgType::Ping: return "ping";
    case MsgType::Shutdown: return "shutdown";
    case MsgType::Reply: return "reply";
    case MsgType::Rtr: return "rtr";
    case MsgType::Fin: return "fin";
    case MsgType::Baseline: return "baseline";
    case MsgType::Batch: return "batch";
    case MsgType::SetInfo: return "set_info";
    case MsgType::Output: return "output";
    case MsgType::Rts: return "rts";
  }
  return "unknown";
}

std::vector<uint8_t> encode(MsgType type, uint32_t device, uint64_t seq, const Body& body, const void* inlineBytes,
                            size_t inlineLen) {
  std::vector<uint8_t> out;
  out.reserve(kHeaderSize + 64 + inlineLen);
  out.resize(kHeaderSize);
  WireWriter w(out);
  std::visit(BodyEncoder{w, inlineBytes, inlineLen}, body);
  Header h;
  h.type = type;
  h.device = device;
  h.seq = seq;
  h.bodyLen = static_cast<uint32_t>(out.size() - kHeaderSize);
  std::memcpy(out.data(), &h, sizeof h);
  return out;
}

std::vector<uint8_t> encodeOkReply(uint64_t seq, uint64_t outputMark) {
  // Leaked on purpose: the plugin still replies from an atexit handler, after static
  // destructors registered later than it have run.
  static const auto* kTemplate = new std::vector<uint8_t>(encode(MsgType::Reply, kNoDevice, 0, ReplyMsg{}));
  std::vector<uint8_t> out = *kTemplate;
  std::memcpy(out.data() + offsetof(Header, seq), &seq, sizeof seq);
  std::memcpy(out.data() + kHeaderSize + 1, &outputMark, sizeof outputMark);  // after the code byte
  return out;
}

Result<Message> decode(const uint8_t* buf, size_t len) {
  auto bad = [&](const std::string& why) { return Status(Errc::Protocol, "malformed control message: " + why); };
  if (len < kHeaderSize) return bad("truncated header (" + std::to_string(len) + " of 32 bytes)");
  Message msg;
  std::memcpy(&msg.header, buf, kHeaderSize);
  const Header& h = msg.header;
  if (h.magic != kMagic) return bad("bad magic; the sender is not a Ferry peer");
  if (h.version != kProtocolVersion)
    return Status(Errc::VersionMismatch, "peer speaks Ferry protocol version " + std::to_string(h.version) +
                                             ", this rank speaks version " + std::to_string(kProtocolVersion) +
                                             "; run the same Ferry build on every rank");
  auto t = static_cast<uint16_t>(h.type);
  if (t == 0 || t > kMaxMsgType) return bad("unknown message type " + std::to_string(t));
  if (h.bodyLen != len - kHeaderSize)
    return bad(std::string(msgTypeName(h.type)) + " body length " + std::to_string(h.bodyLen) + " but " +
               std::to_string(len - kHeaderSize) + " bytes arrived");
  WireReader r(buf + kHeaderSize, h.bodyLen);
  if (!decodeBody(h.type, r, msg.body) || !r.ok())
    return bad(std::string(msgTypeName(h.type)) + " body is truncated or inconsistent");
  if (r.remaining() != 0)
    return bad(std::string(msgTypeName(h.type)) + " body has " + std::to_string(r.remaining()) + " trailing bytes");
  return msg;
}

std::vector<uint8_t> frameAnnouncement(const std::vector<uint8_t>& payload, size_t slotSize) {
  std::vector<uint8_t> out;
  WireWriter w(out);
  w.put(kMagic).put(kProtocolVersion).put<uint32_t>(static_cast<uint32_t>(payload.size()));
  w.bytes(payload.data(), payload.size());
  out.resize(slotSize, 0);
  return out;
}

Result<std::vector<uint8_t>> unframeAnnouncement(const uint8_t* slot, size_t slotSize, int fromRank) {
  WireReader r(slot, slotSize);
  uint32_t magic = 0, len = 0;
  uint16_t version = 0;
  std::string who = "rank " + std::to_string(fromRank);
  if (!r.get(magic) || magic != kMagic)
    return Status(Errc::Protocol, who + " did not announce itself as a Ferry peer (is it running the same program "
                                        "with the Ferry plugin?)");
  if (!r.get(version) || version != kProtocolVersion)
    return Status(Errc::VersionMismatch, who + " runs Ferry protocol version " + std::to_string(version) +
                                             " but this rank runs version " + std::to_string(kProtocolVersion) +
                                             "; install the same Ferry build on every node");
  const uint8_t* p = nullptr;
  if (!r.get(len) || !r.view(p, len)) return Status(Errc::Protocol, who + " sent a truncated announcement");
  return std::vector<uint8_t>(p, p + len);
}

}  // namespace ferry::comm
