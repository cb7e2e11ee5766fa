#include "comm/protocol.h"

#include <cstddef>
#include <cstring>
#include <type_traits>

#include "comm/wire.h"

namespace ferry::comm {
namespace {

constexpr uint16_t kMaxMsgType = static_cast<uint16_t>(kLastMsgType);
// The longest error text decode() takes: a bound that refuses a garbage length, not a size
// any sender comes near (a server cuts a reply's text to kMaxReplyText, which the issuer's
// receive is sized for).
constexpr size_t kMaxDecodedText = 4 * kMaxReplyText;

// The writing side of a message's fields() list (protocol.h). The inline payload of
// LoadImage, Submit and Reply is the one encode() was given.
struct FieldWriter {
  WireWriter& w;
  const void* inlineBytes;
  size_t inlineLen;

  template <class... T>
  bool operator()(const T&... fields) {
    (one(fields), ...);
    return true;
  }
  template <class T>
  void one(const T& v) {
    if constexpr (std::is_same_v<T, Errc>) {
      w.put<uint8_t>(static_cast<uint8_t>(v));
    } else if constexpr (std::is_same_v<T, std::string>) {
      w.str(v);
    } else if constexpr (std::is_same_v<T, std::vector<uint64_t>>) {
      w.put<uint32_t>(static_cast<uint32_t>(v.size())).bytes(v.data(), v.size() * sizeof(uint64_t));
    } else if constexpr (std::is_same_v<T, DataDesc>) {
      w.put<uint8_t>(static_cast<uint8_t>(v.mode)).put(v.size).put(v.peer).put(v.tag).put(v.chunk).put(v.remoteAddr);
    } else {
      w.put(v);
    }
  }
  bool check(bool) { return true; }
  bool inlineData(const DataDesc& d, const uint8_t*) {
    if (d.mode == DataMode::Inline) w.bytes(inlineBytes, inlineLen);
    return true;
  }
  bool tail(const uint8_t*, uint64_t) {
    w.put<uint64_t>(inlineLen).bytes(inlineBytes, inlineLen);
    return true;
  }
  bool text(const uint8_t* p, uint64_t len, size_t) {
    w.put(len).bytes(p, len);
    return true;
  }
  bool kernelArgs(const std::vector<uint64_t>& args, const std::vector<int64_t>& offsets) {
    w.put<uint32_t>(static_cast<uint32_t>(args.size()));
    w.bytes(args.data(), args.size() * sizeof(uint64_t)).bytes(offsets.data(), offsets.size() * sizeof(int64_t));
    return true;
  }
  bool items(const std::vector<std::pair<const uint8_t*, size_t>>& items) {
    w.put<uint32_t>(static_cast<uint32_t>(items.size()));
    for (const auto& [bytes, len] : items) w.put<uint32_t>(static_cast<uint32_t>(len)).bytes(bytes, len);
    return true;
  }
};

// The reading side: each returns false when the body is malformed (short, or a field out of
// its range). Views (payloads, batch items) point into the message buffer.
struct FieldReader {
  WireReader& r;

