// Input: one control message as it arrives over MPI. A serving rank decodes what rank 0
// sends on the control tag (service/server.cpp), and each item of a batch again; rank 0
// decodes replies and device output (offload/client_wait.cpp, device_output.cpp); the
// liveness responders decode probes (comm/liveness.cpp). Any rank of the job, a peer of
// another Ferry build, or any other MPI traffic on those tags can send these bytes.
//
// Properties: decode() never reads outside the message; what it accepts, encode() writes
// back byte for byte (bar the header words decode() ignores), and that decodes again.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <utility>
#include <variant>
#include <vector>

#include "comm/protocol.h"
#include "fuzz_check.h"

namespace {
using namespace ferry::comm;

// The inline payload that encode() takes as a separate argument, as the sender gave it.
std::pair<const void*, size_t> inlinePayload(const Body& body) {
  if (auto* m = std::get_if<LoadImageMsg>(&body); m && m->data.mode == DataMode::Inline)
    return {m->inlineBytes, static_cast<size_t>(m->data.size)};
  if (auto* m = std::get_if<SubmitMsg>(&body); m && m->data.mode == DataMode::Inline)
    return {m->inlineBytes, static_cast<size_t>(m->data.size)};
  if (auto* m = std::get_if<ReplyMsg>(&body)) return {m->inlineBytes, static_cast<size_t>(m->inlineSize)};
  return {nullptr, 0};
}

std::vector<uint8_t> reencode(const Message& m) {
  auto [bytes, len] = inlinePayload(m.body);
  return encode(m.header.type, m.header.device, m.header.seq, m.body, bytes, len);
}

// decode() reads neither the header's flags nor its reserved word; encode() writes both as 0.
std::vector<uint8_t> canonical(const uint8_t* data, size_t size) {
  std::vector<uint8_t> out(data, data + size);
  std::memset(out.data() + offsetof(Header, flags), 0, sizeof(uint32_t));
  std::memset(out.data() + offsetof(Header, reserved), 0, sizeof(uint32_t));
  return out;
}

void checkRoundTrip(const uint8_t* data, size_t size, const Message& m) {
  std::vector<uint8_t> again = reencode(m);
  FUZZ_CHECK(again == canonical(data, size), "re-encoding a decoded message changed its bytes");
  auto second = decode(again.data(), again.size());
  FUZZ_CHECK(second.isOk(), "a re-encoded message no longer decodes");
  FUZZ_CHECK(reencode(*second) == again, "a message changed on its second round trip");
}

void checkRefusal(const ferry::Status& st) {
  FUZZ_CHECK(st.code() == ferry::Errc::Protocol || st.code() == ferry::Errc::VersionMismatch,
             "decode() refused a message with an unexpected error code");
  FUZZ_CHECK(!st.message().empty(), "decode() refused a message without saying why");
}

// The server decodes each item of a batch on its own (Server::dispatchBatch).
void checkBatch(const BatchMsg& batch) {
  for (const auto& [bytes, len] : batch.items) {
    auto item = decode(bytes, len);
    if (item) checkRoundTrip(bytes, len, *item);
    else checkRefusal(item.status());
  }
}

// The templated Ok reply that replaces encode() on the hot path must decode like it.
void checkOkReply(const uint8_t* data, size_t size) {
  uint64_t seq = 0, mark = 0;
  std::memcpy(&seq, data, std::min(size, sizeof seq));
  if (size > sizeof seq) std::memcpy(&mark, data + sizeof seq, std::min(size - sizeof seq, sizeof mark));
  std::vector<uint8_t> reply = encodeOkReply(seq, mark);
  auto m = decode(reply.data(), reply.size());
  FUZZ_CHECK(m.isOk() && m->header.seq == seq, "encodeOkReply() wrote a reply decode() refuses");
  FUZZ_CHECK(std::get<ReplyMsg>(m->body).outputMark == mark, "encodeOkReply() lost the output mark");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto msg = decode(data, size);
  if (!msg) {
    checkRefusal(msg.status());
  } else {
    checkRoundTrip(data, size, *msg);
    if (auto* batch = std::get_if<BatchMsg>(&msg->body)) checkBatch(*batch);
  }
  if (size <= 16) checkOkReply(data, size);
  return 0;
}
