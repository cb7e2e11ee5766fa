// Little-endian byte writer/reader for the wire protocol. The reader never reads past the
// end: a truncated or malformed message yields a Protocol error, never a crash.
//
// Byte order: the wire is little-endian, every field and array (docs/architecture.md,
// "Wire format"). Values are copied as the host stores them, which is that order on every
// host Ferry builds for (x86_64, aarch64, ppc64le); a big-endian host would need a byte
// swap in put() and get() and in the bulk copies of protocol.cpp, so it fails to compile
// here rather than speak a different wire.
#pragma once

#include <bit>

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "platform/status.h"

namespace ferry::comm {

static_assert(std::endian::native == std::endian::little,
              "Ferry's wire is little-endian and this host is not: add byte swaps to comm/wire.h");

class WireWriter {
 public:
  explicit WireWriter(std::vector<uint8_t>& out) : out_(out) {}

  template <typename T>
    requires std::is_trivially_copyable_v<T>
  WireWriter& put(const T& v) {
    size_t at = out_.size();
    out_.resize(at + sizeof(T));
    std::memcpy(out_.data() + at, &v, sizeof(T));
    return *this;
  }
  WireWriter& bytes(const void* data, size_t len) {
    size_t at = out_.size();
    out_.resize(at + len);
    if (len) std::memcpy(out_.data() + at, data, len);
    return *this;
  }
  // Length-prefixed (u32) string.
  WireWriter& str(std::string_view s) {
    put<uint32_t>(static_cast<uint32_t>(s.size()));
    return bytes(s.data(), s.size());
  }
  size_t size() const { return out_.size(); }

 private:
  std::vector<uint8_t>& out_;
};

class WireReader {
 public:
  WireReader(const uint8_t* data, size_t len) : p_(data), end_(data + len) {}

  template <typename T>
    requires std::is_trivially_copyable_v<T>
  bool get(T& v) {
    if (remaining() < sizeof(T)) return fail();
    std::memcpy(&v, p_, sizeof(T));
    p_ += sizeof(T);
    return true;
  }
  // Returns a pointer into the message; valid as long as the message buffer is.
  bool view(const uint8_t*& out, size_t len) {
    if (remaining() < len) return fail();
    out = p_;
    p_ += len;
    return true;
  }
  bool str(std::string& s, size_t maxLen = 1 << 20) {
    uint32_t n = 0;
    if (!get(n) || n > maxLen || remaining() < n) return fail();
    s.assign(reinterpret_cast<const char*>(p_), n);
    p_ += n;
    return true;
  }
  size_t remaining() const { return static_cast<size_t>(end_ - p_); }
  bool ok() const { return ok_; }

 private:
  bool fail() {
    ok_ = false;
    return false;
  }
  const uint8_t* p_;
  const uint8_t* end_;
  bool ok_ = true;
};

}  // namespace ferry::comm