  template <class... T>
  bool operator()(T&... fields) {
    return (one(fields) && ...);
  }
  template <class T>
  bool one(T& v) {
    if constexpr (std::is_same_v<T, Errc>) {
      uint8_t c = 0;
      if (!r.get(c) || c > static_cast<uint8_t>(kLastErrc)) return false;
      v = static_cast<Errc>(c);
      return true;
    } else if constexpr (std::is_same_v<T, std::string>) {
      return r.str(v, kMaxDecodedText);
    } else if constexpr (std::is_same_v<T, std::vector<uint64_t>>) {
      return u64s(v);
    } else if constexpr (std::is_same_v<T, DataDesc>) {
      return data(v);
    } else {
      return r.get(v);
    }
  }
  bool u64s(std::vector<uint64_t>& v) {
    uint32_t n = 0;
    const uint8_t* p = nullptr;
    if (!r.get(n) || n > kMaxControlMessage / 8 || !r.view(p, n * sizeof(uint64_t))) return false;
    v.resize(n);
    if (n) std::memcpy(v.data(), p, n * sizeof(uint64_t));
    return true;
  }
  bool data(DataDesc& d) {
    uint8_t mode = 0;
    if (!r.get(mode) || !r.get(d.size) || !r.get(d.peer) || !r.get(d.tag) || !r.get(d.chunk) || !r.get(d.remoteAddr))
      return false;
    if (mode > static_cast<uint8_t>(DataMode::Cma)) return false;
    d.mode = static_cast<DataMode>(mode);
    return true;
  }
  bool check(bool ok) { return ok; }
  // Inline payloads: the descriptor says how many bytes follow; they must all be there.
  bool inlineData(const DataDesc& d, const uint8_t*& out) {
    if (d.mode != DataMode::Inline) return true;
    return d.size <= kMaxControlMessage && r.view(out, static_cast<size_t>(d.size));
  }
  bool tail(const uint8_t*& out, uint64_t& len) {
    return r.get(len) && len <= r.remaining() && r.view(out, static_cast<size_t>(len));
  }
  bool text(const uint8_t*& out, uint64_t& len, size_t maxLen) {
    return r.get(len) && len <= maxLen && r.view(out, static_cast<size_t>(len));
  }
  bool kernelArgs(std::vector<uint64_t>& args, std::vector<int64_t>& offsets) {
    uint32_t n = 0;
    const uint8_t *a = nullptr, *o = nullptr;
    if (!r.get(n) || n > kMaxKernelArgs || !r.view(a, n * sizeof(uint64_t)) || !r.view(o, n * sizeof(int64_t)))
      return false;
    args.resize(n);
    offsets.resize(n);
    if (n) {
      std::memcpy(args.data(), a, n * sizeof(uint64_t));
      std::memcpy(offsets.data(), o, n * sizeof(int64_t));
    }
    return true;
  }
  bool items(std::vector<std::pair<const uint8_t*, size_t>>& items) {
    uint32_t n = 0;
    if (!r.get(n) || n > kMaxControlMessage / (kHeaderSize + kBatchItemOverhead)) return false;
    for (uint32_t i = 0; i < n; ++i) {
      uint32_t len = 0;
      const uint8_t* item = nullptr;
      if (!r.get(len) || len < kHeaderSize || !r.view(item, len)) return false;
      items.emplace_back(item, len);
    }
    return true;
  }
};

template <class M>
bool decodeAs(WireReader& r, Body& out) {
  M m;
  FieldReader f{r};
  if (!M::fields(f, m)) return false;
  out = std::move(m);
  return true;
}

// Returns false when the body is malformed or the type unknown.
bool decodeBody(MsgType type, WireReader& r, Body& out) {
  switch (type) {
#define FERRY_MESSAGE_DECODE(name, number, text, body) \
  case MsgType::name: return decodeAs<body>(r, out);
    FERRY_MESSAGE_TYPES(FERRY_MESSAGE_DECODE)
#undef FERRY_MESSAGE_DECODE
  }
  return false;
}

}  // namespace

const char* msgTypeName(MsgType t) {
  switch (t) {
#define FERRY_MESSAGE_NAME(name, number, text, body) \
  case MsgType::name: return text;
    FERRY_MESSAGE_TYPES(FERRY_MESSAGE_NAME)
#undef FERRY_MESSAGE_NAME
  }
  return "unknown";
}

std::vector<uint8_t> encode(MsgType type, uint32_t device, uint64_t seq, const Body& body, const void* inlineBytes,
                            size_t inlineLen) {
  std::vector<uint8_t> out;
  out.reserve(kHeaderSize + 64 + inlineLen);
  out.resize(kHeaderSize);
  WireWriter w(out);
  FieldWriter f{w, inlineBytes, inlineLen};
  std::visit([&f](const auto& m) { std::decay_t<decltype(m)>::fields(f, m); }, body);
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
